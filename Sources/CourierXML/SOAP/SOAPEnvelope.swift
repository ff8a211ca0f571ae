public import Courier
import Foundation
public import XMLCoder

/// A SOAP request: the envelope, optional header entries, and one body entry (an
/// ``XMLTreeNode``, or an `Encodable` value written with XMLCoder). Send it with
/// `RequestBody/soap(_:action:formatting:)`.
///
/// ```swift
/// let envelope = SOAPEnvelope(version: .v1_1, body: XMLTreeNode(
///     "m:GetPrice", attributes: ["xmlns:m": "urn:stock"], elements: [XMLTreeNode("m:Item", text: "Apples")]))
/// try envelope.document().xmlString()
/// // <?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">
/// // <soap:Body><m:GetPrice xmlns:m="urn:stock"><m:Item>Apples</m:Item></m:GetPrice></soap:Body></soap:Envelope>
/// ```
///
/// The envelope's elements use the prefix ``prefix`` (`soap` for 1.1, `env` for 1.2 by
/// default). The `Header` element is written only when there are header entries.
public struct SOAPEnvelope: Sendable {
    /// The SOAP version.
    ///
    /// ```swift
    /// var envelope = SOAPEnvelope(body: XMLTreeNode("Ping"))
    /// envelope.version = .v1_2
    /// ```
    public var version: SOAPVersion
    /// The namespace prefix of the `Envelope`, `Header` and `Body` elements.
    ///
    /// ```swift
    /// envelope.prefix = "SOAP-ENV"   // <SOAP-ENV:Envelope xmlns:SOAP-ENV="…">
    /// ```
    public var prefix: String
    /// The header entries (each should be namespace-qualified, as SOAP asks).
    ///
    /// ```swift
    /// envelope.header.append(XMLTreeNode("t:Trace", attributes: ["xmlns:t": "urn:trace"], text: "abc"))
    /// ```
    public var header: [XMLTreeNode]

    private let makeBody: @Sendable () throws -> XMLTreeNode

    /// An envelope whose body entry is a tree.
    ///
    /// ```swift
    /// let security = XMLTreeNode(
    ///     "wsse:Security", attributes: ["xmlns:wsse": "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"])
    /// let envelope = SOAPEnvelope(version: .v1_2, header: [security],
    ///                             body: XMLTreeNode("GetPrice", attributes: ["xmlns": "urn:stock"], elements: [XMLTreeNode("Item", text: "Apples")]))
    /// ```
    /// - Parameters:
    ///   - version: the SOAP version; 1.1 by default.
    ///   - prefix: the envelope's namespace prefix; ``SOAPVersion/defaultPrefix`` by default.
    ///   - header: header entries; none by default.
    ///   - body: the body entry.
    public init(version: SOAPVersion = .v1_1, prefix: String? = nil, header: [XMLTreeNode] = [], body: XMLTreeNode) {
        self.version = version
        self.prefix = prefix ?? version.defaultPrefix
        self.header = header
        makeBody = { body }
    }

    /// An envelope whose body entry is an `Encodable` value, written with XMLCoder when the request
    /// is built.
    ///
    /// ```swift
    /// let envelope = SOAPEnvelope(body: GetPrice(Item: "Apples"), namespace: "urn:stock")
    /// // …<soap:Body><GetPrice xmlns="urn:stock"><Item>Apples</Item></GetPrice></soap:Body>…
    /// ```
    /// - Parameters:
    ///   - version: the SOAP version; 1.1 by default.
    ///   - prefix: the envelope's namespace prefix; ``SOAPVersion/defaultPrefix`` by default.
    ///   - header: header entries; none by default.
    ///   - body: a struct, class, dictionary or array (as for `RequestBody.xml`).
    ///   - rootKey: the body entry's element name; by default the type's name.
    ///   - namespace: when given, the default namespace (`xmlns="…"`) of the body entry.
    ///   - encoder: makes the `XMLEncoder`, as for `RequestBody.xml`.
    public init(
        version: SOAPVersion = .v1_1, prefix: String? = nil, header: [XMLTreeNode] = [],
        body: some Encodable & Sendable, rootKey: String? = nil, namespace: String? = nil,
        encoder: (@Sendable () -> XMLEncoder)? = nil
    ) {
        self.version = version
        self.prefix = prefix ?? version.defaultPrefix
        self.header = header
        makeBody = {
            let data = try XMLCoding.encode(body, rootKey: rootKey, encoder: encoder?() ?? XMLCoding.defaultEncoder(), header: nil)
            var node = try XMLTreeDocument(data: data, charset: "utf-8", limits: .unlimited).root
            if let namespace {
                node.attributes.removeAll { $0.name == "xmlns" }
                node.attributes.insert(XMLTreeNode.Attribute(name: "xmlns", value: namespace), at: 0)
            }
            return node
        }
    }

    /// The whole message as a document: the declaration, then
    /// `Envelope` › (`Header` › header entries) › `Body` › body entry.
    ///
    /// ```swift
    /// let xml = try envelope.document().xmlString(.prettyPrinted)
    /// ```
    /// - Throws: the encoder's error when an `Encodable` body cannot be encoded.
    public func document() throws -> XMLTreeDocument {
        var children: [XMLTreeNode] = []
        if !header.isEmpty {
            children.append(XMLTreeNode(name: "\(prefix):Header", attributes: [], children: header.map(XMLTreeNode.Child.element)))
        }
        children.append(XMLTreeNode(name: "\(prefix):Body", attributes: [], children: [.element(try makeBody())]))
        let envelope = XMLTreeNode(
            name: "\(prefix):Envelope",
            attributes: [XMLTreeNode.Attribute(name: "xmlns:\(prefix)", value: version.namespace)],
            children: children.map(XMLTreeNode.Child.element))
        return XMLTreeDocument(root: envelope)
    }
}

extension RequestBody {
    /// A SOAP message, with the `Content-Type` and action headers of its version: for SOAP 1.1
    /// `text/xml; charset=utf-8` and `SOAPAction: "<action>"`; for SOAP 1.2
    /// `application/soap+xml; charset=utf-8; action="<action>"` and no `SOAPAction`.
    ///
    /// ```swift
    /// var body: RequestBody? { .soap(SOAPEnvelope(body: XMLTreeNode("m:GetPrice")), action: "urn:stock#GetPrice") }
    /// ```
    /// An endpoint header of the same name replaces `SOAPAction`. A body that cannot be encoded
    /// or written fails the call with `InvalidRequest/encodingFailed(_:underlyingError:)`.
    /// - Parameters:
    ///   - envelope: the message.
    ///   - action: the SOAP action URI, if the service uses one.
    ///   - formatting: compact (the default) or pretty-printed.
    public static func soap(
        _ envelope: SOAPEnvelope, action: String? = nil,
        formatting: XMLTreeFormatting = .compact
    ) -> RequestBody {
        // With a `nil` action, SOAP 1.1 sends `SOAPAction: ""` and SOAP 1.2 no `action` parameter.
        .custom(contentType: envelope.version.contentType(action: action), headers: envelope.version.headers(action: action)) {
            try envelope.document().xmlData(formatting)
        }
    }
}
