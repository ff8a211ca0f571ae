public import Courier
public import Foundation

/// A client for an OAuth2 token revocation endpoint (RFC 7009): tells the authorization server
/// that a refresh or access token is no longer needed, so that it stops being honoured.
///
/// Each request is sent like a token request: through a configuration's transport and
/// middleware without its authentication, and never following a redirect. Failures are
/// `AuthenticationFailure.revocationFailed(_:)` with a `RefreshFailure`: permanent for a 400 or
/// 401, transient otherwise. Its `description` never shows a secret.
///
/// ```swift
/// let revocation = OAuth2RevocationEndpoint(
///     baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/revoke"),
///     clientAuthentication: .publicClient(clientID: "my-app"))
/// try await revocation.revoke(refreshToken, hint: .refreshToken)
/// ```
public struct OAuth2RevocationEndpoint: Sendable {
    // Each request is a form `POST` of `token`, `token_type_hint` (when given) and the client
    // authentication (same headers, client authentication and form encoding as
    // OAuth2TokenEndpoint). The RefreshFailure is built as OAuth2TokenEndpoint builds its own:
    // - 400 or 401 (`unsupported_token_type`, `invalid_client`…): reason `.rejected` with the parsed
    //   OAuth2Error and the status; permanent;
    // - any other non-2xx status (503 with or without `Retry-After`, 429, 500…): reason
    //   `.unexpectedStatus`; transient, the token may be revoked later;
    // - no response: reason `.transport(_:)`; transient;
    // - cancellation: CourierError.cancelled; a request that cannot be built:
    //   CourierError.invalidRequest(_:).

    /// Which kind of token is being revoked (RFC 7009 §2.1 `token_type_hint`): a hint that helps
    /// the server find it; the server looks further when the hint is wrong.
    public enum TokenTypeHint: String, Sendable, CaseIterable {
        /// `access_token`.
        case accessToken = "access_token"
        /// `refresh_token`.
        case refreshToken = "refresh_token"
    }

    /// The revocation endpoint's scheme, host and port.
    public let baseURL: BaseURL
    /// The revocation endpoint's path, e.g. `/oauth/revoke`.
    public let path: URLPath
    /// How the client authenticates (the same as at the token endpoint, RFC 7009 §2.1).
    public let clientAuthentication: OAuth2ClientAuthentication
    /// What revocation requests go through.
    let client: Client
    /// How long one revocation request may take.
    public let timeout: Duration

    /// The most of a revocation response that is read: its body is ignored anyway (§2.2),
    /// except for an error's.
    static let maximumResponseSize = 64 << 10

    /// Creates a revocation endpoint client. Nothing is sent until ``revoke(_:hint:)``.
    ///
    /// ```swift
    /// let revocation = OAuth2RevocationEndpoint(
    ///     baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/revoke"),
    ///     clientAuthentication: .basic(clientID: "my-app", clientSecret: secret))
    /// ```
    ///
    /// - Parameters:
    ///   - baseURL: the endpoint's scheme, host and port.
    ///   - path: the endpoint's path.
    ///   - clientAuthentication: how the client authenticates.
    ///   - configuration: what requests go through, as for `OAuth2TokenEndpoint`: its
    ///     transport, headers, middleware, logger, tracer, metrics and retry policy (a request is
    ///     sent again only when it never reached the server), not its authentication or cache.
    ///   - timeout: how long one request may take; must be positive.
    public init(
        baseURL: BaseURL,
        path: URLPath,
        clientAuthentication: OAuth2ClientAuthentication,
        configuration: Configuration = Configuration(),
        timeout: Duration = .seconds(30)
    ) {
        self.baseURL = baseURL
        self.path = path
        self.clientAuthentication = clientAuthentication
        self.client = OAuth2Exchange.client(configuration, postsForm: true)
        self.timeout = timeout
    }

