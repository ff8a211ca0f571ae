/// An HTTP request method: one of the standard ones, or any other RFC 9110 token.
///
/// ```swift
/// let method: HTTPMethod = .post
/// let purge = try HTTPMethod(validating: "PURGE")
/// ```
///
/// Methods are case-sensitive (RFC 9110 §9.1): `"get"` is not `"GET"`.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable {
    /// The method as sent on the wire, e.g. `"GET"`.
    public let rawValue: String

    /// Creates a method from a token; `nil` if `rawValue` is not an RFC 9110 token.
    public init?(rawValue: String) {
        guard HTTPToken.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// Creates a method from a token.
    /// - Throws: ``CourierError/invalidRequest(_:)`` with ``InvalidRequest/invalidMethod(_:)``
    ///   if `string` is empty or contains a character that is not a `tchar`.
    public init(validating string: String) throws(CourierError) {
        guard let method = HTTPMethod(rawValue: string) else {
            throw .invalidRequest(.invalidMethod(string))
        }
        self = method
    }

    private init(known: String) { rawValue = known }

    /// `GET`: transfer a representation of the target resource.
    public static let get = HTTPMethod(known: "GET")
    /// `HEAD`: like GET, but the server sends no body.
    public static let head = HTTPMethod(known: "HEAD")
    /// `POST`: process the enclosed representation.
    public static let post = HTTPMethod(known: "POST")
    /// `PUT`: replace the target resource with the enclosed representation.
    public static let put = HTTPMethod(known: "PUT")
    /// `PATCH`: apply partial modifications (RFC 5789).
    public static let patch = HTTPMethod(known: "PATCH")
    /// `DELETE`: remove the target resource.
    public static let delete = HTTPMethod(known: "DELETE")
    /// `OPTIONS`: describe the communication options for the target resource.
    public static let options = HTTPMethod(known: "OPTIONS")

    /// Whether a request with this method may carry a body. GET and HEAD may not: RFC 9110
    /// gives such a body no meaning and many servers and proxies reject or drop it.
    var allowsRequestBody: Bool {
        self != .get && self != .head
    }
}

extension HTTPMethod: CustomStringConvertible {
    /// The method token, e.g. `GET`.
    public var description: String { rawValue }
}
