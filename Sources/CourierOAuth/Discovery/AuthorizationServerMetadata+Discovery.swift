public import Courier
public import Foundation

extension AuthorizationServerMetadata {
    /// The most of a metadata document that is read.
    static let maximumDocumentSize = 256 << 10

    /// Fetches and checks the metadata of the authorization server identified by `issuer`: the
    /// RFC 8414 URL first, then, on a 404 or 410, the OpenID Connect Discovery URL. The document's
    /// `issuer` must be exactly `issuer.absoluteString`.
    ///
    /// - Parameters:
    ///   - issuer: the issuer identifier: an `https` URL (or `http` on a loopback host) without
    ///     query or fragment.
    ///   - configuration: what the requests go through: its transport, headers, middleware,
    ///     logger, tracer, metrics and retry policy; not its authentication or cache.
    ///   - timeout: how long each request may take.
    /// - Returns: the checked metadata.
    /// - Throws: `CourierError.invalidRequest(_:)` for a bad issuer, without sending anything;
    ///   `AuthorizationFailure.issuerMismatch(expected:received:)` or `.malformedResponse(_:)`
    ///   (inside `AuthenticationFailure.authorizationFailed(_:)`) for a wrong or invalid document
    ///   (or one over 256 KiB); `CourierError.response(_:)` for any other status;
    ///   `CourierError.transport(_:)`; `CourierError.cancelled`.
    public static func discover(
        issuer: URL,
        configuration: Configuration = Configuration(),
        timeout: Duration = .seconds(30)
    ) async throws(CourierError) -> AuthorizationServerMetadata {
        // The URLs, for `https://auth.example.com/tenant`:
        // GET https://auth.example.com/.well-known/oauth-authorization-server/tenant (RFC 8414 §3.1:
        // inserted between the host and the issuer's path, a trailing `/` of the path removed), and,
        // if that answers 404 or 410, GET https://auth.example.com/tenant/.well-known/openid-configuration
        // (appended to the issuer's path). RFC 8414 comes first because it is the OAuth standard and
        // its URL cannot collide with a path-based tenant's own paths; OpenID providers that only
        // publish the OIDC document cost one extra request. Any other status stops discovery.
        //
        // The issuer comparison (RFC 8414 §3.3, OpenID Discovery §4.3) is character for character:
        // `https://a.example` and `https://a.example/` are different issuers. This is what stops a
        // server from passing off another's metadata (mix-up attacks). A document that is not valid
        // metadata: not JSON, an endpoint that is not `https`…
        let (baseURL, candidates) = try wellKnownPaths(for: issuer)
        let client = OAuth2Exchange.client(configuration, postsForm: false)
        var lastResponse: Response?
        for path in candidates {
            let request = OAuth2Exchange.get(baseURL, path: path, timeout: timeout, maximumResponseSize: maximumDocumentSize)
            let response: Response
            do throws(CourierError) {
                response = try await OAuth2Exchange.send(request, through: client)
            } catch {
                if Task.isCancelled { throw .cancelled }
                if case .transport(let failure) = error, failure.kind == .responseTooLarge {
                    throw .authentication(.authorizationFailed(.malformedResponse("the metadata document is larger than 256 KiB")))
                }
                throw error
            }
            switch response.statusCode {
            case 200...299:
                return try checked(response.body, issuer: issuer.absoluteString)
            case 404, 410:
                lastResponse = response
                continue
            default:
                throw .response(response)
            }
        }
        // Both URLs answered 404 or 410.
        if let lastResponse { throw .response(lastResponse) }
        throw .invalidRequest(.invalidURL("no well-known URL for the issuer"))
    }

    /// The base URL, and the two well-known paths in the order they are tried: RFC 8414's, then
    /// OpenID Connect's.
    /// - Throws: `CourierError.invalidRequest(_:)` for an issuer that is not an `https` URL
    ///   (or `http` on a loopback host) without query or fragment.
    static func wellKnownPaths(for issuer: URL) throws(CourierError) -> (BaseURL, [URLPath]) {
        if let problem = OAuth2Exchange.endpointProblem(issuer) {
            throw .invalidRequest(
                .invalidURL("\(Redaction.default.redact(urlString: issuer.absoluteString)): the issuer \(problem)"))
        }
        let (baseURL, issuerPath) = try OAuth2Exchange.split(issuer)
        var path = issuerPath.rawValue
        while path.hasSuffix("/") { path.removeLast() }
        return (
            baseURL,
            [
                try URLPath("/.well-known/oauth-authorization-server" + path),
                try URLPath(path + "/.well-known/openid-configuration"),
            ]
        )
    }

