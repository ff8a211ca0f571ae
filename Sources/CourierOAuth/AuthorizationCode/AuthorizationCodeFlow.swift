public import Courier
public import Foundation

/// One authorization request of the authorization code grant with PKCE (RFC 6749 §4.1,
/// RFC 7636 `S256`), with `state` (§10.12) and, optionally, the issuer check of RFC 9207.
///
/// Create one flow per sign-in. Send the user to ``authorizationURL``, then hand the redirect
/// the browser comes back with to ``complete(with:)``, which checks it and exchanges the code.
/// `description` and `dump` never show the code verifier, the `state` or a code.
///
/// ```swift
/// let flow = try AuthorizationCodeFlow(authorizationEndpoint: authorize, tokenEndpoint: tokens,
///                                      redirectURI: URL(string: "com.example.app:/oauth/callback")!)
/// openInBrowser(flow.authorizationURL)
/// let credential = try await flow.complete(with: redirectURL)   // later, with the redirect
/// ```
public struct AuthorizationCodeFlow: Sendable {
    // Command-line and desktop tools can let signIn(…) run a LoopbackRedirectReceiver for them;
    // Apple apps can use WebAuthenticationSessionPresenter. `description`, `String(reflecting:)` and
    // `dump` show the authorization endpoint and the client id only.

    /// The authorization endpoint (RFC 6749 §3.1), e.g. `https://auth.example.com/authorize`.
    public let authorizationEndpoint: URL
    /// The token endpoint the code is exchanged at; its client authentication gives `client_id`.
    public let tokenEndpoint: OAuth2TokenEndpoint
    /// Where the authorization server sends the browser back: a loopback URL
    /// (`http://127.0.0.1:<port>/callback`), a private-use scheme (`com.example.app:/callback`)
    /// or an app-claimed `https` URL (RFC 8252 §7).
    public let redirectURI: URL
    /// The requested scope, sent as `scope`; `nil` sends none.
    public let scope: String?
    /// Extra parameters of the authorization request, after Courier's own (e.g. `prompt`,
    /// `login_hint`, RFC 8707 `resource`).
    public let additionalParameters: [QueryItem]
    /// The authorization server's issuer identifier, compared exactly with the response's `iss`
    /// (RFC 9207); `nil` ignores `iss`.
    public let issuer: String?
    /// Whether a response without `iss` is refused (set it when the server's metadata has
    /// `authorization_response_iss_parameter_supported: true`). Requires ``issuer``.
    public let requiresIssuer: Bool
    /// The PKCE code verifier (RFC 7636 §4.1): 64 characters from `[A-Za-z0-9-._~]`, drawn from
    /// the system's CSPRNG. Readable for apps that exchange the code themselves (with
    /// `OAuth2TokenEndpoint.authorizationCode(_:redirectURI:codeVerifier:)`); keep it secret
    /// until then, and never log it.
    public let codeVerifier: String
    /// `BASE64URL(SHA256(codeVerifier))` without padding, sent as `code_challenge`.
    public let codeChallenge: String
    /// The `state` sent with the request: 256 random bits as base64url. The response must carry
    /// it back unchanged.
    public let state: String

    /// The PKCE method, always `S256` (RFC 7636 §4.2; `plain` is never used).
    public var codeChallengeMethod: String { "S256" }

    /// The client identifier, from the token endpoint's client authentication.
    public var clientID: String { tokenEndpoint.clientAuthentication.clientID }

    /// Prepares an authorization request: draws a code verifier and a `state`, and checks the
    /// request can be built. Nothing is sent.
    ///
    /// - Parameters:
    ///   - authorizationEndpoint: the authorization endpoint. Its own query is kept (Courier's
    ///     parameters follow it); it must not have a fragment. Use `https` for anything but tests.
    ///   - tokenEndpoint: where ``complete(with:)`` exchanges the code.
    ///   - redirectURI: the redirect URI registered for the client.
    ///   - scope: the scope to ask for; `nil` sends none.
    ///   - additionalParameters: extra authorization request parameters, e.g. `prompt`. They may not
    ///     repeat the parameters the flow sets.
    ///   - issuer: the expected `iss` (RFC 9207), compared exactly; `nil` ignores `iss`.
    ///   - requiresIssuer: refuse a response without `iss`; needs `issuer`.
    /// - Throws: `CourierError.invalidRequest(_:)` for a repeated or empty parameter name,
    ///   `requiresIssuer` without `issuer`, or an endpoint with a fragment or that cannot be read.
    public init(
        authorizationEndpoint: URL,
        tokenEndpoint: OAuth2TokenEndpoint,
        redirectURI: URL,
        scope: String? = nil,
        additionalParameters: [QueryItem] = [],
        issuer: String? = nil,
        requiresIssuer: Bool = false
    ) throws(CourierError) {
        // The parameters the flow sets: `response_type`, `client_id`, `redirect_uri`, `state`,
        // `code_challenge`, `code_challenge_method`, and `scope` when `scope` is given. A repeated or
        // empty name (in additionalParameters or the endpoint's query) and requiresIssuer without
        // issuer are .encodingFailed naming it; an endpoint with a fragment (RFC 6749 §3.1) or one
        // URLComponents cannot read is .invalidURL.
        try self.init(
            authorizationEndpoint: authorizationEndpoint, tokenEndpoint: tokenEndpoint, redirectURI: redirectURI,
            scope: scope, additionalParameters: additionalParameters, issuer: issuer, requiresIssuer: requiresIssuer,
            codeVerifier: PKCE.makeVerifier(), state: PKCE.makeState())
    }

