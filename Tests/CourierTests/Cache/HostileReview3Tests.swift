import CourierTesting
import Foundation
import HTTPTypes
import PropertyBased
import Testing

@testable import Courier

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A transport of the app's own with a cookie jar the cache cannot see: it adds the jar's
/// cookie to what it sends and answers as `answer` says, with the cookie it sent.
private final class JarTransport: Transport {
    let jar = LockedState("session=alice")
    let sent = LockedState(0)
    let answer: @Sendable (TransportRequest, String, Int) -> StreamedResponse

    init(answer: @escaping @Sendable (TransportRequest, String, Int) -> StreamedResponse) {
        self.answer = answer
    }

    /// Answers every request with `fields` and "page of <cookie>".
    convenience init(_ fields: HTTPFields) {
        self.init { request, cookie, _ in
            StreamedResponse(status: .ok, headers: fields, body: ResponseBody(Data("page of \(cookie)".utf8)), url: request.url)
        }
    }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let cookie = jar.withLock { $0 }
        let number = sent.withLock { count in
            count += 1
            return count
        }
        return answer(request, cookie, number)
    }
}

/// Hostile review 3: the three fixes at the top of the log (06c6bab, 4631136, eb93c02),
/// attacked as a hostile server, a second user of the machine and a careless caller.
@Suite("HostileReview3: sessions that end, the cache folder, cookies a transport adds")
struct HostileReview3Tests: CacheSuite {
    let clock = CacheTestClock()

    // MARK: eb93c02 — cookies a transport adds

    /// `Vary` names Cookie however it is spelled: case, whitespace, a list, repeated fields.
    /// None of these responses is stored through a transport that cannot say its cookies, and
    /// `Vary: *` matches nothing (stored or not, it never answers).
    @Test(
        "through an opaque transport no spelling of Vary: Cookie is stored",
        arguments: [
            ["cookie"], ["COOKIE"], [" Cookie\t"], ["Accept, Cookie"], ["Accept", "Cookie"], ["Cookie, Cookie"], ["Accept,\tcookie , x-a"],
            ["*"], ["Cookie, *"],
        ])
    func varySpellings(vary: [String]) async throws {
        var fields = cacheFields([("Cache-Control", "private, max-age=600")])
        for line in vary { fields.append(HTTPField(name: .vary, value: line)) }
        let transport = JarTransport(fields)
        let client = Client(configuration: Configuration(transport: transport, cache: memoryCache()))
        #expect(text(try await client.enqueue(CacheResource()).resume()) == "page of session=alice")
        transport.jar.withLock { $0 = "session=bob" }
        let bobs = try await client.enqueue(CacheResource()).resume()
        #expect(text(bobs) == "page of session=bob" && bobs.source == .network, "\(vary)")
    }

    /// `DefaultTransport` always says it is a `StoredCookieSource`, and answers "no cookies" for
    /// the transport of a scope that cannot say which it adds: a response that varies on
    /// `Cookie` is then stored, keyed on no cookie, and handed to the next user of the jar.
    @Test("the default transport does not claim 'no cookies' for a scoped transport that cannot say")
    func defaultTransportScopeWithAnOpaqueTransport() async throws {
        let transport = JarTransport(cacheFields([("Cache-Control", "private, max-age=600"), ("Vary", "Cookie")]))
        let client = Client(configuration: Configuration(cache: memoryCache()))
        try await DefaultTransportScope.$transport.withValue(transport) {
            #expect(text(try await client.enqueue(CacheResource()).resume()) == "page of session=alice")
            transport.jar.withLock { $0 = "session=bob" }
            let bobs = try await client.enqueue(CacheResource()).resume()
            #expect(text(bobs) == "page of session=bob", "Bob got Alice's page")
            #expect(bobs.source == .network)
        }
    }

