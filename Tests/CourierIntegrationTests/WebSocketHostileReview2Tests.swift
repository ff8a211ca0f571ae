import CourierTesting
import CourierWebSockets
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

@testable import Courier

#if AsyncHTTPClientLinked && !canImport(Darwin)
    import NIOCore
    import NIOWebSocket
#endif

/// A second hostile review of WebSockets: permessage-deflate against a hostile server, the
/// reconnecting helper against a careless caller, and the per-socket span and metrics.
@Suite("WebSockets: hostile review 2", .serialized)
struct WebSocketHostileReview2Tests {
    // MARK: The server's extension answer

    /// An empty parameter (a trailing `;`, `;;`, a lone `=`) split into no name at all and
    /// indexed it: the client process trapped on a server's sloppy (or hostile) answer.
    @Test(
        "an extension answer with an empty parameter is refused, not a trap",
        arguments: [
            "permessage-deflate;", "permessage-deflate; server_no_context_takeover;", "permessage-deflate;;server_no_context_takeover",
            "permessage-deflate; =", "permessage-deflate; = ",
        ])
    func emptyParameter(_ answer: String) {
        #expect(throws: PerMessageDeflate.Refusal.self) { try PerMessageDeflate.agreement([answer]) }
    }

    /// RFC 7692 §7.1.1.1: `server_no_context_takeover` has no value; `=` with nothing after it
    /// was read as no value at all.
    @Test(
        "a parameter with an empty value after = is refused",
        arguments: ["permessage-deflate; server_no_context_takeover=", "permessage-deflate; client_no_context_takeover = "])
    func emptyValue(_ answer: String) {
        #expect(throws: PerMessageDeflate.Refusal.self) { try PerMessageDeflate.agreement([answer]) }
    }

    @Test("odd case, spacing, tabs and quoting are read as RFC 7692 means them; duplicates across fields are refused")
    func oddButValidAnswers() throws {
        #expect(try PerMessageDeflate.agreement(["  PERMESSAGE-DEFLATE ;\tSERVER_NO_CONTEXT_TAKEOVER  "])?.serverNoContextTakeover == true)
        #expect(try PerMessageDeflate.agreement(["permessage-deflate ; server_max_window_bits = \"10\""]) != nil)
        #expect(try PerMessageDeflate.agreement(["", "permessage-deflate"]) != nil)
        for fields in [
            ["permessage-deflate", "permessage-deflate"], ["permessage-deflate; server_max_window_bits=\"1\"0"],
            ["permessage-deflate; server_max_window_bits=+10"], ["permessage-deflate; server_no_context_takeover=\"\""],
            ["\"permessage-deflate\""],
        ] {
            #expect(throws: PerMessageDeflate.Refusal.self, "\(fields)") { try PerMessageDeflate.agreement(fields) }
        }
    }

    // MARK: The reconnecting helper (a careless caller, a refresh for many sockets)

    /// An endpoint of api.example.com that is signed with the client's credential.
    struct Live: Requestable {
        /// The `way` query item, if any.
        var way: Int?
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
        func path() throws(CourierError) -> URLPath { try URLPath("/live") }
        var queryItems: [QueryItem]? { way.map { [QueryItem(name: "way", value: String($0))] } }
        var requiresAuthorization: Bool { true }
    }

    /// Reads the socket to its end, whatever the end.
    static func drain(_ socket: WebSocket) async throws(CourierError) {
        for try await _ in socket.messages {}
    }

    /// Opens once `count` arrived, or once `open()` was called.
    actor Gate {
        private let count: Int
        private var arrived = 0
        private var isOpen = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        init(count: Int) {
            self.count = count
        }

        /// Counts this arrival and waits until the gate opens; returns the arrival's number from 1.
        @discardableResult
        func arrive() async -> Int {
            arrived += 1
            let number = arrived
            if arrived >= count { open() }
            if !isOpen { await withCheckedContinuation { waiting.append($0) } }
            return number
        }

        func open() {
            isOpen = true
            let resumed = waiting
            waiting.removeAll()
            for continuation in resumed { continuation.resume() }
        }
    }

