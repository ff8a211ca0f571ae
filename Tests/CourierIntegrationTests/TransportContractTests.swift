import CourierTesting
import CourierTransportTestSupport
import FlyingFox
import FlyingSocks
import Foundation
import HTTPTypes
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transports Courier ships, for tests that must hold on each of them.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case urlSession
    #if AsyncHTTPClientLinked
        case asyncHTTPClient
    #endif

    /// A new transport of this kind, with its own connection pool.
    func make() -> any Transport {
        switch self {
        case .urlSession: URLSessionTransport()
        #if AsyncHTTPClientLinked
            case .asyncHTTPClient: AsyncHTTPClientTransport()
        #endif
        }
    }

    /// A new transport of this kind keeping at most `connectionsPerHost` connections to a host.
    func make(connectionsPerHost: Int) throws -> any Transport {
        switch self {
        case .urlSession:
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = connectionsPerHost
            return URLSessionTransport(configuration: configuration)
        #if AsyncHTTPClientLinked
            case .asyncHTTPClient:
                return try AsyncHTTPClientTransport(configuration: .init(maximumConnectionsPerHost: connectionsPerHost))
        #endif
        }
    }

    var testDescription: String { rawValue }

    /// The kind `Configuration.defaultTransport` is here: async-http-client on Linux (with the
    /// trait), URLSession on Apple platforms.
    static var platformDefault: TransportKind {
        #if AsyncHTTPClientLinked && canImport(FoundationNetworking)
            .asyncHTTPClient
        #else
            .urlSession
        #endif
    }

    /// Whether one call's stalled streamed upload leaves the transport's other calls alone. Not
    /// corelibs URLSession: libcurl reads stream bodies on one process-wide serial queue, which
    /// waits for the stalled producer (see `QueueSensitiveTests`).
    var isolatesStalledUploads: Bool {
        #if canImport(FoundationNetworking)
            self != .urlSession
        #else
            true
        #endif
    }
}

/// One contract for every transport: the same requests against the same real server must end
/// the same way, so that a difference between transports is a failing test, not a surprise.
@Suite("Transport contract", .loopback, .timeLimit(.minutes(2)))
struct TransportContractTests {
    static func client(_ kind: TransportKind, timeout: Duration = generousTimeout, limit: Int? = Configuration.defaultMaximumResponseSize) -> Client {
        Client(configuration: Configuration(transport: kind.make(), timeout: timeout, maximumResponseSize: limit))
    }

    /// Serves an endless body at `path` (1 KiB every 20 ms) and returns the probe that sees it start
    /// and stop.
    static func serveEndless(at path: String, on server: TestServer) async -> StreamProbe {
        let probe = StreamProbe()
        await server.route(HTTPRoute("GET \(path)")) { _ in
            FlyingFox.HTTPResponse(
                statusCode: .ok, headers: [.contentType: "application/octet-stream"],
                body: HTTPBodySequence(from: EndlessBody(probe: probe), suggestedBufferSize: 1024))
        }
        return probe
    }

    struct Item: Codable, Equatable, Sendable {
        var id: Int
        var name: String
    }

    @Test(arguments: TransportKind.allCases)
    func aJSONBodyIsDecodedAndAnErrorStatusKeepsItsBody(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            await server.route("GET /item") { _ in
                FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: Data(#"{"id":7,"name":"seven"}"#.utf8))
            }
            await server.route("GET /missing") { _ in
                FlyingFox.HTTPResponse(statusCode: .notFound, headers: [.contentType: "text/plain"], body: Data("no such item".utf8))
            }
            let client = Self.client(kind)
            #expect(try await client.enqueue(server.endpoint("/item")).resume(expecting: Item.self) == Item(id: 7, name: "seven"))
            guard case .failure(.response(let response)) = await client.enqueue(try server.endpoint("/missing")).result() else {
                Issue.record("expected .response")
                return
            }
            #expect(response.statusCode == 404)
            #expect(response.body == Data("no such item".utf8))
        }
    }

