public import Courier

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// A stand-in for the network, for tests: answers requests with stubbed responses and records them all.
///
/// Use it in a scope (the `.stubbedNetwork` trait or ``withStubbedNetwork(_:isolation:_:)``),
/// or give clients ``makeTransport()`` and keep the stub as long as they use it. Routes are tried
/// in order; a request no route answers is recorded in ``unmatchedRequests`` and never sent
/// anywhere. No redirects are followed, no cookies kept, nothing cached.
///
/// ```swift
/// @Test(.stubbedNetwork) func fetchesTheUser() async throws {
///     let network = try #require(NetworkStub.current)
///     network.stub(.get, "/users/42", with: try .json(User(id: 42, name: "Ada")))
///     _ = try await Client().enqueue(GetUser(id: 42)).resume(expecting: User.self)
///     #expect(network.requests.map(\.path) == ["/users/42"])
/// }
/// ```
public final class NetworkStub: Sendable {
    // The two ways in, in full (Documentation/Testing.md):
    // - A scope: every request that uses Courier's default transport (`Client()`, token endpoints,
    //   revocation, discovery, device flow, downloads, event streams) is answered by the stub
    //   directly, the same way on Linux and Apple platforms. An unmatched request fails at once with
    //   CourierError.transport whose description names the method and URL.
    // - A transport of its own: makeTransport() (or any URLSession through configuration), which
    //   also exercises URLSession; only the clients given it use it. An unmatched request gets `501
    //   Not Implemented` with `X-Courier-Stub: unmatched` and a `text/plain` body naming its method
    //   and URL (through Courier: CourierError.response).
    //
    // Isolation: a scope is a task-local value, so tests running at once each send to their own
    // stub. Through makeTransport(), each stub answers only the sessions made from its own
    // configuration or makeTransport(); nothing is added to the requests to achieve this: each stub
    // has its own URLProtocol class.
    //
    // Lifetime: a scope keeps its stub alive. Otherwise the stub must live as long as its transport
    // is used: a session whose stub has been released answers `501` with `X-Courier-Stub: released`.
    private let id: UInt64
    let storage: StubStorage

    /// Creates a stub with no routes and no recorded requests.
    public init() {
        let storage = StubStorage()
        self.storage = storage
        self.id = StubRegistry.shared.register(storage)
    }

    deinit {
        StubRegistry.shared.unregister(id)
    }

    /// A new ephemeral session configuration whose requests all go to this stub.
    ///
    /// Each read returns a fresh copy that you may adjust (timeouts, additional headers) before
    /// creating a session; keep its `protocolClasses` as they are. Caching and cookies are off.
    ///
    /// ```swift
    /// let configuration = network.configuration
    /// configuration.timeoutIntervalForRequest = 5
    /// let transport = URLSessionTransport(configuration: configuration)
    /// ```
    public var configuration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubURLProtocol.protocolClass(for: id)]
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        return configuration
    }

    /// A new Courier transport over a session made from ``configuration``.
    ///
    /// Each transport owns a session: make one per client, not one per call.
    ///
    /// ```swift
    /// let client = Client(configuration: Configuration(transport: network.makeTransport()))
    /// ```
    public func makeTransport() -> URLSessionTransport {
        URLSessionTransport(configuration: configuration)
    }

    /// Answers requests with `method` and `path` with `response`.
    ///
    /// ```swift
    /// network.stub(.get, "/users/42", with: try .json(user))
    /// network.stub(.get, "/me", with: .status(401), times: 1)              // the first request only
    /// ```
    /// - Parameters:
    ///   - method: the method the request must have.
    ///   - path: the path the request must have, percent-encoded as sent. Unless `ignoringQuery`,
    ///     the query is part of the comparison: `"/users"` matches only requests without a query,
    ///     `"/users?page=2"` only that query. The host and port are not compared.
    ///   - ignoringQuery: compare the path only, whatever the query.
    ///   - response: the answer.
    ///   - times: how many requests this route answers before it is used up and later routes
    ///     get their turn; `nil` for any number. A count of zero or less registers nothing.
    public func stub(
        _ method: HTTPMethod,
        _ path: String,
        ignoringQuery: Bool = false,
        with response: StubResponse,
        times: Int? = nil
    ) {
        // Courier percent-encodes everything but RFC 3986 unreserved characters in segments it builds
        // and in query items, so that is how `path` must be written.
        if let times, times <= 0 { return }
        storage.add(
            .path(method: method.rawValue, path: path, ignoringQuery: ignoringQuery, response: response),
            times: times)
    }

    /// Answers requests for which `handler` returns a response; when it returns `nil`, later
    /// routes are tried.
    ///
    /// The handler runs while the request waits (in a scope, in the sending task; through
    /// ``makeTransport()``, on URLSession's queue): keep it quick, and use
    /// ``StubResponse/delay`` rather than sleeping in it. It may call this stub's methods.
    ///
    /// ```swift
    /// network.stub { request in
    ///     guard request.method == "POST", request.path == "/users" else { return nil }
    ///     return request.headers[.authorization] == nil ? .status(401) : .status(201)
    /// }
    /// ```
    public func stub(_ handler: @escaping @Sendable (RecordedRequest) -> StubResponse?) {
        storage.add(.handler(handler))
    }

    /// Every request that arrived, in order of arrival, matched or not.
    public var requests: [RecordedRequest] {
        storage.requests
    }

    /// The requests no route answered, in order of arrival.
    ///
    /// ```swift
    /// #expect(network.unmatchedRequests.isEmpty)
    /// ```
    public var unmatchedRequests: [RecordedRequest] {
        storage.unmatchedRequests
    }

    /// Removes every route and forgets every recorded request. Sessions made earlier keep
    /// answering from this stub.
    public func reset() {
        storage.reset()
    }
}
