public import Courier
public import Foundation

extension OAuth2TokenEndpoint {
    /// Exchanges an authorization code for a token: the `authorization_code` grant (RFC 6749
    /// §4.1.3) with its PKCE verifier (RFC 7636 §4.5). ``AuthorizationCodeFlow/complete(with:)``
    /// calls it after checking the redirect; call it yourself only when you checked the code another way.
    ///
    /// - Parameters:
    ///   - code: the authorization code from the redirect; must not be empty.
    ///   - redirectURI: the redirect URI of the authorization request, sent as it was there
    ///     (its `absoluteString`).
    ///   - codeVerifier: the PKCE verifier of the request; `nil` only for a request made without
    ///     PKCE.
    /// - Returns: the new credential.
    /// - Throws: `CourierError.invalidRequest(_:)` for an empty code, without sending anything;
    ///   otherwise the errors listed on `OAuth2TokenEndpoint` (an expired or replayed code is
    ///   `invalid_grant`, `RefreshFailure.Reason.rejected`).
    public func authorizationCode(
        _ code: String,
        redirectURI: URL,
        codeVerifier: String?
    ) async throws(CourierError) -> TokenCredential {
        // The body is `grant_type=authorization_code`, `code`, `redirect_uri`, `code_verifier` (when
        // given), then the client authentication's parameters.
        guard !code.isEmpty else {
            throw .invalidRequest(.encodingFailed("the authorization code is empty"))
        }
        var parameters = [
            QueryItem(name: "code", value: code),
            QueryItem(name: "redirect_uri", value: redirectURI.absoluteString),
        ]
        if let codeVerifier { parameters.append(QueryItem(name: "code_verifier", value: codeVerifier)) }
        return try await requestToken(grantType: "authorization_code", parameters: parameters)
    }
}
