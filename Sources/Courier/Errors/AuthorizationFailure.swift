/// Why an interactive OAuth2 flow ended without a credential, inside
/// ``AuthenticationFailure/authorizationFailed(_:)``.
///
/// ```swift
/// import CourierOAuth
///
/// do {
///     credential = try await AuthorizationCodeFlow.signIn(
///         authorizationEndpoint: authorize, tokenEndpoint: tokens, openBrowser: openBrowser)
/// } catch .authentication(.authorizationFailed(.denied(let error))) {
///     print("You declined access (\(error.code)).")
/// }
/// ```
///
/// Its `description` never shows an authorization code, a `state`, a verifier or a token: the
/// values a hostile redirect carried are named, not printed.
#if hasAttribute(nonexhaustive)
    @nonexhaustive
#endif
public enum AuthorizationFailure: Error, Sendable, Equatable {
    /// The authorization response's `state` is missing or differs from the one sent (RFC 6749
    /// §10.12): the redirect may be forged. No token request was made.
    case stateMismatch
    /// The authorization server or the user refused: an `error=` authorization response
    /// (RFC 6749 §4.1.2.1, e.g. `access_denied`) or a device flow's `access_denied` (RFC 8628
    /// §3.5). Carries `error`, `error_description` and `error_uri` as the server sent them.
    case denied(OAuth2Error)
    /// The issuer did not match (RFC 9207 `iss`, or the `issuer` of RFC 8414 metadata):
    /// `received` is `nil` when the parameter was required and missing.
    case issuerMismatch(expected: String, received: String?)
    /// A reply from the authorization server could not be used (no `code`, a device response
    /// without `device_code`, metadata that is not JSON…); the text names what is wrong.
    case malformedResponse(String)
    /// The device code expired before the user approved (RFC 8628 `expired_token`, or
    /// `expires_in` passed).
    case expired
    /// The redirect did not arrive within the flow's timeout.
    case timedOut
    /// The loopback redirect receiver could not listen, or the web authentication session
    /// could not be presented; the text says why, and `underlyingError` is the error behind it,
    /// when there was one (not compared by `==`, not printed).
    case unavailable(String, underlyingError: (any Error)? = nil)

    /// Two failures are equal when their case and what it carries are; underlying errors are not
    /// compared.
    public static func == (lhs: AuthorizationFailure, rhs: AuthorizationFailure) -> Bool {
        switch (lhs, rhs) {
        case (.stateMismatch, .stateMismatch), (.expired, .expired), (.timedOut, .timedOut): true
        case (.denied(let a), .denied(let b)): a == b
        case (.issuerMismatch(let a, let x), .issuerMismatch(let b, let y)): a == b && x == y
        case (.malformedResponse(let a), .malformedResponse(let b)), (.unavailable(let a, _), .unavailable(let b, _)): a == b
        default: false
        }
    }
}

extension AuthorizationFailure: CustomStringConvertible, CustomReflectable {
    /// A readable sentence without any secret.
    ///
    /// ```swift
    /// AuthorizationFailure.stateMismatch.description
    /// // "the authorization response's state does not match the request (possibly forged); no token was requested"
    /// ```
    public var description: String {
        switch self {
        case .stateMismatch:
            "the authorization response's state does not match the request (possibly forged); no token was requested"
        case .denied(let error):
            "the authorization server refused: \(error)"
        case .issuerMismatch(let expected, let received):
            if let received {
                "issuer \(received.debugDescription) does not match the expected \(expected.debugDescription)"
            } else {
                "the response carries no issuer, but \(expected.debugDescription) requires one"
            }
        case .malformedResponse(let why):
            "malformed authorization server response: \(why)"
        case .expired:
            "the device code expired before the user approved"
        case .timedOut:
            "the authorization redirect did not arrive in time"
        case .unavailable(let why, _):
            "the authorization flow could not run: \(why)"
        }
    }

    /// The description only.
    public var customMirror: Mirror {
        Mirror(self, children: [], displayStyle: .enum)
    }
}
