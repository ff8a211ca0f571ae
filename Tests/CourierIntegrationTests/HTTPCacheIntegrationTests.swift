import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// An endpoint of the cache tests: every part the cache looks at is a stored property.
struct CachedEndpoint: Requestable {
    var base: BaseURL
    var urlPath: URLPath
    var method: Courier.HTTPMethod = .get
    var headerItems: [HeaderItem]?
    var queryItems: [QueryItem]?
    var acceptableStatusCodes: Set<Int> = Response.successStatusCodes
    var requiresAuthorization = false
    var cachePolicy: CachePolicy = .useProtocolRules

    func baseURL() throws(CourierError) -> BaseURL { base }
    func path() throws(CourierError) -> URLPath { urlPath }

    func with(_ change: (inout CachedEndpoint) -> Void) -> CachedEndpoint {
        var copy = self
        change(&copy)
        return copy
    }
}

/// The HTTP cache (RFC 9111) against a real server on `127.0.0.1`, on every transport: each rule
/// is shown by the exact number of requests the server saw. Entries go stale by advancing the
/// cache's clock, never by sleeping.
@Suite("HTTP cache against a real server", .loopback, .timeLimit(.minutes(2)))
struct HTTPCacheIntegrationTests {
    struct Fixture {
        var server: TestServer
        var origin: CacheOrigin
        var cache: HTTPCache
        var clock: CacheTestClock
        var kind: TransportKind

        func client(authentication: Authentication = .none) -> Client {
            Client(
                configuration: Configuration(
                    transport: kind.make(), timeout: generousTimeout, authentication: authentication,
                    authorizedHosts: ["127.0.0.1"], cache: cache))
        }

        func endpoint(_ path: String, query: KeyValuePairs<String, String> = [:]) throws -> CachedEndpoint {
            var endpoint = CachedEndpoint(base: server.baseURL, urlPath: try URLPath(path))
            if query.count > 0 { endpoint.queryItems = query.map { QueryItem(name: $0.key, value: $0.value) } }
            return endpoint
        }

        func hits(_ path: String) async -> Int { await origin.hits(path) }
    }

    static func run(
        _ kind: TransportKind, staleWhileRevalidate: Bool = false, staleIfError: Bool = false,
        _ body: (Fixture) async throws -> Void
    ) async throws {
        try await TestServer.run { server in
            let origin = CacheOrigin()
            await CacheRoutes.install(on: server, origin: origin)
            let clock = CacheTestClock()
            let cache = HTTPCache(
                storage: MemoryCacheStorage(capacity: 10 << 20), staleWhileRevalidate: staleWhileRevalidate,
                staleIfError: staleIfError, now: clock.closure)
            try await body(Fixture(server: server, origin: origin, cache: cache, clock: clock, kind: kind))
        }
    }

    // MARK: - Freshness

