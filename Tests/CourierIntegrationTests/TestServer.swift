import Courier
import FlyingFox
import FlyingSocks
import Foundation

/// An in-process FlyingFox HTTP server on `127.0.0.1` with an ephemeral port, one per test.
///
/// ```swift
/// try await TestServer.run { server in
///     await server.route("GET /hello") { _ in FlyingFox.HTTPResponse(statusCode: .ok) }
///     let response = try await server.client().enqueue(server.endpoint("/hello")).resume()
/// }
/// ```
///
/// `run` starts the server, waits until it listens, hands it to the body and stops it when the
/// body returns or throws, so tests running in parallel never share a server or a port. Nothing
/// here sleeps to "wait for" the server: `waitUntilListening()` is awaited, and handlers report
/// what they see through ``Latch`` and ``Recorder``.
actor TestServer {
    /// `http://127.0.0.1:<port>`.
    nonisolated let baseURL: BaseURL
    /// The port the kernel picked.
    nonisolated let port: Int

    private let server: HTTPServer
    private let runTask: Task<Void, any Error>
    /// Whether this server took one of ``slots`` (it gives it back when it stops).
    private let holdsSlot: Bool
    private var isStopped = false

    private init(server: HTTPServer, runTask: Task<Void, any Error>, port: Int, holdsSlot: Bool) throws {
        self.server = server
        self.runTask = runTask
        self.holdsSlot = holdsSlot
        self.port = port
        self.baseURL = try BaseURL(scheme: .http, host: "127.0.0.1", port: port)
    }

    /// Starts a server, runs `body` with it, and stops the server whatever happens in `body`.
    /// - Parameter handlerTimeout: how long FlyingFox lets one handler run before answering 500
    ///   itself; long by default so that slow handlers are ended by the test, not by FlyingFox.
    static func run<R>(
        handlerTimeout: TimeInterval = 120,
        _ body: (TestServer) async throws -> R
    ) async throws -> R {
        let server = try await start(handlerTimeout: handlerTimeout)
        return try await $insideRun.withValue(true) {
            try await running(server, stop: { await $0.stop() }, body)
        }
    }

    /// Whether the current task is inside the body of ``run(handlerTimeout:_:)``: the servers it
    /// starts there take no slot, because it already holds one. A test that held a slot while
    /// waiting for another could wait for ever (64 tests each holding their first server and
    /// waiting for their second did, on a loaded CI machine).
    @TaskLocal private static var insideRun = false

    /// Starts a server on `127.0.0.1:0` and returns once it listens. Prefer ``run(handlerTimeout:_:)``,
    /// which cannot forget to stop it.
    static func start(handlerTimeout: TimeInterval = 120) async throws -> TestServer {
        let takesSlot = !insideRun
        if takesSlot { await slots.acquire() }
        do {
            return try await listen(handlerTimeout: handlerTimeout, holdsSlot: takesSlot)
        } catch {
            if takesSlot { await slots.release() }
            throw error
        }
    }

    /// At most this many test servers listen at once, process-wide.
    ///
    /// Each FlyingFox server blocks one libdispatch worker thread in `epoll_wait` for as long as
    /// it runs (its socket pool), and libdispatch has 255 worker threads in all. Swift Testing
    /// starts every test at once, so with enough integration tests more servers than that were
    /// alive together: the pool was used up, URLSession's work queue found no thread, and every
    /// URLSession call of the process hung (seen: 255 threads in `SocketPool.getNotifications`,
    /// three waiting in `URLSessionTask.resume`/`cancel`). A test takes at most one slot (see
    /// `insideRun`), so a test that waits here waits for other tests to finish, never for itself.
    static let slots = ServerSlots(limit: 64)

    private static func listen(handlerTimeout: TimeInterval, holdsSlot: Bool) async throws -> TestServer {
        let server = HTTPServer(
            address: try .inet(ip4: "127.0.0.1", port: 0),
            timeout: handlerTimeout,
            logger: .disabled
        )
        let runTask = Task { try await server.run() }
        do {
            try await server.waitUntilListening(timeout: 10)
        } catch {
            runTask.cancel()
            throw error
        }
        guard case .ip4(_, let port)? = await server.listeningAddress else {
            await server.stop()
            runTask.cancel()
            throw TestServerError.noListeningAddress
        }
        return try TestServer(server: server, runTask: runTask, port: Int(port), holdsSlot: holdsSlot)
    }

    /// Adds a route, e.g. `"GET /users/42"` or `"POST /upload"`.
    func route(
        _ route: HTTPRoute,
        handler: @escaping @Sendable (FlyingFox.HTTPRequest) async throws -> FlyingFox.HTTPResponse
    ) async {
        await server.appendRoute(route, handler: handler)
    }

    /// Closes the listening socket and every connection, cancels running handlers, and waits
    /// until the server task has ended. Calling it again does nothing.
    func stop() async {
        guard !isStopped else { return }
        isStopped = true
        await server.stop(timeout: 0)
        runTask.cancel()
        _ = await runTask.result
        if holdsSlot { await Self.slots.release() }
    }

    /// A client with a transport of its own (see `makeClient`): the platform's default kind, or
    /// `transport`.
    nonisolated func client(
        timeout: Duration = generousTimeout, headers: [HeaderItem] = [], transport: TransportKind = .platformDefault
    ) -> Client {
        makeClient(timeout: timeout, headers: headers, transport: transport)
    }

    /// An endpoint on this server.
    nonisolated func endpoint(_ path: String) throws -> TestEndpoint {
        try TestEndpoint(baseURL: baseURL, path: URLPath(path))
    }
}

