/// An OAuth2 error response (RFC 6749 §5.2), e.g. `{"error":"invalid_grant"}`.
public struct OAuth2Error: Error, Sendable, Equatable, Codable {
    /// The error code: `invalid_request`, `invalid_client`, `invalid_grant`,
    /// `unauthorized_client`, `unsupported_grant_type`, `invalid_scope`, or an extension code.
    public var code: String
    /// The server's human-readable explanation, if any.
    public var errorDescription: String?
    /// A page about the error, if any.
    public var errorURI: String?

    /// Creates an OAuth2 error.
    public init(code: String, errorDescription: String? = nil, errorURI: String? = nil) {
        self.code = code
        self.errorDescription = errorDescription
        self.errorURI = errorURI
    }

    enum CodingKeys: String, CodingKey {
        case code = "error"
        case errorDescription = "error_description"
        case errorURI = "error_uri"
    }
}

extension OAuth2Error: CustomStringConvertible {
    /// `invalid_grant: The refresh token was revoked`, on one line: control and bidirectional
    /// formatting characters are escaped (`\u{1B}`).
    public var description: String {
        let code = Redaction.singleLine(code)
        return errorDescription.map { "\(code): \(Redaction.singleLine($0))" } ?? code
    }
}
