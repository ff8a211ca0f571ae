public import Foundation

/// An OAuth2-style access token with what is needed to use and renew it.
///
/// ```swift
/// let credential = TokenCredential(accessToken: "at-1", refreshToken: "rt-1",
///                                  expiresAt: Date().addingTimeInterval(3600))
/// ```
///
/// Neither its `description` (nor `String(reflecting:)`) nor a `dump` of it prints a token;
/// `Codable` encodes the real values (for token stores).
public struct TokenCredential: Codable, Sendable, Equatable {
    /// The access token sent in `Authorization: <tokenType> <accessToken>`.
    public var accessToken: String
    /// The refresh token, if the server issued one.
    public var refreshToken: String?
    /// When the access token expires; `nil` when unknown (it is then used until a 401 says otherwise).
    public var expiresAt: Date?
    /// The token type, `"Bearer"` for RFC 6750 tokens.
    public var tokenType: String
    /// The scope the token was granted for, space-separated, if the server said.
    public var scope: String?
    /// When the token was issued, used to cap the refresh leeway at half the token's lifetime.
    public var issuedAt: Date?

    /// Creates a credential.
    public init(
        accessToken: String,
        refreshToken: String? = nil,
        expiresAt: Date? = nil,
        tokenType: String = "Bearer",
        scope: String? = nil,
        issuedAt: Date? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.tokenType = tokenType
        self.scope = scope
        self.issuedAt = issuedAt
    }

    /// The value of the `Authorization` header: `Bearer <token>` for bearer tokens (whatever the
    /// case the server used for the type), `<type> <token>` otherwise.
    var authorizationValue: String {
        // ASCII case folding on the bytes: Foundation's caseInsensitiveCompare bridges to
        // NSString on Linux and allocated about 30 times, on every signed request.
        let isBearer =
            tokenType.utf8.count == 6
            && zip(tokenType.utf8, "bearer".utf8).allSatisfy { $0 | 0x20 == $1 }
        return (isBearer ? "Bearer" : tokenType) + " " + accessToken
    }

    /// Whether the token must be refreshed at `now`: it expires within `leeway`, where the leeway
    /// is never more than half the token's lifetime (so a token that lives 40 s is not refreshed
    /// the moment it arrives just because the leeway is 30 s). A token without expiry never needs
    /// a proactive refresh.
    func needsRefresh(at now: Date, leeway: Duration) -> Bool {
        guard let expiresAt else { return false }
        var effectiveLeeway = max(0, leeway.timeInterval)
        if let issuedAt, expiresAt > issuedAt {
            effectiveLeeway = min(effectiveLeeway, expiresAt.timeIntervalSince(issuedAt) / 2)
        }
        return now.addingTimeInterval(effectiveLeeway) >= expiresAt
    }
}

extension TokenCredential: CustomStringConvertible, CustomReflectable {
    /// Type, expiry, whether a refresh token is present and the scope (on one line, its first 256
    /// characters); never the tokens.
    public var description: String {
        var parts = ["type: \(Redaction.singleLine(String(tokenType.prefix(64))))", "access token: <redacted>"]
        parts.append(refreshToken == nil ? "no refresh token" : "refresh token: <redacted>")
        if let expiresAt { parts.append("expires: \(expiresAt)") }
        if let scope { parts.append("scope: \(Redaction.singleLine(scope.count > 256 ? scope.prefix(256) + "…" : scope))") }
        return "TokenCredential(\(parts.joined(separator: ", ")))"
    }

    /// Every property, with both tokens shown as `<redacted>`, so that `dump(_:)` and
    /// reflection-based loggers cannot reach them. `Codable` still encodes the real tokens.
    ///
    /// ```swift
    /// dump(credential)   // ▿ TokenCredential(type: Bearer, access token: <redacted>, …)
    ///                    //   - accessToken: "<redacted>" …
    /// ```
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "accessToken": Redaction.placeholder,
                "refreshToken": refreshToken.map { _ in Redaction.placeholder } as Any,
                "expiresAt": expiresAt as Any,
                "tokenType": tokenType,
                "scope": scope as Any,
                "issuedAt": issuedAt as Any,
            ], displayStyle: .struct)
    }
}
