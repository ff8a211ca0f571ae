package import Foundation
import HTTPTypes

/// The requests the OAuth2 flows send (token, device authorization, revocation, discovery):
/// endpoints like users' own, sent through a ``Client`` of their own (the caller's configuration
/// without authentication or cache) and collected up to a small cap.
package enum OAuth2Exchange {
    /// Splits an absolute endpoint URL into the base URL and path Courier sends to.
    ///
    /// - Throws: ``CourierError/invalidRequest(_:)`` with ``InvalidRequest/invalidURL(_:)`` for a
    ///   URL that is not `http`/`https` with a host, or that has user-info, a query or a fragment
    ///   (an OAuth2 endpoint URL with a query is allowed by RFC 6749 §3.1 but not supported here);
    ///   the host and path errors of ``BaseURL`` and ``URLPath``. The URL in the error is redacted.
    package static func split(_ url: URL) throws(CourierError) -> (baseURL: BaseURL, path: URLPath) {
        func fail(_ why: String) -> CourierError {
            .invalidRequest(.invalidURL("\(Redaction.default.redact(urlString: url.absoluteString)): \(why)"))
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let schemeText = components.scheme?.lowercased(), let scheme = BaseURL.Scheme(rawValue: schemeText)
        else { throw fail("an OAuth2 endpoint must be an absolute http or https URL") }
        guard components.user == nil, components.password == nil else { throw fail("an OAuth2 endpoint URL has no user-info") }
        guard components.percentEncodedQuery == nil, components.fragment == nil else {
            throw fail("an OAuth2 endpoint URL with a query or fragment is not supported")
        }
        guard let host = components.percentEncodedHost, !host.isEmpty else { throw fail("the URL has no host") }
        // URLComponents gives an IPv6 literal without or with brackets depending on the platform.
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let baseURL = try BaseURL(scheme: scheme, host: bracketed, port: components.port)
        let rawPath = components.percentEncodedPath
        let path = rawPath.isEmpty ? URLPath.root : try URLPath(rawPath)
        return (baseURL, path)
    }

    /// Whether `host` (as a URL gives it, IPv6 with or without brackets) is the local machine:
    /// `localhost`, a `*.localhost` name, `127.0.0.0/8` or `::1`. Plain `http` is accepted only
    /// for such hosts, where no one else can read the traffic.
    package static func isLoopback(host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Why `url` cannot be an OAuth2 endpoint or issuer: `nil` for an `https` URL with a host, or
    /// an `http` URL whose host is loopback (for tests and local development); no user-info,
    /// no fragment. The reason never quotes the URL.
    package static func endpointProblem(_ url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty
        else { return "is not an absolute URL with a host" }
        guard components.user == nil, components.password == nil else { return "has user-info" }
        guard components.fragment == nil else { return "has a fragment" }
        switch scheme {
        case "https": return nil
        case "http": return isLoopback(host: host) ? nil : "is not https (plain http is allowed only for loopback hosts)"
        default: return "is not https"
        }
    }

    /// A request with no credential but the client's own Basic authentication.
    package struct Request: Requestable {
        package let base: BaseURL
        package let urlPath: URLPath
        package let method: HTTPMethod
        package let headerItems: [HeaderItem]?
        package let body: RequestBody?
        package let timeout: Duration?
        package let maximumResponseSize: Int?
        package let redirectMode: RedirectMode
        package var requiresAuthorization: Bool { false }
        package func baseURL() throws(CourierError) -> BaseURL { base }
        package func path() throws(CourierError) -> URLPath { urlPath }
    }

    /// The client OAuth2 requests of one endpoint go through: `configuration`'s transport,
    /// headers, middleware, logger, redaction, tracer, metrics and retry policy, without its
    /// authentication (these requests carry the client's own credential, and a bearer
    /// authentication would refresh through them) and without its cache. Default headers that
    /// carry a credential (`Authorization`, `Cookie`, and any the default or the configuration's
    /// redaction hides, such as `X-Api-Key`) are left out too: they are the API's credentials as
    /// much as the authentication is, and the authorization server is not the API.
    ///
    /// - Parameter postsForm: whether the client sends form `POST`s (token, revocation and
    ///   device-authorization requests): those are sent again only when the first attempt never
    ///   reached the server (a refused connection, a failed name lookup), so a refresh token is
    ///   never spent twice.
    package static func client(_ configuration: Configuration, postsForm: Bool) -> Client {
        var configuration = configuration
        configuration.authentication = .none
        configuration.cache = nil
        configuration.headers.removeAll {
            credentialHeaders.contains($0.name.lowercased()) || Redaction.default.isSecret(headerName: $0.name)
                || configuration.redaction.isSecret(headerName: $0.name)
        }
        configuration.redaction = hidingSecrets(configuration.redaction)
        // Innermost of the users' stages: what a middleware added that carries a credential is
        // the API's, not the authorization server's (an API key on every request).
        configuration.middleware.append(CredentialGuard(redaction: configuration.redaction))
        if postsForm {
            configuration.retryPolicy.generatesIdempotencyKey = false
            configuration.retryPolicy.retriesOnlyUnsentRequests = true
        }
        return Client(configuration: configuration)
    }

    /// The default headers (lowercased) ``client(_:postsForm:)`` leaves out: the API's credentials.
    static let credentialHeaders: Set<String> = ["authorization", "cookie"]

    /// `redaction` hiding every OAuth2 secret (the form fields of ``Redaction/defaultParameterNames``
    /// — tokens, the client's secret and assertion, a grant's code, verifier, device code or
    /// password — and the `Authorization` header) whatever it lists or exposes: a name the API's
    /// redaction exposes, or leaves out of its own lists, because it is harmless in the API's
    /// requests (a `code` for a country), is still a secret in a token request.
    static func hidingSecrets(_ redaction: Redaction) -> Redaction {
        var redaction = redaction
        redaction.formFields.formUnion(Redaction.defaultParameterNames)
        redaction.headers.insert("Authorization")
        let secret = Redaction.normalizedSet(Redaction.defaultParameterNames.union(["Authorization"]))
        redaction.exposed = redaction.exposed.filter { !secret.contains(Redaction.normalize($0)) }
        return redaction
    }

    /// A form `POST` like a token request's: `Accept: application/json`, the form's
    /// `Content-Type` (as a header of the request, so that a configuration's default
    /// `Content-Type` cannot replace it), the client's Basic header when it uses one, and `form`
    /// followed by the client authentication's body parameters. It follows no redirect (``RedirectMode/never``): its body and header carry the
    /// client's secret and tokens, and a 3xx is an answer the caller sees as a failure.
    package static func formPost(
        to baseURL: BaseURL, path: URLPath, form: [QueryItem], clientAuthentication: OAuth2ClientAuthentication,
        timeout: Duration, maximumResponseSize: Int
    ) -> Request {
        let contentType = "application/x-www-form-urlencoded; charset=utf-8"
        var headers = [HeaderItem(name: "Accept", value: "application/json"), HeaderItem(name: "Content-Type", value: contentType)]
        if let authorization = clientAuthentication.authorizationHeaderValue {
            headers.append(HeaderItem(name: "Authorization", value: authorization))
        }
        let body = Data(OAuth2Form.encode(form + clientAuthentication.bodyParameters).utf8)
        return Request(
            base: baseURL, urlPath: path, method: .post, headerItems: headers,
            body: .data(body, contentType: contentType),
            timeout: timeout, maximumResponseSize: maximumResponseSize, redirectMode: .never)
    }

    /// A `GET` with `Accept: application/json` and nothing else (discovery). It carries no secret,
    /// so it follows redirects like any request; the metadata's `issuer` is checked anyway.
    package static func get(_ baseURL: BaseURL, path: URLPath, timeout: Duration, maximumResponseSize: Int) -> Request {
        Request(
            base: baseURL, urlPath: path, method: .get,
            headerItems: [HeaderItem(name: "Accept", value: "application/json")], body: nil,
            timeout: timeout, maximumResponseSize: maximumResponseSize, redirectMode: .follow)
    }

    /// Sends `request` through `client` (its middleware, logs, spans, metrics and retries) and
    /// collects the body up to the request's cap. Any status comes back as a response, for the
    /// caller to read; errors are the pipeline's, unchanged.
    package static func send(_ request: Request, through client: Client) async throws(CourierError) -> Response {
        do throws(CourierError) {
            return try await client.enqueue(request).resume()
        } catch .response(let response) {
            return response
        }
    }
}

extension OAuth2Exchange {
    /// The last middleware of an OAuth2 client: drops every header field that carries a
    /// credential (`Authorization`, `Cookie`, and any the default or the configuration's
    /// redaction hides) unless the request was built with that exact field (the OAuth client's
    /// own Basic header). So an app's middleware that adds its API key or token to every request
    /// cannot send it to the authorization server.
    struct CredentialGuard: Middleware {
        let redaction: Redaction

        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            let items = context.endpoint.headerItems ?? []
            let built = Set(items.map { "\($0.name.lowercased())\u{0}\($0.value)" })
            var request = request
            var kept = HTTPFields()
            for field in request.head.headerFields {
                if carriesCredential(field.name.canonicalName), !built.contains("\(field.name.canonicalName)\u{0}\(field.value)") { continue }
                kept.append(field)
            }
            // The OAuth client's own authentication goes out as built, even if a middleware
            // replaced it (without it the server answers invalid_client: a permanent failure).
            for item in items where carriesCredential(item.name.lowercased()) {
                guard let name = HTTPField.Name(item.name), !kept[values: name].contains(item.value) else { continue }
                kept[name] = item.value
            }
            request.head.headerFields = kept
            return try await next(request)
        }

        private func carriesCredential(_ name: String) -> Bool {
            credentialHeaders.contains(name) || Redaction.default.isSecret(headerName: name) || redaction.isSecret(headerName: name)
        }
    }
}
