public import Courier
import Foundation
public import XMLCoder

/// Decodes the payload of a SOAP 1.1 or 1.2 response (`Envelope/Body/<payload>`) into a
/// `Decodable` model with XMLCoder, and throws the ``SOAPFault`` when the body holds a fault.
///
/// Coding keys match local names (`Price` for `m:Price`). A fault in a 200 is kept in
/// `DecodingFailure/Reason/decoderError(_:)`; read it with `CourierError/soapFault`. Since
/// `resume(expecting: EmptyResponse.self)` asks no decoder, use `resume()` and
/// `Response/soapFault` for one-way operations.
///
/// ```swift
/// struct GetPrice: Requestable {
///     let item: String
///     func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "stock.example.com") }
///     var method: HTTPMethod { .post }
///     var body: RequestBody? { .soap(SOAPEnvelope(body: GetPriceRequest(Item: item), namespace: "urn:stock")) }
///     var responseDecoder: (any ResponseBodyDecoder)? { SOAPBodyDecoder() }
/// }
/// let price = try await client.enqueue(GetPrice(item: "Apples")).resume(expecting: GetPriceResponse.self).Price
/// ```
public struct SOAPBodyDecoder: ResponseBodyDecoder {
    // The version is read from the envelope's namespace; the payload is the first element in Body.
    // It is handed to XMLCoder on its own, with the namespace declarations in scope copied onto it,
    // and (by default) with shouldProcessNamespaces on. For the payload as a tree, call
    // Response.soapPayload(limits:) on the response of resume(). A fault with status 500 fails the
    // call before decoding, with CourierError.response(_:); Response.soapFault reads it there.
    // A root that is not a SOAP Envelope is a DecodingError.dataCorrupted, a missing Body a
    // DecodingError.keyNotFound, an empty Body a DecodingError.valueNotFound; bad text and malformed
    // XML are reported as by XMLBodyDecoder.
    private let makeDecoder: @Sendable () -> XMLDecoder
    /// What a response may hold (the whole envelope) before it is read; ``XMLParsingLimits/default``
    /// unless given. Past a limit the call fails as for ``XMLBodyDecoder``.
    ///
    /// ```swift
    /// var decoder = SOAPBodyDecoder()
    /// decoder.limits.maximumElementCount = 10_000
    /// ```
    public var limits: XMLParsingLimits

    /// Creates a decoder.
    ///
    /// ```swift
    /// import XMLCoder
    ///
    /// let decoder = SOAPBodyDecoder {
    ///     let decoder = XMLDecoder()
    ///     decoder.shouldProcessNamespaces = true
    ///     decoder.dateDecodingStrategy = .iso8601
    ///     return decoder
    /// }
    /// ```
    /// - Parameters:
    ///   - limits: what a response may hold; ``XMLParsingLimits/default`` unless given.
    ///   - makeDecoder: makes the `XMLDecoder` for the payload, once per response. The default has
    ///     `shouldProcessNamespaces` on. Its `errorContextLength` is set to 0.
    public init(
        limits: XMLParsingLimits = .default,
        _ makeDecoder: @escaping @Sendable () -> XMLDecoder = SOAPBodyDecoder.namespaceAwareDecoder
    ) {
        // errorContextLength is 0 for the same reason as in XMLBodyDecoder: XMLCoder's error context
        // can crash on some documents, and Courier reports the line and column itself.
        self.limits = limits
        self.makeDecoder = makeDecoder
    }

    /// An `XMLDecoder` with `shouldProcessNamespaces` on: the default payload decoder.
    ///
    /// ```swift
    /// let decoder = SOAPBodyDecoder.namespaceAwareDecoder()
    /// ```
    @Sendable public static func namespaceAwareDecoder() -> XMLDecoder {
        let decoder = XMLDecoder()
        decoder.shouldProcessNamespaces = true
        return decoder
    }

    /// `["application/soap+xml", "text/xml"]` (SOAP 1.2, SOAP 1.1), sent in `Accept`.
    ///
    /// ```swift
    /// SOAPBodyDecoder().mediaTypes   // ["application/soap+xml", "text/xml"]
    /// ```
    public var mediaTypes: [String] { ["application/soap+xml", "text/xml"] }

    /// `application/soap+xml`, `text/xml`, `application/xml` and any other `…+xml` type.
    ///
    /// ```swift
    /// SOAPBodyDecoder().canDecode(mediaType: "application/soap+xml")   // true
    /// ```
    public func canDecode(mediaType: String) -> Bool {
        XMLBodyDecoder.isXML(mediaType)
    }