    @Test("a fresh response answers the next call without a request, with its body and an Age", arguments: TransportKind.allCases)
    func freshResponseIsServedWithoutARequest(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            let first = try await client.enqueue(f.endpoint("/cache/60")).resume()
            f.clock.advance(by: 5)
            let second = try await client.enqueue(f.endpoint("/cache/60")).resume()
            #expect(first.source == .network)
            #expect(second.source == .cache)
            #expect(second.body == first.body)
            #expect(second.headerValue(for: "Age") == "5")
            #expect(await f.hits("/cache/60") == 1)
        }
    }

    @Test("max-age=0 and no-cache make a conditional request; a 304 serves the stored body with the updated headers", arguments: TransportKind.allCases)
    func staleOrNoCacheResponseIsRevalidated(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            for (tag, control) in [("zero", "max-age=0"), ("nocache", "no-cache")] {
                let path = "/etag/\(tag)"
                let first = try await client.enqueue(f.endpoint(path, query: ["Cache-Control": control])).resume()
                let second = try await client.enqueue(f.endpoint(path, query: ["Cache-Control": control])).resume()
                #expect(second.source == .revalidated, "\(control)")
                #expect(second.body == first.body)
                #expect(first.headerValue(for: "X-Served") == "1")
                #expect(second.headerValue(for: "X-Served") == "2", "the 304's headers update the stored ones")
                let requests = await f.origin.requests(path)
                #expect(requests.count == 2)
                #expect(requests.first?.header("If-None-Match") == nil)
                #expect(requests.last?.header("If-None-Match") == "\"\(tag)\"")
            }
        }
    }

    @Test("revalidations answered 304 keep the connection: ten in a row arrive on the first call's connection", arguments: TransportKind.allCases)
    func revalidationsKeepTheConnection(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            let endpoint = try f.endpoint("/etag/kept", query: ["Cache-Control": "no-cache"])
            for _ in 0..<11 {
                _ = try await client.enqueue(endpoint).resume()
            }
            let requests = await f.origin.requests("/etag/kept")
            #expect(requests.count == 11)
            #expect(requests.dropFirst().allSatisfy { $0.header("If-None-Match") == "\"kept\"" })
            let connections = Set(requests.map { $0.remoteAddress ?? "unknown" })
            #expect(connections.count == 1, "\(connections)")
        }
    }

    @Test("a response with Last-Modified is revalidated with If-Modified-Since", arguments: TransportKind.allCases)
    func lastModifiedIsSentAsIfModifiedSince(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            let first = try await client.enqueue(f.endpoint("/cache")).resume()
            // Last-Modified is the second the server answered in: heuristically fresh for a tenth
            // of the fraction of a second since, so one second later it is stale.
            f.clock.advance(by: 1)
            let second = try await client.enqueue(f.endpoint("/cache")).resume()
            #expect(second.source == .revalidated)
            #expect(second.body == first.body)
            let requests = await f.origin.requests("/cache")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-Modified-Since") == first.headerValue(for: "Last-Modified"))
        }
    }

    @Test("no-store is never stored", arguments: TransportKind.allCases)
    func noStoreIsNeverStored(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            let endpoint = try f.endpoint("/response-headers", query: ["Cache-Control": "no-store, max-age=60"])
            let first = try await client.enqueue(endpoint).resume()
            let second = try await client.enqueue(endpoint).resume()
            #expect(first.source == .network)
            #expect(second.source == .network)
            #expect(await f.hits("/response-headers") == 2)
        }
    }

    @Test("Expires counts from Date: a Date an hour ago and Expires an hour ahead leave an hour", arguments: TransportKind.allCases)
    func expiresIsMeasuredFromDate(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            let start = f.clock.now
            let endpoint = try f.endpoint(
                "/response-headers",
                query: [
                    "Date": CacheRoutes.httpDate(start - 3600), "Expires": CacheRoutes.httpDate(start + 3600),
                ])
            _ = try await client.enqueue(endpoint).resume()
            let second = try await client.enqueue(endpoint).resume()
            #expect(second.source == .cache)
            #expect((Int(second.headerValue(for: "Age") ?? "") ?? 0) >= 3599, "the apparent age from Date")
            #expect(await f.hits("/response-headers") == 1)
            f.clock.advance(by: 3700)
            let third = try await client.enqueue(endpoint).resume()
            #expect(third.source == .network)
            #expect(await f.hits("/response-headers") == 2)
        }
    }

    @Test("an invalid Expires means already stale", arguments: TransportKind.allCases)
    func invalidExpiresIsStale(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            let endpoint = try f.endpoint("/response-headers", query: ["Expires": "0"])
            _ = try await client.enqueue(endpoint).resume()
            let second = try await client.enqueue(endpoint).resume()
            #expect(second.source == .network)
            #expect(await f.hits("/response-headers") == 2)
        }
    }

    @Test("the Age a response arrives with uses up its freshness", arguments: TransportKind.allCases)
    func ageReducesFreshness(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            let endpoint = try f.endpoint("/response-headers", query: ["Cache-Control": "max-age=60", "Age": "50"])
            _ = try await client.enqueue(endpoint).resume()
            let second = try await client.enqueue(endpoint).resume()
            #expect(second.source == .cache)
            #expect(second.headerValue(for: "Age") == "50")
            f.clock.advance(by: 15)  // 65 s old: stale, though max-age alone would leave 45 s
            let third = try await client.enqueue(endpoint).resume()
            #expect(third.source == .network)
            #expect(await f.hits("/response-headers") == 2)
        }
    }

    @Test("Last-Modified alone gives heuristic freshness to a 200, not to a 202", arguments: TransportKind.allCases)
    func heuristicFreshnessOnlyForCacheableStatuses(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            let lastModified = CacheRoutes.httpDate(f.clock.now - 10 * 86_400)
            for code in [200, 202] {
                let endpoint = try f.endpoint("/heuristic/\(code)", query: ["Last-Modified": lastModified])
                _ = try await client.enqueue(endpoint).resume()
                f.clock.advance(by: 60)
                let second = try await client.enqueue(endpoint).resume()
                #expect(second.source == (code == 200 ? .cache : .network), "\(code)")
                #expect(await f.hits("/heuristic/\(code)") == (code == 200 ? 1 : 2), "\(code)")
            }
        }
    }

    @Test("must-revalidate: a stale response is never served, not even on a server error", arguments: TransportKind.allCases)
    func mustRevalidateIsNeverServedStale(kind: TransportKind) async throws {
        try await Self.run(kind, staleIfError: true) { f in
            let client = f.client()
            let endpoint = try f.endpoint("/flaky/must", query: ["Cache-Control": "max-age=10, must-revalidate, stale-if-error=600"])
            _ = try await client.enqueue(endpoint).resume()
            #expect(try await client.enqueue(endpoint).resume().source == .cache)
            f.clock.advance(by: 30)
            let result = await client.enqueue(endpoint).result()
            guard case .failure(.response(let response)) = result else {
                Issue.record("expected the server's 503, got \(result)")
                return
            }
            #expect(response.statusCode == 503)
            #expect(await f.hits("/flaky/must") == 2)
        }
    }

    // MARK: - Vary

    @Test("Vary: Accept: the same Accept is a hit, another is a miss; Vary: * is never served", arguments: TransportKind.allCases)
    func varySelectsTheStoredResponse(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            let varying = try f.endpoint("/response-headers", query: ["Cache-Control": "max-age=60", "Vary": "Accept"])
            let json = varying.with { $0.headerItems = [HeaderItem(name: "Accept", value: "application/json")] }
            let text = varying.with { $0.headerItems = [HeaderItem(name: "Accept", value: "text/plain")] }
            let first = try await client.enqueue(json).resume()
            let again = try await client.enqueue(json).resume()
            #expect(again.source == .cache)
            #expect(again.body == first.body)
            let other = try await client.enqueue(text).resume()
            #expect(other.source == .network)
            #expect(other.body != first.body)
            #expect(try await client.enqueue(text).resume().body == other.body)
            #expect(try await client.enqueue(json).resume().body == first.body)
            #expect(await f.hits("/response-headers") == 2)

            let star = try f.endpoint("/etag/star", query: ["Cache-Control": "max-age=60", "Vary": "*"])
            _ = try await client.enqueue(star).resume()
            let starAgain = try await client.enqueue(star).resume()
            #expect(starAgain.source == .network)
            let requests = await f.origin.requests("/etag/star")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") == nil, "nothing was stored to revalidate")
        }
    }

    // MARK: - Methods

    @Test("POST, PUT and DELETE invalidate the URL and a same-origin Location and Content-Location", arguments: TransportKind.allCases)
    func unsafeMethodsInvalidate(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            for method in [Courier.HTTPMethod.post, .put, .delete] {
                let name = method.rawValue.lowercased()
                let paths = ["/res/\(name)", "/res/\(name)-location", "/res/\(name)-content-location"]
                for path in paths {
                    _ = try await client.enqueue(f.endpoint(path)).resume()
                    #expect(try await client.enqueue(f.endpoint(path)).resume().source == .cache)
                }
                let unsafe = try f.endpoint(paths[0]).with { $0.method = method }
                _ = try await client.enqueue(unsafe).resume()
                for path in paths {
                    let after = try await client.enqueue(f.endpoint(path)).resume()
                    #expect(after.source == .network, "\(method.rawValue) \(path)")
                    #expect(await f.origin.requests(path).filter { $0.method == "GET" }.count == 2, "\(method.rawValue) \(path)")
                }
            }
        }
    }

    @Test("a Location on another origin is not invalidated", arguments: TransportKind.allCases)
    func anotherOriginsLocationStays(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            try await TestServer.run { other in
                let otherOrigin = CacheOrigin()
                await CacheRoutes.install(on: other, origin: otherOrigin)
                let client = f.client()
                let elsewhere = CachedEndpoint(base: other.baseURL, urlPath: try URLPath("/res/elsewhere"))
                _ = try await client.enqueue(elsewhere).resume()
                let post = try f.endpoint("/cross", query: ["to": "http://127.0.0.1:\(other.port)/res/elsewhere"])
                    .with { $0.method = .post }
                _ = try await client.enqueue(post).resume()
                #expect(try await client.enqueue(elsewhere).resume().source == .cache)
                #expect(await otherOrigin.hits("/res/elsewhere") == 1)
            }
        }
    }

    @Test("a HEAD is answered from the stored GET", arguments: TransportKind.allCases)
    func headIsAnsweredFromTheStoredGet(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            let get = try await client.enqueue(f.endpoint("/cache/60")).resume()
            let head = try await client.enqueue(f.endpoint("/cache/60").with { $0.method = .head }).resume()
            #expect(head.source == .cache)
            #expect(head.statusCode == 200)
            #expect(head.body.isEmpty)
            #expect(head.headerValue(for: "Cache-Control") == get.headerValue(for: "Cache-Control"))
            #expect(await f.hits("/cache/60") == 1)
        }
    }

    // MARK: - Request directives and policies

    @Test("a request's no-cache and max-age=0 go to the server; only-if-cached answers 504 without one", arguments: TransportKind.allCases)
    func requestDirectives(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            let endpoint = try f.endpoint("/cache/60")
            _ = try await client.enqueue(endpoint).resume()
            for control in ["no-cache", "max-age=0"] {
                f.clock.advance(by: 1)  // max-age=0 accepts an age of 0 (§5.2.1.1)
                let asked = endpoint.with { $0.headerItems = [HeaderItem(name: "Cache-Control", value: control)] }
                #expect(try await client.enqueue(asked).resume().source == .network, "\(control)")
            }
            #expect(await f.hits("/cache/60") == 3)
            #expect(try await client.enqueue(endpoint).resume().source == .cache)

            let onlyIfCached = [HeaderItem(name: "Cache-Control", value: "only-if-cached")]
            #expect(try await client.enqueue(endpoint.with { $0.headerItems = onlyIfCached }).resume().source == .cache)
            let absent = try f.endpoint("/cache/61").with { $0.headerItems = onlyIfCached }
            let result = await client.enqueue(absent).result()
            guard case .failure(.response(let response)) = result else {
                Issue.record("expected a 504, got \(result)")
                return
            }
            #expect(response.statusCode == 504)
            #expect(await f.hits("/cache/61") == 0)
            #expect(await f.hits("/cache/60") == 3)
        }
    }

    @Test("each CachePolicy: reload asks, returnCachedElseLoad and onlyCached serve stale, onlyCached answers 504 on a miss", arguments: TransportKind.allCases)
    func cachePolicies(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            let endpoint = try f.endpoint("/cache/60")
            let first = try await client.enqueue(endpoint).resume()
            let reloaded = try await client.enqueue(endpoint.with { $0.cachePolicy = .reload }).resume()
            #expect(reloaded.source == .network)
            #expect(reloaded.body != first.body)
            #expect(await f.hits("/cache/60") == 2)

            f.clock.advance(by: 600)  // stale
            for policy in [CachePolicy.returnCachedElseLoad, .onlyCached] {
                let stale = try await client.enqueue(endpoint.with { $0.cachePolicy = policy }).resume()
                #expect(stale.source == .cache, "\(policy)")
                #expect(stale.body == reloaded.body, "\(policy)")
            }
            #expect(await f.hits("/cache/60") == 2)

            let elseLoad = try await client.enqueue(f.endpoint("/cache/62").with { $0.cachePolicy = .returnCachedElseLoad }).resume()
            #expect(elseLoad.source == .network)
            let absent = try f.endpoint("/cache/63").with { $0.cachePolicy = .onlyCached }
            let result = await client.enqueue(absent).result()
            guard case .failure(.response(let response)) = result else {
                Issue.record("expected a 504, got \(result)")
                return
            }
            #expect(response.statusCode == 504)
            #expect(await f.hits("/cache/63") == 0)
            #expect(try await client.enqueue(endpoint).resume().source == .network, "useProtocolRules: stale is asked again")
        }
    }

    // MARK: - Bypasses

    @Test("range requests, streams and downloads bypass the cache", arguments: TransportKind.allCases)
    func rangesStreamsAndDownloadsBypass(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client()
            let endpoint = try f.endpoint("/cache/60")
            let stored = try await client.enqueue(endpoint).resume()
            let ranged = endpoint.with { $0.headerItems = [HeaderItem(name: "Range", value: "bytes=0-3")] }
            #expect(try await client.enqueue(ranged).resume().source == .network)
            #expect(await f.hits("/cache/60") == 2)

            let streamed = try await client.enqueue(endpoint).stream()
            _ = try await streamed.body.collect(upTo: nil)
            #expect(streamed.source == .network)
            #expect(await f.hits("/cache/60") == 3)

            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cache-bypass-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            _ = try await client.enqueue(endpoint).download(to: folder.appendingPathComponent("body"))
            #expect(await f.hits("/cache/60") == 4)

            let last = try await client.enqueue(endpoint).resume()
            #expect(last.source == .cache)
            #expect(last.body == stored.body, "what bypassed the cache did not replace the stored response")
        }
    }

    // MARK: - RFC 5861

    @Test("stale-if-error: a 503 or a refused connection serves the stale response", arguments: TransportKind.allCases)
    func staleIfError(kind: TransportKind) async throws {
        try await Self.run(kind, staleIfError: true) { f in
            let client = f.client()
            let control = ["Cache-Control": "max-age=10, stale-if-error=600"] as KeyValuePairs<String, String>
            let unavailable = try f.endpoint("/flaky/unavailable", query: control)
            let refused = try f.endpoint("/flaky/refused", query: control)
            let first = try await client.enqueue(unavailable).resume()
            let firstRefused = try await client.enqueue(refused).resume()
            f.clock.advance(by: 30)
            let stale = try await client.enqueue(unavailable).resume()
            #expect(stale.source == .cache)
            #expect(stale.body == first.body)
            #expect(await f.hits("/flaky/unavailable") == 2, "the server was asked and answered 503")

            await f.server.stop()
            let staleRefused = try await client.enqueue(refused).resume()
            #expect(staleRefused.source == .cache)
            #expect(staleRefused.body == firstRefused.body)
            #expect(await f.hits("/flaky/refused") == 1)
        }
    }

    @Test("stale-while-revalidate: the stale response answers at once, one conditional request refreshes it", arguments: TransportKind.allCases)
    func staleWhileRevalidate(kind: TransportKind) async throws {
        try await Self.run(kind, staleWhileRevalidate: true) { f in
            let client = f.client()
            let endpoint = try f.endpoint("/etag/swr", query: ["Cache-Control": "max-age=10, stale-while-revalidate=600"])
            let first = try await client.enqueue(endpoint).resume()
            f.clock.advance(by: 30)
            let stale = try await client.enqueue(endpoint).resume()
            #expect(stale.source == .cache)
            #expect(stale.body == first.body)
            await f.cache.waitForBackgroundRevalidations()
            let requests = await f.origin.requests("/etag/swr")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") == "\"swr\"")
            let fresh = try await client.enqueue(endpoint).resume()
            #expect(fresh.source == .cache)
            #expect(fresh.headerValue(for: "X-Served") == "2", "the 304 refreshed the stored headers")
            #expect(fresh.headerValue(for: "Age") == "0")
            #expect(await f.hits("/etag/swr") == 2)
        }
    }

    // MARK: - Credentials

    @Test("two clients with different Basic credentials on one cache never see each other's responses", arguments: TransportKind.allCases)
    func basicCredentialsArePartitioned(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let alice = f.client(authentication: .basic(BasicCredential(username: "alice", password: "a")))
            let bob = f.client(authentication: .basic(BasicCredential(username: "bob", password: "b")))
            let endpoint = try f.endpoint("/private").with { $0.requiresAuthorization = true }
            let forAlice = try await alice.enqueue(endpoint).resume()
            #expect(try await alice.enqueue(endpoint).resume().source == .cache)
            let forBob = try await bob.enqueue(endpoint).resume()
            #expect(forBob.source == .network)
            #expect(forBob.body != forAlice.body)
            let bobAgain = try await bob.enqueue(endpoint).resume()
            #expect(bobAgain.source == .cache)
            #expect(bobAgain.body == forBob.body)
            #expect(try await alice.enqueue(endpoint).resume().body == forAlice.body)
            #expect(await f.hits("/private") == 2)
        }
    }

    @Test("a refresher's reset(to:) and signOut() purge its session's entries; public entries stay", arguments: TransportKind.allCases)
    func bearerSessionEndPurgesEntries(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let refresher = TokenRefresher(
                store: InMemoryTokenStore(TokenCredential(accessToken: "token-1", expiresAt: Date() + 3600))
            ) { _ in TokenCredential(accessToken: "refreshed", expiresAt: Date() + 3600) }
            let client = f.client(authentication: .bearer(refresher))
            let mine = try f.endpoint("/private").with { $0.requiresAuthorization = true }
            let shared = try f.endpoint("/cache/60")
            _ = try await client.enqueue(mine).resume()
            _ = try await client.enqueue(shared).resume()
            #expect(try await client.enqueue(mine).resume().source == .cache)

            try await refresher.reset(to: TokenCredential(accessToken: "token-2", expiresAt: Date() + 3600))
            let afterReset = try await client.enqueue(mine).resume()
            #expect(afterReset.source == .network)
            #expect(await f.hits("/private") == 2)
            #expect(try await client.enqueue(shared).resume().source == .cache)
            #expect(await f.hits("/cache/60") == 1)

            let key = CacheKey(url: "http://127.0.0.1:\(f.server.port)/private", partition: refresher.cachePartition)
            #expect(f.cache.storage.entries(for: key).count == 1)
            try await refresher.signOut()
            #expect(f.cache.storage.entries(for: key).isEmpty)
            #expect(try await client.enqueue(shared).resume().source == .cache)
        }
    }

    @Test("a credentialed response without explicit Cache-Control is not stored", arguments: TransportKind.allCases)
    func credentialedResponseNeedsExplicitCacheControl(kind: TransportKind) async throws {
        try await Self.run(kind) { f in
            let client = f.client(authentication: .basic(BasicCredential(username: "alice", password: "a")))
            let query = ["Last-Modified": CacheRoutes.httpDate(f.clock.now - 10 * 86_400), "ETag": "\"p\""] as KeyValuePairs<String, String>
            let credentialed = try f.endpoint("/private", query: query).with { $0.requiresAuthorization = true }
            _ = try await client.enqueue(credentialed).resume()
            #expect(try await client.enqueue(credentialed).resume().source == .network)
            let requests = await f.origin.requests("/private")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") == nil, "nothing was stored to revalidate")

            // The same response without a credential is stored (heuristically fresh).
            let anonymous = try f.endpoint("/private", query: query)
            _ = try await client.enqueue(anonymous).resume()
            #expect(try await client.enqueue(anonymous).resume().source == .cache)
            #expect(await f.hits("/private") == 3)
        }
    }

    // MARK: - Disk

    @Test("a disk cache serves public entries to a new HTTPCache on the same folder, not credentialed ones", arguments: TransportKind.allCases)
    func diskEntriesSurviveReopening(kind: TransportKind) async throws {
        try await TestServer.run { server in
            let origin = CacheOrigin()
            await CacheRoutes.install(on: server, origin: origin)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cache-disk-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let shared = try server.endpoint("/cache/60")
            let mine = CachedEndpoint(base: server.baseURL, urlPath: try URLPath("/private")).with { $0.requiresAuthorization = true }
            let credential = Authentication.basic(BasicCredential(username: "alice", password: "a"))
            func client(_ cache: HTTPCache) -> Client {
                Client(
                    configuration: Configuration(
                        transport: kind.make(), authentication: credential, authorizedHosts: ["127.0.0.1"], cache: cache))
            }
            // The first run: its cache is released at the end of this block, as at the end of a
            // process (one storage holds a folder at a time).
            let sharedBody: Data
            weak var released: HTTPCache?
            do {
                let before = try HTTPCache(directory: folder)
                released = before
                sharedBody = try await client(before).enqueue(shared).resume().body
                _ = try await client(before).enqueue(mine).resume()
                #expect(try await client(before).enqueue(mine).resume().source == .cache)
                let permissions = try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? NSNumber
                #expect(permissions?.intValue == 0o700)
            }
            // The first run's cache holds the folder until the last task of its calls (a body
            // being stored, a connection's cleanup) lets it go: on a busy machine, after the
            // block ends.
            let deadline = ContinuousClock.now + .seconds(30)
            while released != nil, ContinuousClock.now < deadline { await Task.yield() }
            #expect(released == nil, "the first cache was never released, so its folder stays locked")

            let after = try HTTPCache(directory: folder)
            let reopened = try await client(after).enqueue(shared).resume()
            #expect(reopened.source == .cache)
            #expect(reopened.body == sharedBody)
            #expect(try await client(after).enqueue(mine).resume().source == .network)
            #expect(await origin.hits("/cache/60") == 1)
            #expect(await origin.hits("/private") == 2)
        }
    }

    @Test("a truncated or corrupt entry file is a miss, never a wrong body", arguments: TransportKind.allCases)
    func corruptEntryFileIsAMiss(kind: TransportKind) async throws {
        try await TestServer.run { server in
            let origin = CacheOrigin()
            await CacheRoutes.install(on: server, origin: origin)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cache-corrupt-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let cache = try HTTPCache(directory: folder)
            let client = Client(configuration: Configuration(transport: kind.make(), cache: cache))
            let endpoint = try server.endpoint("/cache/60")
            var expectedHits = 0
            for damage in ["truncate", "overwrite"] {
                _ = try await client.enqueue(endpoint).resume()
                expectedHits += 1
                let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".entry") }
                #expect(files.count == 1)
                for name in files {
                    let file = folder.appendingPathComponent(name)
                    let data = try Data(contentsOf: file)
                    let damaged =
                        damage == "truncate" ? data.prefix(data.count / 2) : Data(repeating: 0x5A, count: data.count)
                    try damaged.write(to: file)
                }
                let answer = try await client.enqueue(endpoint).resume()
                expectedHits += 1
                #expect(answer.source == .network, "\(damage)")
                #expect(await origin.hits("/cache/60") == expectedHits, "\(damage)")
                let again = try await client.enqueue(endpoint).resume()
                #expect(again.source == .cache, "\(damage): the new response replaced the damaged file")
                #expect(again.body == answer.body)
                cache.removeAll()
            }
        }
    }
}
