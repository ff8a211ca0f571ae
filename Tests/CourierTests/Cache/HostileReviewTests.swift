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

/// A cookie jar below the cache that the cache cannot see: a transport of the app's own (on
/// `URLSession.shared`, whose jar is the app's), or a decorator (logging, metrics) around
/// `URLSessionTransport` that does not pass on its cookie storage.
private final class OpaqueCookieTransport: Transport {
    let jar = LockedState("session=alice")

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let cookie = jar.withLock { $0 }
        return StreamedResponse(
            statusCode: 200, headers: ["Cache-Control": "private, max-age=60", "Vary": "Cookie"],
            body: Data("page of \(cookie)".utf8), url: request.url)
    }
}

/// Hostile review of Hardening III (issue 37): attacks on the cache as a hostile server, a
/// second user of the machine and a careless caller.
@Suite("HostileReview: the HTTP cache under attack")
struct HostileReviewTests: CacheSuite {
    let clock = CacheTestClock()

    // MARK: Sessions that end while a call is on the wire

    @Test("onlyCached after sign-out answers 504, not the signed-out user's entry")
    func onlyCachedAfterSignOut() async throws {
        let refresher = TokenRefresher(
            store: InMemoryTokenStore(TokenCredential(accessToken: "alice")), refresh: { _ in TokenCredential(accessToken: "alice2") })
        let origin = CacheOrigin(headers: ["Cache-Control": "private, max-age=600"])
        let client = signedInClient(origin, cache: memoryCache(), refresher: refresher)
        _ = try await client.enqueue(mine).resume()
        try await refresher.reset(to: TokenCredential(accessToken: "bob"))
        var offline = mine
        offline.cachePolicy = .onlyCached
        let result = await client.enqueue(offline).result()
        guard case .failure(.response(let response)) = result else {
            Issue.record("expected a 504, got \(result)")
            return
        }
        #expect(response.statusCode == 504 && origin.count == 1)
        offline.cachePolicy = .returnCachedElseLoad
        #expect(try await client.enqueue(offline).resume().source == .network)
    }

    /// Issue 37 promises that the cookies a transport adds partition the cache, but only
    /// Courier's transports can say which: a transport of the app's own, or a decorator around
    /// `URLSessionTransport`, adds cookies the cache never sees. A response that varies on
    /// `Cookie` through such a transport is not stored, so the next user of the jar gets their
    /// own page.
    @Test("cookies added by a transport the cache cannot see do not hand one user's private page to the next")
    func opaqueCookieTransport() async throws {
        let transport = OpaqueCookieTransport()
        let client = Client(configuration: Configuration(transport: transport, cache: memoryCache()))
        #expect(text(try await client.enqueue(CacheResource()).resume()) == "page of session=alice")
        transport.jar.withLock { $0 = "session=bob" }
        let bobs = try await client.enqueue(CacheResource()).resume()
        #expect(text(bobs) == "page of session=bob" && bobs.source == .network)
    }

    // MARK: Secret query items in every form

    @Test(
        "a secret query item partitions whatever its spelling, encoding or repetition",
        arguments: [
            "https://api.example.com/r?Access_Token=S3CRET",
            "https://api.example.com/r?ACCESS-TOKEN=S3CRET",
            "https://api.example.com/r?access%5Ftoken=S3CRET",
            "https://api.example.com/r?access%255Ftoken=S3CRET",
            "https://api.example.com/r?page=1&access_token=S3CRET&access_token=S3CRET",
            "https://api.example.com/r?page=1&api_key=S3CRET",
            "https://api.example.com/r?user%5Bpassword%5D=S3CRET",
        ])
    func secretQueryItemSpellings(url: String) {
        let (keyURL, secrets) = CacheSecrets(.default).splittingSecretQueryItems(of: url)
        #expect(!secrets.isEmpty)
        #expect(!keyURL.contains("S3CRET"), "\(keyURL)")
    }

    /// `Redaction` hides `;`-separated query items and `;name=value` path parameters
    /// (`;jsessionid=`); the cache's splitter knew only `&`, so the secret stayed in the key,
    /// which a disk cache writes to its index and keeps across launches (partition `""`).
    @Test(
        "a secret in a ;-separated query item or a path parameter partitions and is not kept in a key",
        arguments: [
            ("https://api.example.com/r?page=1;access_token=S3CRET", "https://api.example.com/r?page=1;access_token=<partitioned>"),
            ("https://api.example.com/r;jsessionid=S3CRET", "https://api.example.com/r;jsessionid=<partitioned>"),
            ("https://api.example.com/a;jsessionid=S3CRET/b?x=1", "https://api.example.com/a;jsessionid=<partitioned>/b?x=1"),
            ("https://api.example.com/r?token", "https://api.example.com/r?token=<partitioned>"),
            ("https://api.example.com/r?page=1;x=2&&y", "https://api.example.com/r?page=1;x=2&&y"),
        ])
    func secretQueryItemsAfterSemicolons(url: String, expected: String) {
        let (keyURL, secrets) = CacheSecrets(.default).splittingSecretQueryItems(of: url)
        #expect(keyURL == expected)
        #expect(secrets.isEmpty == (url == expected))
    }