    /// Decodes the payload as `type`, or throws the fault.
    /// - Throws: ``SOAPFault``, or the errors listed on the type.
    ///
    /// ```swift
    /// let price = try SOAPBodyDecoder().decode(GetPriceResponse.self, from: response)
    /// ```
    public func decode<T: Decodable>(_ type: T.Type, from response: Response) throws -> T {
        let payload = try SOAPMessage.payload(of: response, limits: limits, expecting: T.self)
        let decoder = makeDecoder()
        decoder.errorContextLength = 0
        let data = try XMLTreeDocument(root: payload, declaration: nil).xmlData()
        return try decoder.decode(T.self, from: try XMLResponseBody.checkedTextJoining(of: data, response: response, expecting: T.self))
    }
}

extension SOAPMessage {
    /// The first element in the response's SOAP `Body`, with the namespace declarations in scope
    /// copied onto it so that it reads on its own.
    /// - Throws: the ``SOAPFault``; a `DecodingError` for a body that is not an envelope, has no
    ///   `Body` or an empty one; errors of ``XMLResponseBody/document(of:limits:expecting:)``.
    static func payload<T>(of response: Response, limits: XMLParsingLimits, expecting type: T.Type) throws -> XMLTreeNode {
        let document = try XMLResponseBody.document(of: response, limits: limits, expecting: T.self)
        let message = try SOAPMessage(document)
        if let fault = message.fault { throw fault }
        guard let payload = message.bodyEntries.first else {
            throw DecodingError.valueNotFound(
                T.self,
                DecodingError.Context(
                    codingPath: [], debugDescription: "the SOAP Body is empty"))
        }
        return payload.scope.declaringAll(on: payload.node)
    }
}

extension Response {
    /// The payload of a SOAP response: the first element inside `Envelope/Body`, as a tree, with
    /// the namespace declarations in scope copied onto it. For payloads easier to walk than to
    /// model as `Decodable`.
    ///
    /// ```swift
    /// let response = try await client.enqueue(GetPrice(item: "Apples")).resume()
    /// let payload = try response.soapPayload()                       // <m:GetPriceResponse xmlns:m="urn:stock">…
    /// let price = try payload.firstChild(named: "m:Price")?.value(Decimal.self)
    /// ```
    /// - Parameter limits: what the envelope may hold (depth, elements, attributes per element);
    ///   ``XMLParsingLimits/default`` unless given.
    /// - Throws: `CourierError/decoding(_:)`, as ``SOAPBodyDecoder`` would fail: a fault is kept
    ///   in `DecodingFailure/Reason/decoderError(_:)` (`CourierError/soapFault` reads it).
    public func soapPayload(limits: XMLParsingLimits = .default) throws(CourierError) -> XMLTreeNode {
        do {
            return try SOAPMessage.payload(of: self, limits: limits, expecting: XMLTreeNode.self)
        } catch {
            throw XMLResponseBody.courierError(error, response: self, expectedType: "XMLTreeNode")
        }
    }

    /// The body as an XML tree, read in the response's charset (see
    /// ``XMLTreeDocument/init(data:charset:preservingWhitespace:limits:)``).
    ///
    /// ```swift
    /// let response = try await client.enqueue(GetFeed()).resume()
    /// let titles = try response.xmlDocument().root.descendants(named: "title").map(\.text)
    /// ```
    /// - Parameter limits: what the document may hold (depth, elements, attributes per element);
    ///   ``XMLParsingLimits/default`` unless given.
    /// - Throws: `CourierError/decoding(_:)`: `DecodingFailure/Reason/invalidText(charset:)` or
    ///   `DecodingFailure/Reason/unsupportedCharset(_:)` for bad text, else
    ///   `DecodingFailure/Reason/decodingError(_:)` with a `DecodingError.dataCorrupted` whose
    ///   underlying error is the ``XMLParsingError`` (a limit passed included).
    public func xmlDocument(limits: XMLParsingLimits = .default) throws(CourierError) -> XMLTreeDocument {
        do {
            return try XMLResponseBody.document(of: self, limits: limits, expecting: XMLTreeDocument.self)
        } catch {
            throw XMLResponseBody.courierError(error, response: self, expectedType: "XMLTreeDocument")
        }
    }
}
