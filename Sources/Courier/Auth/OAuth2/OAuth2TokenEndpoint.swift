public import Foundation
import HTTPTypes

/// A client for an OAuth2 token endpoint (RFC 6749): the `refresh_token` grant, the
/// `client_credentials` grant, and any other grant by name. ``TokenRefresher`` uses it to renew
/// a bearer token; apps can also call it directly.
///
/// Every request is a form-encoded `POST` that goes through a client's path like any call
/// (transport, middleware, logs, spans, metrics), without its authentication and cache, and
/// never carries the access token: by default the path of the first ``Client`` whose
/// ``Configuration/authentication`` is a ``TokenRefresher`` made with this endpoint. Every failure is a ``CourierError``: a 400
/// or 401 (`invalid_grant`, `invalid_client`…), or an OAuth2 error body without a token, is a **permanent**
/// ``AuthenticationFailure/refreshFailed(_:)`` with the parsed ``OAuth2Error``; another status,
/// a malformed body or no response is a transient `refreshFailed` (see ``RefreshFailure/Reason``);
/// a bad request is ``CourierError/invalidRequest(_:)`` and nothing is sent. Its `description`
/// shows the token URL and the client id, never the secret.
///
/// ```swift
/// let renewed = try await tokens.refresh(expiredCredential)
/// ```
public struct OAuth2TokenEndpoint: Sendable {
    // The request: `Content-Type: application/x-www-form-urlencoded; charset=utf-8` and
    // `Accept: application/json`. It goes through a Client of its own (OAuth2Exchange.client): the
    // configuration's middleware, logs, spans, metrics and stubs see it, its authentication and
    // cache are left out, so it can never wait on its own refresh; it is sent again only when it
    // never reached the server (a refresh token must not be spent twice). The body holds `grant_type`
    // first, then the grant's parameters, then `scope`, then the additional parameters, then
    // `client_id` and `client_secret` when the client authenticates in the body; every name and
    // value is percent-encoded (see OAuth2ClientAuthentication).
    //
    // The failures in full (all are `refreshFailed` whatever the grant, so one `catch` handles them):
    // - 400 or 401, or a 2xx with an OAuth2 error body and no token: reason `.rejected`, the parsed
    //   OAuth2Error (when the body is one) and the status; permanent;
    // - any other non-2xx status (429, 500, 503…): `.unexpectedStatus`, the OAuth2 error if there
    //   is one, the status; transient;
    // - a 2xx whose body is not a token response: `.malformedResponse(_:)` naming the field;
    //   transient;
    // - no response (network error, timeout): `.transport(_:)` keeping the TransportFailure;
    //   transient;
    // - the calling task was cancelled: CourierError.cancelled;
    // - the request could not be built (a parameter repeating one the grant sets, a non-positive
    //   timeout): CourierError.invalidRequest, and nothing is sent.

    /// The token endpoint's scheme, host and port.
    public let baseURL: BaseURL
    /// The token endpoint's path, e.g. `/oauth/token`.
    public let path: URLPath
    /// How the client authenticates to the endpoint.
    public let clientAuthentication: OAuth2ClientAuthentication
    /// How long one token request may take.
    public let timeout: Duration
    /// The clock that dates issued tokens.
    package let now: @Sendable () -> Date
    /// What this value's own requests (its grants called directly, a device flow) go through:
    /// the configuration given, or `Configuration()`. A refresher made with it gets a path of its
    /// own (``withOwnPath()``), which its clients adopt.
    package private(set) var tokenPath: OAuth2TokenPath
    /// The client token requests go through now (``OAuth2Exchange/client(_:postsForm:)``).
    /// Throws when every client that adopted the path is gone (``OAuth2TokenPath/client``).
    package var client: Client {
        get throws(CourierError) { try tokenPath.client }
    }

    /// Creates a token endpoint client. Nothing is sent until a grant is requested.
    ///
    /// - Parameters:
    ///   - baseURL: the token endpoint's scheme, host and port.
    ///   - path: the token endpoint's path.
    ///   - clientAuthentication: how the client authenticates (RFC 6749 §2.3).
    ///   - configuration: what token requests go through (never its authentication or cache).
    ///     `nil`: a ``TokenRefresher`` made with this endpoint takes the path of the first
    ///     ``Client`` still alive created with it; the endpoint's own grants and a device flow
    ///     take `Configuration()` (the Authentication guide has the details).
    ///   - timeout: how long one token request may take; must be positive, or every request
    ///     fails with ``InvalidRequest/invalidTimeout(_:)``.
    ///   - now: the clock that dates tokens: `issuedAt` is when the request was sent, and
    ///     `expiresAt` that plus `expires_in` (latency only makes a token look shorter-lived).
    public init(
        baseURL: BaseURL,
        path: URLPath,
        clientAuthentication: OAuth2ClientAuthentication,
        configuration: Configuration? = nil,
        timeout: Duration = .seconds(30),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.baseURL = baseURL
        self.path = path
        self.clientAuthentication = clientAuthentication
        self.tokenPath = OAuth2TokenPath(configuration)
        self.timeout = timeout
        self.now = now
    }