    /// The check of eb93c02 is in `store`, but a `304` updates a stored entry's fields through
    /// `update`: a `304` that adds `Vary: Cookie` (and a long freshness) to an entry stored
    /// without it leaves, through an opaque transport, an entry that varies on Cookie, keyed on
    /// no cookie, fresh for ten minutes for whoever holds the jar next.
    @Test("a 304 that adds Vary: Cookie does not leave a Cookie-varying entry through an opaque transport")
    func notModifiedAddsVaryCookie() async throws {
        let transport = JarTransport { request, cookie, number in
            if request.head.headerFields[.ifNoneMatch] == "\"v1\"" {
                return StreamedResponse(
                    status: .notModified,
                    headers: cacheFields([("ETag", "\"v1\""), ("Cache-Control", "private, max-age=600"), ("Vary", "Cookie")]),
                    url: request.url)
            }
            return StreamedResponse(
                status: .ok, headers: cacheFields([("ETag", "\"v1\""), ("Cache-Control", "max-age=0")]),
                body: ResponseBody(Data("page of \(cookie) #\(number)".utf8)), url: request.url)
        }
        let cache = memoryCache()
        let client = Client(configuration: Configuration(transport: transport, cache: cache))
        #expect(text(try await client.enqueue(CacheResource()).resume()) == "page of session=alice #1")
        clock.advance(1)
        let revalidated = try await client.enqueue(CacheResource()).resume()
        #expect(revalidated.source == .revalidated && text(revalidated) == "page of session=alice #1")
        let memory = try #require(cache.storage as? MemoryCacheStorage)
        for key in memory.keysByRecency {
            let vary = memory.entries(for: key.key).flatMap { $0.response.headerFields[values: .vary] }
            #expect(!vary.contains { $0.lowercased().contains("cookie") }, "a Cookie-varying entry was stored: \(vary)")
        }
        transport.jar.withLock { $0 = "session=bob" }
        let bobs = try await client.enqueue(CacheResource()).resume()
        #expect(!text(bobs).contains("alice"), "Bob got Alice's page: \(text(bobs))")
    }

    /// What a Cookie-personalised response *without* `Vary: Cookie` does through each kind of
    /// transport. Through one that says its cookies (`URLSessionTransport`, the test transports)
    /// the cache attaches them and partitions by them, so the next user of the jar misses.
    /// Through an opaque one (an app's own, a wrapper around `URLSessionTransport`) the cache
    /// never sees the cookie: it stored the response under no cookie and the next user of the
    /// jar got the previous user's page for as long as it was fresh. A `private` response that
    /// nothing but cookies could partition is not stored through such a transport now.
    @Test("a Cookie-personalised private response without Vary: Cookie through an opaque transport does not reach the next user of the jar")
    func cookiePersonalisedWithoutVary() async throws {
        let transport = JarTransport(cacheFields([("Cache-Control", "private, max-age=600")]))
        let client = Client(configuration: Configuration(transport: transport, cache: memoryCache()))
        #expect(text(try await client.enqueue(CacheResource()).resume()) == "page of session=alice")
        transport.jar.withLock { $0 = "session=bob" }
        let bobs = try await client.enqueue(CacheResource()).resume()
        #expect(text(bobs) == "page of session=bob", "Bob got Alice's page")
    }

    // MARK: 06c6bab — sessions that end

    /// Two refreshers share a coordinated store (two processes of one app, one keychain item).
    /// The other process signs Alice out and Bob in; this one's token expires and its refresh
    /// adopts Bob's credential from the store (no refresh, no reset, no sign-out here): the cache
    /// session goes on, and Bob's calls are answered with Alice's private entries.
    @Test("adopting another holder's credential from a coordinated store does not hand the old session's entries to it")
    func adoptionFromACoordinatedStore() async throws {
        let clock = clock
        let alice = TokenCredential(
            accessToken: "alice", refreshToken: "rt-alice", expiresAt: clock.now.addingTimeInterval(100), issuedAt: clock.now)
        let store = SharedLockingStore(alice)
        let here = TokenRefresher(store: store, now: { clock.now }) { _ in TokenCredential(accessToken: "alice-refreshed") }
        let elsewhere = TokenRefresher(store: store, now: { clock.now }) { _ in TokenCredential(accessToken: "unused") }
        let origin = CacheOrigin { request, _ throws(CourierError) in
            StreamedResponse(
                statusCode: 200, headers: ["Cache-Control": "private, max-age=600"],
                body: Data("\(request.header("Authorization") ?? "-")'s data".utf8), url: request.url)
        }
        let client = signedInClient(origin, cache: memoryCache(), refresher: here)
        #expect(text(try await client.enqueue(mine).resume()) == "Bearer alice's data")
        try await elsewhere.signOut()
        try await elsewhere.reset(
            to: TokenCredential(
                accessToken: "bob", refreshToken: "rt-bob", expiresAt: clock.now.addingTimeInterval(3600), issuedAt: clock.now.addingTimeInterval(1)))
        clock.advance(200)
        #expect(try await here.validCredential().accessToken == "bob")
        let answer = try await client.enqueue(mine).resume()
        #expect(text(answer) == "Bearer bob's data", "Bob's call was answered with \(text(answer))")
    }