    /// Parses a 2xx document and checks its issuer.
    static func checked(_ body: Data, issuer expected: String) throws(CourierError) -> AuthorizationServerMetadata {
        switch parse(body) {
        case .success(let metadata):
            guard metadata.issuer == expected else {
                throw .authentication(.authorizationFailed(.issuerMismatch(expected: expected, received: metadata.issuer)))
            }
            return metadata
        case .failure(let problem):
            throw .authentication(.authorizationFailed(.malformedResponse("authorization server metadata: \(problem.reason)")))
        }
    }

    // MARK: - Endpoints from the metadata

    /// A token endpoint client for ``tokenEndpoint``.
    ///
    /// ```swift
    /// let tokens = try metadata.tokenEndpoint(clientAuthentication: .publicClient(clientID: "my-cli"))
    /// let credential = try await tokens.clientCredentials(scope: "reports.read")
    /// ```
    ///
    /// - Parameters:
    ///   - clientAuthentication: how the client authenticates.
    ///   - configuration: what requests go through (see `OAuth2TokenEndpoint`; `nil`: a
    ///     refresher made with it takes its client's path, the endpoint's own grants
    ///     `Configuration()`).
    ///   - timeout: how long one request may take.
    /// - Throws: `AuthorizationFailure.malformedResponse(_:)` when the metadata has no
    ///   `token_endpoint`; `CourierError.invalidRequest(_:)` when its URL has a query.
    public func tokenEndpoint(
        clientAuthentication: OAuth2ClientAuthentication,
        configuration: Configuration? = nil,
        timeout: Duration = .seconds(30)
    ) throws(CourierError) -> OAuth2TokenEndpoint {
        let url = try required(self.tokenEndpoint, "token_endpoint")
        return try OAuth2TokenEndpoint(
            url: url, clientAuthentication: clientAuthentication, configuration: configuration, timeout: timeout)
    }

    /// A revocation endpoint client for ``revocationEndpoint``.
    ///
    /// ```swift
    /// let revocation = try metadata.revocationEndpoint(clientAuthentication: .publicClient(clientID: "my-cli"))
    /// try await refresher.signOut(revokingAt: revocation)
    /// ```
    ///
    /// - Throws: `AuthorizationFailure.malformedResponse(_:)` when the metadata has no
    ///   `revocation_endpoint`; `CourierError.invalidRequest(_:)` when its URL has a query.
    public func revocationEndpoint(
        clientAuthentication: OAuth2ClientAuthentication,
        configuration: Configuration = Configuration(),
        timeout: Duration = .seconds(30)
    ) throws(CourierError) -> OAuth2RevocationEndpoint {
        let url = try required(self.revocationEndpoint, "revocation_endpoint")
        return try OAuth2RevocationEndpoint(
            url: url, clientAuthentication: clientAuthentication, configuration: configuration, timeout: timeout)
    }

    /// A device authorization flow for ``deviceAuthorizationEndpoint``, polling `tokenEndpoint`
    /// (typically ``tokenEndpoint(clientAuthentication:configuration:timeout:)``).
    ///
    /// ```swift
    /// let tokens = try metadata.tokenEndpoint(clientAuthentication: .publicClient(clientID: "my-tv-app"))
    /// let flow = try metadata.deviceAuthorizationFlow(tokenEndpoint: tokens, scope: "profile")
    /// ```
    ///
    /// - Throws: `AuthorizationFailure.malformedResponse(_:)` when the metadata has no
    ///   `device_authorization_endpoint`.
    public func deviceAuthorizationFlow(
        tokenEndpoint: OAuth2TokenEndpoint,
        scope: String? = nil,
        additionalParameters: [QueryItem] = [],
        clock: any Clock<Duration> = ContinuousClock()
    ) throws(CourierError) -> DeviceAuthorizationFlow {
        let url = try required(deviceAuthorizationEndpoint, "device_authorization_endpoint")
        return DeviceAuthorizationFlow(
            deviceAuthorizationEndpoint: url, tokenEndpoint: tokenEndpoint, scope: scope,
            additionalParameters: additionalParameters, clock: clock)
    }

    private func required(_ url: URL?, _ name: String) throws(CourierError) -> URL {
        guard let url else {
            throw .authentication(.authorizationFailed(.malformedResponse("the authorization server metadata has no \(name)")))
        }
        return url
    }
}