    /// A transport handed a head that makes no URL (the client never hands one over; a caller of
    /// the transport might) refuses it, rather than send to a URL it made up.
    @Test(arguments: TransportKind.allCases)
    func aHeadThatMakesNoURLIsRefusedByTheTransport(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let sent = ConcurrencyIntegrationTests.Counter()
            await server.route(HTTPRoute(methods: FlyingFox.HTTPMethod.allMethods, path: "*")) { _ in
                await sent.increment()
                return FlyingFox.HTTPResponse(statusCode: .ok)
            }
            let head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "item with spaces")
            let result: Result<StreamedResponse, CourierError>
            do throws(CourierError) {
                result = .success(try await kind.make().send(TransportRequest(head: head, timeout: .seconds(5))))
            } catch {
                result = .failure(error)
            }
            guard case .failure(.invalidRequest(.invalidURL)) = result else {
                Issue.record("expected invalidURL, got \(result)")
                return
            }
            #expect(await sent.count == 0)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aResponseReportsTheURLThatWasRequested(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            await server.route("GET /item") { _ in FlyingFox.HTTPResponse(statusCode: .ok, body: Data("ok".utf8)) }
            let response = try await Self.client(kind).enqueue(server.endpoint("/item").with { $0.queryItems = [QueryItem(name: "q", value: "1")] }).resume()
            let expected = try #require(URL(string: "http://127.0.0.1:\(server.port)/item?q=1"))
            #expect(response.url == expected)
            #expect(response == Response(status: .ok, headers: response.headers, body: Data("ok".utf8), url: expected))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func requestBodiesArriveWholeInMemoryAndStreamed(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            await server.route("POST /echo") { request in
                let body = try await request.bodyData
                return FlyingFox.HTTPResponse(
                    statusCode: .ok, headers: [HTTPHeader("X-Length"): request.headers[.contentLength] ?? "none"], body: body)
            }
            let client = Self.client(kind)
            let payload = Data((0..<300_000).map { UInt8($0 % 253) })
            let inMemory = try await client.enqueue(
                server.endpoint("/echo").with {
                    $0.method = .post; $0.body = .data(payload)
                }
            ).resume()
            #expect(inMemory.body == payload)
            let chunks = AsyncStream<Data> { continuation in
                for start in stride(from: 0, to: payload.count, by: 7_000) {
                    continuation.yield(payload[start..<min(start + 7_000, payload.count)])
                }
                continuation.finish()
            }
            let streamed = try await client.enqueue(
                server.endpoint("/echo").with {
                    $0.method = .post
                    $0.body = .stream(BodyStream(chunks, length: Int64(payload.count)), contentType: "application/octet-stream")
                }
            ).resume()
            #expect(streamed.body == payload)
            #expect(streamed.headerValue(for: "X-Length") == String(payload.count))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aServerThatDoesNotAnswerInTimeEndsTimedOut(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            await server.route("GET /slow") { _ in
                try await suspendUntilCancelled()  // never answers: stopping the server cancels it
                return FlyingFox.HTTPResponse(statusCode: .ok)
            }
            let started = ContinuousClock.now
            let result = await Self.client(kind, timeout: .milliseconds(300)).enqueue(try server.endpoint("/slow")).result()
            guard case .failure(.transport(let failure)) = result, failure.kind == .timedOut else {
                Issue.record("expected timedOut, got \(result)")
                return
            }
            #expect(ContinuousClock.now - started >= .milliseconds(300))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aBodyThatStallsAfterTheHeadEndsTimedOut(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let probe = await Self.serveEndless(at: "/stall", on: server)
            // An endless body, 1 KiB every 20 ms: the call's deadline must end it.
            let result = await Self.client(kind, timeout: .milliseconds(400)).enqueue(try server.endpoint("/stall")).result()
            guard case .failure(.transport(let failure)) = result, failure.kind == .timedOut else {
                Issue.record("expected timedOut, got \(result)")
                return
            }
            try await awaitCondition("the server stopped sending") { try await probe.released.wait() }
        }
    }

    /// Serves a body announced as 100 bytes (`Content-Length`, so short enough to be read whole
    /// with the head) that sends 10 of them and then nothing, and returns the probe that sees the
    /// 10 bytes go out.
    static func serveShortStall(at path: String, on server: TestServer) async -> StreamProbe {
        let probe = StreamProbe()
        await server.route(HTTPRoute("GET \(path)")) { _ in
            FlyingFox.HTTPResponse(
                statusCode: .ok, headers: [.contentType: "application/octet-stream"],
                body: HTTPBodySequence(from: StallingBody(probe: probe), count: 100, suggestedBufferSize: 10))
        }
        return probe
    }

    @Test(arguments: TransportKind.allCases)
    func aShortBodyThatStallsAfterTheHeadEndsTimedOut(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            _ = await Self.serveShortStall(at: "/short", on: server)
            let started = ContinuousClock.now
            let result = await Self.client(kind, timeout: .milliseconds(400)).enqueue(try server.endpoint("/short")).result()
            guard case .failure(.transport(let failure)) = result, failure.kind == .timedOut else {
                Issue.record("expected timedOut, got \(result)")
                return
            }
            // Not cut short (a lower bound, which a slow machine cannot break). That the call's
            // deadline ended the stalled body needs no upper bound: nothing else would end it
            // before the time limit (without the deadline, this test fails its time limit).
            #expect(ContinuousClock.now - started >= .milliseconds(400))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingACallWhoseShortBodyStallsEndsItCancelled(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let probe = await Self.serveShortStall(at: "/short", on: server)
            let call = Self.client(kind).enqueue(try server.endpoint("/short"))
            let task = Task { await call.result() }
            try await awaitCondition("the server sent the first 10 bytes") { try await probe.firstChunk.wait() }
            task.cancel()
            // The body stalls until the server stops and the timeout is longer than the time
            // limit: only the cancellation can end the call.
            guard case .failure(.cancelled) = await task.value else {
                Issue.record("expected .cancelled")
                return
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingTheCallStopsTheRequestOnTheWire(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let probe = await Self.serveEndless(at: "/stream", on: server)
            let call = Self.client(kind).enqueue(try server.endpoint("/stream"))
            let task = Task { await call.result() }
            try await awaitCondition("the server started streaming") { try await probe.firstChunk.wait() }
            task.cancel()
            guard case .failure(.cancelled) = await task.value else {
                Issue.record("expected .cancelled")
                return
            }
            try await awaitCondition("the server saw the client go") { try await probe.released.wait() }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aHundredMegabytesStopAtTheLimit(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let meter = ProductionMeter()
            await StreamingResponseIntegrationTests.serve(StreamingResponseIntegrationTests.hundredMegabytes, on: server, meter: meter)
            let result = await Self.client(kind, limit: 1 << 20).enqueue(try server.endpoint("/bytes")).result()
            ResponseSizeIntegrationTests.expectTooLarge(result, limit: 1 << 20)
            try await awaitCondition("the server stopped sending") { try await meter.released.wait() }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aGzipBodyIsDecodedAndCountedAfterDecoding(_ kind: TransportKind) async throws {
        let size = 1 + 258 * 4_064
        let body = GzipZeros.make(count: size)
        try await TestServer.run { server in
            await server.route("GET /zeros") { _ in
                FlyingFox.HTTPResponse(statusCode: .ok, headers: [HTTPHeader("Content-Encoding"): "gzip"], body: body)
            }
            #expect(try await Self.client(kind, limit: size).enqueue(server.endpoint("/zeros")).resume().body == Data(count: size))
            let result = await Self.client(kind, limit: size - 1).enqueue(try server.endpoint("/zeros")).result()
            ResponseSizeIntegrationTests.expectTooLarge(result, limit: size - 1)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func nothingListeningIsCannotConnect(_ kind: TransportKind) async throws {
        let port = try await TestServer.run { server in server.port }  // stopped: nothing listens there now
        let endpoint = TestEndpoint(baseURL: try BaseURL(scheme: .http, host: "127.0.0.1", port: port), path: try URLPath("/"))
        let result = await Self.client(kind).enqueue(endpoint).result()
        guard case .failure(.transport(let failure)) = result else {
            Issue.record("expected a transport failure, got \(result)")
            return
        }
        #expect(failure.kind == .cannotConnect)
    }

    @Test(
        "a stalled streamed upload does not delay other calls: 100 GETs on the same client complete while it stalls",
        arguments: TransportKind.allCases.filter(\.isolatesStalledUploads))
    func aStalledUploadDoesNotDelayOtherCalls(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            await server.route("POST /upload") { request in
                FlyingFox.HTTPResponse(statusCode: .ok, body: Data("\(try await request.bodyData.count)".utf8))
            }
            await server.route("GET /ping") { _ in FlyingFox.HTTPResponse(statusCode: .ok, body: Data("pong".utf8)) }
            let client = Self.client(kind)
            let started = Latch()
            let release = Latch()
            let body = BodyStream(StalledChunks(started: started, release: release), length: 2048)
            let upload = Task {
                try await client.enqueue(
                    server.endpoint("/upload").with {
                        $0.method = .post; $0.body = .stream(body)
                    }
                ).resume()
            }
            try await awaitCondition("the upload sent its first chunk") { try await started.wait() }
            let pongs = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<100 {
                    group.addTask { try await client.enqueue(server.endpoint("/ping")).resume().body == Data("pong".utf8) }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(pongs == 100)
            release.open()
            #expect(try await upload.value.body == Data("2048".utf8))
        }
    }

    /// A response body that sends 10 bytes, then nothing until the server stops.
    struct StallingBody: AsyncBufferedSequence {
        typealias Element = UInt8
        let probe: StreamProbe

        func makeAsyncIterator() -> Iterator { Iterator(probe: probe) }

        struct Iterator: AsyncBufferedIteratorProtocol {
            let probe: StreamProbe
            var sent = false

            mutating func next() async throws -> UInt8? {
                try await nextBuffer(suggested: 1)?.first
            }

            mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
                guard sent else {
                    sent = true
                    defer { probe.firstChunk.open() }
                    return [UInt8](repeating: UInt8(ascii: "a"), count: 10)
                }
                try await suspendUntilCancelled()  // stalls: stopping the server cancels it
                return nil
            }
        }
    }

    /// `chunkSize` bytes (1 KiB by default), then nothing until `release` opens, then as many more.
    struct StalledChunks: AsyncSequence, Sendable {
        typealias Element = Data
        let started: Latch
        let release: Latch
        var chunkSize = 1024

        func makeAsyncIterator() -> Iterator { Iterator(started: started, release: release, chunkSize: chunkSize) }

        struct Iterator: AsyncIteratorProtocol {
            let started: Latch
            let release: Latch
            let chunkSize: Int
            var sent = 0

            mutating func next() async throws -> Data? {
                sent += 1
                switch sent {
                case 1:
                    started.open()
                    return Data(count: chunkSize)
                case 2:
                    try await release.wait()
                    return Data(count: chunkSize)
                default:
                    return nil
                }
            }
        }
    }

    @Test("200 concurrent calls on one client each get their own response", arguments: TransportKind.allCases)
    func concurrentCallsGetTheirOwnResponses(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            await server.route("GET /echo/*") { request in
                FlyingFox.HTTPResponse(statusCode: .ok, body: Data(request.path.utf8))
            }
            let client = Self.client(kind)
            let mismatches = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let body = try await client.enqueue(server.endpoint("/echo/\(index)")).resume().body
                        return body == Data("/echo/\(index)".utf8)
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 0 : 1) }
            }
            #expect(mismatches == 0)
        }
    }
}

