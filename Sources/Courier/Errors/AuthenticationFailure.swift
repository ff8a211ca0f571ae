/// Why authentication failed or could not be attempted, inside ``CourierError/authentication(_:)``.
///
/// ```swift
/// do {
///     _ = try await client.enqueue(GetProfile()).resume(expecting: Profile.self)
/// } catch .authentication(.refreshFailed(let failure)) where failure.isPermanent {
///     // the refresh token is dead (e.g. invalid_grant): ask the user to sign in again
///     showSignIn(reason: failure.oauth2Error?.errorDescription)
/// }
/// ```
#if hasAttribute(nonexhaustive)
    @nonexhaustive
#endif
public enum AuthenticationFailure: Error, Sendable, Equatable {
    /// The endpoint requires authorization but there is no credential: none was stored, or
    /// the app signed out.
    case missingCredential
    /// The endpoint requires authorization but its host is not one the configuration authorizes,
    /// so no credential was attached and nothing was sent.
    case hostNotAuthorized(host: String)
    /// The credential could not be refreshed. ``RefreshFailure/isPermanent`` tells whether later
    /// calls will fail the same way until the app supplies a new credential.
    case refreshFailed(RefreshFailure)
    /// More refreshes happened in a short window than the refresher allows: the server keeps
    /// rejecting fresh tokens. Refreshing stops until the app resets the refresher.
    case refreshLoopDetected(refreshes: Int, window: Duration)
    /// The token store could not load, save or remove the credential; the value is the error
    /// the store threw (a ``TokenStoreError`` from Courier's stores).
    case storeFailed(any Error)
    /// The credential cannot be sent as it is (e.g. a Basic username containing `:`).
    case invalidCredential(String)
    /// A token could not be revoked (RFC 7009) by CourierOAuth's
    /// `OAuth2RevocationEndpoint.revoke(_:hint:)`: the revocation endpoint refused (permanent)
    /// or did not answer usefully (transient; the token may still be valid). The
    /// ``RefreshFailure`` carries the reason, the status and the OAuth2 error body, as for a
    /// token request.
    case revocationFailed(RefreshFailure)
    /// An interactive OAuth2 flow (authorization code, device authorization, discovery) ended
    /// without a credential: the user denied access, the `state` or issuer did not match, the
    /// device code expired, the redirect never came. Nothing was sent to the token endpoint
    /// after the failure was found.
    case authorizationFailed(AuthorizationFailure)

    /// Failures are equal when their cases and values are; two store errors are equal when they
    /// print the same.
    public static func == (lhs: AuthenticationFailure, rhs: AuthenticationFailure) -> Bool {
        switch (lhs, rhs) {
        case (.missingCredential, .missingCredential): true
        case (.hostNotAuthorized(let a), .hostNotAuthorized(let b)): a == b
        case (.refreshFailed(let a), .refreshFailed(let b)): a == b
        case (.refreshLoopDetected(let a, let x), .refreshLoopDetected(let b, let y)): a == b && x == y
        case (.storeFailed(let a), .storeFailed(let b)): String(describing: a) == String(describing: b)
        case (.invalidCredential(let a), .invalidCredential(let b)): a == b
        case (.revocationFailed(let a), .revocationFailed(let b)): a == b
        case (.authorizationFailed(let a), .authorizationFailed(let b)): a == b
        default: false
        }
    }
}

extension AuthenticationFailure: CustomStringConvertible, CustomReflectable {
    /// A readable sentence; never contains a credential (a host is printed without user-info).
    ///
    /// ```swift
    /// AuthenticationFailure.missingCredential.description   // "no credential (not signed in, or signed out)"
    /// ```
    public var description: String {
        switch self {
        case .missingCredential:
            return "no credential (not signed in, or signed out)"
        case .hostNotAuthorized(let host):
            return
                "host \(Redaction.default.redact(urlString: host).debugDescription) is not in Configuration.authorizedHosts, so no credential was attached and nothing was sent"
        case .refreshFailed(let failure):
            if failure.endpoint == .deviceAuthorization { return "device authorization request failed: \(failure)" }
            guard let grant = failure.grantType, grant != "refresh_token" else { return "refresh failed: \(failure)" }
            return "token request failed (\(grant) grant): \(failure)"
        case .refreshLoopDetected(let refreshes, let window):
            return "refresh loop: \(refreshes) refreshes within \(window); refreshing is stopped until the refresher is reset"
        case .storeFailed(let reason):
            return "token store failed: \(reason)"
        case .invalidCredential(let reason):
            return "invalid credential: \(reason)"
        case .revocationFailed(let failure):
            return "revocation failed: \(failure.revocationDescription)"
        case .authorizationFailed(let failure):
            return "authorization failed: \(failure)"
        }
    }

    /// The description only: the default mirror would print a host as it was given.
    public var customMirror: Mirror {
        Mirror(self, children: [], displayStyle: .enum)
    }
}