enum TestServerError: Error {
    case noListeningAddress
}

/// A counting semaphore for ``TestServer/slots``: `acquire` waits while `limit` are taken, and
/// `release` hands the slot to the longest waiter.
actor ServerSlots {
    private let limit: Int
    private var taken = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = limit
    }

    func acquire() async {
        guard taken >= limit else {
            taken += 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }  // the releaser passes its slot on
    }

    func release() {
        if waiters.isEmpty {
            taken -= 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}

// MARK: - Observing the server without sleeping

/// A one-shot condition a handler opens and a test awaits. Opening it twice is harmless, and
/// awaiting it after it opened returns at once.
final class Latch: Sendable {
    private let stream: AsyncStream<Never>
    private let continuation: AsyncStream<Never>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Never.self)
    }

    func open() {
        continuation.finish()
    }

    /// Returns when the latch is open; throws `CancellationError` if the waiting task is cancelled
    /// first. Only one task may wait at a time.
    func wait() async throws {
        for await _ in stream {}
        try Task.checkCancellation()
    }
}

/// Values handlers observed, in arrival order.
actor Recorder<Value: Sendable> {
    private(set) var values: [Value] = []

    func record(_ value: Value) {
        values.append(value)
    }
}

/// What a handler saw of one request, read while the handler ran.
struct ReceivedRequest: Sendable {
    var method: String
    /// The request target's path, still percent-encoded, as it arrived.
    var rawPath: String
    /// The query after `?`, still percent-encoded, as it arrived; empty without one.
    var rawQuery: String
    var headers: [String: String]
    var body: Data
    /// The client's address and port: two requests with the same one came on one connection.
    var remoteAddress: String?

    init(_ request: FlyingFox.HTTPRequest) async throws {
        method = request.method.rawValue
        remoteAddress = request.remoteAddress.map { String(describing: $0) }
        rawPath = request.target.path(percentEncoded: true)
        rawQuery = request.target.query(percentEncoded: true)
        var headers: [String: String] = [:]
        for (name, value) in request.headers {
            headers[name.rawValue.lowercased()] = value
        }
        self.headers = headers
        body = try await request.bodyData
    }

    func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}

/// A condition that did not come true within its bound.
struct ConditionTimedOut: Error, CustomStringConvertible {
    var condition: String
    var bound: Duration
    var description: String { "\(condition) did not happen within \(bound)" }
}

/// Awaits `condition`, failing with ``ConditionTimedOut`` if it takes longer than `bound`.
/// The bound is generous on purpose: it only turns a regression into a failure instead of a hang.
func awaitCondition(
    _ description: String,
    within bound: Duration = .seconds(15),
    _ condition: @escaping @Sendable () async throws -> Void
) async throws {
    try await withThrowingTaskGroup(of: Bool.self) { group in
        group.addTask {
            try await condition()
            return true
        }
        group.addTask {
            try await Task.sleep(for: bound)  // the upper bound: the condition above usually wins the race
            return false
        }
        defer { group.cancelAll() }
        guard try await group.next() == true else {
            throw ConditionTimedOut(condition: description, bound: bound)
        }
    }
}