    // MARK: Vary on a secret field

    @Test("Vary on a secret field: two values within one partition never answer each other")
    func varyOnASecretField() async throws {
        let origin = CacheOrigin { request, number throws(CourierError) in
            StreamedResponse(
                statusCode: 200, headers: ["Cache-Control": "public, max-age=600", "Vary": "X-API-Key"],
                body: Data("for \(request.header("X-API-Key") ?? "-") \(number)".utf8), url: request.url)
        }
        let cache = memoryCache()
        let client = Client(configuration: Configuration(transport: origin, cache: cache))
        func call(_ key: String) async throws -> Response {
            var endpoint = CacheResource()
            endpoint.headerItems = [HeaderItem(name: "X-API-Key", value: key)]
            return try await client.enqueue(endpoint).resume()
        }
        #expect(text(try await call("k-alice")) == "for k-alice 1")
        #expect(text(try await call("k-bob")) == "for k-bob 2")
        #expect(text(try await call("k-alice")) == "for k-alice 1")
        let memory = try #require(cache.storage as? MemoryCacheStorage)
        for key in memory.keysByRecency {
            #expect(!key.key.partition.isEmpty)
            #expect(!key.variant.values.contains { $0.value?.contains("k-") == true }, "a secret in a variant")
        }
    }

    // MARK: HEAD and GET

    @Test("a HEAD's empty answer is never stored as the GET's body, and a HEAD is answered from the stored GET")
    func headDoesNotPoisonGet() async throws {
        let origin = CacheOrigin(headers: ["Cache-Control": "max-age=600", "Content-Length": "6"])
        let client = Client(configuration: Configuration(transport: origin, cache: memoryCache()))
        var head = CacheResource()
        head.method = .head
        _ = try await client.enqueue(head).resume()
        let get = try await client.enqueue(CacheResource()).resume()
        #expect(get.source == .network && text(get) == "body 2")
        let headAgain = try await client.enqueue(head).resume()
        #expect(headAgain.source == .cache && headAgain.body.isEmpty)
    }

    // MARK: Ended partitions

    @Test("thousands of concurrent stores racing one endPartition leave nothing of the ended partition", arguments: [false, true])
    func concurrentStoresAndEnd(onDisk: Bool) async throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage: any CacheStorage =
            onDisk ? DiskCacheStorage(directory: directory, capacity: 64 << 20, indexWriteInterval: 1 << 20) : MemoryCacheStorage(capacity: 64 << 20)
        let partition = CachePartition.random("bearer")
        let count = onDisk ? 400 : 4_000
        let (accepted, acceptedAfterEnd) = await withTaskGroup(of: (Bool, Bool).self) { group in
            // As `TokenRefresher.endCacheSession()` does: the session stops being current, then
            // its partition is removed.
            let current = LockedState(true)
            let ended = LockedState(false)
            for number in 0..<count {
                group.addTask {
                    if number == count / 2 {
                        current.withLock { $0 = false }
                        storage.endPartition(partition)
                        ended.withLock { $0 = true }
                        return (false, false)
                    }
                    let wasEnded = ended.withLock { $0 }
                    let sub = number % 3 == 0 ? partition + CachePartition.subpartitionSeparator + "secrets:x" : partition
                    let stored = storage.store(
                        cacheEntry(path: "/\(number)", partition: sub, [("Cache-Control", "max-age=60")]), if: { current.withLock { $0 } })
                    return (stored, stored && wasEnded)
                }
            }
            var accepted = 0
            var afterEnd = 0
            for await (stored, late) in group {
                if stored { accepted += 1 }
                if late { afterEnd += 1 }
            }
            return (accepted, afterEnd)
        }
        #expect(acceptedAfterEnd == 0)
        #expect(accepted <= count)
        for number in 0..<count {
            for sub in [partition, partition + CachePartition.subpartitionSeparator + "secrets:x"] {
                #expect(storage.entries(for: CacheKey(url: "https://example.com/\(number)", partition: sub)).isEmpty)
            }
        }
    }

    // MARK: The cache folder

    /// The folder is named by a path, and every file operation resolves the path again: a
    /// symbolic link in it that was retargeted after the cache opened sent the entries (and the
    /// index) wherever it then pointed. The cache resolves the links once, when it opens.
    @Test("a cache folder reached through a symbolic link that is retargeted after opening keeps writing where it opened")
    func retargetedSymbolicLink() throws {
        let root = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let mine = root.appendingPathComponent("mine")
        let other = root.appendingPathComponent("other")
        let link = root.appendingPathComponent("link")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #expect(symlink(mine.path, link.path) == 0)
        let cache = try HTTPCache(directory: link)
        #expect(unlink(link.path) == 0 && symlink(other.path, link.path) == 0)
        #expect(cache.storage.store(cacheEntry([("Cache-Control", "max-age=60")])))
        let planted = try FileManager.default.contentsOfDirectory(atPath: other.path).filter { $0.hasSuffix(".entry") }
        #expect(planted.isEmpty, "the entry was written into the folder the link points to now")
        #expect(try FileManager.default.contentsOfDirectory(atPath: mine.path).contains { $0.hasSuffix(".entry") })
    }
}