    /// Creates a revocation endpoint client from an absolute URL, e.g. the `revocation_endpoint`
    /// of ``AuthorizationServerMetadata``.
    ///
    /// ```swift
    /// let revocation = try OAuth2RevocationEndpoint(
    ///     url: URL(string: "https://auth.example.com/oauth/revoke")!,
    ///     clientAuthentication: .publicClient(clientID: "my-app"))
    /// ```
    ///
    /// - Throws: `CourierError.invalidRequest(_:)` for a URL that is not `http`/`https` with a
    ///   host, or that has user-info, a query or a fragment.
    public init(
        url: URL,
        clientAuthentication: OAuth2ClientAuthentication,
        configuration: Configuration = Configuration(),
        timeout: Duration = .seconds(30)
    ) throws(CourierError) {
        let (baseURL, path) = try OAuth2Exchange.split(url)
        self.init(
            baseURL: baseURL, path: path, clientAuthentication: clientAuthentication, configuration: configuration,
            timeout: timeout)
    }

    /// The endpoint's absolute URL, e.g. `https://auth.example.com/oauth/revoke`.
    public var url: URL {
        URL(string: "\(baseURL)\(path.rawValue)") ?? baseURL.url
    }

    /// Revokes `token` (RFC 7009 §2.1). Revoking a token that is already invalid or unknown
    /// succeeds too (§2.2: the server answers 200).
    ///
    /// ```swift
    /// try await revocation.revoke(credential.refreshToken!, hint: .refreshToken)
    /// ```
    ///
    /// - Parameters:
    ///   - token: the refresh or access token to revoke. Must not be empty.
    ///   - hint: what kind of token it is, sent as `token_type_hint`; `nil` sends none.
    /// - Throws: `CourierError.invalidRequest(_:)` for an empty token, without sending
    ///   anything; otherwise the errors listed on ``OAuth2RevocationEndpoint``.
    public func revoke(_ token: String, hint: TokenTypeHint? = nil) async throws(CourierError) {
        guard !token.isEmpty else {
            throw .invalidRequest(.encodingFailed("the token to revoke is empty"))
        }
        var form = [QueryItem(name: "token", value: token)]
        if let hint { form.append(QueryItem(name: "token_type_hint", value: hint.rawValue)) }
        let request = OAuth2Exchange.formPost(
            to: baseURL, path: path, form: form, clientAuthentication: clientAuthentication,
            timeout: timeout, maximumResponseSize: Self.maximumResponseSize)
        let response: Response
        do throws(CourierError) {
            response = try await OAuth2Exchange.send(request, through: client)
        } catch {
            if Task.isCancelled { throw .cancelled }
            if case .transport(let failure) = error {
                throw .authentication(.revocationFailed(RefreshFailure(reason: .transport(failure), isPermanent: false)))
            }
            throw error
        }
        let secrets = OAuth2Form.secretValues(of: form, clientAuthentication: clientAuthentication)
        if let failure = Self.failure(status: response.statusCode, body: response.body, secrets: secrets) {
            throw .authentication(.revocationFailed(failure))
        }
    }

    /// What a revocation answer means: `nil` for success (any 2xx; its body is ignored), else
    /// the failure, with the RFC 6749 §5.2 error body read leniently (`OAuth2Error.lenientlyParsing`).
    static func failure(status: Int, body: Data, secrets: [String] = []) -> RefreshFailure? {
        switch status {
        case 200...299:
            return nil
        case 400, 401:
            return RefreshFailure(
                reason: .rejected, oauth2Error: OAuth2Error.lenientlyParsing(body, secrets: secrets), statusCode: status,
                isPermanent: true)
        default:
            return RefreshFailure(
                reason: .unexpectedStatus, oauth2Error: OAuth2Error.lenientlyParsing(body, secrets: secrets), statusCode: status,
                isPermanent: false)
        }
    }
}

extension OAuth2RevocationEndpoint: CustomStringConvertible {
    /// The revocation URL and the client authentication, never the secret, e.g.
    /// `OAuth2RevocationEndpoint(https://auth.example.com/oauth/revoke, publicClient(clientID: "my-app"))`.
    public var description: String {
        "OAuth2RevocationEndpoint(\(baseURL)\(path.rawValue), \(clientAuthentication))"
    }
}