    /// The token endpoint's absolute URL, e.g. `https://auth.example.com/oauth/token`.
    public var url: URL {
        URL(string: "\(baseURL)\(path.rawValue)") ?? baseURL.url
    }

    /// Exchanges the credential's refresh token for a new access token: the `refresh_token`
    /// grant (RFC 6749 §6). The request never carries the access token.
    ///
    /// The returned credential keeps `credential.refreshToken` when the response has no
    /// `refresh_token`, and the requested scope (or `credential.scope`) when it has no `scope`.
    /// - Parameters:
    ///   - credential: the credential to renew; only its refresh token and scope are used.
    ///   - scope: a narrower scope to ask for (§6), sent as `scope`; `nil` sends none.
    ///   - additionalParameters: extra form parameters, sent after `scope`. They may not repeat
    ///     `grant_type`, `refresh_token`, `scope` (when given) or the client authentication's parameters.
    /// - Returns: the new credential. Save it: the old refresh token may now be spent.
    /// - Throws: ``AuthenticationFailure/missingCredential`` (inside ``CourierError/authentication(_:)``)
    ///   when `credential` has no refresh token (`nil` or empty), without sending anything;
    ///   otherwise the errors listed on ``OAuth2TokenEndpoint``.
    public func refresh(
        _ credential: TokenCredential,
        scope: String? = nil,
        additionalParameters: [QueryItem] = []
    ) async throws(CourierError) -> TokenCredential {
        // §5.1: an omitted scope in the response is the one requested.
        guard let refreshToken = credential.refreshToken, !refreshToken.isEmpty else {
            throw .authentication(.missingCredential)
        }
        var parameters = [QueryItem(name: "refresh_token", value: refreshToken)]
        if let scope { parameters.append(QueryItem(name: "scope", value: scope)) }
        return try await requestCredential(
            grantType: "refresh_token",
            grantParameters: parameters,
            callerParameters: additionalParameters,
            requestedScope: scope ?? credential.scope,
            previousRefreshToken: refreshToken
        )
    }

    /// Obtains a token for the client itself: the `client_credentials` grant (RFC 6749 §4.4).
    /// Only confidential clients may use it; the server decides whether a public client can.
    ///
    /// ```swift
    /// let credential = try await tokens.clientCredentials(scope: "reports.read")
    /// ```
    ///
    /// - Parameters:
    ///   - scope: the scope to ask for, sent as `scope`; `nil` sends none. It becomes the
    ///     credential's scope when the response has no `scope`.
    ///   - additionalParameters: extra form parameters (e.g. RFC 8707 `resource`), sent after
    ///     `scope`. They may not repeat `grant_type`, `scope` (when `scope` is given) or the
    ///     client authentication's `client_id` / `client_secret`.
    /// - Returns: the new credential (usually without a refresh token, §4.4.3).
    /// - Throws: the errors listed on ``OAuth2TokenEndpoint``.
    public func clientCredentials(
        scope: String? = nil,
        additionalParameters: [QueryItem] = []
    ) async throws(CourierError) -> TokenCredential {
        var parameters: [QueryItem] = []
        if let scope { parameters.append(QueryItem(name: "scope", value: scope)) }
        return try await requestCredential(
            grantType: "client_credentials",
            grantParameters: parameters,
            callerParameters: additionalParameters,
            requestedScope: scope,
            previousRefreshToken: nil
        )
    }

