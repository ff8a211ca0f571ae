package import Foundation

extension OAuth2TokenEndpoint {
    /// The `grant_type` of RFC 7523's JWT bearer grant.
    static let jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The `grant_type` of RFC 8628's device authorization grant.
    static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Exchanges the resource owner's user name and password for a token: the `password` grant
    /// (RFC 6749 §4.3). Use it only where the client is highly trusted and no redirect-based flow
    /// is possible (RFC 9700). The password is never logged or put into an error.
    ///
    /// ```swift
    /// let credential = try await tokens.password(username: "alice", password: typedPassword, scope: "profile")
    /// ```
    /// - Parameters:
    ///   - username: the resource owner's user name.
    ///   - password: the resource owner's password.
    ///   - scope: the scope to ask for; `nil` sends none (kept when the response has no `scope`).
    ///   - additionalParameters: extra form parameters, sent after `scope`. They may not repeat
    ///     the grant's or the client authentication's parameters.
    /// - Returns: the new credential.
    /// - Throws: the errors listed on ``OAuth2TokenEndpoint`` (a wrong password is usually a permanent ``AuthenticationFailure/refreshFailed(_:)``).
    public func password(
        username: String,
        password: String,
        scope: String? = nil,
        additionalParameters: [QueryItem] = []
    ) async throws(CourierError) -> TokenCredential {
        // The body is `grant_type=password&username=…&password=…`, then `scope`, then the additional
        // parameters, then the client authentication's body parameters. The OAuth 2.0 Security BCP
        // (RFC 9700) says the grant MUST NOT be used unless the client is highly trusted and no
        // redirect-based flow is possible. Afterwards, install the credential with refresher.reset(to:).
        var parameters = [QueryItem(name: "username", value: username), QueryItem(name: "password", value: password)]
        if let scope { parameters.append(QueryItem(name: "scope", value: scope)) }
        return try await requestCredential(
            grantType: "password",
            grantParameters: parameters,
            callerParameters: additionalParameters,
            requestedScope: scope,
            previousRefreshToken: nil
        )
    }

    /// Exchanges a signed JWT for a token: the JWT bearer authorization grant (RFC 7523 §2.1),
    /// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`. Signing the JWT is the caller's part.
    ///
    /// ```swift
    /// let credential = try await tokens.jwtBearer(assertion: signedJWT, scope: "reports.read")
    /// ```
    /// - Parameters:
    ///   - assertion: the serialized JWT. Must not be empty.
    ///   - scope: the scope to ask for, sent as `scope`; `nil` sends none.
    ///   - additionalParameters: extra form parameters, sent after `scope`. They may not repeat
    ///     `grant_type`, `assertion`, `scope` (when given) or the client authentication's parameters.
    /// - Returns: the new credential.
    /// - Throws: ``CourierError/invalidRequest(_:)`` for an empty assertion, without sending
    ///   anything; otherwise the errors listed on ``OAuth2TokenEndpoint``.
    public func jwtBearer(
        assertion: String,
        scope: String? = nil,
        additionalParameters: [QueryItem] = []
    ) async throws(CourierError) -> TokenCredential {
        // The client may authenticate as well (RFC 7523 §3.1 makes it optional), with the endpoint's
        // OAuth2ClientAuthentication. A rejected assertion is `invalid_grant`, a permanent failure.
        guard !assertion.isEmpty else {
            throw .invalidRequest(.encodingFailed("the JWT bearer assertion is empty"))
        }
        var parameters = [QueryItem(name: "assertion", value: assertion)]
        if let scope { parameters.append(QueryItem(name: "scope", value: scope)) }
        return try await requestCredential(
            grantType: Self.jwtBearerGrantType,
            grantParameters: parameters,
            callerParameters: additionalParameters,
            requestedScope: scope,
            previousRefreshToken: nil
        )
    }

    /// One poll of the device flow (RFC 8628 §3.4): `grant_type=…:device_code&device_code=…`
    /// and the client authentication. Its failures are the endpoint's own, so that
    /// `DeviceAuthorizationFlow` can tell `authorization_pending` and `slow_down` apart.
    package func deviceCode(_ deviceCode: String, requestedScope: String?) async throws(CourierError) -> TokenCredential {
        try await requestCredential(
            grantType: Self.deviceCodeGrantType,
            grantParameters: [QueryItem(name: "device_code", value: deviceCode)],
            callerParameters: [],
            requestedScope: requestedScope,
            previousRefreshToken: nil
        )
    }

    /// A token endpoint at an absolute URL (from discovery, say), with the same client
    /// authentication, configuration and timeout rules as ``init(baseURL:path:clientAuthentication:configuration:timeout:now:)``.
    /// - Throws: ``CourierError/invalidRequest(_:)`` when the URL cannot be split into a base URL
    ///   and a path (see ``OAuth2Exchange/split(_:)``).
    package init(
        url: URL, clientAuthentication: OAuth2ClientAuthentication, configuration: Configuration?, timeout: Duration,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(CourierError) {
        let (baseURL, path) = try OAuth2Exchange.split(url)
        self.init(
            baseURL: baseURL, path: path, clientAuthentication: clientAuthentication, configuration: configuration,
            timeout: timeout, now: now)
    }
}
