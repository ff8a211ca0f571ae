import Foundation

/// The logic of `WebAuthenticationSessionPresenter` (Apple platforms only), kept here so that
/// it compiles and is tested on every platform; the presenter itself only calls
/// `ASWebAuthenticationSession`.
enum WebAuthenticationSessionSupport {
    /// The `callbackURLScheme` for a redirect URI: its scheme, lower-cased. A session can only
    /// be called back through a private-use scheme (`com.example.app:/callback`, RFC 8252 §7.1),
    /// so `http` and `https` redirect URIs are refused.
    /// - Throws: ``AuthorizationFailure/unavailable(_:)`` (inside ``CourierError/authentication(_:)``)
    ///   for a redirect URI without a scheme or with `http`/`https`.
    static func callbackScheme(for redirectURI: URL) throws(CourierError) -> String {
        guard let scheme = redirectURI.scheme?.lowercased(), !scheme.isEmpty else {
            throw .authentication(.authorizationFailed(.unavailable("the redirect URI has no scheme")))
        }
        guard scheme != "http", scheme != "https" else {
            throw .authentication(
                .authorizationFailed(
                    .unavailable("a web authentication session needs a private-use redirect URI scheme (com.example.app:/callback), not \(scheme)")))
        }
        return scheme
    }

    /// What a session's completion handler got, as the flow's outcome: the callback URL, or
    /// ``CourierError/cancelled`` when the user closed the sheet (`canceledLogin`), or
    /// ``AuthorizationFailure/unavailable(_:)`` for any other failure (no presentation context…).
    static func outcome(callbackURL: URL?, error: (any Error)?, isCanceledLogin: Bool) -> Result<URL, CourierError> {
        if isCanceledLogin { return .failure(.cancelled) }
        if let error {
            return .failure(.authentication(.authorizationFailed(.unavailable("the web authentication session failed: \(error.localizedDescription)"))))
        }
        guard let callbackURL else {
            return .failure(.authentication(.authorizationFailed(.malformedResponse("the web authentication session returned no callback URL"))))
        }
        return .success(callbackURL)
    }
}