    /// The lock order is the storage's lock, then the refresher's `cacheSession` lock (the
    /// storage asks `isCurrent` under its own); ending a session takes `cacheSession` alone, then
    /// the storage's. Thousands of calls stored concurrently with hundreds of resets: no
    /// deadlock, and nothing of an ended session is left.
    @Test("4,000 concurrent calls racing 200 resets: no deadlock, nothing of an ended session stays", arguments: [false, true])
    func concurrentCallsAndResets(onDisk: Bool) async throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage: any CacheStorage =
            onDisk ? DiskCacheStorage(directory: directory, capacity: 64 << 20, indexWriteInterval: 1 << 20) : MemoryCacheStorage(capacity: 64 << 20)
        let cache = HTTPCache(storage: storage)
        let refresher = TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "t0"))) { $0 ?? TokenCredential(accessToken: "t0") }
        let origin = CacheOrigin(headers: ["Cache-Control": "private, max-age=600"])
        let client = signedInClient(origin, cache: cache, refresher: refresher)
        let calls = onDisk ? 1_000 : 4_000
        let resets = 200
        let ended = LockedState<[String]>([])
        let me = mine
        let failures = await withTaskGroup(of: Int.self) { group in
            for number in 0..<calls {
                group.addTask {
                    var endpoint = me
                    endpoint.pathString = "/me/\(number % 97)"
                    return (try? await client.enqueue(endpoint).resume()) == nil ? 1 : 0
                }
                if number % (calls / resets) == 0 {
                    group.addTask {
                        let partition = refresher.cachePartition
                        try? await refresher.reset(to: TokenCredential(accessToken: "t\(number)"))
                        ended.withLock { $0.append(partition) }
                        return 0
                    }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
        let endedPartitions = ended.withLock { $0 }
        #expect(endedPartitions.count == resets)
        let current = refresher.cachePartition
        let keys = onDisk ? (storage as? DiskCacheStorage)?.keysByRecency ?? [] : (storage as? MemoryCacheStorage)?.keysByRecency ?? []
        let stale = keys.filter { key in endedPartitions.contains { CachePartition.isWithin(key.key.partition, $0) } }
        #expect(stale.isEmpty, "\(stale.count) entries of ended sessions")
        #expect(keys.allSatisfy { CachePartition.isWithin($0.key.partition, current) })
    }

    // MARK: 4631136 — the cache folder

    /// The folder was checked (this user's, not writable by others), but not where it sits: in
    /// a folder that others may write (no sticky bit), another user could rename it away and put
    /// a folder of theirs at the same path, and the cache, which opens every file by path, would
    /// write its entries and index into theirs. Such a place is refused now, as ssh's
    /// `StrictModes` refuses it; a sticky folder (`/tmp`) is not such a place.
    @Test("a cache folder inside a folder others may write is refused; inside a sticky one it opens")
    func folderInAFolderOthersMayWrite() throws {
        let root = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        #expect(chmod(root.path, 0o777) == 0)
        let folder = root.appendingPathComponent("a").appendingPathComponent("cache")
        #expect(throws: CourierError.self) { try HTTPCache(directory: folder) }
        #expect(chmod(root.path, 0o1777) == 0)
        #expect(try HTTPCache(directory: folder).storage.store(cacheEntry([("Cache-Control", "max-age=60")])))
    }

    /// What held: a folder that is a link to a folder this user does not own is refused (here:
    /// a link to `/`, root's); a relative path and one with `..` through a link open the folder
    /// the kernel resolves; a missing folder under a linked parent is created where the link
    /// points, and used there.
    @Test("links to another user's folder are refused; relative, .. and linked-parent paths open the folder they name")
    func folderPathsThatHold() throws {
        let root = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let toRoot = root.appendingPathComponent("to-root")
        #expect(symlink("/", toRoot.path) == 0)
        if geteuid() != 0 { #expect(throws: CourierError.self) { try HTTPCache(directory: toRoot) } }
        // A missing folder under a linked parent.
        let real = root.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let parentLink = root.appendingPathComponent("parent-link")
        #expect(symlink(real.path, parentLink.path) == 0)
        let underLink = try HTTPCache(directory: parentLink.appendingPathComponent("made"))
        #expect(underLink.storage.store(cacheEntry([("Cache-Control", "max-age=60")])))
        #expect(try FileManager.default.contentsOfDirectory(atPath: real.appendingPathComponent("made").path).contains { $0.hasSuffix(".entry") })
        // `..` after a link: the kernel's meaning (the link target's parent), not the text's.
        let sub = real.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let subLink = root.appendingPathComponent("sub-link")
        #expect(symlink(sub.path, subLink.path) == 0)
        let dotted = try HTTPCache(directory: URL(fileURLWithPath: subLink.path + "/../dotted"))
        #expect(dotted.storage.store(cacheEntry([("Cache-Control", "max-age=60")])))
        let dottedFolder = real.appendingPathComponent("dotted")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dottedFolder.path).contains { $0.hasSuffix(".entry") })
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("dotted").path))
    }
}

