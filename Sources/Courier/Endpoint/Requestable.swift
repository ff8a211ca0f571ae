/// An endpoint: everything Courier needs to build one request.
///
/// Only ``baseURL()`` is required; every other member has a default.
///
/// ```swift
/// struct GetUser: Requestable {
///     let id: Int
///     func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
///     func path() throws(CourierError) -> URLPath { try URLPath(segments: ["users", String(id)]) }
/// }
///
/// let user = try await client.enqueue(GetUser(id: 42)).resume(expecting: User.self)
/// ```
public protocol Requestable: Sendable {
    /// The scheme, host and port to send to.
    /// - Throws: ``CourierError/invalidRequest(_:)`` when the host or port is invalid.
    func baseURL() throws(CourierError) -> BaseURL
    /// The path. Default: ``URLPath/root``.
    /// - Throws: ``CourierError/invalidRequest(_:)`` when the path is invalid.
    func path() throws(CourierError) -> URLPath
    /// The method. Default: ``HTTPMethod/get``.
    var method: HTTPMethod { get }
    /// Headers for this endpoint; they replace client-wide headers of the same name. Default: `nil`.
    var headerItems: [HeaderItem]? { get }
    /// Query parameters, in order. No `?` is added when this is `nil` or empty. Default: `nil`.
    var queryItems: [QueryItem]? { get }
    /// Nested query parameters, written after ``queryItems`` with their names in sorted order.
    /// Default: `nil`. The getter may throw (a plain `var` conforms too): build parameters from an
    /// `Encodable` with `try`, never `try?`, so that a value that fails to encode fails the call
    /// instead of sending the request without its query.
    /// - Throws: ``CourierError/invalidRequest(_:)`` when they cannot be built; the call fails with it.
    ///
    /// ```swift
    /// var queryParameters: QueryParameters? { ["filter": ["tags": ["a", "b"]], "limit": 20] }
    /// // ?filter%5Btags%5D%5B0%5D=a&filter%5Btags%5D%5B1%5D=b&limit=20
    /// var queryParameters: QueryParameters? { get throws(CourierError) { try QueryParameters(encoding: filter) } }
    /// ```
    var queryParameters: QueryParameters? { get throws(CourierError) }
    /// How this endpoint's query is formatted; `nil` uses ``Configuration/queryStringOptions``.
    /// Default: `nil`.
    ///
    /// ```swift
    /// var queryStringOptions: QueryStringFormattingOptions? { QueryStringFormattingOptions(arrayFormat: .commaSeparated) }
    /// // ?ids=1,2,3
    /// ```
    var queryStringOptions: QueryStringFormattingOptions? { get }
    /// The body. Not allowed for GET and HEAD. Default: `nil`.
    var body: RequestBody? { get }
    /// Whether the client's authentication is applied to this endpoint. Default: `true`. With
    /// ``Authentication/none`` there is nothing to apply and the request is sent as it is; with
    /// an authentication that has no credential yet (an empty ``TokenStore``) the call fails with
    /// ``AuthenticationFailure/missingCredential`` and nothing is sent.
    var requiresAuthorization: Bool { get }
    /// How long the whole request may take; `nil` uses ``Configuration/timeout``. Default: `nil`.
    var timeout: Duration? { get }
    /// Status codes that count as success; any other fails the call with
    /// ``CourierError/response(_:)``. Default: 200–299.
    var acceptableStatusCodes: Set<Int> { get }
    /// The most bytes of response body this endpoint's calls read, counted after decompression;
    /// `nil` uses ``Configuration/maximumResponseSize``. Default: `nil`.
    ///
    /// ```swift
    /// var maximumResponseSize: Int? { 512 << 20 }   // this export may be large; Int.max: no limit
    /// ```
    var maximumResponseSize: Int? { get }
    /// Which redirects this endpoint's requests follow. Default: ``RedirectMode/follow`` (a
    /// 307/308 sends the body again only on the same origin).
    var redirectMode: RedirectMode { get }
    /// The decoder for this endpoint's responses, used whatever their `Content-Type`; `nil`
    /// picks one by `Content-Type` (see ``ResponseBodyDecoder``). Default: `nil`.
    ///
    /// ```swift
    /// var responseDecoder: (any ResponseBodyDecoder)? { JSONBodyDecoder(snakeCaseDecoder) }
    /// ```
    var responseDecoder: (any ResponseBodyDecoder)? { get }
    /// Middleware for this endpoint only, run inside ``Configuration/middleware`` (see
    /// ``Middleware`` for the order). Default: none.
    var middleware: [any Middleware] { get }
    /// Preconditions the call waits for before its request is built (a session, a consent):
    /// each ``Constraint`` runs its `satisfy` once for all the calls waiting on it, and its
    /// failure fails them all with ``CourierError/constraint(_:)``. Default: none.
    ///
    /// ```swift
    /// struct Dashboard: Requestable {
    ///     static let session = Constraint(name: "session", isSatisfied: { await store.hasSession },
    ///                                     satisfy: { try await store.startSession() })
    ///     func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    ///     var constraints: [Constraint] { [Self.session] }
    /// }
    /// ```
    var constraints: [Constraint] { get }
    /// How this endpoint's calls use ``Configuration/cache``. Default:
    /// ``CachePolicy/useProtocolRules``.
    ///
    /// ```swift
    /// var cachePolicy: CachePolicy { .returnCachedElseLoad }
    /// ```
    var cachePolicy: CachePolicy { get }
}

extension Requestable {
    /// ``URLPath/root``.
    public func path() throws(CourierError) -> URLPath { .root }
    /// ``HTTPMethod/get``.
    public var method: HTTPMethod { .get }
    /// `nil`.
    public var headerItems: [HeaderItem]? { nil }
    /// `nil`.
    public var queryItems: [QueryItem]? { nil }
    /// `nil`.
    public var queryParameters: QueryParameters? { nil }
    /// `nil`: the client's ``Configuration/queryStringOptions``.
    public var queryStringOptions: QueryStringFormattingOptions? { nil }
    /// `nil`.
    public var body: RequestBody? { nil }
    /// `true`.
    public var requiresAuthorization: Bool { true }
    /// `nil`: the client's ``Configuration/timeout``.
    public var timeout: Duration? { nil }
    /// 200–299.
    public var acceptableStatusCodes: Set<Int> { Response.successStatusCodes }
    /// `nil`: the configuration's limit.
    public var maximumResponseSize: Int? { nil }
    /// ``RedirectMode/follow``.
    public var redirectMode: RedirectMode { .follow }
    /// `nil`: chosen by `Content-Type`.
    public var responseDecoder: (any ResponseBodyDecoder)? { nil }
    /// None.
    public var middleware: [any Middleware] { [] }
    /// None.
    public var constraints: [Constraint] { [] }
    /// ``CachePolicy/useProtocolRules``.
    public var cachePolicy: CachePolicy { .useProtocolRules }
}
