public import Courier

/// The SOAP version of a message: its envelope namespace, `Content-Type` and how the action is sent.
///
/// | | `.v1_1` | `.v1_2` |
/// | --- | --- | --- |
/// | namespace | `http://schemas.xmlsoap.org/soap/envelope/` | `http://www.w3.org/2003/05/soap-envelope` |
/// | `Content-Type` | `text/xml; charset=utf-8` | `application/soap+xml; charset=utf-8; action="…"` |
/// | action | `SOAPAction: "…"` header (always sent, `""` when none) | `action` parameter (omitted when none) |
/// | envelope prefix Courier writes | `soap:` | `env:` |
///
/// ```swift
/// SOAPVersion.v1_2.contentType(action: "urn:GetPrice")
/// // application/soap+xml; charset=utf-8; action="urn:GetPrice"
/// ```
public enum SOAPVersion: Sendable, Hashable, CaseIterable {
    /// SOAP 1.1 (W3C Note, 2000).
    ///
    /// ```swift
    /// let envelope = SOAPEnvelope(version: .v1_1, body: XMLTreeNode("Ping"))
    /// ```
    case v1_1
    /// SOAP 1.2 (W3C Recommendation, 2003/2007).
    ///
    /// ```swift
    /// let envelope = SOAPEnvelope(version: .v1_2, body: XMLTreeNode("Ping"))
    /// ```
    case v1_2

    /// The envelope namespace.
    ///
    /// ```swift
    /// SOAPVersion.v1_1.namespace   // "http://schemas.xmlsoap.org/soap/envelope/"
    /// ```
    public var namespace: String {
        switch self {
        case .v1_1: "http://schemas.xmlsoap.org/soap/envelope/"
        case .v1_2: "http://www.w3.org/2003/05/soap-envelope"
        }
    }

    /// The media type of messages: `text/xml` (1.1) or `application/soap+xml` (1.2).
    ///
    /// ```swift
    /// SOAPVersion.v1_2.mediaType   // "application/soap+xml"
    /// ```
    public var mediaType: String {
        switch self {
        case .v1_1: "text/xml"
        case .v1_2: "application/soap+xml"
        }
    }

    /// The namespace prefix ``SOAPEnvelope`` uses unless told otherwise: `soap` for 1.1 (the
    /// usual choice of WSDL tooling) and `env` for 1.2 (the one of the W3C specification).
    ///
    /// ```swift
    /// SOAPVersion.v1_2.defaultPrefix   // "env"
    /// ```
    public var defaultPrefix: String {
        switch self {
        case .v1_1: "soap"
        case .v1_2: "env"
        }
    }

    /// The version whose envelope namespace is `namespace`, if any.
    ///
    /// ```swift
    /// SOAPVersion(namespace: "http://www.w3.org/2003/05/soap-envelope")   // .v1_2
    /// ```
    public init?(namespace: String) {
        guard let version = Self.allCases.first(where: { $0.namespace == namespace }) else { return nil }
        self = version
    }

    /// The `Content-Type` of a request: 1.1 `text/xml; charset=utf-8`; 1.2
    /// `application/soap+xml; charset=utf-8`, with `; action="…"` when there is an action.
    ///
    /// ```swift
    /// SOAPVersion.v1_1.contentType(action: "urn:GetPrice")   // text/xml; charset=utf-8
    /// ```
    public func contentType(action: String?) -> String {
        switch self {
        case .v1_1:
            return "text/xml; charset=utf-8"
        case .v1_2:
            let base = "application/soap+xml; charset=utf-8"
            return action.map { "\(base); action=\(Self.quoted($0))" } ?? base
        }
    }

    /// The other headers of a request: 1.1 `SOAPAction` with the action quoted (`""` when there is
    /// none, as SOAP 1.1 §6.1.1 requires the header); none for 1.2.
    ///
    /// ```swift
    /// SOAPVersion.v1_1.headers(action: "urn:GetPrice")   // [SOAPAction: "urn:GetPrice"] (with the quotes)
    /// ```
    public func headers(action: String?) -> [HeaderItem] {
        switch self {
        case .v1_1: [HeaderItem(name: "SOAPAction", value: Self.quoted(action ?? ""))]
        case .v1_2: []
        }
    }

    /// An HTTP quoted-string: `"` and `\` escaped with a backslash.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result + "\""
    }
}