    /// The designated initializer, with the verifier and `state` given: for known-answer tests
    /// (RFC 7636 Appendix B) only.
    init(
        authorizationEndpoint: URL,
        tokenEndpoint: OAuth2TokenEndpoint,
        redirectURI: URL,
        scope: String?,
        additionalParameters: [QueryItem],
        issuer: String?,
        requiresIssuer: Bool,
        codeVerifier: String,
        state: String
    ) throws(CourierError) {
        guard PKCE.isValidVerifier(codeVerifier) else {
            throw .invalidRequest(.encodingFailed("a PKCE code verifier is 43 to 128 characters from [A-Za-z0-9-._~]"))
        }
        if requiresIssuer, issuer == nil {
            throw .invalidRequest(.encodingFailed("requiresIssuer needs the issuer to compare iss with"))
        }
        guard let components = URLComponents(url: authorizationEndpoint, resolvingAgainstBaseURL: false),
            components.scheme != nil
        else {
            throw .invalidRequest(.invalidURL(authorizationEndpoint.redactedForLogging))
        }
        guard components.fragment == nil else {
            throw .invalidRequest(.invalidURL("\(authorizationEndpoint.redactedForLogging) has a fragment (RFC 6749 §3.1 forbids one)"))
        }
        var reserved: Set<String> = [
            "response_type", "client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method",
        ]
        if scope != nil { reserved.insert("scope") }
        let existingNames = (try? AuthorizationResponse.parseQuery(components.percentEncodedQuery ?? ""))?.map(\.name) ?? []
        try Self.validate(additionalParameters.map(\.name) + existingNames, reserved: reserved)

        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.redirectURI = redirectURI
        self.scope = scope
        self.additionalParameters = additionalParameters
        self.issuer = issuer
        self.requiresIssuer = requiresIssuer
        self.codeVerifier = codeVerifier
        self.codeChallenge = PKCE.challenge(for: codeVerifier)
        self.state = state
    }

    private static func validate(_ names: [String], reserved: Set<String>) throws(CourierError) {
        for name in names {
            if name.isEmpty {
                throw .invalidRequest(.encodingFailed("an OAuth2 authorization request parameter has an empty name"))
            }
            if reserved.contains(name) {
                throw .invalidRequest(
                    .encodingFailed(
                        "the OAuth2 authorization request parameter \(name.debugDescription) is set by the flow; RFC 6749 §3.1 allows it only once"
                    ))
            }
        }
    }

