import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import Courier

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A server with a cookie jar below the cache, as `URLSessionTransport` has: it adds the jar's
/// cookies unless the cache stage attached them, and answers a private response that echoes
/// the `Cookie` it received.
private final class CookieJarOrigin: Transport, StoredCookieSource {
    let jar = LockedState<String?>(nil)
    let receivedCookies = LockedState<[String]>([])
    let varies: Bool

    init(varies: Bool) { self.varies = varies }

    func storedCookieHeader(for url: URL) -> String? { jar.withLock { $0 } }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        var fields = request.head.headerFields[values: .cookie]
        if !request.storedCookiesAttached, let stored = storedCookieHeader(for: request.url) { fields.append(stored) }
        let cookie = fields.joined(separator: "; ")
        receivedCookies.withLock { $0.append(cookie) }
        var headers = ["Cache-Control": "private, max-age=60"]
        if varies { headers["Vary"] = "Cookie" }
        return StreamedResponse(statusCode: 200, headers: headers, body: Data("cookie=\(cookie)".utf8), url: request.url)
    }
}

/// A server whose first request waits until the test releases it (after announcing it arrived).
private final class HeldOrigin: Transport {
    let arrived: AsyncStream<Void>
    private let arrivedFeed: AsyncStream<Void>.Continuation
    private let release: AsyncStream<Void>
    private let releaseFeed: AsyncStream<Void>.Continuation
    private let count = LockedState(0)
    let headers: [String: String]

    init(headers: [String: String]) {
        self.headers = headers
        (arrived, arrivedFeed) = AsyncStream.makeStream(of: Void.self)
        (release, releaseFeed) = AsyncStream.makeStream(of: Void.self)
    }

    func releaseFirst() { releaseFeed.yield() }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let number = count.withLock { count in
            count += 1
            return count
        }
        if number == 1 {
            arrivedFeed.yield()
            for await _ in release { break }
        }
        return StreamedResponse(statusCode: 200, headers: headers, body: Data("body \(number)".utf8), url: request.url)
    }
}

@Suite("Hardening III: the HTTP cache keeps each user's responses to that user")
struct CacheHardeningTests: CacheSuite {
    let clock = CacheTestClock()

    private func diskCache(_ directory: URL, capacity: Int = 1 << 20) -> HTTPCache {
        let clock = clock
        return HTTPCache(storage: DiskCacheStorage(directory: directory, capacity: capacity), now: { clock.now })
    }

    private func client(_ transport: any Transport, cache: HTTPCache, configure: (inout Configuration) -> Void = { _ in }) -> Client {
        var configuration = Configuration(transport: transport, cache: cache)
        configure(&configuration)
        return Client(configuration: configuration)
    }

    private func bearerClient(_ transport: any Transport, cache: HTTPCache, refresher: TokenRefresher) -> Client {
        client(transport, cache: cache) { configuration in
            configuration.authentication = .bearer(refresher)
            configuration.authorizedHosts = ["api.example.com"]
        }
    }

    // MARK: 1. Cookies the transport adds

    /// Defect 1: the jar's cookies were attached below the cache, so a `Vary: Cookie` response
    /// was stored as "no Cookie" and served to the next user of the jar.
    @Test("the cookies a transport would add key and partition the response: the next user of the jar gets their own", arguments: [true, false])
    func cookiesTheTransportAddsPartition(varies: Bool) async throws {
        let origin = CookieJarOrigin(varies: varies)
        let client = client(origin, cache: memoryCache())
        origin.jar.withLock { $0 = "session=alice" }
        #expect(text(try await client.enqueue(CacheResource()).resume()) == "cookie=session=alice")
        let again = try await client.enqueue(CacheResource()).resume()
        #expect(again.source == .cache && text(again) == "cookie=session=alice")
        origin.jar.withLock { $0 = "session=bob" }
        let bobs = try await client.enqueue(CacheResource()).resume()
        #expect(bobs.source == .network && text(bobs) == "cookie=session=bob")
        // Attached once, by the cache stage, exactly as keyed.
        #expect(origin.receivedCookies.withLock { $0 } == ["session=alice", "session=bob"])
    }

    // MARK: 2. Partitioning does not depend on the log redaction

