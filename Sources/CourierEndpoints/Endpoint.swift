public import Courier

/// A ready-made `Requestable`: an endpoint described by a chain of modifiers instead of a type
/// of its own. Each modifier returns a new value, so an endpoint can be stored and shared.
///
/// `Policy` is ``BodyForbidden`` for GET and HEAD and ``BodyAllowed`` otherwise: the body
/// modifiers exist only for the latter. `Model` is `Response` (what `resume()` returns) until
/// ``returning(_:)`` names a `Decodable` type, which ``TypedCall/model()`` returns. A bad path
/// segment, header, query value or base URL fails the call with
/// `CourierError.invalidRequest(_:)` when it is resumed, before anything is sent.
///
/// ```swift
/// let api = API(string: "https://api.github.example")
/// let repositories = api.get("users", login, "repos").query("page", 2).returning([Repository].self)
/// let gist = api.post("gists").json(newGist).returning(Gist.self)
/// let user = try await client.enqueue(api.get("users", "octocat").returning(User.self)).model()
/// ```
public struct Endpoint<Policy: BodyPolicy, Model: Sendable>: Requestable {
    // Nothing is checked or encoded in a way that can fail while the chain is built; every check
    // happens when the call is resumed. `api.get("x").json(value)` does not compile. Every value
    // is Sendable.
    var parts: EndpointParts

    init(parts: EndpointParts) {
        self.parts = parts
    }

    /// The API's scheme, host and port.
    /// - Throws: `CourierError.invalidRequest(_:)` when the ``API`` was made from a string
    ///   that is not a valid base URL (``API/init(string:headers:requiresAuthorization:)``).
    public func baseURL() throws(CourierError) -> BaseURL {
        try parts.base.get()
    }

    /// The API's path followed by this endpoint's segments, each percent-encoded.
    /// - Throws: `CourierError.invalidRequest(_:)` for the first problem a modifier met: a
    ///   segment that is empty, `.` or `..` (`InvalidRequest.invalidPath(_:reason:)`), a query
    ///   value that does not encode (`InvalidRequest.encodingFailed(_:underlyingError:)`).
    public func path() throws(CourierError) -> URLPath {
        if let problem = parts.problem { throw problem }
        return parts.path
    }

    /// The method: the one ``API/get(_:)``, ``API/post(_:)``… or ``API/request(method:_:)`` gave.
    public var method: HTTPMethod { parts.method }
    /// The API's headers, then those of ``header(_:_:)`` and ``headers(_:)``; `nil` when there
    /// are none.
    public var headerItems: [HeaderItem]? { parts.headerItems.isEmpty ? nil : parts.headerItems }
    /// The items of ``query(_:_:)`` and `query(_ items:)`, in order; `nil` when there
    /// are none.
    public var queryItems: [QueryItem]? { parts.queryItems.isEmpty ? nil : parts.queryItems }
    /// The nested parameters of `query(_ parameters:)` and ``query(encoding:)``.
    public var queryParameters: QueryParameters? { parts.queryParameters }
    /// Set by ``queryStringOptions(_:)``; `nil` uses `Configuration.queryStringOptions`.
    public var queryStringOptions: QueryStringFormattingOptions? { parts.queryStringOptions }
    /// Set by the body modifiers; always `nil` for `Endpoint<BodyForbidden, _>`.
    public var body: RequestBody? { parts.body }
    /// Set by ``authorized(_:)``; otherwise the ``API``'s, `true` unless it said otherwise.
    public var requiresAuthorization: Bool { parts.requiresAuthorization }
    /// Set by ``timeout(_:)``; `nil` uses `Configuration.timeout`.
    public var timeout: Duration? { parts.timeout }
    /// Set by ``accepting(statusCodes:)``; 200–299 by default.
    public var acceptableStatusCodes: Set<Int> { parts.acceptableStatusCodes }
    /// Set by ``maximumResponseSize(_:)``; `nil` uses `Configuration.maximumResponseSize`.
    public var maximumResponseSize: Int? { parts.maximumResponseSize }
    /// Set by ``decoder(_:)``; `nil` picks a decoder by `Content-Type`.
    public var responseDecoder: (any ResponseBodyDecoder)? { parts.responseDecoder }
    /// The stages of ``middleware(_:)``, in order.
    public var middleware: [any Middleware] { parts.middleware }
    /// The preconditions of ``constraints(_:)``, in order.
    public var constraints: [Constraint] { parts.constraints }
    /// Set by ``cachePolicy(_:)``; `CachePolicy.useProtocolRules` by default.
    public var cachePolicy: CachePolicy { parts.cachePolicy }

    /// A copy with `change` applied.
    func with(_ change: (inout EndpointParts) -> Void) -> Self {
        var copy = self
        change(&copy.parts)
        return copy
    }
}

/// Everything an ``Endpoint`` declares, whatever its type parameters: the modifiers change one
/// of these and keep the rest.
struct EndpointParts: Sendable {
    var base: Result<BaseURL, CourierError>
    /// The API's path and the segments so far, percent-encoded.
    var path: URLPath
    var method: HTTPMethod
    var headerItems: [HeaderItem]
    var queryItems: [QueryItem] = []
    var queryParameters: QueryParameters?
    var queryStringOptions: QueryStringFormattingOptions?
    var body: RequestBody?
    var requiresAuthorization = true
    var timeout: Duration?
    var acceptableStatusCodes = Response.successStatusCodes
    var maximumResponseSize: Int?
    var responseDecoder: (any ResponseBodyDecoder)?
    var middleware: [any Middleware] = []
    var constraints: [Constraint] = []
    var cachePolicy = CachePolicy.useProtocolRules
    /// The first error a modifier met; the call fails with it (from ``Endpoint/path()``).
    var problem: CourierError?

    /// Keeps `error` unless an earlier one is kept already: the call reports the first mistake
    /// of the chain.
    mutating func record(_ error: CourierError) {
        if problem == nil { problem = error }
    }
}