    /// Requests a token with any grant: `grant_type`, then `parameters` in order, then the client
    /// authentication's body parameters.
    ///
    /// ```swift
    /// let credential = try await tokens.requestToken(grantType: "urn:example:grant", parameters: [QueryItem(name: "code", value: code)])
    /// ```
    /// - Parameters:
    ///   - grantType: the `grant_type` value, or an absolute URI for an extension grant (§4.5).
    ///     Must not be empty.
    ///   - parameters: the grant's parameters, form-encoded in this order. They may not contain
    ///     `grant_type` or the client authentication's parameters. A `scope` among them becomes the
    ///     credential's scope when the response has none.
    /// - Returns: the new credential.
    /// - Throws: ``CourierError/invalidRequest(_:)`` for an empty grant type; otherwise the errors
    ///   listed on ``OAuth2TokenEndpoint``.
    public func requestToken(grantType: String, parameters: [QueryItem]) async throws(CourierError) -> TokenCredential {
        guard !grantType.isEmpty else {
            throw .invalidRequest(.encodingFailed("the OAuth2 grant_type is empty"))
        }
        return try await requestCredential(
            grantType: grantType,
            grantParameters: [],
            callerParameters: parameters,
            requestedScope: parameters.last(where: { $0.name == "scope" })?.value,
            previousRefreshToken: nil
        )
    }

    // MARK: - Sending

    /// Sends one token request and reads its answer; every grant (including the ones in
    /// `OAuth2TokenEndpoint+Grants.swift` and the device flow's polls) goes through it.
    func requestCredential(
        grantType: String,
        grantParameters: [QueryItem],
        callerParameters: [QueryItem],
        requestedScope: String?,
        previousRefreshToken: String?
    ) async throws(CourierError) -> TokenCredential {
        let authenticationParameters = clientAuthentication.bodyParameters
        var reserved: Set<String> = ["grant_type"]
        reserved.formUnion(grantParameters.map(\.name))
        reserved.formUnion(authenticationParameters.map(\.name))
        try OAuth2Form.validate(callerParameters, reserved: reserved)

        // The client authentication's body parameters come last (formPost adds them). A token
        // response is small: 1 MiB is far more than any server sends.
        let form = [QueryItem(name: "grant_type", value: grantType)] + grantParameters + callerParameters
        let request = OAuth2Exchange.formPost(
            to: baseURL, path: path, form: form, clientAuthentication: clientAuthentication,
            timeout: timeout, maximumResponseSize: 1 << 20)

        let sentAt = now()
        let token: OAuth2TokenResponse
        do throws(CourierError) {
            token = try Self.tokenResponse(
                from: try await OAuth2Exchange.send(request, through: tokenPath.client),
                secrets: OAuth2Form.secretValues(of: form, clientAuthentication: clientAuthentication))
        } catch {
            // The failure names the grant: a rejected password is no failed refresh.
            switch error {
            case .transport(let failure):
                throw .authentication(.refreshFailed(RefreshFailure(reason: .transport(failure), isPermanent: false, grantType: grantType)))
            case .authentication(.refreshFailed(var failure)):
                failure.grantType = grantType
                throw .authentication(.refreshFailed(failure))
            default:
                throw error
            }
        }
        return TokenCredential(
            accessToken: token.accessToken,
            refreshToken: token.refreshToken ?? previousRefreshToken,
            expiresAt: token.expiresIn.map { sentAt.addingTimeInterval($0) },
            tokenType: token.tokenType,
            scope: token.scope ?? requestedScope,
            issuedAt: sentAt
        )
    }

    /// Reads the endpoint's answer: a token response for 2xx, a typed failure otherwise.
    /// - Parameter secrets: what the request sent that an error body must not echo into a
    ///   printed failure (``OAuth2Form/secretValues(of:clientAuthentication:)``).
    static func tokenResponse(from response: Response, secrets: [String] = []) throws(CourierError) -> OAuth2TokenResponse {
        let status = response.statusCode
        switch status {
        case 200...299:
            switch OAuth2TokenResponse.parse(response.body) {
            case .success(let token):
                return token
            case .failure(let malformed):
                // Some servers (GitHub among them) answer a rejected grant with 200 and an error
                // body; retrying it would only be rejected again.
                if malformed == .missing(.accessToken), let oauth2Error = OAuth2Error.lenientlyParsing(response.body, secrets: secrets) {
                    throw .authentication(
                        .refreshFailed(
                            RefreshFailure(
                                reason: .rejected, oauth2Error: oauth2Error, statusCode: status, isPermanent: true
                            )))
                }
                throw .authentication(
                    .refreshFailed(
                        RefreshFailure(
                            reason: .malformedResponse(malformed.reason), statusCode: status, isPermanent: false
                        )))
            }
        case 400, 401:
            throw .authentication(
                .refreshFailed(
                    RefreshFailure(
                        reason: .rejected, oauth2Error: OAuth2Error.lenientlyParsing(response.body, secrets: secrets),
                        statusCode: status, isPermanent: true
                    )))
        default:
            throw .authentication(
                .refreshFailed(
                    RefreshFailure(
                        reason: .unexpectedStatus, oauth2Error: OAuth2Error.lenientlyParsing(response.body, secrets: secrets),
                        statusCode: status, isPermanent: false
                    )))
        }
    }
}