    @Test(
        "Authorization, Proxy-Authorization and Cookie partition the cache whatever the redaction shows",
        arguments: [Redaction.disabled, Redaction(exposed: ["Authorization", "Proxy-Authorization", "Cookie"])],
        ["Authorization", "Proxy-Authorization", "Cookie"])
    func credentialFieldsAlwaysPartition(redaction: Redaction, field: String) async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "private, max-age=60"])
        let client = client(origin, cache: memoryCache()) { $0.redaction = redaction }
        func call(_ user: String) async throws -> Response {
            var endpoint = CacheResource()
            endpoint.headerItems = [HeaderItem(name: field, value: "secret-of-\(user)")]
            return try await client.enqueue(endpoint).resume()
        }
        #expect(text(try await call("alice")) == "body 1")
        #expect(try await call("alice").source == .cache)
        let bobs = try await call("bob")
        #expect(bobs.source == .network && text(bobs) == "body 2")
    }

    // MARK: 12. Secret query items

    @Test("a secret query item partitions the cache and is never stored: not in a key, not on disk, not after reopening")
    func secretQueryItemsPartitionAndAreNotPersisted() async throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = CacheOrigin(headers: ["Cache-Control": "public, max-age=600"])
        do {
            let cache = diskCache(directory)
            let client = client(origin, cache: cache)
            func call(_ token: String) async throws -> Response {
                var endpoint = CacheResource()
                endpoint.queryItems = [QueryItem(name: "page", value: "2"), QueryItem(name: "access_token", value: token)]
                return try await client.enqueue(endpoint).resume()
            }
            #expect(text(try await call("alice-token-123")) == "body 1")
            #expect(try await call("alice-token-123").source == .cache)
            let bobs = try await call("bob-token-456")
            #expect(bobs.source == .network && text(bobs) == "body 2")
            let storage = try #require(cache.storage as? DiskCacheStorage)
            for key in storage.keysByRecency {
                #expect(key.key.url == "https://api.example.com/r?page=2&access_token=<partitioned>")
                #expect(!key.key.partition.isEmpty)
            }
            storage.flush()
        }
        // The lock file is empty, and not read: FoundationEssentials' Data(contentsOf:) leaks its
        // 4 KiB read buffer for an empty file (Swift 6.3.1, LeakSanitizer).
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name != DiskCacheStorage.lockName {
            let bytes = try Data(contentsOf: directory.appendingPathComponent(name))
            #expect(bytes.range(of: Data("token-".utf8)) == nil, "\(name) holds a token")
        }
        let reopened = DiskCacheStorage(directory: directory, capacity: 1 << 20)
        #expect(reopened.count == 0, "entries keyed by a secret are this process's only")
    }

    @Test("an unsafe call with a secret query item invalidates the stored response it changed")
    func secretQueryInvalidation() async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "max-age=600"])
        let cache = memoryCache()
        let client = client(origin, cache: cache)
        var read = CacheResource()
        read.queryItems = [QueryItem(name: "token", value: "t1")]
        var write = read
        write.method = .post
        _ = try await client.enqueue(read).resume()
        #expect(try await client.enqueue(read).resume().source == .cache)
        _ = try await client.enqueue(write).resume()
        #expect(try await client.enqueue(read).resume().source == .network)
    }

    // MARK: 8. Sessions that ended

    /// However many sessions end while the call is on the wire (1,100 here: more than any bound
    /// on remembered sessions would keep), its session stays ended.
    @Test("a response that arrives after the session ended is not stored for it", arguments: [false, true], [0, 1_100])
    func nothingIsStoredAfterSignOut(onDisk: Bool, sessionsEndedAfterIt: Int) async throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = HeldOrigin(headers: ["Cache-Control": "private, max-age=600"])
        let cache = onDisk ? diskCache(directory) : memoryCache()
        let refresher = TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "a1")), refresh: { _ in TokenCredential(accessToken: "a2") })
        let client = bearerClient(origin, cache: cache, refresher: refresher)
        var mine = CacheResource(pathString: "/me")
        mine.requiresAuthorization = true
        mine.headerItems = [HeaderItem(name: "X-API-Key", value: "k1")]  // a partition within the session
        let call = Task { try await client.enqueue(mine).resume() }
        var arrivals = origin.arrived.makeAsyncIterator()
        await arrivals.next()
        let ended = refresher.cachePartition
        try await refresher.signOut()
        for number in 0..<sessionsEndedAfterIt { try await refresher.reset(to: TokenCredential(accessToken: "other\(number)")) }
        origin.releaseFirst()
        #expect(try await call.value.source == .network)
        if let disk = cache.storage as? DiskCacheStorage {
            #expect(disk.count == 0)
        } else if let memory = cache.storage as? MemoryCacheStorage {
            #expect(memory.keysByRecency.isEmpty)
        }
        #expect(cache.storage.entries(for: CacheKey(url: "https://api.example.com/me", partition: ended)).isEmpty)
    }

    @Test("ending a session removes the entries of the secret-value partitions within it too")
    func endingASessionRemovesItsSubpartitions() async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "private, max-age=600"])
        let cache = memoryCache()
        let refresher = TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "a1")), refresh: { _ in TokenCredential(accessToken: "a2") })
        let client = bearerClient(origin, cache: cache, refresher: refresher)
        var mine = CacheResource(pathString: "/me")
        mine.requiresAuthorization = true
        mine.headerItems = [HeaderItem(name: "X-API-Key", value: "k1")]
        _ = try await client.enqueue(mine).resume()
        let memory = try #require(cache.storage as? MemoryCacheStorage)
        #expect(memory.keysByRecency.count == 1)
        try await refresher.reset(to: TokenCredential(accessToken: "b1"))
        #expect(memory.keysByRecency.isEmpty)
    }

    @Test("a refresh that fails for good ends the cache session: its private responses are removed")
    func permanentRefreshFailureEndsTheSession() async throws {
        let origin = CacheOrigin { request, number throws(CourierError) in
            if request.head.path == "/expired" {
                return StreamedResponse(statusCode: 401, headers: ["WWW-Authenticate": "Bearer error=\"invalid_token\""], url: request.url)
            }
            return StreamedResponse(
                statusCode: 200, headers: ["Cache-Control": "private, max-age=600"], body: Data("body \(number)".utf8), url: request.url)
        }
        let cache = memoryCache()
        let refresher = TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "a1"))) { _ in
            throw RefreshFailure(reason: .rejected, isPermanent: true)
        }
        let client = bearerClient(origin, cache: cache, refresher: refresher)
        var mine = CacheResource(pathString: "/me")
        mine.requiresAuthorization = true
        var expired = CacheResource(pathString: "/expired")
        expired.requiresAuthorization = true
        _ = try await client.enqueue(mine).resume()
        #expect(try await client.enqueue(mine).resume().source == .cache)
        let session = refresher.cachePartition
        await #expect(throws: CourierError.self) { try await client.enqueue(expired).resume() }
        #expect(refresher.cachePartition != session)
        #expect(cache.storage.entries(for: CacheKey(url: "https://api.example.com/me", partition: session)).isEmpty)
    }

    @Test("a refresher keeps no cache that is gone: registering a thousand short-lived caches leaves at most the live ones")
    func refresherForgetsCachesThatAreGone() async throws {
        let refresher = TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "a1")), refresh: { _ in TokenCredential(accessToken: "a2") })
        let kept = memoryCache()
        refresher.purgesEntries(in: kept)
        for _ in 0..<1_000 {
            let cache = memoryCache()
            _ = Client(configuration: Configuration(authentication: .bearer(refresher), cache: cache))
        }
        refresher.purgesEntries(in: kept)
        #expect(refresher.cacheSession.withLock { $0.caches.count } == 1)
    }

    // MARK: 10. Redirects

    @Test("a GET answered by a redirect's target is not stored under the URL that redirected")
    func redirectedResponsesAreNotStored() async throws {
        let origin = CacheOrigin { request, number throws(CourierError) in
            // The transport followed a redirect: the response comes from /target.
            var target = request.url
            target.deleteLastPathComponent()
            return StreamedResponse(
                statusCode: 200, headers: ["Cache-Control": "max-age=600"], body: Data("body \(number)".utf8),
                url: target.appendingPathComponent("target"))
        }
        let client = client(origin, cache: memoryCache())
        _ = try await client.enqueue(CacheResource(pathString: "/from")).resume()
        let second = try await client.enqueue(CacheResource(pathString: "/from")).resume()
        #expect(second.source == .network && origin.count == 2)
    }

    // MARK: 11. A 304 that says no-store

    @Test("a 304 with no-store answers this call once and is not kept: the next call asks again, unconditionally")
    func notModifiedWithNoStoreIsNotKept() async throws {
        let origin = CacheOrigin { request, number throws(CourierError) in
            if request.header("If-None-Match") != nil {
                return StreamedResponse(statusCode: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "no-store"], url: request.url)
            }
            return StreamedResponse(
                statusCode: 200, headers: ["ETag": "\"v1\"", "Last-Modified": "Sat, 01 Jan 2000 00:00:00 GMT"],
                body: Data("body \(number)".utf8), url: request.url)
        }
        let cache = memoryCache()
        let client = client(origin, cache: cache)
        _ = try await client.enqueue(CacheResource()).resume()
        clock.advance(365 * 24 * 3600)  // well past the heuristic freshness
        let revalidated = try await client.enqueue(CacheResource()).resume()
        #expect(revalidated.source == .revalidated && text(revalidated) == "body 1")
        #expect((cache.storage as? MemoryCacheStorage)?.keysByRecency.isEmpty == true)
        let next = try await client.enqueue(CacheResource()).resume()
        #expect(next.source == .network && origin.last?.header("If-None-Match") == nil)
    }

    // MARK: 13. Background revalidations are calls in flight

    @Test("runExclusively waits for a stale-while-revalidate request on the wire, like any call in flight")
    func exclusiveActionsWaitForBackgroundRevalidations() async throws {
        let order = LockedState<[String]>([])
        let (arrived, arrivedFeed) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseFeed) = AsyncStream.makeStream(of: Void.self)
        let origin = CacheOrigin { request, number throws(CourierError) in
            StreamedResponse(
                statusCode: 200, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60, stale-while-revalidate=600"],
                body: Data("body \(number)".utf8), url: request.url)
        }
        let gated = GatedTransport(origin) { number in
            guard number == 2 else { return }
            arrivedFeed.yield()
            for await _ in release { break }
            order.withLock { $0.append("revalidation") }
        }
        let cache = memoryCache(staleWhileRevalidate: true)
        let client = client(gated, cache: cache)
        _ = try await client.enqueue(CacheResource()).resume()
        clock.advance(120)
        #expect(try await client.enqueue(CacheResource()).resume().source == .cache)
        var arrivals = arrived.makeAsyncIterator()
        await arrivals.next()  // the background request is on the wire
        let exclusive = Task {
            try await client.runExclusively { order.withLock { $0.append("exclusive") } }
        }
        // Until the action waits for the drain, or (the defect) has run without waiting.
        while await !client.isPausedForTests, order.withLock({ $0 }).isEmpty { await Task.yield() }
        #expect(order.withLock { $0 }.isEmpty, "the exclusive action ran while a revalidation was on the wire")
        releaseFeed.yield()
        try await exclusive.value
        await cache.waitForBackgroundRevalidations()
        #expect(order.withLock { $0 } == ["revalidation", "exclusive"])
    }
}

