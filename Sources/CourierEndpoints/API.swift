public import Courier
import Foundation

/// Where a web API lives (a base URL, an optional path prefix, headers every endpoint sends),
/// and the start of its ``Endpoint``s: one method per HTTP method.
///
/// ```swift
/// let api = try API(base: BaseURL(host: "api.github.example"))
/// let repositories = api.get("users", login, "repos").query("sort", "updated")   // GET /users/{login}/repos?sort=updated
/// let gist = api.post("gists").json(newGist)                                      // POST /gists with a JSON body
/// let response = try await client.enqueue(repositories).resume()                 // the Response
/// let decoded = try await client.enqueue(repositories.returning([Repository].self)).model()
/// ```
///
/// Path segments are raw: each is percent-encoded (`"a/b"` becomes `a%2Fb`), so user input
/// cannot change the path. GET and HEAD give `Endpoint<BodyForbidden, Response>`, on which no
/// body modifier exists; the other methods give `Endpoint<BodyAllowed, Response>`.
public struct API: Sendable {
    private let base: Result<BaseURL, CourierError>
    private let path: URLPath
    private let headers: [HeaderItem]
    private let requiresAuthorization: Bool

    /// An API at `base`, under `path`, whose endpoints send `headers` (an endpoint's own
    /// ``Endpoint/header(_:_:)`` replaces one of the same name) and require the client's
    /// credential unless `requiresAuthorization` is `false` (an endpoint's own
    /// ``Endpoint/authorized(_:)`` decides for that endpoint).
    ///
    /// ```swift
    /// let api = try API(base: BaseURL(host: "api.example.com"), path: URLPath("/v2"), headers: [.accept("application/json")])
    /// ```
    public init(base: BaseURL, path: URLPath = .root, headers: [HeaderItem] = [], requiresAuthorization: Bool = true) {
        self.base = .success(base)
        self.path = path
        self.headers = headers
        self.requiresAuthorization = requiresAuthorization
    }

    /// An API at a URL given as a string, `scheme://host[:port][/path]`, with the path already
    /// percent-encoded: the way to declare one in a `static let` without `try`.
    ///
    /// ```swift
    /// enum Billing {
    ///     static let api = API(string: "https://billing.example.com/v1")
    ///     static let rates = API(string: "https://rates.example.com", requiresAuthorization: false)  // public
    /// }
    /// ```
    ///
    /// The string is checked now, but a mistake in it fails each call to the API's endpoints with
    /// `CourierError.invalidRequest(_:)` when it is resumed, never a crash: the errors of
    /// `BaseURL.init(string:)` for the base (a query, a fragment or user-info are refused), and
    /// of `URLPath.init(_:)` for the path.
    public init(string: String, headers: [HeaderItem] = [], requiresAuthorization: Bool = true) {
        self.headers = headers
        self.requiresAuthorization = requiresAuthorization
        do throws(CourierError) {
            (base, path) = try Self.parse(string)
        } catch {
            (base, path) = (.failure(error), .root)
        }
    }

    /// The base URL and the path of `string`: the authority ends at the first `/` after
    /// `scheme://` (RFC 3986 §3.2).
    private static func parse(_ string: String) throws(CourierError) -> (Result<BaseURL, CourierError>, URLPath) {
        let authorityStart = string.range(of: "://")?.upperBound ?? string.startIndex
        let pathStart = string[authorityStart...].firstIndex(of: "/") ?? string.endIndex
        let base: BaseURL
        do throws(CourierError) {
            base = try BaseURL(string: String(string[..<pathStart]))
        } catch {
            // User-info with a "/" in it (`https://user:pa/ss@host`) would be split at that "/",
            // and the part before it printed: print the whole string, read cautiously, instead.
            guard string.contains("@") else { throw error }
            throw .invalidRequest(
                .invalidBaseURL(
                    Redaction.default.redact(urlString: string),
                    reason: "expected scheme://host[:port][/path] with no user-info; use Authentication for credentials"))
        }
        let pathString = String(string[pathStart...])
        guard !pathString.isEmpty else { return (.success(base), .root) }
        if let problem = URLPath.problem(with: pathString) {
            throw .invalidRequest(.invalidPath(Redaction.default.redact(urlString: pathString), reason: problem))
        }
        return (.success(base), try URLPath(pathString))
    }

    /// A GET endpoint at this API's path followed by `segments`, each percent-encoded.
    ///
    /// ```swift
    /// let user = api.get("users", login)   // GET /users/{login}
    /// ```
    public func get(_ segments: String...) -> Endpoint<BodyForbidden, Response> { endpoint(.get, segments) }

    /// A HEAD endpoint at this API's path followed by `segments`, each percent-encoded.
    public func head(_ segments: String...) -> Endpoint<BodyForbidden, Response> { endpoint(.head, segments) }

    /// A POST endpoint at this API's path followed by `segments`, each percent-encoded.
    ///
    /// ```swift
    /// let created = api.post("gists").json(newGist).returning(Gist.self)
    /// ```
    public func post(_ segments: String...) -> Endpoint<BodyAllowed, Response> { endpoint(.post, segments) }

    /// A PUT endpoint at this API's path followed by `segments`, each percent-encoded.
    public func put(_ segments: String...) -> Endpoint<BodyAllowed, Response> { endpoint(.put, segments) }

    /// A PATCH endpoint at this API's path followed by `segments`, each percent-encoded.
    public func patch(_ segments: String...) -> Endpoint<BodyAllowed, Response> { endpoint(.patch, segments) }

    /// A DELETE endpoint at this API's path followed by `segments`, each percent-encoded.
    public func delete(_ segments: String...) -> Endpoint<BodyAllowed, Response> { endpoint(.delete, segments) }

    /// An OPTIONS endpoint at this API's path followed by `segments`, each percent-encoded.
    public func options(_ segments: String...) -> Endpoint<BodyAllowed, Response> { endpoint(.options, segments) }

    /// An endpoint with any method, such as WebDAV's or a cache's `PURGE`, at this API's path
    /// followed by `segments`, each percent-encoded.
    ///
    /// ```swift
    /// let purge = api.request(method: try HTTPMethod(validating: "PURGE"), "cache", key)
    /// ```
    ///
    /// The method is known only when the program runs, so the body modifiers exist whatever it
    /// is: a body on a GET or HEAD made this way fails the call with
    /// `InvalidRequest.bodyNotAllowed(method:)` before anything is sent.
    public func request(method: HTTPMethod, _ segments: String...) -> Endpoint<BodyAllowed, Response> {
        endpoint(method, segments)
    }

    private func endpoint<Policy>(_ method: HTTPMethod, _ segments: [String]) -> Endpoint<Policy, Response> {
        let parts = EndpointParts(base: base, path: path, method: method, headerItems: headers, requiresAuthorization: requiresAuthorization)
        return Endpoint(parts: parts).appending(contentsOf: segments)
    }
}