// MARK: - The property: an ended session is never stored nor served

/// What the origin does with the first request of a step; the others get a fresh `200`.
private enum Answer: Int, CaseIterable {
    /// `200`, fresh ten minutes.
    case fresh
    /// `200`, stale at once (usable by `stale-while-revalidate` and `stale-if-error`).
    case stale
    /// `304` to a conditional request, else a stale `200`.
    case notModified
    /// `503`.
    case serverError
    /// A transport failure.
    case transportError
}

/// How a session ends.
private enum Ending: Int, CaseIterable {
    case reset
    case signOutThenReset
    /// A refresh fails for good, then the user signs in again.
    case permanentFailureThenReset
}

/// One step, decoded from a number so that shrinking works on numbers.
private enum SessionStep: CustomStringConvertible {
    /// A call of `/me<resource>`; `ending`, if any, ends the session while its first request is
    /// on the wire (or a background revalidation's, if the call sends none).
    case call(resource: Int, answer: Answer, ending: Ending?)
    case advance(seconds: Int)
    case end(Ending)

    init(_ code: Int) {
        let argument = code / 10
        switch code % 10 {
        case 0...5:
            let answer = Answer(rawValue: argument % Answer.allCases.count)!
            let ending = (argument / 5) % 6
            self = .call(resource: (argument / 30) % 2, answer: answer, ending: ending < 3 ? Ending(rawValue: ending) : nil)
        case 6...8: self = .advance(seconds: argument % 700)
        default: self = .end(Ending(rawValue: argument % 3)!)
        }
    }

    var description: String {
        switch self {
        case .call(let resource, let answer, let ending): "call(/me\(resource), \(answer), ending: \(ending.map { "\($0)" } ?? "-"))"
        case .advance(let seconds): "advance(\(seconds) s)"
        case .end(let ending): "end(\(ending))"
        }
    }
}

/// The bearer session under test: the refresher, its token number, and the partitions ended.
private final class Session: Sendable {
    private struct State {
        var token = 1
        var ended: [String] = []
        var failsForGood = false
    }

    private let state: LockedState<State>
    let refresher: TokenRefresher

    init() {
        let state = LockedState(State())
        self.state = state
        refresher = TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "t1"))) { _ in
            if state.withLock({ $0.failsForGood }) {
                throw RefreshFailure(reason: .custom("revoked"), isPermanent: true)
            }
            return TokenCredential(accessToken: "t\(state.withLock { $0.token })")
        }
    }

    var token: Int { state.withLock { $0.token } }
    var ended: [String] { state.withLock { $0.ended } }

    func end(_ ending: Ending) async {
        let partition = refresher.cachePartition
        switch ending {
        case .reset:
            break
        case .signOutThenReset:
            try? await refresher.signOut()
        case .permanentFailureThenReset:
            state.withLock { $0.failsForGood = true }
            _ = try? await refresher.forceRefresh()
            state.withLock { $0.failsForGood = false }
        }
        state.withLock { $0.ended.append(partition) }
        let next = state.withLock { state in
            state.token += 1
            return state.token
        }
        try? await refresher.reset(to: TokenCredential(accessToken: "t\(next)"))
    }
}

/// A hostile origin: one validator for everybody (so a `304` may confirm another user's entry),
/// a body naming the token it answered, and the step's answer and session ending for the first
/// request of the step.
private final class SessionOrigin: Transport {
    private struct Script {
        var answer: Answer = .fresh
        var ending: Ending?
    }

    private let script = LockedState(Script())
    private let count = LockedState(0)
    /// Whether the step's session ending came in the call's own request (not a background
    /// revalidation's, which starts once the call was answered).
    private let endedInForeground = LockedState(false)
    let session: Session
    let cache: HTTPCache

    init(session: Session, cache: HTTPCache) {
        self.session = session
        self.cache = cache
    }

    /// Scripts the step's first request.
    func next(_ answer: Answer, ending: Ending?) {
        script.withLock { $0 = Script(answer: answer, ending: ending) }
        endedInForeground.withLock { $0 = false }
    }