/// `inner`, with `before` awaited before each request is passed on (numbered from 1).
private final class GatedTransport: Transport {
    let inner: any Transport
    let before: @Sendable (Int) async -> Void
    private let count = LockedState(0)

    init(_ inner: any Transport, before: @escaping @Sendable (Int) async -> Void) {
        self.inner = inner
        self.before = before
    }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let number = count.withLock { count in
            count += 1
            return count
        }
        await before(number)
        return try await inner.send(request)
    }
}

@Suite("Hardening III: the disk cache trusts only what it wrote")
struct DiskCacheHardeningTests {
    private func entry(_ path: String, variant: CacheVariant = .none) -> CacheEntry {
        cacheEntry(path: path, [("Cache-Control", "max-age=600")], variant: variant, receivedAt: Date())
    }

    /// A variant of more `Vary` fields than the decoder reads.
    private let wide = CacheVariant(values: (0..<300).map { CacheVariant.Value(name: "x-f\($0)", value: "v") }, matchesNothing: false)

    /// Opens `directory` again and expects exactly the entry for `/kept`.
    private func expectOnlyKept(in directory: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        let reopened = DiskCacheStorage(directory: directory, capacity: 1 << 20)
        #expect(reopened.count == 1, sourceLocation: sourceLocation)
        #expect(reopened.entries(for: CacheKey(url: "https://example.com/kept", partition: "")).count == 1, sourceLocation: sourceLocation)
    }