/// Why a token refresh failed.
public struct RefreshFailure: Error, Sendable, Equatable {
    /// What went wrong.
    #if hasAttribute(nonexhaustive)
        @nonexhaustive
    #endif
    public enum Reason: Sendable, Equatable {
        /// The token endpoint rejected the grant or the client (HTTP 400 or 401, e.g.
        /// `invalid_grant`, `invalid_client`). Permanent.
        case rejected
        /// The token request got no response (network error, timeout).
        case transport(TransportFailure)
        /// The token endpoint answered with a status other than 2xx, 400 and 401 (e.g. 503).
        case unexpectedStatus
        /// The token endpoint answered 2xx with a body that is not a valid token response.
        case malformedResponse(String)
        /// A custom refresh closure threw; its description is kept, and the error itself is
        /// ``RefreshFailure/underlyingError``.
        case custom(String)
        /// An earlier transient failure is still backing off; no request was sent.
        case backingOff(retryAfter: Duration)
    }

    /// What went wrong.
    public var reason: Reason
    /// The OAuth2 error body, when the token endpoint sent one.
    public var oauth2Error: OAuth2Error?
    /// The HTTP status of the token endpoint's answer, when there was one.
    public var statusCode: Int?
    /// Whether the failure is permanent: every later call that needs authorization fails at once,
    /// without contacting the token endpoint, until the app resets the refresher.
    public var isPermanent: Bool
    /// The error a custom refresh closure threw (``Reason/custom(_:)``), kept whole. Not part of
    /// `==` and never printed.
    public var underlyingError: (any Error)? {
        get { underlying?.error }
        set { underlying = newValue.map(Unprinted.init) }
    }
    private var underlying: Unprinted?
    /// The `grant_type` of the token request that failed (`"refresh_token"`, `"password"`,
    /// `"client_credentials"`, …); `nil` for a refresh closure of the app's. Not part of `==`.
    public var grantType: String?
    /// The endpoint whose answer failed: the token endpoint unless the request was a device
    /// authorization request (RFC 8628 §3.1) or a revocation.
    package var endpoint = Endpoint.token

    /// The endpoints of a ``RefreshFailure``, named in its description.
    package enum Endpoint: Sendable {
        case token, deviceAuthorization, revocation

        var name: String {
            switch self {
            case .token: "token endpoint"
            case .deviceAuthorization: "device authorization endpoint"
            case .revocation: "revocation endpoint"
            }
        }
    }

    /// An error kept out of `dump(_:)` and every other mirror: an app's error may hold secrets.
    private struct Unprinted: Sendable, CustomReflectable {
        let error: any Error
        var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
    }

    /// Creates a refresh failure.
    public init(
        reason: Reason, oauth2Error: OAuth2Error? = nil, statusCode: Int? = nil, isPermanent: Bool, underlyingError: (any Error)? = nil,
        grantType: String? = nil
    ) {
        self.reason = reason
        self.oauth2Error = oauth2Error
        self.statusCode = statusCode
        self.isPermanent = isPermanent
        self.underlying = underlyingError.map(Unprinted.init)
        self.grantType = grantType
    }

    /// Two failures are equal when their reason, OAuth2 error, status and permanence are; the
    /// underlying errors are not compared.
    public static func == (lhs: RefreshFailure, rhs: RefreshFailure) -> Bool {
        lhs.reason == rhs.reason && lhs.oauth2Error == rhs.oauth2Error && lhs.statusCode == rhs.statusCode
            && lhs.isPermanent == rhs.isPermanent
    }
}

extension RefreshFailure: CustomStringConvertible {
    /// The reason, status and OAuth2 error; never a token.
    public var description: String {
        var text: String
        switch reason {
        case .rejected: text = "the \(endpoint.name) rejected the request"
        case .transport(let failure): text = "no response from the \(endpoint.name) (\(failure))"
        case .unexpectedStatus: text = "unexpected status from the \(endpoint.name)"
        case .malformedResponse(let why): text = "malformed \(endpoint == .token ? "token" : endpoint.name) response: \(why)"
        case .custom(let why): text = "the refresh closure failed: \(why)"
        case .backingOff(let retryAfter): text = "backing off after a failed refresh; next attempt allowed in \(retryAfter)"
        }
        if let statusCode { text += ", HTTP \(statusCode)" }
        if let oauth2Error { text += ", \(oauth2Error)" }
        guard endpoint != .revocation else { return text }
        if let cause { text += ": \(cause)" }
        text += isPermanent ? " (permanent)" : " (transient)"
        return text
    }

    /// What an OAuth2 error code usually means for the grant that got it (RFC 6749 §5.2).
    private var cause: String? {
        guard reason == .rejected, let code = oauth2Error?.code else { return nil }
        switch (code, grantType) {
        case ("invalid_grant", "password"): return "the username or password is wrong"
        case ("invalid_grant", "refresh_token"): return "the refresh token expired or was revoked; sign in again"
        case ("invalid_grant", "authorization_code"):
            return "the code expired or was used already, or the redirect URI or PKCE verifier does not match"
        case ("invalid_client", _): return "the client ID or the client's authentication was refused"
        case ("unauthorized_client", let grant?): return "this client may not use the \(grant) grant"
        case ("unsupported_grant_type", let grant?): return "the server does not support the \(grant) grant"
        case ("invalid_scope", _): return "the requested scope was refused"
        default: return nil
        }
    }
}

extension RefreshFailure {
    /// The failure's description, worded for a revocation endpoint.
    package var revocationDescription: String {
        var failure = self
        failure.endpoint = .revocation
        return failure.description
    }
}
