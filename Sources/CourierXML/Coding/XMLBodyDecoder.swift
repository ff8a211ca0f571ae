public import Courier
import Foundation
public import XMLCoder

/// Decodes XML response bodies into `Decodable` models with XMLCoder's `XMLDecoder`:
/// `application/xml`, `text/xml` and every `+xml` type (`application/atom+xml`, …).
///
/// Before XMLCoder sees the body, Courier settles its charset and checks the document: bad text
/// fails with `DecodingFailure/Reason/invalidText(charset:)`; a document that is not well-formed,
/// has a `<!DOCTYPE`, or passes one of the ``limits`` fails with
/// `DecodingFailure/Reason/decodingError(_:)` holding the ``XMLParsingError`` (with line and
/// column); a well-formed document of the wrong shape fails with XMLCoder's `DecodingError`.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.responseDecoders = [XMLBodyDecoder()]   // chosen by Content-Type
/// // or for one endpoint, whatever the Content-Type:
/// var responseDecoder: (any ResponseBodyDecoder)? { XMLBodyDecoder() }
/// ```
public struct XMLBodyDecoder: ResponseBodyDecoder {
    // The charset: a byte-order mark, the Content-Type's `charset`, the XML declaration, else UTF-8.
    // Bytes that are not valid text in that charset fail with .invalidText(charset:) (an unknown
    // charset with .unsupportedCharset(_:)), as Response.text() does. Refused before XMLCoder sees
    // them, as a DecodingError.dataCorrupted whose underlying error is the XMLParsingError: a
    // document that is not well-formed, has a `<!DOCTYPE` (no XXE, no entity expansion), holds a
    // NUL, starts with bytes in another encoding than its charset (UTF-16 served as
    // `charset=utf-8`), passes one of the limits (nesting depth, element count, attributes per
    // element), or has text in so many pieces that XMLCoder would take seconds to join them
    // (XMLParsingError.Reason.textTooFragmented).
    private let makeDecoder: @Sendable () -> XMLDecoder
    /// What a response may hold before XMLCoder sees it; ``XMLParsingLimits/default`` unless
    /// given. The default depth, 128, keeps XMLCoder's recursion well within a 512 KB thread stack
    /// (see ``XMLParsingLimits/maximumDepth`` for a model that contains itself).
    ///
    /// ```swift
    /// var decoder = XMLBodyDecoder()
    /// decoder.limits.maximumDepth = 32
    /// ```
    public var limits: XMLParsingLimits

    /// Creates a decoder.
    ///
    /// ```swift
    /// import XMLCoder
    ///
    /// let decoder = XMLBodyDecoder {
    ///     let decoder = XMLDecoder()
    ///     decoder.dateDecodingStrategy = .iso8601
    ///     return decoder
    /// }
    /// ```
    /// - Parameters:
    ///   - limits: what a response may hold (depth, elements, attributes per element);
    ///     ``XMLParsingLimits/default`` unless given.
    ///   - makeDecoder: makes the `XMLDecoder` to use, called once per response. Its
    ///     `errorContextLength` is set to 0.
    public init(limits: XMLParsingLimits = .default, _ makeDecoder: @escaping @Sendable () -> XMLDecoder = { XMLDecoder() }) {
        // A new XMLDecoder per response: it is a mutable class, so Courier never shares one between
        // calls. errorContextLength is 0 because XMLCoder's error context can crash on some documents,
        // and Courier reports the line and column itself.
        self.limits = limits
        self.makeDecoder = makeDecoder
    }

    /// `["application/xml", "text/xml"]`, sent in `Accept`.
    ///
    /// ```swift
    /// XMLBodyDecoder().mediaTypes   // ["application/xml", "text/xml"]
    /// ```
    public var mediaTypes: [String] { ["application/xml", "text/xml"] }

    /// `application/xml`, `text/xml`, and any `…+xml` type.
    ///
    /// ```swift
    /// XMLBodyDecoder().canDecode(mediaType: "application/atom+xml")   // true
    /// ```
    public func canDecode(mediaType: String) -> Bool {
        Self.isXML(mediaType)
    }