    private func mode(of url: URL) -> mode_t {
        var status = stat()
        _ = stat(url.path, &status)
        return status.st_mode & 0o777
    }

    @Test("a folder others may write to is made owner-only, and nothing planted in it is served")
    func worldWritableFolderIsTightenedAndEmptied() throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let planted = DiskCacheStorage(directory: directory, capacity: 1 << 20)
            #expect(planted.store(entry("/a")))
            planted.flush()
        }
        #expect(chmod(directory.path, 0o777) == 0)
        let cache = try HTTPCache(directory: directory)
        #expect(mode(of: directory) == 0o700)
        let storage = try #require(cache.storage as? DiskCacheStorage)
        #expect(storage.isActive && storage.count == 0)
        #expect(storage.entries(for: CacheKey(url: "https://example.com/a", partition: "")).isEmpty)
        // What the cache writes from now on it trusts again.
        #expect(storage.store(entry("/b")))
        #expect(storage.entries(for: CacheKey(url: "https://example.com/b", partition: "")).count == 1)
    }

    @Test("a folder another user owns is refused with a clear error")
    func foreignFolderIsRefused() throws {
        let directory: URL
        if geteuid() == 0 {
            directory = cacheTemporaryDirectory()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            #expect(chown(directory.path, 65534, 65534) == 0)
        } else {
            directory = URL(fileURLWithPath: "/")  // root's
        }
        defer { if geteuid() == 0 { try? FileManager.default.removeItem(at: directory) } }
        #expect {
            _ = try HTTPCache(directory: directory)
        } throws: { error in
            guard case CourierError.invalidRequest(let problem) = error else { return false }
            return problem.description.contains("another user")
        }
    }

    @Test("an entry file another user owns is a miss, and is removed")
    func foreignEntryFileIsAMiss() throws {
        try #require(geteuid() == 0, "needs root to give a file to another user")
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = DiskCacheStorage(directory: directory, capacity: 1 << 20)
        #expect(storage.store(entry("/a")))
        let file = directory.appendingPathComponent(DiskCacheStorage.fileName(for: entry("/a").storageKey))
        #expect(chown(file.path, 65534, 65534) == 0)
        #expect(storage.entries(for: CacheKey(url: "https://example.com/a", partition: "")).isEmpty)
        #expect(storage.count == 0)
    }

    @Test("an entry the decoder would refuse (Vary of 300 fields) is not stored, and the cache keeps everything else")
    func unreadableEntryIsNotStored() throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let storage = DiskCacheStorage(directory: directory, capacity: 1 << 20)
            #expect(storage.store(entry("/kept")))
            #expect(!storage.store(entry("/wide", variant: wide)))
            storage.flush()
        }
        expectOnlyKept(in: directory)
    }

    @Test("an index with one unreadable record loses that record only")
    func oneBadRecordCostsItself() throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let kept = entry("/kept")
        do {
            let storage = DiskCacheStorage(directory: directory, capacity: 1 << 20)
            #expect(storage.store(kept))
            storage.flush()
        }
        let keptID = DiskCacheStorage.fileID(for: kept.storageKey)
        let keptSize = try Data(contentsOf: directory.appendingPathComponent(DiskCacheStorage.fileName(id: keptID))).count
        let bad = CacheStorageKey(key: CacheKey(url: "https://example.com/wide", partition: ""), variant: wide)
        let index = CacheIndexCoding.encode(
            [(bad, DiskCacheStorage.Record(id: 1, size: 10)), (kept.storageKey, DiskCacheStorage.Record(id: keptID, size: keptSize))],
            isClean: true)
        try index.write(to: directory.appendingPathComponent(DiskCacheStorage.indexName))
        expectOnlyKept(in: directory)
    }

    @Test("a cache of capacity Int.max stores and serves without overflowing")
    func unboundedCapacity() throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try HTTPCache(directory: directory, capacity: .max)
        #expect(cache.storage.store(entry("/a")))
        #expect(cache.storage.entries(for: CacheKey(url: "https://example.com/a", partition: "")).count == 1)
    }

    @Test("an index whose record sizes add up past Int.max opens without crashing, within its capacity", arguments: [Int.max, 1 << 20])
    func craftedSizesDoNotOverflow(capacity: Int) throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let records = (0..<4).map { number in
            (
                CacheStorageKey(key: CacheKey(url: "https://example.com/\(number)", partition: ""), variant: .none),
                DiskCacheStorage.Record(id: UInt64(number + 1), size: Int.max / 2 + 1)
            )
        }
        try CacheIndexCoding.encode(records, isClean: true).write(to: directory.appendingPathComponent(DiskCacheStorage.indexName))
        let storage = DiskCacheStorage(directory: directory, capacity: capacity)
        #expect(storage.totalSize >= 0 && storage.totalSize <= capacity)
        #expect(storage.count <= 1)
        #expect(storage.store(entry("/a")))
    }
}