extension OAuth2TokenEndpoint: CustomStringConvertible {
    /// The token URL and the client authentication, e.g.
    /// `OAuth2TokenEndpoint(https://auth.example.com/oauth/token, basic(clientID: "my-app", clientSecret: <redacted>))`.
    /// Never the secret.
    public var description: String {
        "OAuth2TokenEndpoint(\(baseURL)\(path.rawValue), \(clientAuthentication))"
    }
}

extension OAuth2TokenEndpoint {
    /// This endpoint with a path of its own for one refresher: a refresher's token requests take
    /// the path of a client that uses that refresher, never another refresher's (two accounts'
    /// refreshers made with one endpoint value). An endpoint given a configuration keeps it.
    package func withOwnPath() -> OAuth2TokenEndpoint {
        var endpoint = self
        endpoint.tokenPath = tokenPath.forOneRefresher()
        return endpoint
    }
}

/// The client a token endpoint's requests go through: fixed when the endpoint was given a
/// configuration; otherwise a default one until a ``Client`` whose authentication is a refresher
/// made with the endpoint adopts it. Every such client adopts it; requests take the token client
/// (``Client/tokenClient``) of the first one still alive.
///
/// The adopting clients are held weakly: a client holds its refresher, the refresher this path,
/// and an app middleware (inside the token client) may hold the refresher or its client; a strong
/// reference here would close that cycle.
package final class OAuth2TokenPath: Sendable {
    /// A client that adopted the path.
    private struct Adopter: Sendable {
        weak var client: Client?
    }

    /// Whether the endpoint was given a configuration: then no client adopts the path.
    let isFixed: Bool
    /// The endpoint's own path (its configuration, or the default one before any adoption).
    private let own: Client
    /// The clients that adopted the path, oldest first; `nil` until one does.
    private let adopters = LockedState<[Adopter]?>(nil)

    /// A path through `configuration`, or (for `nil`) a default one that clients may adopt.
    init(_ configuration: Configuration?) {
        isFixed = configuration != nil
        own = OAuth2Exchange.client(configuration ?? Configuration(), postsForm: true)
    }

    /// This path when it is fixed; otherwise a new default one, for one refresher.
    func forOneRefresher() -> OAuth2TokenPath {
        isFixed ? self : OAuth2TokenPath(nil)
    }

    /// The client requests go through now: the endpoint's own, or the token client of the first
    /// adopting client still alive.
    /// - Throws: ``AuthenticationFailure/refreshFailed(_:)`` when the path was adopted and every
    ///   adopting client is gone: their transport (its TLS pins, its proxy) is the one the app
    ///   chose for its credentials; another would send them elsewhere.
    var client: Client {
        get throws(CourierError) {
            let adopted: Client?? = adopters.withLock { adopters in
                adopters.map { list in list.lazy.compactMap(\.client).first?.tokenClient }
            }
            switch adopted {
            case .none: return own
            case .some(.some(let client)): return client
            case .some(.none): throw Self.noClientLeft
            }
        }
    }

    /// Throws what ``client`` would when the path has no client left, so that a refresher fails
    /// before it starts a refresh: the app's state, not the server's, which must not back the
    /// refresher off (a client the app creates next refreshes at once).
    func checkHasClient() throws(CourierError) {
        let orphaned = adopters.withLock { adopters in adopters.map { list in list.allSatisfy { $0.client == nil } } ?? false }
        if orphaned { throw Self.noClientLeft }
    }

    private static var noClientLeft: CourierError {
        .authentication(
            .refreshFailed(
                RefreshFailure(
                    reason: .custom("every client using this refresher was deallocated: no path for its token requests"),
                    isPermanent: false)))
    }

    /// Sends later requests through `client`'s token client when no client adopted the path
    /// before it is still alive, unless the endpoint was given a configuration.
    func adopt(_ client: Client) {
        guard !isFixed, client.tokenClient != nil else { return }
        adopters.withLock { adopters in
            var list = (adopters ?? []).filter { $0.client != nil }
            list.append(Adopter(client: client))
            adopters = list
        }
    }
}