    /// The URL to open in the browser: the authorization endpoint (with its own query first),
    /// then `response_type=code`, `client_id`, `redirect_uri`, `scope` (when given), `state`,
    /// `code_challenge`, `code_challenge_method=S256`, then ``additionalParameters``. Every name
    /// and value is percent-encoded, keeping only RFC 3986 unreserved characters.
    ///
    /// It carries `state` and the challenge (not the verifier): open it, but do not log it.
    public var authorizationURL: URL {
        var items = [
            QueryItem(name: "response_type", value: "code"),
            QueryItem(name: "client_id", value: clientID),
            QueryItem(name: "redirect_uri", value: redirectURI.absoluteString),
        ]
        if let scope { items.append(QueryItem(name: "scope", value: scope)) }
        items += [
            QueryItem(name: "state", value: state),
            QueryItem(name: "code_challenge", value: codeChallenge),
            QueryItem(name: "code_challenge_method", value: codeChallengeMethod),
        ]
        items += additionalParameters
        let ours = items.map { item in
            PercentEncoding.encode(item.name) + (item.value.map { "=" + PercentEncoding.encode($0) } ?? "")
        }.joined(separator: "&")
        // The initializer checked that URLComponents reads the endpoint; the fallbacks are unreachable.
        guard var components = URLComponents(url: authorizationEndpoint, resolvingAgainstBaseURL: false) else {
            return authorizationEndpoint
        }
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + ours
        } else {
            components.percentEncodedQuery = ours
        }
        return components.url ?? authorizationEndpoint
    }

    /// Checks the redirect the browser came back with and returns its authorization code,
    /// without sending anything. ``complete(with:)`` calls it; call it yourself only to exchange
    /// the code another way.
    ///
    /// The checks run in this order, and the first that fails is thrown: the redirect is
    /// well-formed and goes to ``redirectURI`` (else `.malformedResponse`); `state` equals ``state``
    /// (else `.stateMismatch`, checked before `error` so a forged error redirect is reported as
    /// forged); no `error` (else `.denied`); `iss` matches ``issuer`` when one is set (else
    /// `.issuerMismatch`); `code` is present (else `.malformedResponse`).
    /// - Returns: the authorization code.
    /// - Throws: `CourierError.authentication(_:)` with
    ///   `AuthenticationFailure.authorizationFailed(_:)` and the failure above.
    public func authorizationCode(from redirect: URL) throws(CourierError) -> String {
        // Only the query is read (RFC 6749 §4.1.2; a fragment is ignored), decoded as
        // `application/x-www-form-urlencoded`. The checks in full:
        // 1. the redirect is at most 8 KiB, goes to redirectURI (same scheme, host, port and path), has
        //    a well-formed query and no response parameter (`code`, `state`, `error`,
        //    `error_description`, `error_uri`, `iss`) twice; else .malformedResponse;
        // 2. `state` is present and equals state; else .stateMismatch. This comes before `error`, so
        //    that a forged redirect (a page that sends the browser to the redirect URI with `error=…`
        //    of its choosing) is reported as forged, never as the server's answer;
        // 3. no `error`; else .denied with `error`, `error_description` and `error_uri`;
        // 4. with an issuer: `iss`, when present, equals it exactly, and is present when
        //    requiresIssuer; else .issuerMismatch(expected:received:). Without an issuer, `iss` is
        //    ignored;
        // 5. `code` is present and not empty; else .malformedResponse.
        do {
            return try AuthorizationResponse.code(from: redirect, expecting: expectation)
        } catch {
            throw .authentication(.authorizationFailed(error))
        }
    }

    /// Whether `redirect` carries exactly one `state`, equal to ``state``: whether it can be this
    /// flow's redirect at all.
    func carriesState(_ redirect: URL) -> Bool {
        guard let query = URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.percentEncodedQuery,
            let parameters = try? AuthorizationResponse.parseQuery(query)
        else { return false }
        let states = parameters.filter { $0.0 == "state" }
        return states.count == 1 && PKCE.constantTimeEquals(states[0].1, state)
    }

    /// What a response must match.
    var expectation: AuthorizationResponse.Expectation {
        AuthorizationResponse.Expectation(redirectURI: redirectURI, state: state, issuer: issuer, requiresIssuer: requiresIssuer)
    }

    /// Checks the redirect (see ``authorizationCode(from:)``) and exchanges its code at the
    /// token endpoint: `grant_type=authorization_code`, `code`, `redirect_uri`, `code_verifier`
    /// (RFC 6749 §4.1.3, RFC 7636 §4.5), then the client authentication's parameters.
    ///
    /// ```swift
    /// let credential = try await flow.complete(with: redirectURL)
    /// try await refresher.reset(to: credential)
    /// ```
    ///
    /// A code can be exchanged once: call it once per flow.
    ///
    /// - Returns: the credential the token endpoint issued; its scope is the granted one, or the
    ///   requested ``scope`` when the response omits it.
    /// - Throws: the failures of ``authorizationCode(from:)``, in which case nothing is sent;
    ///   otherwise the errors listed on `OAuth2TokenEndpoint`.
    public func complete(with redirect: URL) async throws(CourierError) -> TokenCredential {
        let code = try authorizationCode(from: redirect)
        return try await exchange(code)
    }

    /// Exchanges a checked code at the token endpoint.
    func exchange(_ code: String) async throws(CourierError) -> TokenCredential {
        var credential = try await tokenEndpoint.authorizationCode(code, redirectURI: redirectURI, codeVerifier: codeVerifier)
        // RFC 6749 §5.1: a response without `scope` granted the scope requested.
        if credential.scope == nil { credential.scope = scope }
        return credential
    }
}

extension AuthorizationCodeFlow: CustomStringConvertible, CustomReflectable {
    /// The authorization endpoint (without its query) and the client id, e.g.
    /// `AuthorizationCodeFlow(https://auth.example.com/authorize, clientID: "my-app")`. Never the
    /// code verifier, the `state` or a code.
    public var description: String {
        "AuthorizationCodeFlow(\(authorizationEndpoint.redactedForLogging), clientID: \(clientID.debugDescription))"
    }

    /// The authorization endpoint (without its query) and the client id only, so that `dump`
    /// and reflection-based loggers cannot reach the verifier or the `state`.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["authorizationEndpoint": authorizationEndpoint.redactedForLogging, "clientID": clientID],
            displayStyle: .struct)
    }
}