    /// Decodes the body as `type`.
    /// - Throws: see the type's documentation.
    ///
    /// ```swift
    /// let book = try XMLBodyDecoder().decode(Book.self, from: response)
    /// ```
    public func decode<T: Decodable>(_ type: T.Type, from response: Response) throws -> T {
        let data = try XMLResponseBody.checkedData(of: response, limits: limits, expecting: T.self)
        let decoder = makeDecoder()
        decoder.errorContextLength = 0
        return try decoder.decode(T.self, from: data)
    }

    /// `application/xml`, `text/xml` or a `+xml` structured-syntax suffix (RFC 7303).
    static func isXML(_ mediaType: String) -> Bool {
        mediaType == "application/xml" || mediaType == "text/xml" || mediaType.hasSuffix("+xml")
    }
}

/// Reading a response's XML body safely.
enum XMLResponseBody {
    /// The body as UTF-8 XML that is well-formed, within `limits`, and has no document type
    /// declaration: the very bytes that were checked, for XMLCoder to parse.
    /// - Throws: `CourierError.decoding` for text that is not valid in its charset;
    ///   `DecodingError.dataCorrupted` (underlying: ``XMLParsingError``) for anything else.
    static func checkedData<T>(of response: Response, limits: XMLParsingLimits, expecting type: T.Type) throws -> Data {
        do {
            return Data(
                try XMLTreeParser.parse(
                    response.body, charset: response.charset, buildsTree: false, limits: limits,
                    checksTextJoining: true
                ).bytes)
        } catch {
            throw translate(error, response: response, expecting: type)
        }
    }

    /// `data`, XML that CourierXML wrote from a checked tree (a SOAP payload), once checked for
    /// text XMLCoder would take too long to join (see ``XMLCoderTextJoining``). The line and
    /// column of that error are in `data`, not in the response.
    static func checkedTextJoining<T>(of data: Data, response: Response, expecting type: T.Type) throws -> Data {
        do {
            _ = try XMLTreeParser.parse(data, charset: "utf-8", buildsTree: false, limits: .unlimited, checksTextJoining: true)
            return data
        } catch {
            throw translate(error, response: response, expecting: type)
        }
    }

    /// The tree of the body.
    /// - Throws: as ``checkedData(of:limits:expecting:)``.
    static func document<T>(of response: Response, limits: XMLParsingLimits, expecting type: T.Type) throws -> XMLTreeDocument {
        do {
            return try XMLTreeDocument(data: response.body, charset: response.charset, limits: limits)
        } catch {
            throw translate(error, response: response, expecting: type)
        }
    }

    /// Text problems become the same `DecodingFailure` reasons as `Response/text()`; markup
    /// problems a `DecodingError`, like malformed JSON.
    static func translate<T>(_ error: XMLParsingError, response: Response, expecting type: T.Type) -> any Error {
        switch error.reason {
        case .invalidText(let charset):
            return CourierError.decoding(
                DecodingFailure(
                    reason: .invalidText(charset: charset), response: response,
                    expectedType: "\(T.self)"))
        case .unsupportedCharset(let charset):
            return CourierError.decoding(
                DecodingFailure(
                    reason: .unsupportedCharset(charset), response: response,
                    expectedType: "\(T.self)"))
        case .notWellFormed, .noRootElement, .documentTypeNotAllowed, .charsetMismatch, .nullCharacter, .tooDeep,
            .tooManyElements, .tooManyAttributes, .textTooFragmented, .emptyProcessingInstruction:
            return DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: error.description, underlyingError: error))
        }
    }

    /// `error` as Courier reports a decoder's errors: a `CourierError` as it is, a
    /// `DecodingError` in `DecodingFailure/Reason/decodingError(_:)`, anything else (a
    /// ``SOAPFault``) in `DecodingFailure/Reason/decoderError(_:)`.
    static func courierError(_ error: any Error, response: Response, expectedType: String) -> CourierError {
        switch error {
        case let error as CourierError:
            error
        case let error as DecodingError:
            .decoding(DecodingFailure(reason: .decodingError(error), response: response, expectedType: expectedType))
        default:
            .decoding(DecodingFailure(reason: .decoderError(error), response: response, expectedType: expectedType))
        }
    }
}
