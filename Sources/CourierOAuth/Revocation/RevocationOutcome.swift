public import Courier

/// How revoking a signed-out credential went (RFC 7009): what
/// `TokenRefresher.signOut(revokingAt:timeout:)` returns.
///
/// ```swift
/// let outcome = try await refresher.signOut(revokingAt: revocation)
/// if !outcome.isComplete {
///     logger.warning("sign-out: the server may still honour the old tokens (\(outcome))")
/// }
/// ```
///
/// Its `description` never holds a token.
public struct RevocationOutcome: Sendable, Equatable {
    /// What happened to one token.
    #if hasAttribute(nonexhaustive)
        @nonexhaustive
    #endif
    public enum Result: Sendable, Equatable {
        /// The server answered 2xx: the token is revoked (or was already invalid).
        case revoked
        /// The server refused or could not be reached; the text says why (never the token), and
        /// `underlyingError` is the failure itself (not compared by `==`).
        case failed(String, underlyingError: CourierError? = nil)
        /// The time allowed for revocation ran out before the server answered (the request was
        /// cancelled), or before the request was sent.
        case timedOut

        /// Two results are equal when their case and text are; underlying errors are not compared.
        public static func == (lhs: Result, rhs: Result) -> Bool {
            switch (lhs, rhs) {
            case (.revoked, .revoked), (.timedOut, .timedOut): true
            case (.failed(let a, _), .failed(let b, _)): a == b
            default: false
            }
        }
    }

    /// The refresh token's outcome; `nil` when the credential had none.
    public var refreshToken: Result?
    /// The access token's outcome; `nil` when there was no credential.
    public var accessToken: Result?

    /// Creates an outcome.
    public init(refreshToken: Result?, accessToken: Result?) {
        self.refreshToken = refreshToken
        self.accessToken = accessToken
    }

    /// Whether every token the credential held was revoked (also `true` when there was none).
    public var isComplete: Bool {
        [refreshToken, accessToken].allSatisfy { $0 == nil || $0 == .revoked }
    }
}

extension RevocationOutcome: CustomStringConvertible {
    /// For example `refresh token revoked, access token failed (…)`, or `nothing to revoke`.
    public var description: String {
        func text(_ result: Result) -> String {
            switch result {
            case .revoked: "revoked"
            case .failed(let why, _): "failed (\(why))"
            case .timedOut: "timed out"
            }
        }
        var parts: [String] = []
        if let refreshToken { parts.append("refresh token \(text(refreshToken))") }
        if let accessToken { parts.append("access token \(text(accessToken))") }
        return parts.isEmpty ? "nothing to revoke" : parts.joined(separator: ", ")
    }
}
