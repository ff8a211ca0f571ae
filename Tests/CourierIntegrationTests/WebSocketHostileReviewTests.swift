#if AsyncHTTPClientLinked && !canImport(Darwin)
    import AsyncHTTPClient
    import Courier
    import CourierWebSockets
    import CourierTesting
    import Foundation
    import NIOCore
    import NIOHTTP1
    import NIOWebSocket
    import Testing
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// A hostile review of WebSockets: a hostile server, a careless caller, credentials.
    @Suite("WebSockets: hostile review", .serialized)  // serialized: one test captures standard error
    struct WebSocketHostileReviewTests {
        /// The value `operation` produces, or `nil` when `limit` passed first. `operation` runs in
        /// an unstructured task, so one that never returns (the defect) does not hang the test.
        /// The limit is only a bound for a failure; a passing test never waits for it.
        static func outcome<T: Sendable>(within limit: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
            let (stream, continuation) = AsyncStream<T?>.makeStream()
            let work = Task { continuation.yield(await operation()) }
            let timer = Task {
                try? await Task.sleep(for: limit)
                continuation.yield(nil)
            }
            var iterator = stream.makeAsyncIterator()
            let first = await iterator.next() ?? nil
            timer.cancel()
            _ = work
            return first
        }

        static func result<T>(_ body: () async throws(CourierError) -> T) async -> Result<T, CourierError> {
            do throws(CourierError) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }

        static func frames(_ count: Int) -> [WebSocketFrame] {
            (0..<count).map { WebSocketFrame.text("m\($0)") }
        }

        // MARK: A slow reader (reads held while the inbox is full)

        @Test("a reader slower than the idle ping is not timed out while the server answers every ping", .timeLimit(.minutes(1)))
        func slowReaderIsNotTimedOut() async throws {
            let plan = WebSocketTestServer.Plan(frames: Self.frames(3), echoes: false, answersPings: true)
            try await WebSocketTestServer.run(plan: { _ in plan }) { server in
                let socket = try await WebSocketIntegrationTests.socket(
                    server, "/ws", WebSocket.Options(bufferedMessages: 1, pingInterval: .milliseconds(100)))
                // 30 idle intervals with a live server: the connection must stay open.
                let closes = server.closes
                let ended = await Self.outcome(within: .seconds(3)) {
                    var iterator = closes.makeAsyncIterator()
                    return await iterator.next()
                }
                #expect(
                    ended == nil,
                    "the connection ended (server saw close code \(String(describing: ended.flatMap { $0 }.flatMap { $0 })), nil: no close frame) within 3 s although the server answered every ping"
                )
                var iterator = socket.messages.makeAsyncIterator()
                for index in 0..<3 {
                    let result = await Self.result { () async throws(CourierError) in try await iterator.next() }
                    #expect((try? result.get()) == .text("m\(index)"), "message \(index): \(result)")
                }
                await socket.close()
            }
        }

        @Test("ping() returns (three times) while unread messages wait in a full buffer", .timeLimit(.minutes(1)))
        func pingWithFullInbox() async throws {
            let plan = WebSocketTestServer.Plan(frames: Self.frames(3), echoes: false, answersPings: true)
            try await WebSocketTestServer.run(plan: { _ in plan }) { server in
                let socket = try await WebSocketIntegrationTests.socket(server, "/ws", WebSocket.Options(bufferedMessages: 1, pingInterval: nil))
                let pinged = await Self.outcome(within: .seconds(10)) { () -> String in
                    do {
                        for _ in 0..<3 { try await socket.ping() }
                        return "pong"
                    } catch {
                        return "\(error)"
                    }
                }
                #expect(
                    pinged == "pong",
                    "3 pings did not return within 10 s; the server got \(server.received.withLock { $0 }.filter { $0.opcode == .ping }.count) ping(s) and answered"
                )
                await socket.close()
            }
        }

        @Test("close() returns promptly when the server answers at once, even with unread messages", .timeLimit(.minutes(1)))
        func closeWithFullInboxIsPrompt() async throws {
            let plan = WebSocketTestServer.Plan(frames: Self.frames(50), echoes: false)
            try await WebSocketTestServer.run(plan: { _ in plan }) { server in
                let socket = try await WebSocketIntegrationTests.socket(server, "/ws", WebSocket.Options(bufferedMessages: 1))
                // One ping first (bounded): it uses up the read SwiftNIO had pending from the upgrade.
                _ = await Self.outcome(within: .seconds(5)) { try? await socket.ping() }
                let clock = ContinuousClock()
                let start = clock.now
                await socket.close()
                let elapsed = clock.now - start
                var closes = server.closes.makeAsyncIterator()
                #expect(await closes.next() == .some(1000))
                #expect(elapsed < .seconds(3), "close() took \(elapsed) although the server answered the close at once")
            }
        }

        // MARK: A careless caller

        @Test(
            "a close code that may not go on the wire (1006, 1015, 999, 0) is not sent as is", .timeLimit(.minutes(1)),
            arguments: [1006, 1015, 999, 0] as [UInt16])
        func invalidCloseCode(code: UInt16) async throws {
            try await WebSocketTestServer.run { server in
                let socket = try await WebSocketIntegrationTests.socket(server)
                await socket.close(code: code, reason: "careless")
                var closes = server.closes.makeAsyncIterator()
                let sent = await closes.next()
                #expect(
                    sent.flatMap { $0 }.map { WebSocketClose.isValidCodeForReview($0) } ?? true,
                    "the client sent close code \(String(describing: sent.flatMap { $0 })) on the wire")
            }
        }

        @Test("the messages sequence keeps its socket open: a socket read only through .messages is not closed under its reader", .timeLimit(.minutes(1)))
        func messagesKeepTheSocketAlive() async throws {
            try await withStubbedNetwork { network in
                let go = AsyncStream<Void>.makeStream()
                network.stub(
                    .get, "/feed",
                    with: .webSocket { peer in
                        var signal = go.stream.makeAsyncIterator()
                        await signal.next()
                        try? peer.send(.text("news"))
                        peer.close(code: 4001, reason: "end of feed")
                    })
                let client = Client(configuration: Configuration(authorizedHosts: ["api.example.com"]))
                let endpoint = TestEndpoint(baseURL: try BaseURL(host: "api.example.com"), path: try URLPath("/feed"))
                // The one-liner of a read-only socket: the WebSocket itself is not kept.
                let messages = try await client.enqueue(endpoint).webSocket().messages
                go.continuation.yield()
                var iterator = messages.makeAsyncIterator()
                let first = await Self.result { () async throws(CourierError) in try await iterator.next() }
                #expect((try? first.get()) == .text("news"), "the reader got \(first) instead of the peer's message")
            }
        }

        @Test("two tasks reading one stubbed socket: neither is left waiting forever", .timeLimit(.minutes(1)))
        func twoReadersOnStub() async throws {
            try await withStubbedNetwork { network in
                let go = AsyncStream<Void>.makeStream()
                network.stub(
                    .get, "/feed",
                    with: .webSocket { peer in
                        var signal = go.stream.makeAsyncIterator()
                        await signal.next()
                        try? peer.send(.text("one"))
                        peer.close(code: 4001, reason: "done")
                    })
                let client = Client(configuration: Configuration(authorizedHosts: ["api.example.com"]))
                let endpoint = TestEndpoint(baseURL: try BaseURL(host: "api.example.com"), path: try URLPath("/feed"))
                let socket = try await client.enqueue(endpoint).webSocket()
                let read: @Sendable () async -> String = {
                    var iterator = socket.messages.makeAsyncIterator()
                    return "\(await Self.result { () async throws(CourierError) in try await iterator.next() })"
                }
                let (done, finished) = AsyncStream<String>.makeStream()
                let first = Task { finished.yield("first: \(await read())") }
                for _ in 0..<2_000 { await Task.yield() }  // the first reader very likely waits by now
                let second = Task { finished.yield("second: \(await read())") }
                for _ in 0..<2_000 { await Task.yield() }
                go.continuation.yield()
                let both = await Self.outcome(within: .seconds(5)) {
                    var ends: [String] = []
                    for await end in done {
                        ends.append(end)
                        if ends.count == 2 { break }
                    }
                    return ends
                }
                #expect(both?.count == 2, "a reader never returned: the pipe kept only the second reader's continuation")
                first.cancel()
                second.cancel()
            }
        }

        @Test(
            "careless options (Int.max and negative sizes, 0 and negative buffers, a zero ping interval) still echo", .timeLimit(.minutes(1)),
            arguments: [
                WebSocket.Options(maximumMessageSize: .max, bufferedMessages: .max, pingInterval: .zero),
                WebSocket.Options(maximumMessageSize: 1 << 20, bufferedMessages: 0, pingInterval: .seconds(-1)),
                WebSocket.Options(maximumMessageSize: 1 << 20, bufferedMessages: -5, pingInterval: nil),
            ])
        func carelessOptions(options: WebSocket.Options) async throws {
            try await WebSocketTestServer.run { server in
                let socket = try await WebSocketIntegrationTests.socket(server, "/ws", options)
                var iterator = socket.messages.makeAsyncIterator()
                for round in 0..<3 {
                    try await socket.send(.data(Data(repeating: UInt8(round), count: 70_000)))
                    #expect(try await iterator.next() == .data(Data(repeating: UInt8(round), count: 70_000)))
                }
                await socket.close()
                await socket.close()  // twice: nothing
                await #expect(throws: CourierError.self) { try await socket.send(.text("after")) }
                await #expect(throws: CourierError.self) { try await socket.ping() }
                #expect(try await iterator.next() == nil)
            }
        }

        @Test("a second concurrent reader of a NIO socket is refused, the first keeps reading", .timeLimit(.minutes(1)))
        func twoReaders() async throws {
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(echoes: true) }) { server in
                let socket = try await WebSocketIntegrationTests.socket(server)
                let first = Task { () async throws(CourierError) -> WebSocket.Message? in
                    var iterator = socket.messages.makeAsyncIterator()
                    return try await iterator.next()
                }
                let second = Task { () async throws(CourierError) -> WebSocket.Message? in
                    var iterator = socket.messages.makeAsyncIterator()
                    return try await iterator.next()
                }
                // Whichever waits second is refused at once or gets the echo; send two so both can end.
                try await socket.send(.text("a"))
                try await socket.send(.text("b"))
                let results = [await first.result, await second.result]
                #expect(results.contains { (try? $0.get()) != nil }, "\(results)")
                await socket.close()
            }
        }

        // MARK: A hostile server

        @Test("a ping flood (2,000 pings right behind the 101) is answered and the message after it arrives", .timeLimit(.minutes(1)))
        func pingFlood() async throws {
            let pings = (0..<2_000).map { _ in WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "p")) }
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(frames: pings + [.text("after")], echoes: false) }) { server in
                let socket = try await WebSocketIntegrationTests.socket(server)
                var iterator = socket.messages.makeAsyncIterator()
                #expect(try await iterator.next() == .text("after"))
                await socket.close()
                #expect(server.received.withLock { $0 }.filter { $0.opcode == .pong }.count == 2_000)
            }
        }

        @Test("a fragment bomb (20,000 one-byte continuations) is bounded by maximumMessageSize", .timeLimit(.minutes(1)))
        func fragmentBomb() async throws {
            let frames =
                [WebSocketFrame(fin: false, opcode: .binary, data: ByteBuffer(bytes: [1]))]
                + (0..<20_000).map { _ in WebSocketFrame(fin: false, opcode: .continuation, data: ByteBuffer(bytes: [1])) }
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(frames: frames, echoes: false) }) { server in
                let socket = try await WebSocketIntegrationTests.socket(server, "/ws", WebSocket.Options(maximumMessageSize: 10_000))
                let error = await #expect(throws: CourierError.self) { for try await _ in socket.messages {} }
                #expect(error?.transportKind == .responseTooLarge)
                var closes = server.closes.makeAsyncIterator()
                let code = await closes.next()
                #expect(code == .some(1009), "the server saw \(String(describing: code)) (nil: the connection ended without a close frame)")
            }
        }

        @Test("a close storm (three closes, then data) ends the reader once with the first close", .timeLimit(.minutes(1)))
        func closeStorm() async throws {
            let frames: [WebSocketFrame] = [.close(4001, "first"), .close(4002, "second"), .text("late"), .close(1000)]
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(frames: frames, echoes: false) }) { server in
                let socket = try await WebSocketIntegrationTests.socket(server)
                let error = await #expect(throws: CourierError.self) { for try await _ in socket.messages {} }
                guard let close = error?.webSocketClose else { Issue.record("got \(String(describing: error))"); return }
                #expect(close == WebSocketClose(code: 4001, reason: "first"))
            }
        }

        @Test("a 401 loop refreshes once and then fails with the 401", .timeLimit(.minutes(1)))
        func unauthorizedLoop() async throws {
            try await WebSocketTestServer.run(plan: { _ in .refuse(.unauthorized, body: "no") }) { server in
                let refreshes = LockedState(0)
                let refresher = TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "stale", refreshToken: "r"))) { _ in
                    refreshes.withLock { $0 += 1 }
                    return TokenCredential(accessToken: "fresh", refreshToken: "r")
                }
                let error = await #expect(throws: CourierError.self) {
                    try await WebSocketIntegrationTests.client(refresher: refresher)
                        .enqueue(SocketEndpoint(base: server.baseURL, pathString: "/ws", authorized: true)).webSocket()
                }
                #expect(error?.response?.statusCode == 401)
                #expect(server.requests.withLock { $0.count } == 2)
                #expect(refreshes.withLock { $0 } <= 1)
            }
        }

        // MARK: Credentials

        @Test("an upgrade redirected to another host does not carry Authorization there", .timeLimit(.minutes(1)))
        func redirectToOtherHost() async throws {
            let port = LockedState(0)
            let plan: @Sendable (HTTPRequestHead) -> WebSocketTestServer.Plan = { head in
                head.headers["Host"].first?.hasPrefix("127.0.0.1") == true
                    ? .refuse(.found, headers: ["Location": "http://localhost:\(port.withLock { $0 })/ws"]) : .echo
            }
            try await WebSocketTestServer.run(plan: plan) { server in
                port.withLock { $0 = server.baseURL.port ?? 0 }
                let refresher = TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "secret-token", refreshToken: "r"))) { _ in
                    TokenCredential(accessToken: "secret-token", refreshToken: "r")
                }
                let socket = try? await WebSocketIntegrationTests.client(refresher: refresher)
                    .enqueue(SocketEndpoint(base: server.baseURL, pathString: "/ws", authorized: true)).webSocket()
                await socket?.close()
                let leaked = server.requests.withLock { $0 }.filter {
                    $0.headers["Host"].first?.hasPrefix("localhost") == true && !$0.headers["Authorization"].isEmpty
                }
                #expect(leaked.isEmpty, "Authorization sent to localhost: \(leaked.map { $0.headers["Authorization"] })")
            }
        }

        @Test("an authorized WebSocket call to a host not in authorizedHosts sends no credential", .timeLimit(.minutes(1)))
        func unauthorizedHost() async throws {
            try await WebSocketTestServer.run { server in
                let refresher = TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "secret-token", refreshToken: "r"))) { _ in
                    TokenCredential(accessToken: "secret-token", refreshToken: "r")
                }
                let other = try BaseURL(scheme: .http, host: "localhost", port: server.baseURL.port)
                let socket = try? await WebSocketIntegrationTests.client(refresher: refresher)
                    .enqueue(SocketEndpoint(base: other, pathString: "/ws", authorized: true)).webSocket()
                await socket?.close()
                #expect(server.requests.withLock { $0 }.allSatisfy { $0.headers["Authorization"].isEmpty })
            }
        }

        @Test("a transport with a proxy, or made from an HTTPClient of your own, refuses WebSockets before connecting (no bypass)", .timeLimit(.minutes(1)))
        func proxyIsNotBypassed() async throws {
            try await WebSocketTestServer.run { server in
                let proxy = try #require(server.baseURL.port)
                var configuration = HTTPClient.Configuration()
                configuration.proxy = .server(host: "127.0.0.1", port: proxy)
                let own = HTTPClient(eventLoopGroupProvider: .singleton)
                defer { _ = own.shutdown() }
                for transport in [try AsyncHTTPClientTransport(configuration: configuration), AsyncHTTPClientTransport(client: own)] {
                    let client = Client(configuration: Configuration(transport: transport, timeout: .seconds(20)))
                    let endpoint = SocketEndpoint(base: try BaseURL(scheme: .http, host: "ws.courier-review.invalid"), pathString: "/ws")
                    let result = await Self.result { () async throws(CourierError) in try await client.enqueue(endpoint).webSocket() }
                    guard case .failure(.invalidRequest(.webSocketUnavailable)) = result else {
                        Issue.record("expected webSocketUnavailable, got \(result)")
                        continue
                    }
                }
                #expect(server.requests.withLock { $0.isEmpty })
            }
        }

        @Test("opening a socket writes no debugging output to standard error", .timeLimit(.minutes(1)))
        func noDebugOutput() async throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("ws-stderr-\(UUID().uuidString)").path
            let file = open(path, O_CREAT | O_RDWR | O_TRUNC, 0o600)
            try #require(file >= 0)
            let saved = dup(2)
            dup2(file, 2)
            try await WebSocketTestServer.run { server in
                let socket = try await WebSocketIntegrationTests.socket(server)
                await socket.close()
            }
            dup2(saved, 2)
            close(saved)
            close(file)
            let written = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: path)
            let debugLines = written.split(separator: "\n").filter { $0.hasPrefix("DBG") }
            #expect(debugLines.count == 0, "standard error got \(debugLines.count) debugging lines, e.g. \(debugLines.prefix(3))")
        }
    }

    extension WebSocketClose {
        /// RFC 6455 §7.4: the codes an endpoint may put in a close frame.
        static func isValidCodeForReview(_ code: UInt16) -> Bool {
            switch code {
            case 1000...1003, 1007...1014, 3000...4999: true
            default: false
            }
        }
    }
#endif
