import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

// Issue 52, decision 3: a refresher's token requests go through the path of the client that
// uses it (its transport, middleware, logs, spans, metrics), without its authentication and
// cache, unless the token endpoint was given a configuration of its own.

/// Counts the requests it sees, by path, then passes them on.
private struct PathCounter: Middleware {
    let paths: LockedState<[String]>
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        paths.withLock { $0.append(request.head.path ?? "") }
        return try await next(request)
    }
}

/// An app middleware that keeps the refresher (to force a refresh on a 401 of its own, say).
private struct RefresherHolder: Middleware {
    let refresher: TokenRefresher
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        try await next(request)
    }
}

/// An API endpoint that requires the bearer token.
private struct Me: Requestable {
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath("/me") }
}

@Suite("A refresher's token requests take its client's path by default")
struct TokenRequestsTakeTheClientsPathTests {
    @Test("an endpoint made without a configuration refreshes through the client's transport and middleware, without its credential")
    func theClientsPathByDefault() async throws {
        let transport = Tokens.server()
        let paths = LockedState<[String]>([])
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        var configuration = Configuration(transport: transport, middleware: [PathCounter(paths: paths)])
        configuration.authentication = .bearer(refresher)
        configuration.authorizedHosts = ["api.example.com"]
        configuration.headers = [HeaderItem(name: "X-App", value: "1")]
        _ = try await Client(configuration: configuration).enqueue(Me()).resume()

        let sent = await transport.requests
        #expect(sent.map { $0.head.path ?? "" } == ["/oauth/token", "/me"])
        // The call enters the middleware first; its authentication stage then refreshes, through it too.
        #expect(paths.withLock { $0 } == ["/me", "/oauth/token"], "the client's middleware saw the token request")
        let token = try #require(sent.first)
        #expect(token.header("X-App") == "1", "the client's default headers")
        #expect(token.header("Authorization")?.hasPrefix("Basic ") == true, "the OAuth client's own Basic header, not the bearer token")
        #expect(sent.last?.header("Authorization") == "Bearer at-new")
    }

    @Test("an endpoint given its own configuration keeps it: the client's transport never sees the token request")
    func anEndpointsOwnConfigurationWins() async throws {
        let api = Tokens.server()
        let authorizationServer = Tokens.server()
        let refresher = TokenRefresher(
            store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint(configuration: Configuration(transport: authorizationServer)))
        var configuration = Configuration(transport: api)
        configuration.authentication = .bearer(refresher)
        configuration.authorizedHosts = ["api.example.com"]
        _ = try await Client(configuration: configuration).enqueue(Me()).resume()
        #expect(await api.requests.map { $0.head.path ?? "" } == ["/me"])
        #expect(await authorizationServer.requests.map { $0.head.path ?? "" } == ["/oauth/token"])
    }

    @Test("a refresher shared by two clients refreshes through the first one's path while it lives")
    func theFirstClientsPath() async throws {
        let first = Tokens.server()
        let second = Tokens.server()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        let clients = [first, second].map { Client(configuration: Self.configuration(transport: $0, refresher: refresher)) }
        _ = try await clients[1].enqueue(Me()).resume()
        #expect(await first.requests.map { $0.head.path ?? "" } == ["/oauth/token"])
        #expect(await second.requests.map { $0.head.path ?? "" } == ["/me"])
        withExtendedLifetime(clients) {}
    }

    @Test("once the first client is gone, the next one alive takes its place")
    func theNextClientAlive() async throws {
        let first = Tokens.server()
        let second = Tokens.server()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        weak var gone: Client?
        do {
            let client = Client(configuration: Self.configuration(transport: first, refresher: refresher))
            gone = client
        }
        #expect(gone == nil)
        let client = Client(configuration: Self.configuration(transport: second, refresher: refresher))
        _ = try await client.enqueue(Me()).resume()
        #expect(await first.requests.isEmpty)
        #expect(await second.requests.map { $0.head.path ?? "" } == ["/oauth/token", "/me"])
    }

    @Test("with every client gone, a refresh fails: it never falls back to another transport")
    func noClientNoRefresh() async throws {
        let transport = Tokens.server()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        _ = Client(configuration: Self.configuration(transport: transport, refresher: refresher))
        let error = await #expect(throws: CourierError.self) { try await refresher.forceRefresh() }
        guard case .authentication(.refreshFailed(let failure)) = error else {
            Issue.record("expected a refresh failure, got \(String(describing: error))")
            return
        }
        #expect(String(describing: failure).contains("deallocated"))
        #expect(await transport.requests.isEmpty)
    }

    @Test("an app middleware holding the refresher leaves no reference cycle: both go with the client")
    func noCycleThroughTheTokenPath() async throws {
        weak var weakRefresher: TokenRefresher?
        weak var weakClient: Client?
        do {
            let transport = Tokens.server()
            let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
            var configuration = Self.configuration(transport: transport, refresher: refresher)
            configuration.middleware = [RefresherHolder(refresher: refresher)]
            let client = Client(configuration: configuration)
            _ = try await client.enqueue(Me()).resume()
            #expect(await transport.requests.count == 2)
            weakRefresher = refresher
            weakClient = client
        }
        #expect(weakClient == nil)
        #expect(weakRefresher == nil, "the refresher lives on: a cycle through its token path")
    }

    private static func configuration(transport: RecordingTransport, refresher: TokenRefresher) -> Configuration {
        var configuration = Configuration(transport: transport)
        configuration.authentication = .bearer(refresher)
        configuration.authorizedHosts = ["api.example.com"]
        return configuration
    }

    @Test("a thousand concurrent calls with an expired token: one token request, through the client's path")
    func oneRefreshThroughTheClientsPath() async throws {
        let transport = Tokens.server()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        var configuration = Configuration(transport: transport)
        configuration.authentication = .bearer(refresher)
        configuration.authorizedHosts = ["api.example.com"]
        let client = Client(configuration: configuration)
        let statuses = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<1_000 { group.addTask { (try? await client.enqueue(Me()).resume().statusCode) ?? 0 } }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 1_000 && statuses.allSatisfy { $0 == 200 })
        #expect(await transport.requests.filter { $0.head.path == "/oauth/token" }.count == 1)
        #expect(await transport.requests.filter { $0.head.path == "/me" }.count == 1_000)
    }
}
