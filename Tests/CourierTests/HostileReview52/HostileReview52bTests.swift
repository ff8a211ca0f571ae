import CourierOAuth
import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import Courier

// Hostile review 52b of f2831f5: a refresher's token path holds the clients that adopt it
// weakly (OAuth2TokenPath, Client.tokenClient), and the cache's background revalidation runs the
// stages below the cache stage (Pipeline.cacheIndex, runBelowCache).
//
// Every test names the attack. The ones that fail say, in their message, what the code does
// against what it documents. Nothing here leaves 127.0.0.1: the endpoints that would reach the
// default network point at 127.0.0.1:1 (nothing listens there).
//
// Failing on f2831f5 (6 of 21): directGrantWithAClientAlive, directGrantWithTheClientsGone,
// deviceFlowWithAClientAlive, deviceFlowWithTheClientsGone (a grant or the device flow called on
// the endpoint value never takes its refresher's client path: refreshers get a path of their own,
// the endpoint value keeps the default Configuration() one, which no client ever adopts);
// aNewClientAfterTheNoClientFailure (the "every client was deallocated" failure is a transient
// refresh failure, so the refresher backs off and the app's next client cannot refresh);
// middlewareOverwritingAuthorization (CredentialGuard drops an Authorization a middleware
// replaced, taking the OAuth client's own Basic header with it).

// MARK: - Support

/// Opens once; every waiter, past and future, goes on.
private actor H52bGate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func open() {
        isOpen = true
        for waiter in waiting { waiter.resume() }
        waiting = []
    }

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }
}

/// The API (`/me`, 200) and the token endpoint (`/oauth/token`): a token request waits for
/// `release` after opening `tokenArrived`.
private final class H52bGatedServer: Transport {
    let paths = LockedState<[String]>([])
    let tokenArrived = H52bGate()
    let release = H52bGate()

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let path = request.head.path ?? ""
        paths.withLock { $0.append(path) }
        if path == "/oauth/token" {
            await tokenArrived.open()
            await release.wait()
            return StreamedResponse(
                statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(Tokens.json.utf8), url: request.url)
        }
        return StreamedResponse(statusCode: 200, url: request.url)
    }
}

/// Records the paths it sees, tagged, then passes the request on (optionally with a header).
private struct H52bTagger: Middleware {
    let tag: String
    let seen: LockedState<[String]>
    var addsHeader: (name: String, value: String)?

    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        seen.withLock { $0.append("\(tag)\(request.head.path ?? "")") }
        var request = request
        if let addsHeader { request.head.headerFields[HTTPField.Name(addsHeader.name)!] = addsHeader.value }
        return try await next(request)
    }
}

/// An app middleware that keeps the refresher (the cycle decision 3 is about).
private struct H52bRefresherHolder: Middleware {
    let refresher: TokenRefresher
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        try await next(request)
    }
}

/// `GET https://api.example.com/me`.
private struct H52bMe: Requestable {
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath("/me") }
}

/// A configuration over `transport` with `refresher` for api.example.com.
private func h52bConfiguration(_ transport: any Transport, _ refresher: TokenRefresher, middleware: [any Middleware] = []) -> Configuration {
    var configuration = Configuration(transport: transport, middleware: middleware)
    configuration.authentication = .bearer(refresher)
    configuration.authorizedHosts = ["api.example.com"]
    return configuration
}

/// A token endpoint without a configuration at https://127.0.0.1:1: reached through the default
/// network, it fails (nothing listens); reached through a client's stub transport, it answers.
private func h52bLoopbackEndpoint() throws -> OAuth2TokenEndpoint {
    OAuth2TokenEndpoint(
        baseURL: try BaseURL(host: "127.0.0.1", port: 1), path: try URLPath("/oauth/token"),
        clientAuthentication: .basic(clientID: "app", clientSecret: "CLIENT-S3CR3T"))
}

private func h52bPaths(_ transport: RecordingTransport) async -> [String] {
    await transport.requests.map { $0.head.path ?? "" }
}

/// Whether `error` is the "every client is gone" refresh failure.
private func h52bIsNoClientLeft(_ error: CourierError?) -> Bool {
    guard case .authentication(.refreshFailed(let failure))? = error else { return false }
    return String(describing: failure).contains("deallocated")
}

