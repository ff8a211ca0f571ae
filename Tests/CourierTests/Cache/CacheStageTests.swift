import CourierTesting
import Foundation
import HTTPTypes
import InMemoryTracing
import MetricsTestKit
import Testing

@testable import Courier

/// A wall clock that moves only when a test moves it.
final class CacheTestClock: Sendable {
    private let date = LockedState(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { date.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
}

@Suite("Cache stage")
struct CacheStageTests {
    let clock = CacheTestClock()

    private func makeCache(staleWhileRevalidate: Bool = false, staleIfError: Bool = false) -> HTTPCache {
        let clock = clock
        return HTTPCache(
            storage: MemoryCacheStorage(capacity: 1 << 20), staleWhileRevalidate: staleWhileRevalidate, staleIfError: staleIfError,
            now: { clock.now })
    }

    private func client(_ origin: CacheOrigin, cache: HTTPCache, configure: (inout Configuration) -> Void = { _ in }) -> Client {
        var configuration = Configuration(transport: origin, cache: cache)
        configure(&configuration)
        return Client(configuration: configuration)
    }

    private func text(_ response: Response) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test("a fresh stored response answers without a request, with its Age; the first came from the network")
    func freshHit() async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "max-age=60"])
        let client = client(origin, cache: makeCache())
        let first = try await client.enqueue(CacheResource()).resume()
        clock.advance(10)
        let second = try await client.enqueue(CacheResource()).resume()
        #expect(origin.count == 1)
        #expect(first.source == .network && second.source == .cache)
        #expect(text(second) == "body 1")
        #expect(second.headerValue(for: "Age") == "10")
    }

    @Test("a stale response is revalidated with its ETag; a 304 answers with the stored body and its new headers")
    func revalidation() async throws {
        let origin = CacheOrigin { request, number throws(CourierError) in
            if request.header("If-None-Match") == "\"v1\"" {
                return StreamedResponse(
                    statusCode: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=0", "X-Checked": "yes"], url: request.url)
            }
            return StreamedResponse(
                statusCode: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=0"], body: Data("body \(number)".utf8),
                url: request.url)
        }
        let client = client(origin, cache: makeCache())
        _ = try await client.enqueue(CacheResource()).resume()
        let revalidated = try await client.enqueue(CacheResource()).resume()
        #expect(origin.count == 2)
        #expect(origin.last?.header("If-None-Match") == "\"v1\"")
        #expect(revalidated.source == .revalidated)
        #expect(text(revalidated) == "body 1")
        #expect(revalidated.headerValue(for: "X-Checked") == "yes")
    }

    @Test("a 304 that matches nothing stored is not used: the request goes again, unconditionally")
    func unmatchedNotModified() async throws {
        let origin = CacheOrigin { request, number throws(CourierError) in
            if request.header("If-None-Match") != nil {
                return StreamedResponse(statusCode: 304, headers: ["ETag": "\"other\""], url: request.url)
            }
            return StreamedResponse(
                statusCode: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "no-cache"], body: Data("body \(number)".utf8),
                url: request.url)
        }
        let client = client(origin, cache: makeCache())
        _ = try await client.enqueue(CacheResource()).resume()
        let response = try await client.enqueue(CacheResource()).resume()
        #expect(origin.count == 3)
        #expect(origin.last?.header("If-None-Match") == nil)
        #expect(response.source == .network && text(response) == "body 3")
    }

    @Test("a caller's own conditional request is the caller's: its 304 comes back as it is")
    func callersOwnConditional() async throws {
        let origin = CacheOrigin(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"])
        let client = client(origin, cache: makeCache())
        var endpoint = CacheResource()
        endpoint.headerItems = [HeaderItem(name: "If-None-Match", value: "\"v1\"")]
        let result = await client.enqueue(endpoint).result()
        guard case .failure(.response(let response)) = result else {
            Issue.record("expected the 304 as a response error, got \(result)")
            return
        }
        #expect(response.statusCode == 304 && response.source == .network)
    }

    @Test(
        "each cache policy uses stored responses as it says",
        arguments: [
            (CachePolicy.useProtocolRules, 2, ResponseSource.network),
            (.reload, 2, .network),
            (.returnCachedElseLoad, 1, .cache),
            (.onlyCached, 1, .cache),
        ])
    func policies(policy: CachePolicy, requests: Int, source: ResponseSource) async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "max-age=10"])
        let client = client(origin, cache: makeCache())
        _ = try await client.enqueue(CacheResource()).resume()
        clock.advance(60)  // stale now
        var endpoint = CacheResource()
        endpoint.cachePolicy = policy
        let response = try await client.enqueue(endpoint).resume()
        #expect(origin.count == requests)
        #expect(response.source == source)
    }

    @Test("reload stores what it gets: the next call is a hit")
    func reloadStores() async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "max-age=60"])
        let client = client(origin, cache: makeCache())
        _ = try await client.enqueue(CacheResource()).resume()
        var reload = CacheResource()
        reload.cachePolicy = .reload
        #expect(try await client.enqueue(reload).resume().source == .network)
        let hit = try await client.enqueue(CacheResource()).resume()
        #expect(origin.count == 2 && hit.source == .cache && text(hit) == "body 2")
    }

    @Test("onlyCached without a stored response fails with a 504 and sends nothing; so does only-if-cached")
    func onlyCachedMiss() async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "max-age=60"])
        let client = client(origin, cache: makeCache())
        var onlyCached = CacheResource()
        onlyCached.cachePolicy = .onlyCached
        var onlyIfCached = CacheResource()
        onlyIfCached.headerItems = [HeaderItem(name: "Cache-Control", value: "only-if-cached")]
        for endpoint in [onlyCached, onlyIfCached] {
            let result = await client.enqueue(endpoint).result()
            guard case .failure(.response(let response)) = result else {
                Issue.record("expected a 504, got \(result)")
                continue
            }
            #expect(response.statusCode == 504 && response.source == .cache)
        }
        #expect(origin.count == 0)
    }

    @Test("an unsafe method that succeeds invalidates its target; a GET after it goes to the network")
    func invalidation() async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "max-age=60"])
        let client = client(origin, cache: makeCache())
        _ = try await client.enqueue(CacheResource()).resume()
        var post = CacheResource()
        post.method = .post
        _ = try await client.enqueue(post).resume()
        let after = try await client.enqueue(CacheResource()).resume()
        #expect(origin.count == 3 && after.source == .network)
    }

    @Test("a stored body larger than this call's size limit is not served: the call goes to the network, and its limit holds")
    func sizeLimit() async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "max-age=60"])
        let client = client(origin, cache: makeCache())
        _ = try await client.enqueue(CacheResource()).resume()
        let limited = Client(configuration: Configuration(transport: origin, maximumResponseSize: 3, cache: client.configuration.cache))
        let result = await limited.enqueue(CacheResource()).result()
        guard case .failure(.transport(let failure)) = result else {
            Issue.record("expected responseTooLarge, got \(result)")
            return
        }
        #expect(failure.kind == .responseTooLarge)
        #expect(origin.count == 2)
    }

    @Test("HEAD is answered from a stored GET, without a body")
    func headFromGet() async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "max-age=60"])
        let client = client(origin, cache: makeCache())
        _ = try await client.enqueue(CacheResource()).resume()
        var head = CacheResource()
        head.method = .head
        let response = try await client.enqueue(head).resume()
        #expect(origin.count == 1 && response.source == .cache && response.body.isEmpty)
    }

    @Test("streamed calls and range requests bypass the cache")
    func bypass() async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "max-age=60"])
        let client = client(origin, cache: makeCache())
        _ = try await client.enqueue(CacheResource()).resume()
        let streamed = try await client.enqueue(CacheResource()).stream()
        streamed.body.cancel()
        var range = CacheResource()
        range.headerItems = [HeaderItem(name: "Range", value: "bytes=0-1")]
        _ = try await client.enqueue(range).resume()
        #expect(origin.count == 3 && streamed.source == .network)
    }

    @Test("stale-if-error serves a stale response when the origin fails, only when the cache honours it")
    func staleIfError() async throws {
        let failing = LockedState(false)
        let origin = CacheOrigin { request, number throws(CourierError) in
            if failing.withLock({ $0 }) {
                if number % 2 == 0 { throw .transport(TransportFailure(URLError(.cannotConnectToHost), url: request.url)) }
                return StreamedResponse(statusCode: 503, url: request.url)
            }
            return StreamedResponse(
                statusCode: 200, headers: ["Cache-Control": "max-age=1, stale-if-error=600"], body: Data("body \(number)".utf8),
                url: request.url)
        }
        let honouring = client(origin, cache: makeCache(staleIfError: true))
        _ = try await honouring.enqueue(CacheResource()).resume()
        clock.advance(30)
        failing.withLock { $0 = true }
        let afterRefusal = try await honouring.enqueue(CacheResource()).resume()  // request 2: connection refused
        let after503 = try await honouring.enqueue(CacheResource()).resume()  // request 3: 503
        #expect(afterRefusal.source == .cache && text(afterRefusal) == "body 1")
        #expect(after503.source == .cache && text(after503) == "body 1")

        let strict = client(origin, cache: makeCache())
        failing.withLock { $0 = false }
        _ = try await strict.enqueue(CacheResource()).resume()  // request 4
        clock.advance(30)
        failing.withLock { $0 = true }
        let result = await strict.enqueue(CacheResource()).result()  // request 5: 503
        guard case .failure(.response(let response)) = result else {
            Issue.record("expected the 503, got \(result)")
            return
        }
        #expect(response.statusCode == 503)
    }

    /// Issue 50 (cache-tests stale-while-revalidate, stale-while-revalidate-window): browsers
    /// honour it, and the server opts in per response; stale-if-error stays opt-in.
    @Test("HTTPCache honours stale-while-revalidate by default, in memory and on disk; stale-if-error only when asked")
    func staleWhileRevalidateIsOnByDefault() throws {
        #expect(HTTPCache().usesStaleWhileRevalidate)
        #expect(!HTTPCache().usesStaleIfError)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-swr-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let disk = try HTTPCache(directory: folder)
        #expect(disk.usesStaleWhileRevalidate && !disk.usesStaleIfError)
        #expect(!HTTPCache(staleWhileRevalidate: false).usesStaleWhileRevalidate)
    }

    @Test("stale-while-revalidate answers at once and revalidates once in the background")
    func staleWhileRevalidate() async throws {
        let origin = CacheOrigin { request, number throws(CourierError) in
            if request.header("If-None-Match") != nil {
                return StreamedResponse(
                    statusCode: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60, stale-while-revalidate=600"],
                    url: request.url)
            }
            return StreamedResponse(
                statusCode: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60, stale-while-revalidate=600"],
                body: Data("body \(number)".utf8), url: request.url)
        }
        let cache = makeCache(staleWhileRevalidate: true)
        let client = client(origin, cache: cache)
        _ = try await client.enqueue(CacheResource()).resume()
        clock.advance(120)
        let stale = try await client.enqueue(CacheResource()).resume()
        #expect(stale.source == .cache && text(stale) == "body 1")
        await cache.waitForBackgroundRevalidations()
        #expect(origin.count == 2 && origin.last?.header("If-None-Match") == "\"v1\"")
        let fresh = try await client.enqueue(CacheResource()).resume()
        #expect(origin.count == 2 && fresh.source == .cache && fresh.headerValue(for: "Age") == "0")
    }

    @Test("a response to a credentialed call is stored only with an explicit directive, and never served to another credential")
    func credentials() async throws {
        let origin = CacheOrigin { request, number throws(CourierError) in
            let control = request.head.path == "/explicit" ? "private, max-age=60" : nil
            var headers = ["ETag": "\"v\(number)\"", "Last-Modified": "Sat, 01 Jan 2000 00:00:00 GMT"]
            headers["Cache-Control"] = control
            return StreamedResponse(statusCode: 200, headers: headers, body: Data("body \(number)".utf8), url: request.url)
        }
        let cache = makeCache()
        func signedIn(_ user: String) -> Client {
            client(origin, cache: cache) { configuration in
                configuration.authentication = .basic(BasicCredential(username: user, password: "pw"))
                configuration.authorizedHosts = ["api.example.com"]
            }
        }
        let alice = signedIn("alice")
        let bob = signedIn("bob")
        var explicit = CacheResource(pathString: "/explicit")
        explicit.requiresAuthorization = true
        var implicit = CacheResource(pathString: "/implicit")
        implicit.requiresAuthorization = true
        _ = try await alice.enqueue(explicit).resume()
        #expect(try await alice.enqueue(explicit).resume().source == .cache)
        let bobs = try await bob.enqueue(explicit).resume()
        #expect(bobs.source == .network && text(bobs) == "body 2")
        _ = try await alice.enqueue(implicit).resume()
        _ = try await alice.enqueue(implicit).resume()
        #expect(origin.count == 4)
        // No credential reached the cache.
        let alicePartition = CachePartition.basic(BasicCredential(username: "alice", password: "pw"))
        let stored = cache.storage.entries(for: CacheKey(url: "https://api.example.com/explicit", partition: alicePartition))
        #expect(stored.count == 1)
        for entry in stored {
            #expect(entry.variant.values.isEmpty && entry.response.headerFields[.authorization] == nil)
        }
    }

    @Test("secret headers an endpoint sets itself partition the cache, and a Vary on them stores no secret")
    func secretHeadersPartition() async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "private, max-age=60", "Vary": "Authorization, Cookie"])
        let cache = makeCache()
        let client = client(origin, cache: cache)
        func call(_ token: String) async throws -> Response {
            var endpoint = CacheResource()
            endpoint.headerItems = [HeaderItem(name: "Authorization", value: "Bearer \(token)"), HeaderItem(name: "Cookie", value: "s=\(token)")]
            return try await client.enqueue(endpoint).resume()
        }
        _ = try await call("alice-token")
        #expect(try await call("alice-token").source == .cache)
        let bobs = try await call("bob-token")
        #expect(bobs.source == .network && text(bobs) == "body 2")
        #expect(origin.count == 2)
        guard let memory = cache.storage as? MemoryCacheStorage else { return }
        for key in memory.keysByRecency {
            #expect(key.key.partition.contains("secrets:"))
            let values = key.variant.values.compactMap(\.value)
            #expect(values == ["<partitioned>", "<partitioned>"])
            #expect(!values.contains { $0.contains("token") })
        }
    }

    @Test("resetting or signing out of a refresher purges its session's entries; public entries stay")
    func refresherSessionsArePurged() async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "private, max-age=600"])
        let cache = makeCache()
        let refresher = TokenRefresher(
            store: InMemoryTokenStore(TokenCredential(accessToken: "a1", expiresAt: nil)),
            refresh: { _ in TokenCredential(accessToken: "a2") })
        let client = client(origin, cache: cache) { configuration in
            configuration.authentication = .bearer(refresher)
            configuration.authorizedHosts = ["api.example.com"]
        }
        var mine = CacheResource(pathString: "/me")
        mine.requiresAuthorization = true
        let everyone = CacheResource(pathString: "/public")
        _ = try await client.enqueue(mine).resume()
        _ = try await client.enqueue(everyone).resume()
        let before = refresher.cachePartition
        #expect(cache.storage.entries(for: CacheKey(url: "https://api.example.com/me", partition: before)).count == 1)
        try await refresher.reset(to: TokenCredential(accessToken: "b1"))
        #expect(cache.storage.entries(for: CacheKey(url: "https://api.example.com/me", partition: before)).isEmpty)
        #expect(refresher.cachePartition != before)
        #expect(try await client.enqueue(mine).resume().source == .network)
        #expect(try await client.enqueue(everyone).resume().source == .cache)
        let second = refresher.cachePartition
        try await refresher.signOut()
        #expect(cache.storage.entries(for: CacheKey(url: "https://api.example.com/me", partition: second)).isEmpty)
        #expect(origin.count == 3)
    }

    @Test("lookups are counted by result and reported on the call's span")
    func observability() async throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let origin = CacheOrigin(headers: ["Cache-Control": "max-age=60"])
        let client = client(origin, cache: makeCache()) { configuration in
            configuration.metricsFactory = metrics
            configuration.tracer = tracer
        }
        _ = try await client.enqueue(CacheResource()).resume()
        _ = try await client.enqueue(CacheResource()).resume()
        _ = try await client.enqueue(CacheResource()).resume()
        #expect(try metrics.expectCounter("courier_cache_lookups_total", [("result", "miss")]).totalValue == 1)
        #expect(try metrics.expectCounter("courier_cache_lookups_total", [("result", "hit")]).totalValue == 2)
        let results = tracer.finishedSpans.filter { $0.kind == .internal }.map { span -> String? in
            if case .string(let value)? = span.attributes.get("courier.cache.result") { return value }
            return nil
        }
        #expect(results == ["miss", "hit", "hit"])
    }

    @Test("two thousand concurrent calls for one fresh resource: every one answered, and the stored body intact")
    func concurrentHits() async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "max-age=600"])
        let client = client(origin, cache: makeCache())
        _ = try await client.enqueue(CacheResource()).resume()
        let sources = await withTaskGroup(of: ResponseSource?.self) { group in
            for _ in 0..<2_000 {
                group.addTask {
                    guard let response = try? await client.enqueue(CacheResource()).resume(), response.body == Data("body 1".utf8) else {
                        return nil
                    }
                    return response.source
                }
            }
            var sources: [ResponseSource?] = []
            for await source in group { sources.append(source) }
            return sources
        }
        #expect(sources.count == 2_000 && sources.allSatisfy { $0 == .cache })
        #expect(origin.count == 1)
    }
}