#if AsyncHTTPClientLinked
    @Suite("async-http-client response heads", .loopback)
    struct AsyncHTTPClientHeadTests {
        @Test("the common header names it spells out are the names HTTPField.Name would make")
        func commonNamesMatchTheValidatedOnes() throws {
            let names = [
                "Content-Type", "Content-Length", "Date", "Server", "Connection", "ETag", "Last-Modified", "Accept-Ranges",
                "Cache-Control", "Content-Encoding", "Transfer-Encoding", "Vary", "Expires", "Age", "Location", "Set-Cookie",
                "content-type", "X-Custom", "Bad Name",
            ]
            for raw in names {
                let fast = AsyncHTTPClientExchange.fieldName(raw)
                let validated = HTTPField.Name(raw)
                #expect(fast?.rawName == validated?.rawName, "\(raw)")
                #expect(fast?.canonicalName == validated?.canonicalName, "\(raw)")
            }
        }

        @Test(
            "a response without a body (HEAD, 204, 304) arrives with its empty body already read, whatever its Content-Length says",
            arguments: [("HEAD", 200), ("GET", 204), ("GET", 304)])
        func bodilessResponsesArriveWhole(method: String, status: Int) async throws {
            try await TestServer.run { server in
                await server.route(HTTPRoute("\(method) /bodiless")) { _ in
                    FlyingFox.HTTPResponse(
                        statusCode: HTTPStatusCode(status, phrase: "status"), headers: [.contentLength: "42"], body: Data())
                }
                let transport = AsyncHTTPClientTransport()
                let head = HTTPRequest(
                    method: HTTPRequest.Method(method)!, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/bodiless")
                let response = try await transport.send(TransportRequest(head: head, timeout: .seconds(30)))
                #expect(response.statusCode == status)
                #expect(response.body.wholeData == Data(), "read whole, not left to a streaming buffer")
            }
        }
    }
#endif