private func h52bResult<T: Sendable>(_ body: () async throws(CourierError) -> T) async -> Result<T, CourierError> {
    do throws(CourierError) {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

@Suite("Hostile review 52b: the weakly held token path and the cache's background revalidation")
struct HostileReview52bTests {
    // MARK: Racing and crashing apps

    @Test("a client deallocated while a refresh it made is in flight: the refresh completes, once; the next one fails without a client")
    func clientGoneDuringRefresh() async throws {
        let server = H52bGatedServer()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        weak var weakClient: Client?
        var client: Client? = Client(configuration: h52bConfiguration(server, refresher))
        weakClient = client
        let refresh = Task { () async -> Result<String, CourierError> in
            await h52bResult { () async throws(CourierError) -> String in try await refresher.forceRefresh().accessToken }
        }
        await server.tokenArrived.wait()
        client = nil
        #expect(weakClient == nil, "the client lives on while its token request is in flight")
        await server.release.open()
        let token = await refresh.value
        #expect((try? token.get()) == "at-new", "the refresh in flight failed: \(token)")
        #expect(server.paths.withLock { $0 } == ["/oauth/token"])
        let next = await h52bResult { () async throws(CourierError) -> TokenCredential in try await refresher.forceRefresh() }
        #expect(h52bIsNoClientLeft(next.error), "with the client gone, a refresh must fail: \(next)")
        #expect(server.paths.withLock { $0 } == ["/oauth/token"], "no second token request")
    }

    @Test("the first client deallocated while 2,000 calls on a second client share the refresher: one token request in all")
    func firstClientGoesDuringAThousandCalls() async throws {
        let first = Tokens.server()
        let second = Tokens.server()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        let box = LockedState<Client?>(Client(configuration: h52bConfiguration(first, refresher)))
        weak let weakFirst: Client? = box.withLock { $0 }
        let client = Client(configuration: h52bConfiguration(second, refresher))
        let statuses = await withTaskGroup(of: Int.self) { group in
            for index in 0..<2_000 {
                if index == 7 {
                    group.addTask {
                        let taken = box.withLock { slot -> Client? in
                            defer { slot = nil }
                            return slot
                        }
                        _ = taken
                        return 200
                    }
                }
                group.addTask { (try? await client.enqueue(H52bMe()).resume().statusCode) ?? 0 }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(weakFirst == nil, "the first client was not deallocated")
        #expect(statuses.filter { $0 != 200 }.isEmpty, "calls failed: \(statuses.filter { $0 != 200 }.count)")
        let tokens = await (h52bPaths(first) + h52bPaths(second)).filter { $0 == "/oauth/token" }.count
        #expect(tokens == 1, "exactly one token request per expiry, got \(tokens)")
        #expect(await h52bPaths(second).filter { $0 == "/me" }.count == 2_000)
        #expect(await h52bPaths(first).allSatisfy { $0 == "/oauth/token" }, "the first client's transport saw an API call")
    }

    @Test("100 rounds: the first adopter dropped while 200 calls refresh through the shared refresher: one token request, no failure, per round")
    func dropRacesRefreshRepeatedly() async throws {
        var report: [String] = []
        for round in 0..<100 {
            let first = Tokens.server()
            let second = Tokens.server()
            let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
            let box = LockedState<Client?>(Client(configuration: h52bConfiguration(first, refresher)))
            let client = Client(configuration: h52bConfiguration(second, refresher))
            let failures = await withTaskGroup(of: Int.self) { group in
                for index in 0..<200 {
                    if index == round % 200 {
                        group.addTask {
                            let taken = box.withLock { slot -> Client? in
                                defer { slot = nil }
                                return slot
                            }
                            _ = taken
                            return 0
                        }
                    }
                    group.addTask { (try? await client.enqueue(H52bMe()).resume().statusCode) == 200 ? 0 : 1 }
                }
                return await group.reduce(0, +)
            }
            let tokens = await (h52bPaths(first) + h52bPaths(second)).filter { $0 == "/oauth/token" }.count
            if failures != 0 || tokens != 1 { report.append("round \(round): \(failures) failed calls, \(tokens) token requests") }
        }
        #expect(report.isEmpty, "\(report)")
    }

    @Test("every client gone and a refresh failed for it: a client created next can refresh at once (no backoff for the missing path)")
    func aNewClientAfterTheNoClientFailure() async throws {
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        _ = Client(configuration: h52bConfiguration(Tokens.server(), refresher))
        let failed = await h52bResult { () async throws(CourierError) -> TokenCredential in try await refresher.forceRefresh() }
        #expect(h52bIsNoClientLeft(failed.error), "\(failed)")
        let server = Tokens.server()
        let client = Client(configuration: h52bConfiguration(server, refresher))
        let result = await client.enqueue(H52bMe()).result()
        #expect(
            (try? result.get().statusCode) == 200,
            "the app's new client cannot refresh: the failure that only meant 'no client' put the refresher in backoff: \(result)")
        #expect(await h52bPaths(server) == ["/oauth/token", "/me"])
    }

    // MARK: A token request reaching a transport it was not meant for

    @Test("before any client exists, a grant on an endpoint without a configuration takes the default Configuration() (documented)")
    func directGrantBeforeAnyClient() async throws {
        let endpoint = try h52bLoopbackEndpoint()
        let result = await h52bResult { () async throws(CourierError) -> TokenCredential in try await endpoint.clientCredentials() }
        guard case .authentication(.refreshFailed(let failure))? = result.error, case .transport = failure.reason else {
            Issue.record("expected the default network's failure to reach 127.0.0.1:1, got \(result)")
            return
        }
    }

    // Decided after this review: a grant called on the endpoint value, and a device flow, are not a
    // refresher's requests. They use `Configuration()` (documented on `OAuth2TokenEndpoint.init`):
    // taking a refresher's client would be ambiguous when two users' refreshers share the value.
    @Test("a grant called on the endpoint value while a client of its refresher lives uses Configuration(), as documented, not that client")
    func directGrantWithAClientAlive() async throws {
        let server = Tokens.server()
        let endpoint = try h52bLoopbackEndpoint()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: endpoint)
        let client = Client(configuration: h52bConfiguration(server, refresher))
        let result = await h52bResult { () async throws(CourierError) -> TokenCredential in try await endpoint.clientCredentials() }
        withExtendedLifetime(client) {}
        #expect(await h52bPaths(server).isEmpty, "the endpoint value's own grant took a refresher's client: \(result)")
        #expect(!h52bIsNoClientLeft(result.error), "\(result)")
    }

    @Test("the device flow through an endpoint whose refresher's client lives uses Configuration(), as documented")
    func deviceFlowWithAClientAlive() async throws {
        let server = Tokens.server()
        let endpoint = try h52bLoopbackEndpoint()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: endpoint)
        let client = Client(configuration: h52bConfiguration(server, refresher))
        let flow = DeviceAuthorizationFlow(deviceAuthorizationEndpoint: URL(string: "https://127.0.0.1:1/oauth/device")!, tokenEndpoint: endpoint)
        let result = await h52bResult { () async throws(CourierError) -> DeviceAuthorization in try await flow.start() }
        withExtendedLifetime(client) {}
        #expect(await h52bPaths(server).isEmpty, "the device flow took a refresher's client: \(result)")
    }

    @Test("the device flow through an endpoint whose refresher's clients are all gone still uses Configuration(), as documented")
    func deviceFlowWithTheClientsGone() async throws {
        let server = Tokens.server()
        let endpoint = try h52bLoopbackEndpoint()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: endpoint)
        _ = Client(configuration: h52bConfiguration(server, refresher))
        let flow = DeviceAuthorizationFlow(deviceAuthorizationEndpoint: URL(string: "https://127.0.0.1:1/oauth/device")!, tokenEndpoint: endpoint)
        let result = await h52bResult { () async throws(CourierError) -> DeviceAuthorization in try await flow.start() }
        #expect(!h52bIsNoClientLeft(result.error), "the device flow is not a refresher's: \(result)")
        #expect(await h52bPaths(server).isEmpty)
    }

    @Test("a grant called on the endpoint value after its refresher's clients are gone uses Configuration(), as documented")
    func directGrantWithTheClientsGone() async throws {
        let server = Tokens.server()
        let endpoint = try h52bLoopbackEndpoint()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: endpoint)
        _ = Client(configuration: h52bConfiguration(server, refresher))
        let result = await h52bResult { () async throws(CourierError) -> TokenCredential in
            try await endpoint.refresh(TokenCredential(accessToken: "at-old", refreshToken: "rt-1"))
        }
        #expect(!h52bIsNoClientLeft(result.error), "the endpoint's own grant is not a refresher's: \(result)")
        #expect(await h52bPaths(server).isEmpty)
    }

    @Test("a client created later with another transport never gets the token request while the first lives; the first's middleware sees it")
    func laterClientDoesNotTakeThePath() async throws {
        let first = Tokens.server()
        let later = Tokens.server()
        let seen = LockedState<[String]>([])
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        let a = Client(configuration: h52bConfiguration(first, refresher, middleware: [H52bTagger(tag: "A", seen: seen)]))
        var laterConfiguration = h52bConfiguration(
            later, refresher, middleware: [H52bTagger(tag: "B", seen: seen, addsHeader: (name: "X-Api-Key", value: "b-secret"))])
        laterConfiguration.headers = [HeaderItem(name: "Cookie", value: "sid=b-cookie"), HeaderItem(name: "X-Tenant", value: "b")]
        let b = Client(configuration: laterConfiguration)
        _ = try await b.enqueue(H52bMe()).resume()
        withExtendedLifetime(a) {}
        #expect(await h52bPaths(first) == ["/oauth/token"])
        #expect(await h52bPaths(later) == ["/me"])
        #expect(seen.withLock { $0 } == ["B/me", "A/oauth/token"], "which middleware saw what")
        let token = try #require(await first.requests.first)
        let values = token.head.headerFields.map(\.value).joined(separator: "\n")
        for leaked in ["b-secret", "b-cookie", "at-old"] {
            #expect(!values.contains(leaked), "\(leaked) from the later client reached the token request")
        }
        #expect(token.header("X-Tenant") == nil, "the later client's default header reached the token request")
    }

    @Test("an app middleware that sets Authorization on every request does not strip the OAuth client's own Basic header from the token request")
    func middlewareOverwritingAuthorization() async throws {
        let server = Tokens.server()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        let seen = LockedState<[String]>([])
        let overwrite = H52bTagger(tag: "", seen: seen, addsHeader: (name: "Authorization", value: "ApiKey app-level-key"))
        let client = Client(configuration: h52bConfiguration(server, refresher, middleware: [overwrite]))
        _ = await client.enqueue(H52bMe()).result()
        let token = try #require(await server.requests.first { $0.head.path == "/oauth/token" })
        let authorization = token.head.headerFields[values: .authorization]
        #expect(!authorization.contains("ApiKey app-level-key"), "the app's key reached the authorization server")
        #expect(
            token.basicCredentials == "app:CLIENT-S3CR3T",
            "the token request lost the OAuth client's authentication (the server answers invalid_client, a permanent refresh failure: the user is signed out); Authorization: \(authorization)"
        )
    }

    @Test("adopters in order: A, B, C adopt; A gone → B; D adopts; B gone → C, not the newest D")
    func adoptersInOrder() async throws {
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        let servers = (0..<4).map { _ in Tokens.server() }
        var a: Client? = Client(configuration: h52bConfiguration(servers[0], refresher))
        var b: Client? = Client(configuration: h52bConfiguration(servers[1], refresher))
        let c = Client(configuration: h52bConfiguration(servers[2], refresher))
        a = nil
        _ = try await refresher.forceRefresh()
        let d = Client(configuration: h52bConfiguration(servers[3], refresher))
        b = nil
        _ = try await refresher.forceRefresh()
        withExtendedLifetime((a, b, c, d)) {}
        var counts: [Int] = []
        for server in servers { counts.append(await h52bPaths(server).count) }
        #expect(counts == [0, 1, 1, 0], "token requests per client A, B, C, D")
    }

    @Test("two users, one endpoint value: with Alice's client gone, her refresh fails and never takes Bob's live client")
    func secondUserNeverLendsHisClient() async throws {
        let endpoint = try Tokens.endpoint()
        let aliceServer = Tokens.server()
        let bobServer = Tokens.server()
        let alice = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: endpoint)
        let bob = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: endpoint)
        _ = Client(configuration: h52bConfiguration(aliceServer, alice))
        let bobClient = Client(configuration: h52bConfiguration(bobServer, bob))
        let aliceRefresh = await h52bResult { () async throws(CourierError) -> TokenCredential in try await alice.forceRefresh() }
        #expect(h52bIsNoClientLeft(aliceRefresh.error), "\(aliceRefresh)")
        #expect(await h52bPaths(bobServer).isEmpty, "Alice's token request went through Bob's client")
        _ = try await bobClient.enqueue(H52bMe()).resume()
        #expect(await h52bPaths(bobServer) == ["/oauth/token", "/me"])
        #expect(await h52bPaths(aliceServer).isEmpty)
    }

    @Test("an endpoint given a configuration keeps refreshing through it after every client is gone")
    func fixedPathOutlivesTheClients() async throws {
        let own = Tokens.server()
        let refresher = TokenRefresher(
            store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint(configuration: Configuration(transport: own)))
        _ = Client(configuration: h52bConfiguration(Tokens.server(), refresher))
        let token = try await refresher.forceRefresh()
        #expect(token.accessToken == "at-new")
        #expect(await h52bPaths(own) == ["/oauth/token"])
    }

    // MARK: Leaks

    @Test("two clients whose middleware hold the shared refresher: clients, their token clients and the refresher all deallocate")
    func noCycleWithTwoHolders() async throws {
        weak var weakRefresher: TokenRefresher?
        weak var weakA: Client?
        weak var weakB: Client?
        weak var weakTokenA: Client?
        weak var weakTokenB: Client?
        do {
            let server = Tokens.server()
            let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
            let a = Client(configuration: h52bConfiguration(server, refresher, middleware: [H52bRefresherHolder(refresher: refresher)]))
            let b = Client(configuration: h52bConfiguration(server, refresher, middleware: [H52bRefresherHolder(refresher: refresher)]))
            _ = try await b.enqueue(H52bMe()).resume()
            _ = try await a.enqueue(H52bMe()).resume()
            #expect(await h52bPaths(server).filter { $0 == "/oauth/token" }.count == 1)
            #expect(a.tokenClient != nil && b.tokenClient != nil)
            weakRefresher = refresher
            weakA = a
            weakB = b
            weakTokenA = a.tokenClient
            weakTokenB = b.tokenClient
        }
        #expect(weakA == nil && weakB == nil, "a client lives on")
        #expect(weakTokenA == nil && weakTokenB == nil, "a token client lives on")
        #expect(weakRefresher == nil, "the refresher lives on: a cycle through its token path")
    }

    @Test("a client that is not the first alive still builds a token client; one on an endpoint with a configuration builds none")
    func tokenClientsAreBuiltOnlyForAdoptablePaths() async throws {
        let adoptable = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        let fixed = TokenRefresher(
            store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint(configuration: Configuration(transport: Tokens.server())))
        let a = Client(configuration: h52bConfiguration(Tokens.server(), adoptable))
        let b = Client(configuration: h52bConfiguration(Tokens.server(), adoptable))
        let c = Client(configuration: h52bConfiguration(Tokens.server(), fixed))
        #expect(a.tokenClient != nil && b.tokenClient != nil)
        #expect(c.tokenClient == nil)
        // The token client itself has no authentication: it adopts nothing, holds no credential.
        #expect(a.tokenClient?.tokenClient == nil)
        #expect(a.tokenClient?.hasCredential == false)
    }

    // MARK: The cache's background revalidation

    @Test("stale-while-revalidate through middleware, retries and Basic auth: revalidation runs exactly the stages below the cache")
    func backgroundRevalidationBelowTheCache() async throws {
        let clock = CacheTestClock()
        let cache = HTTPCache(storage: MemoryCacheStorage(capacity: 1 << 20), staleWhileRevalidate: true, now: { clock.now })
        let revalidations = LockedState(0)
        let origin = CacheOrigin { request, number throws(CourierError) in
            let headers = ["ETag": "\"v1\"", "Cache-Control": "private, max-age=60, stale-while-revalidate=600"]
            if request.header("If-None-Match") != nil {
                let attempt = revalidations.withLock { count -> Int in
                    count += 1
                    return count
                }
                if attempt == 1 { return StreamedResponse(statusCode: 503, url: request.url) }
                return StreamedResponse(statusCode: 304, headers: headers, url: request.url)
            }
            return StreamedResponse(statusCode: 200, headers: headers, body: Data("body \(number)".utf8), url: request.url)
        }
        let seen = LockedState<[String]>([])
        var configuration = Configuration(transport: origin, cache: cache)
        configuration.middleware = [H52bTagger(tag: "outer", seen: seen), H52bTagger(tag: "inner", seen: seen)]
        configuration.retryPolicy = RetryPolicy(maxAttempts: 3)
        configuration.clock = TestClock(sleepsReturnImmediately: true)
        configuration.authentication = .basic(BasicCredential(username: "alice", password: "pw"))
        configuration.authorizedHosts = ["api.example.com"]
        let client = Client(configuration: configuration)
        #expect(client.pipeline.cacheIndex == 4, "2 middleware, the endpoint middleware, the download counter, then the cache")
        #expect(client.pipeline.stages[client.pipeline.cacheIndex ?? 0].name == "cache")

        _ = try await client.enqueue(CacheResource(requiresAuthorization: true)).resume()
        clock.advance(120)
        let stale = try await client.enqueue(CacheResource(requiresAuthorization: true)).resume()
        #expect(stale.source == .cache)
        await cache.waitForBackgroundRevalidations()
        #expect(origin.count == 3, "the first call, then the revalidation's 503 and its retry; got \(origin.count)")
        let revalidating = origin.requests.withLock { Array($0.dropFirst()) }
        for request in revalidating {
            #expect(request.header("If-None-Match") == "\"v1\"")
            #expect(request.header("Authorization")?.hasPrefix("Basic ") == true, "the revalidation went without the credential")
        }
        #expect(seen.withLock { $0 } == ["outer/r", "inner/r", "outer/r", "inner/r"], "the middleware ran for the revalidation too")
        let fresh = try await client.enqueue(CacheResource(requiresAuthorization: true)).resume()
        #expect(origin.count == 3 && fresh.source == .cache, "the 304 after the retry did not refresh the entry")
    }

    @Test("the cache stage's index is the pipeline's, with and without middleware or a cache")
    func cacheIndexFollowsTheStages() throws {
        let none = Client(configuration: Configuration(transport: RecordingTransport()))
        #expect(none.pipeline.cacheIndex == nil)
        for count in [0, 1, 5] {
            let middleware: [any Middleware] = (0..<count).map { _ in H52bTagger(tag: "", seen: LockedState([])) }
            var configuration = Configuration(transport: RecordingTransport(), middleware: middleware, cache: HTTPCache())
            configuration.authentication = .basic(BasicCredential(username: "u", password: "p"))
            let client = Client(configuration: configuration)
            let index = try #require(client.pipeline.cacheIndex)
            #expect(client.pipeline.stages[index].name == "cache", "\(count) middleware: \(client.pipeline)")
        }
    }

    @Test("an app that drops its client right after a stale answer: the revalidation still completes, then client and refresher go")
    func revalidationOutlivesTheAppsReference() async throws {
        let clock = CacheTestClock()
        let cache = HTTPCache(storage: MemoryCacheStorage(capacity: 1 << 20), staleWhileRevalidate: true, now: { clock.now })
        let origin = CacheOrigin { request, number throws(CourierError) in
            let headers = ["ETag": "\"v1\"", "Cache-Control": "private, max-age=60, stale-while-revalidate=600"]
            if request.head.path == "/oauth/token" {
                return StreamedResponse(
                    statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(Tokens.json.utf8), url: request.url)
            }
            if request.header("If-None-Match") != nil { return StreamedResponse(statusCode: 304, headers: headers, url: request.url) }
            return StreamedResponse(statusCode: 200, headers: headers, body: Data("body \(number)".utf8), url: request.url)
        }
        weak var weakClient: Client?
        weak var weakRefresher: TokenRefresher?
        do {
            let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
            var configuration = Configuration(transport: origin, cache: cache)
            configuration.middleware = [H52bRefresherHolder(refresher: refresher)]
            configuration.authentication = .bearer(refresher)
            configuration.authorizedHosts = ["api.example.com"]
            let client = Client(configuration: configuration)
            _ = try await client.enqueue(CacheResource(requiresAuthorization: true)).resume()
            clock.advance(120)
            let stale = try await client.enqueue(CacheResource(requiresAuthorization: true)).resume()
            #expect(stale.source == .cache)
            weakClient = client
            weakRefresher = refresher
        }
        await cache.waitForBackgroundRevalidations()
        let paths = origin.requests.withLock { $0.map { $0.head.path ?? "" } }
        #expect(paths == ["/oauth/token", "/r", "/r"], "\(paths)")
        #expect(weakClient == nil, "the client lives on after its revalidation")
        #expect(weakRefresher == nil, "the refresher lives on after the revalidation")
    }

    @Test("an endpoint's own middleware runs once per call, never for the background revalidation; what it added is revalidated")
    func endpointMiddlewareNotRunForRevalidation() async throws {
        let clock = CacheTestClock()
        let cache = HTTPCache(storage: MemoryCacheStorage(capacity: 1 << 20), staleWhileRevalidate: true, now: { clock.now })
        let origin = CacheOrigin { request, number throws(CourierError) in
            let headers = ["ETag": "\"v1\"", "Cache-Control": "max-age=60, stale-while-revalidate=600"]
            if request.header("If-None-Match") != nil { return StreamedResponse(statusCode: 304, headers: headers, url: request.url) }
            return StreamedResponse(statusCode: 200, headers: headers, body: Data("body \(number)".utf8), url: request.url)
        }
        let seen = LockedState<[String]>([])
        let client = Client(configuration: Configuration(transport: origin, middleware: [H52bTagger(tag: "client", seen: seen)], cache: cache))
        let endpoint = H52bOwnMiddleware(middleware: [H52bTagger(tag: "endpoint", seen: seen, addsHeader: (name: "X-Endpoint", value: "1"))])
        _ = try await client.enqueue(endpoint).resume()
        clock.advance(120)
        let stale = try await client.enqueue(endpoint).resume()
        #expect(stale.source == .cache)
        await cache.waitForBackgroundRevalidations()
        #expect(origin.count == 2)
        #expect(origin.last?.header("X-Endpoint") == "1" && origin.last?.header("If-None-Match") == "\"v1\"")
        #expect(seen.withLock { $0 } == ["client/r", "endpoint/r", "client/r", "endpoint/r"])
    }

    @Test("a background revalidation answered 401 refreshes the bearer token through the client's path, once, and stores the 304")
    func backgroundRevalidationRefreshes() async throws {
        let clock = CacheTestClock()
        let cache = HTTPCache(storage: MemoryCacheStorage(capacity: 1 << 20), staleWhileRevalidate: true, now: { clock.now })
        let origin = CacheOrigin { request, number throws(CourierError) in
            let headers = ["ETag": "\"v1\"", "Cache-Control": "private, max-age=60, stale-while-revalidate=600"]
            if request.head.path == "/oauth/token" {
                return StreamedResponse(
                    statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(Tokens.json.utf8), url: request.url)
            }
            if request.header("Authorization") == "Bearer at-valid", request.header("If-None-Match") != nil {
                return StreamedResponse(statusCode: 401, headers: ["WWW-Authenticate": "Bearer error=\"invalid_token\""], url: request.url)
            }
            if request.header("If-None-Match") != nil {
                return StreamedResponse(statusCode: 304, headers: headers, url: request.url)
            }
            return StreamedResponse(statusCode: 200, headers: headers, body: Data("body \(number)".utf8), url: request.url)
        }
        let store = InMemoryTokenStore(
            TokenCredential(accessToken: "at-valid", refreshToken: "rt-1", expiresAt: Date(timeIntervalSinceNow: 86_400)))
        let refresher = TokenRefresher(store: store, tokenEndpoint: try Tokens.endpoint())
        let seen = LockedState<[String]>([])
        var configuration = Configuration(transport: origin, cache: cache)
        configuration.middleware = [H52bTagger(tag: "mw", seen: seen)]
        configuration.authentication = .bearer(refresher)
        configuration.authorizedHosts = ["api.example.com"]
        let client = Client(configuration: configuration)

        _ = try await client.enqueue(CacheResource(requiresAuthorization: true)).resume()
        clock.advance(120)
        let stale = try await client.enqueue(CacheResource(requiresAuthorization: true)).resume()
        #expect(stale.source == .cache)
        await cache.waitForBackgroundRevalidations()
        let paths = origin.requests.withLock { $0.map { "\($0.head.path ?? "") \($0.header("Authorization") ?? "-")" } }
        #expect(
            paths.filter { $0.hasPrefix("/r") } == ["/r Bearer at-valid", "/r Bearer at-valid", "/r Bearer at-new"],
            "\(paths)")
        #expect(paths.filter { $0.hasPrefix("/oauth/token") }.count == 1, "\(paths)")
        #expect(seen.withLock { $0 } == ["mw/r", "mw/r", "mw/oauth/token"], "the middleware: both calls and the token request, never the revalidation")
        let fresh = try await client.enqueue(CacheResource(requiresAuthorization: true)).resume()
        #expect(fresh.source == .cache, "the revalidation's 304 was not stored")
        #expect(origin.count == 4)
    }
}

extension Result {
    fileprivate var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// `GET https://api.example.com/r` with middleware of its own.
private struct H52bOwnMiddleware: Requestable {
    let middleware: [any Middleware]
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath("/r") }
}