    static func client(_ clock: TestClock, _ refresher: TokenRefresher? = nil) -> Client {
        Client(
            configuration: Configuration(
                authentication: refresher.map { .bearer($0) } ?? .none, authorizedHosts: ["api.example.com"], retryPolicy: .none, clock: clock))
    }

    static func firstMessage(_ socket: WebSocket) async throws(CourierError) -> WebSocket.Message? {
        var iterator = socket.messages.makeAsyncIterator()
        return try await iterator.next()
    }

    static func refresher(counting refreshes: LockedState<Int>) -> TokenRefresher {
        TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "stale", refreshToken: "r"))) { _ in
            refreshes.withLock { $0 += 1 }
            return TokenCredential(accessToken: "fresh", refreshToken: "r")
        }
    }

    /// 200 sockets opened with the same token are closed with 4401: one refresh renews it for
    /// all. The sockets closed after the first refresh finished called `forceRefresh()` each,
    /// refreshing a token that was already new (one refresh per straggler, or per wave).
    @Test("200 sockets opened with one token and closed with 4401 (one first, the rest after its refresh) refresh exactly once")
    func oneRefreshForManySockets() async throws {
        let count = 200
        let clock = TestClock(sleepsReturnImmediately: true)
        let refreshes = LockedState(0)
        let opened = Gate(count: count)
        let firstReconnected = Gate(count: .max)
        try await withStubbedNetwork { network in
            network.stub(
                .get, "/live",
                with: .webSocket { peer in
                    if peer.request.headers[.authorization] == "Bearer fresh" {
                        await firstReconnected.open()
                        try peer.send(.text("authorized"))
                    } else {
                        // Every socket is open with the stale token before any closes; the
                        // first closes alone, the rest once it came back with the new token.
                        let number = await opened.arrive()
                        if number != count { await firstReconnected.arrive() }
                        peer.close(code: 4401, reason: "token expired")
                    }
                    _ = await peer.receive()
                })
            let client = Self.client(clock, Self.refresher(counting: refreshes))
            try await Self.expectAuthorized(sockets: count, on: client)
        }
        #expect(refreshes.withLock { $0 } == 1)
    }

    /// Opens `sockets` reconnecting sockets on `client` at once; each must read "authorized" first.
    static func expectAuthorized(sockets: Int, on client: Client) async throws {
        try await withThrowingTaskGroup(of: WebSocket.Message?.self) { group in
            for _ in 0..<sockets {
                group.addTask {
                    try await client.enqueue(Live()).webSocket(reconnecting: RetryPolicy(maxAttempts: 3)) { socket in
                        try await Self.firstMessage(socket)
                    }
                }
            }
            for try await message in group { #expect(message == .text("authorized")) }
        }
    }

    @Test("200 sockets closed with 4401 at once refresh exactly once")
    func oneRefreshForSocketsClosedAtOnce() async throws {
        let count = 200
        let clock = TestClock(sleepsReturnImmediately: true)
        let refreshes = LockedState(0)
        let opened = Gate(count: count)
        try await withStubbedNetwork { network in
            network.stub(
                .get, "/live",
                with: .webSocket { peer in
                    if peer.request.headers[.authorization] == "Bearer fresh" {
                        try peer.send(.text("authorized"))
                    } else {
                        await opened.arrive()
                        peer.close(code: 4401)
                    }
                    _ = await peer.receive()
                })
            let client = Self.client(clock, Self.refresher(counting: refreshes))
            try await Self.expectAuthorized(sockets: count, on: client)
        }
        #expect(refreshes.withLock { $0 } == 1)
    }

    /// 1001 (going away) is worth another try; listing it in `refreshingOn` on a client without
    /// a bearer credential turned it into a stop.
    @Test("a 1001 listed in refreshingOn, on a client with no credential to refresh, is still reconnected to")
    func goingAwayInRefreshingOnWithoutCredential() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        let upgrades = LockedState(0)
        let first = try await withStubbedNetwork { network in
            network.stub(
                .get, "/live",
                with: .webSocket { peer in
                    let number = upgrades.withLock {
                        $0 += 1
                        return $0
                    }
                    if number == 1 { peer.close(code: 1001) } else { try peer.send(.text("back")) }
                    _ = await peer.receive()
                })
            return try await Self.client(clock).enqueue(Live()).webSocket(reconnecting: RetryPolicy(maxAttempts: 3), refreshingOn: [1001, 4401]) {
                socket in
                try await Self.firstMessage(socket)
            }
        }
        #expect(first == .text("back"))
        #expect(upgrades.withLock { $0 } == 2)
    }

    @Test("maxAttempts 0 or below opens one socket and throws its end", arguments: [0, -1, Int.min])
    func noAttempts(_ attempts: Int) async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        await withStubbedNetwork { network in
            network.stub(.get, "/live", with: .webSocket { peer in peer.close(code: 1011) })
            let error = await #expect(throws: CourierError.self) {
                try await Self.client(clock).enqueue(Live()).webSocket(reconnecting: RetryPolicy(maxAttempts: attempts)) { socket in
                    try await Self.firstMessage(socket)
                }
            }
            guard let close = error?.webSocketClose else { Issue.record("got \(String(describing: error))"); return }
            #expect(close.code == 1011)
            #expect(network.requests.count == 1)
        }
        #expect(clock.sleeps.isEmpty)
    }

    @Test("a body that returns at once, one that never reads, and a peer's 1000 with 1000 and 1001 in refreshingOn: one socket, no refresh")
    func carelessBodies() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        let refreshes = LockedState(0)
        try await withStubbedNetwork { network in
            // The peer closes once it has a message (or the client closed): a close sent at once
            // could reach the client before its send, which then throws (the third body sends
            // first for the same reason).
            network.stub(
                .get, "/live",
                with: .webSocket { peer in
                    _ = await peer.receive()
                    peer.close(code: 1000)
                })
            let client = Self.client(clock, Self.refresher(counting: refreshes))
            let value = try await client.enqueue(Live()).webSocket(reconnecting: .default, refreshingOn: [1000, 1001]) { _ in 42 }
            #expect(value == 42)
            let unread = try await client.enqueue(Live()).webSocket(reconnecting: .default, refreshingOn: [1000, 1001]) { socket in
                try await socket.send(.text("never reads"))
                return "sent"
            }
            #expect(unread == "sent")
            let read = try await client.enqueue(Live()).webSocket(reconnecting: .default, refreshingOn: [1000, 1001]) { socket in
                try await socket.send(.text("reading"))
                for try await _ in socket.messages {}
                return "ended"
            }
            #expect(read == "ended")
            #expect(network.requests.count == 3)
        }
        #expect(refreshes.withLock { $0 } == 0)
        #expect(clock.sleeps.isEmpty)
    }

    @Test("cancelling the task during the backoff sleep ends it with cancelled and opens no other socket")
    func cancelledDuringBackoff() async throws {
        let clock = TestClock()
        await withStubbedNetwork { network in
            network.stub(.get, "/live", with: .webSocket { peer in peer.close(code: 1012) })
            let client = Self.client(clock)
            let task = Task {
                try await client.enqueue(Live()).webSocket(reconnecting: RetryPolicy(maxAttempts: 5, baseDelay: .seconds(60))) { socket in
                    try await Self.firstMessage(socket)
                }
            }
            await clock.waitForSleepers(1)
            task.cancel()
            let result = await task.result
            guard case .failure(CourierError.cancelled) = result else { Issue.record("got \(result)"); return }
            #expect(network.requests.count == 1)
        }
    }

    // MARK: Observability

    /// How a socket of ``gaugeAfterThousandsOfSockets()`` ends.
    static let ways = 7

    @Test("after 2,100 stubbed sockets ending every way, the open gauge is 0 and each span ended once")
    func gaugeAfterThousandsOfSockets() async throws {
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        let total = 2_100
        try await withStubbedNetwork { network in
            network.stub(
                .get, "/live", ignoringQuery: true,
                with: .webSocket { peer in
                    switch peer.request.url.query ?? "" {
                    case "way=0": peer.close(code: 1000)
                    case "way=1": peer.close(code: 4001, reason: "bye")
                    case "way=2": try? peer.send(.text("one"))  // the client may have closed already
                    default: break
                    }
                    while await peer.receive() != nil {}
                })
            var configuration = Configuration()
            configuration.tracer = tracer
            configuration.metricsFactory = metrics
            let client = Client(configuration: configuration)
            for batch in stride(from: 0, to: total, by: 100) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in batch..<(batch + 100) {
                        group.addTask {
                            let way = index % Self.ways
                            let endpoint = Live(way: way % 3)
                            let socket = try await client.enqueue(endpoint).webSocket()
                            switch way {
                            case 0, 1:  // the peer's normal close, the peer's 4001
                                try? await Self.drain(socket)
                            case 2:  // one message read, then dropped mid-stream
                                _ = try? await Self.firstMessage(socket)
                            case 3:  // closed twice
                                await socket.close()
                                await socket.close()
                            case 4:  // a cancelled reader
                                let reader = Task { try await Self.drain(socket) }
                                reader.cancel()
                                _ = await reader.result
                            case 5:  // read after close
                                await socket.close()
                                _ = try? await Self.firstMessage(socket)
                            default:  // dropped unread
                                break
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
        }
        let meter = try metrics.expectMeter("courier_websockets_open")
        #expect(meter.lastValue == 0)
        let spans = tracer.finishedSpans.filter { $0.operationName == "WebSocket" }
        #expect(spans.count == total)
        #expect(Set(spans.map(\.spanID)).count == total)
    }
}

#if AsyncHTTPClientLinked && !canImport(Darwin)
    extension WebSocketHostileReview2Tests {
        // MARK: permessage-deflate, frame by frame

        static func assembler(_ limit: Int = 1 << 20, resets: Bool = false) throws -> WebSocketAssembler {
            WebSocketAssembler(maximumMessageSize: limit, inflater: try BodyInflater(raw: true, resetsAfterMessage: resets))
        }

        /// RFC 7692 §7.2.3.3's own example: "Hello" in a block with BFINAL set, then one octet
        /// (an empty stored block's header) that the appended tail completes. It was refused with
        /// 1007 (at most the 4 tail octets were allowed after BFINAL, and nothing before the last frame).
        @Test("RFC 7692 §7.2.3.3's BFINAL example inflates to Hello, whole or split after the final block")
        func bfinalExample() throws {
            let payload = Data([0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00])
            var whole = try Self.assembler()
            let action = whole.receive(fin: true, opcode: 1, compressed: true, reserved: false, masked: false, payload: payload)
            guard case .deliver(.text("Hello")) = action else { Issue.record("got \(action)"); return }
            var split = try Self.assembler()
            #expect(split.receive(fin: false, opcode: 1, compressed: true, reserved: false, masked: false, payload: payload.prefix(7)).failureCode == nil)
            let last = split.receive(fin: true, opcode: 0, reserved: false, masked: false, payload: payload.suffix(1))
            guard case .deliver(.text("Hello")) = last else { Issue.record("got \(last)"); return }
            // The window is kept (no server_no_context_takeover): the next message still inflates.
            let next = TestDeflater().compress(Data("again".utf8), reset: false)
            let after = whole.receive(fin: true, opcode: 1, compressed: true, reserved: false, masked: false, payload: next)
            guard case .deliver(.text("again")) = after else { Issue.record("got \(after)"); return }
        }

        @Test("data after the end of the deflate stream (BFINAL mid-message) is refused with 1007, not dropped")
        func dataAfterBfinal() throws {
            let ended = Data([0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
            let more = TestDeflater().compress(Data("more".utf8), reset: false)
            var assembler = try Self.assembler()
            #expect(assembler.receive(fin: false, opcode: 1, compressed: true, reserved: false, masked: false, payload: ended).failureCode == nil)
            #expect(assembler.receive(fin: true, opcode: 0, reserved: false, masked: false, payload: more).failureCode == 1007)
            var whole = try Self.assembler()
            #expect(whole.receive(fin: true, opcode: 1, compressed: true, reserved: false, masked: false, payload: ended + more).failureCode == 1007)
        }

        @Test("a bomb spread over 400 fragments ends with 1009 and no piece returned goes over the limit")
        func bombAcrossFragments() throws {
            let limit = 64 << 10
            let bomb = TestDeflater().compress(Data(count: 16 << 20), reset: false)
            let pieces = WebSocketDeflateTests.split(bomb, into: 400)
            var assembler = try Self.assembler(limit)
            var failure: UInt16?
            for (index, piece) in pieces.enumerated() {
                let action = assembler.receive(
                    fin: index == pieces.count - 1, opcode: index == 0 ? 2 : 0, compressed: index == 0, reserved: false, masked: false, payload: piece)
                if case .deliver = action { Issue.record("delivered a bomb") }
                if let code = action.failureCode {
                    failure = code
                    break
                }
            }
            #expect(failure == 1009)
        }

        @Test("a message one byte over the limit whose last fragment crosses it ends with 1009; one at the limit arrives")
        func limitCrossedInTheLastFragment() throws {
            let limit = 10_000
            for (size, delivered) in [(limit + 1, false), (limit, true)] {
                // Incompressible bytes: the output tracks the input, so the last piece crosses.
                var generator = SystemRandomNumberGenerator()
                let message = Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) })
                let compressed = TestDeflater().compress(message, reset: false)
                var assembler = try Self.assembler(limit)
                let cut = compressed.count - 50
                let first = assembler.receive(fin: false, opcode: 2, compressed: true, reserved: false, masked: false, payload: compressed.prefix(cut))
                #expect(first.failureCode == nil)
                let last = assembler.receive(fin: true, opcode: 0, reserved: false, masked: false, payload: compressed.dropFirst(cut))
                if delivered {
                    guard case .deliver(.data(let data)) = last else { Issue.record("got \(last)"); continue }
                    #expect(data == message)
                } else {
                    #expect(last.failureCode == 1009)
                }
            }
        }

        @Test("a back-reference into the previous message is refused (1007) when server_no_context_takeover was agreed, inflated otherwise")
        func contextTakeoverAbuse() throws {
            let text = String(repeating: "courier context ", count: 20)
            let deflater = TestDeflater()
            let first = deflater.compress(Data(text.utf8), reset: false)
            let second = deflater.compress(Data(text.utf8), reset: false)  // refers back into the first
            #expect(second.count < 20)
            for resets in [true, false] {
                var assembler = try Self.assembler(resets: resets)
                let one = assembler.receive(fin: true, opcode: 1, compressed: true, reserved: false, masked: false, payload: first)
                guard case .deliver(.text(text)) = one else { Issue.record("got \(one)"); continue }
                let two = assembler.receive(fin: true, opcode: 1, compressed: true, reserved: false, masked: false, payload: second)
                if resets {
                    #expect(two.failureCode == 1007)
                } else {
                    guard case .deliver(.text(text)) = two else { Issue.record("got \(two)"); continue }
                }
            }
        }

        @Test("RSV1 on a continuation, a control frame, or without the extension: 1002")
        func reservedBitAbuse() throws {
            var continuation = try Self.assembler()
            _ = continuation.receive(fin: false, opcode: 1, compressed: true, reserved: false, masked: false, payload: Data())
            #expect(continuation.receive(fin: true, opcode: 0, compressed: true, reserved: false, masked: false, payload: Data()).failureCode == 1002)
            for opcode: UInt8 in [8, 9, 10] {
                var control = try Self.assembler()
                #expect(control.receive(fin: true, opcode: opcode, compressed: true, reserved: false, masked: false, payload: Data()).failureCode == 1002)
            }
            var plain = WebSocketAssembler(maximumMessageSize: 100)
            #expect(plain.receive(fin: true, opcode: 2, compressed: true, reserved: false, masked: false, payload: Data()).failureCode == 1002)
        }

        // MARK: Over the network

        static func plan(_ answer: String?, _ frames: [WebSocketFrame] = []) -> WebSocketTestServer.Plan {
            var plan = WebSocketTestServer.Plan()
            if let answer { plan.headers.add(name: "Sec-WebSocket-Extensions", value: answer) }
            plan.frames = frames
            return plan
        }

        @Test("a server answering permessage-deflate with a trailing ; fails the handshake (the process does not trap)", .timeLimit(.minutes(1)))
        func trailingSemicolonOverTheNetwork() async throws {
            try await WebSocketTestServer.run(plan: { _ in Self.plan("permessage-deflate; server_no_context_takeover;") }) { server in
                let error = await #expect(throws: CourierError.self) {
                    try await WebSocketIntegrationTests.client().enqueue(SocketEndpoint(base: server.baseURL, pathString: "/x")).webSocket()
                }
                #expect(error?.transportKind == .badResponse)
            }
        }

        @Test("RFC 7692's BFINAL example from a server arrives as Hello", .timeLimit(.minutes(1)))
        func bfinalOverTheNetwork() async throws {
            let frame = WebSocketFrame(fin: true, rsv1: true, opcode: .text, data: ByteBuffer(bytes: [0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00]))
            try await WebSocketTestServer.run(plan: { _ in Self.plan("permessage-deflate", [frame]) }) { server in
                let socket = try await WebSocketIntegrationTests.client().enqueue(SocketEndpoint(base: server.baseURL, pathString: "/z")).webSocket()
                #expect(try await Self.firstMessage(socket) == .text("Hello"))
                await socket.close()
            }
        }

        /// A client with its own secret query name (`ticket`): `url.full` hides it, but the
        /// failure recorded on the span describes its URL with ``Redaction/default`` only.
        @Test("a secret in the query reaches neither the span's attributes nor its recorded failure", .timeLimit(.minutes(1)))
        func secretsStayOutOfTheSpan() async throws {
            let tracer = InMemoryTracer()
            let metrics = TestMetrics()
            let broken = WebSocketFrame(fin: false, opcode: .ping, data: ByteBuffer())  // a fragmented control frame
            try await WebSocketTestServer.run(plan: { _ in Self.plan(nil, [broken]) }) { server in
                var configuration = Configuration(transport: AsyncHTTPClientTransport(), authorizedHosts: ["127.0.0.1"])
                configuration.tracer = tracer
                configuration.metricsFactory = metrics
                configuration.redaction = Redaction(queryItems: Redaction.defaultParameterNames.union(["ticket"]))
                let endpoint = TestEndpoint(baseURL: server.baseURL, path: try URLPath("/ws")).with {
                    $0.queryItems = [QueryItem(name: "ticket", value: "TICKETSECRET"), QueryItem(name: "access_token", value: "TOKENSECRET")]
                }
                let socket = try await Client(configuration: configuration).enqueue(endpoint).webSocket()
                let error = await #expect(throws: CourierError.self) { try await Self.firstMessage(socket) }
                #expect(error?.transportKind == .badResponse)
            }
            let span = try #require(tracer.finishedSpans.first { $0.operationName == "WebSocket" })
            var seen = "\(span.attributes)"
            for recorded in span.errors { seen += " \(recorded.error) \(recorded.attributes)" }
            for event in span.events { seen += " \(event.name) \(event.attributes)" }
            #expect(!seen.contains("TOKENSECRET"))
            #expect(!seen.contains("TICKETSECRET"), "\(seen)")
        }

        @Test(
            "NIO sockets ending every way (peer close, peer error, protocol failure, drop, cancelled reader) bring the gauge back to 0",
            .timeLimit(.minutes(1)))
        func gaugeOverTheNetwork() async throws {
            let tracer = InMemoryTracer()
            let metrics = TestMetrics()
            let plans: [String: WebSocketTestServer.Plan] = [
                "/close": Self.plan(nil, [.close(1000)]), "/error": Self.plan(nil, [.close(4001, "bye")]),
                "/broken": Self.plan(nil, [WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: [0xC0, 0xAF]))]),
            ]
            try await WebSocketTestServer.run(plan: { head in plans[head.uri] ?? .echo }) { server in
                var configuration = Configuration(transport: AsyncHTTPClientTransport(), authorizedHosts: ["127.0.0.1"])
                configuration.tracer = tracer
                configuration.metricsFactory = metrics
                let client = Client(configuration: configuration)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<40 {
                        group.addTask {
                            let path = ["/close", "/error", "/broken", "/drop", "/cancel"][index % 5]
                            let socket = try await client.enqueue(SocketEndpoint(base: server.baseURL, pathString: path)).webSocket()
                            switch path {
                            case "/drop": break
                            case "/cancel":
                                let reader = Task { try await Self.drain(socket) }
                                reader.cancel()
                                _ = await reader.result
                            default: try? await Self.drain(socket)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            #expect(try metrics.expectMeter("courier_websockets_open").lastValue == 0)
            #expect(tracer.finishedSpans.filter { $0.operationName == "WebSocket" }.count == 40)
        }
    }
#endif