    var endedWhileTheCallWasOnTheWire: Bool { endedInForeground.withLock { $0 } }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let script = script.withLock { script in
            defer { script = Script() }
            return script
        }
        if let ending = script.ending {
            // The steps run one at a time and wait for background revalidations: one registered
            // now is the one sending this request.
            let background = cache.revalidations.withLock { !$0.keys.isEmpty }
            await session.end(ending)
            if !background { endedInForeground.withLock { $0 = true } }
        }
        let number = count.withLock { count in
            count += 1
            return count
        }
        let token = request.header("Authorization") ?? "-"
        func ok(_ control: String) -> StreamedResponse {
            StreamedResponse(
                statusCode: 200, headers: ["Cache-Control": control, "ETag": "\"v1\""], body: Data("\(token) #\(number)".utf8),
                url: request.url)
        }
        let stale = "private, max-age=0, stale-while-revalidate=600, stale-if-error=600"
        switch script.answer {
        case .fresh: return ok("private, max-age=600")
        case .stale: return ok(stale)
        case .notModified:
            guard request.header("If-None-Match") != nil else { return ok(stale) }
            return StreamedResponse(statusCode: 304, headers: ["Cache-Control": stale, "ETag": "\"v1\""], url: request.url)
        case .serverError: return StreamedResponse(statusCode: 503, url: request.url)
        case .transportError: throw .transport(TransportFailure(URLError(.cannotConnectToHost), url: request.url))
        }
    }
}

@Suite("HostileReview3: the end of a session as a property")
struct HostileReview3SessionPropertyTests {
    /// Random calls, clock moves, resets, sign-outs and refreshes that fail for good, some of
    /// them while a request (a call's, a retry's, a background revalidation's) is on the wire,
    /// against a server whose answers vary per step (fresh, stale, `304` with one validator for
    /// everybody, errors), with `stale-while-revalidate` and `stale-if-error` on. After every
    /// step:
    /// - the storage holds no entry of an ended session's partition (nothing was stored for it
    ///   after it ended);
    /// - a response the cache answered (`.cache`, `.revalidated`) was made for the token of the
    ///   session the call began in, and that session had not ended while the call's own request
    ///   was on the wire: never an ended session's.
    @Test(
        "after a session ends, no entry of its partition is ever stored or served", .timeLimit(.minutes(5)), arguments: [false, true])
    func endedSessionsStayEnded(onDisk: Bool) async {
        await propertyCheck(count: 60, input: Gen.int(in: 0...99_999).array(of: 1...30)) { codes in
            try await Self.run(codes.map(SessionStep.init), onDisk: onDisk)
        }
    }

    private static func run(_ steps: [SessionStep], onDisk: Bool) async throws {
        let clock = CacheTestClock()
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage: any CacheStorage =
            onDisk ? DiskCacheStorage(directory: directory, capacity: 1 << 20) : MemoryCacheStorage(capacity: 1 << 20)
        let cache = HTTPCache(storage: storage, staleWhileRevalidate: true, staleIfError: true, now: { clock.now })
        let session = Session()
        let origin = SessionOrigin(session: session, cache: cache)
        var configuration = Configuration(
            transport: origin, retryPolicy: RetryPolicy(maxAttempts: 2, baseDelay: .zero, maxDelay: .zero), cache: cache)
        configuration.authentication = .bearer(session.refresher)
        configuration.authorizedHosts = ["api.example.com"]
        let client = Client(configuration: configuration)
        for step in steps {
            switch step {
            case .call(let resource, let answer, let ending):
                origin.next(answer, ending: ending)
                var endpoint = CacheResource(pathString: "/me\(resource)")
                endpoint.requiresAuthorization = true
                let before = session.token
                if case .success(let response) = await client.enqueue(endpoint).result(), response.source != .network {
                    // Answered by the cache: from the session the call began in, which had not
                    // ended while the call's own request was on the wire (a background
                    // revalidation's request starts once the call was answered).
                    let body = String(decoding: response.body, as: UTF8.self)
                    #expect(body.hasPrefix("Bearer t\(before) #"), "served \(body) in session \(before): \(steps)")
                    #expect(!origin.endedWhileTheCallWasOnTheWire, "served \(body) after its session ended: \(steps)")
                }
            case .advance(let seconds):
                clock.advance(TimeInterval(seconds))
            case .end(let ending):
                await session.end(ending)
            }
            await cache.waitForBackgroundRevalidations()
            let keys = onDisk ? (storage as? DiskCacheStorage)?.keysByRecency ?? [] : (storage as? MemoryCacheStorage)?.keysByRecency ?? []
            let ended = session.ended
            let kept = keys.filter { key in ended.contains { CachePartition.isWithin(key.key.partition, $0) } }
            #expect(kept.isEmpty, "entries of ended sessions after \(step): \(steps)")
        }
    }
}
