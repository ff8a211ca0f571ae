#if AsyncHTTPClientLinked && !canImport(Darwin)
    import Courier
    import CourierWebSockets
    import Foundation
    import NIOCore
    import NIOHTTP1
    import NIOWebSocket
    import Testing

    /// WebSockets over AsyncHTTPClientTransport (SwiftNIO) against an in-process SwiftNIO
    /// WebSocket server on 127.0.0.1 (``WebSocketTestServer``), hostile frames included.
    @Suite("WebSockets over SwiftNIO against an in-process server")
    struct WebSocketIntegrationTests {
        static func client(refresher: TokenRefresher? = nil) -> Client {
            Client(
                configuration: Configuration(
                    transport: AsyncHTTPClientTransport(), timeout: generousTimeout, authentication: refresher.map { .bearer($0) } ?? .none,
                    authorizedHosts: ["127.0.0.1"]))
        }

        static func socket(_ server: WebSocketTestServer, _ path: String = "/ws", _ options: WebSocket.Options = WebSocket.Options()) async throws(CourierError)
            -> WebSocket
        {
            try await client().enqueue(SocketEndpoint(base: server.baseURL, pathString: path)).webSocket(options)
        }

        @Test("text and binary echo, empty to the limit; messages over 16 KiB come back in fragments and are reassembled")
        func echoes() async throws {
            try await WebSocketTestServer.run { server in
                let socket = try await Self.socket(server, "/ws", WebSocket.Options(maximumMessageSize: 1 << 20))
                let messages: [WebSocket.Message] = [
                    .text(""), .text("héllo ✓"), .data(Data()), .data(Data((0..<255).map { UInt8($0) })),
                    .text(String(repeating: "x", count: 100_000)), .data(Data(repeating: 7, count: 1 << 20)),
                ]
                var iterator = socket.messages.makeAsyncIterator()
                for message in messages {
                    try await socket.send(message)
                    #expect(try await iterator.next() == message)
                }
                await socket.close()
                #expect(try await iterator.next() == nil)
                // The close the server saw: 1000; every client frame was masked.
                var closes = server.closes.makeAsyncIterator()
                #expect(await closes.next() == .some(1000))
                #expect(server.received.withLock { $0 }.allSatisfy { $0.maskKey != nil })
            }
        }

        @Test("ping returns when the server's pong arrives")
        func pingPong() async throws {
            try await WebSocketTestServer.run { server in
                let socket = try await Self.socket(server)
                for _ in 0..<3 { try await socket.ping() }
                #expect(server.received.withLock { $0 }.filter { $0.opcode == .ping }.count == 3)
                await socket.close()
            }
        }

        @Test("a fragmented message over the limit closes with 1009 and fails the reader with responseTooLarge")
        func fragmentedOverLimit() async throws {
            try await WebSocketTestServer.run { server in
                let socket = try await Self.socket(server, "/ws", WebSocket.Options(maximumMessageSize: 40_000))
                try await socket.send(.data(Data(repeating: 1, count: 50_000)))
                let error = await #expect(throws: CourierError.self) { for try await _ in socket.messages {} }
                #expect(error?.transportKind == .responseTooLarge)
                var closes = server.closes.makeAsyncIterator()
                #expect(await closes.next() == .some(1009))
            }
        }

        @Test("one frame over the limit is refused by the frame decoder: responseTooLarge and a 1009 close")
        func singleFrameOverLimit() async throws {
            let big = WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(repeating: 0, count: 300_000))
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(frames: [big]) }) { server in
                let socket = try await Self.socket(server, "/ws", WebSocket.Options(maximumMessageSize: 100_000))
                let error = await #expect(throws: CourierError.self) { for try await _ in socket.messages {} }
                #expect(error?.transportKind == .responseTooLarge)
            }
        }

        @Test("the server's close code and reason reach the reader as webSocketClosed; later sends fail")
        func serverCloses() async throws {
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(frames: [.text("last"), .close(4001, "go away")]) }) { server in
                let socket = try await Self.socket(server)
                var iterator = socket.messages.makeAsyncIterator()
                #expect(try await iterator.next() == .text("last"))
                let error = await #expect(throws: CourierError.self) { try await iterator.next() }
                guard let close = error?.webSocketClose else { Issue.record("got \(String(describing: error))"); return }
                #expect(close == WebSocketClose(code: 4001, reason: "go away"))
                await #expect(throws: CourierError.self) { try await socket.send(.text("after")) }
            }
        }

        @Test("a normal close by the server (1000) ends the reader without an error")
        func serverClosesNormally() async throws {
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(frames: [.text("bye"), .close(1000)]) }) { server in
                let socket = try await Self.socket(server)
                var received: [WebSocket.Message] = []
                for try await message in socket.messages { received.append(message) }
                #expect(received == [.text("bye")])
            }
        }

        static let hostile: [(String, WebSocketFrame)] = [
            ("masked", WebSocketFrame(fin: true, opcode: .text, maskKey: WebSocketMaskingKey([1, 2, 3, 4]), data: ByteBuffer(string: "a"))),
            ("reserved bit (an uninvited compressed frame)", WebSocketFrame(fin: true, rsv1: true, opcode: .binary, data: ByteBuffer(bytes: [0xF3, 0x48]))),
            ("unknown opcode", WebSocketFrame(fin: true, opcode: WebSocketOpcode(encodedWebSocketOpcode: 3)!, data: ByteBuffer())),
            ("continuation first", WebSocketFrame(fin: true, opcode: .continuation, data: ByteBuffer(string: "a"))),
            ("text that is not UTF-8", WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: [0xC0, 0xAF]))),
            ("close code 1005 on the wire", .close(1005)),
            ("a fragmented ping", WebSocketFrame(fin: false, opcode: .ping, data: ByteBuffer())),
        ]

        @Test("a server that breaks the protocol fails the reader with badResponse and gets a close", arguments: hostile)
        func hostileFrames(name: String, frame: WebSocketFrame) async throws {
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(frames: [frame]) }) { server in
                let socket = try await Self.socket(server)
                let error = await #expect(throws: CourierError.self) { for try await _ in socket.messages {} }
                #expect(error?.transportKind == .badResponse, "\(name): \(String(describing: error))")
            }
        }

        @Test("a 401 on the upgrade refreshes the credential once and the retry is upgraded")
        func refreshOn401() async throws {
            let plan: @Sendable (HTTPRequestHead) -> WebSocketTestServer.Plan = { head in
                head.headers["Authorization"].first == "Bearer fresh" ? .echo : .refuse(.unauthorized, body: "expired")
            }
            try await WebSocketTestServer.run(plan: plan) { server in
                let refreshes = LockedState(0)
                let refresher = TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "stale", refreshToken: "r"))) { _ in
                    refreshes.withLock { $0 += 1 }
                    return TokenCredential(accessToken: "fresh", refreshToken: "r")
                }
                let socket = try await Self.client(refresher: refresher).enqueue(SocketEndpoint(base: server.baseURL, pathString: "/ws", authorized: true))
                    .webSocket()
                try await socket.send(.text("hi"))
                var iterator = socket.messages.makeAsyncIterator()
                #expect(try await iterator.next() == .text("hi"))
                #expect(server.requests.withLock { $0 }.map { $0.headers["Authorization"].first } == ["Bearer stale", "Bearer fresh"])
                #expect(refreshes.withLock { $0 } == 1)
                await socket.close()
            }
        }

        @Test("a 101 with a wrong Sec-WebSocket-Accept, or a subprotocol not offered, is a failed handshake")
        func badHandshake() async throws {
            let plan: @Sendable (HTTPRequestHead) -> WebSocketTestServer.Plan = { head in
                if head.uri == "/wrong-accept" {
                    return .refuse(
                        .switchingProtocols,
                        headers: ["Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": "AAAAAAAAAAAAAAAAAAAAAAAAAAA="])
                }
                return WebSocketTestServer.Plan(headers: ["Sec-WebSocket-Protocol": "evil.v1"])
            }
            try await WebSocketTestServer.run(plan: plan) { server in
                for path in ["/wrong-accept", "/other-protocol"] {
                    let error = await #expect(throws: CourierError.self) {
                        try await Self.socket(server, path, WebSocket.Options(subprotocols: ["chat.v1"]))
                    }
                    #expect(error?.transportKind == .badResponse, "\(path)")
                }
            }
        }

        @Test("the offered subprotocols are sent; the one chosen is the socket's")
        func subprotocol() async throws {
            let plan: @Sendable (HTTPRequestHead) -> WebSocketTestServer.Plan = { _ in WebSocketTestServer.Plan(headers: ["Sec-WebSocket-Protocol": "chat.v1"])
            }
            try await WebSocketTestServer.run(plan: plan) { server in
                let socket = try await Self.socket(server, "/ws", WebSocket.Options(subprotocols: ["chat.v2", "chat.v1"]))
                #expect(socket.subprotocol == "chat.v1")
                #expect(server.requests.withLock { $0 }.first?.headers["Sec-WebSocket-Protocol"] == ["chat.v2, chat.v1"])
                await socket.close()
            }
        }

        @Test("a refused upgrade is the response: status and body kept")
        func refusedUpgrade() async throws {
            try await WebSocketTestServer.run(plan: { _ in .refuse(.forbidden, body: "not for you") }) { server in
                let error = await #expect(throws: CourierError.self) { try await Self.socket(server) }
                #expect(error?.response?.statusCode == 403)
                #expect(error?.response?.body == Data("not for you".utf8))
            }
        }

        @Test("a silent server is pinged, then the socket times out")
        func idleTimeout() async throws {
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(answersPings: false) }) { server in
                let socket = try await Self.socket(server, "/ws", WebSocket.Options(pingInterval: .milliseconds(50)))
                let error = await #expect(throws: CourierError.self) { for try await _ in socket.messages {} }
                #expect(error?.transportKind == .timedOut)
                var closes = server.closes.makeAsyncIterator()
                _ = await closes.next()  // the server has read all the client sent
                #expect(server.received.withLock { $0 }.contains { $0.opcode == .ping })
            }
        }

        @Test("a slow reader with a 2-message buffer gets 64 large messages, in order")
        func backpressure() async throws {
            // 64 messages of 256 KiB sent at once, read one at a time.
            let frames = (0..<64).map { WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(repeating: UInt8($0), count: 256 << 10)) }
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(frames: frames) }) { server in
                let socket = try await Self.socket(server, "/ws", WebSocket.Options(bufferedMessages: 2))
                var iterator = socket.messages.makeAsyncIterator()
                for index in 0..<64 {
                    let message = try await iterator.next()
                    #expect(message == .data(Data(repeating: UInt8(index), count: 256 << 10)))
                }
                await socket.close()
            }
        }

        @Test("cancelling the reading task closes the socket with 1001, which the server sees")
        func cancellation() async throws {
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(frames: [.text("one")], echoes: false) }) { server in
                let socket = try await Self.socket(server)
                let (first, firstArrived) = AsyncStream<Void>.makeStream()
                let reader = Task {
                    for try await _ in socket.messages { firstArrived.yield() }
                }
                var arrivals = first.makeAsyncIterator()
                await arrivals.next()
                reader.cancel()
                let error = await #expect(throws: CourierError.self) { try await reader.value }
                guard case .cancelled? = error else { Issue.record("got \(String(describing: error))"); return }
                await #expect(throws: CourierError.self) { try await socket.send(.text("after")) }
                var closes = server.closes.makeAsyncIterator()
                #expect(await closes.next() == .some(1001))
            }
        }

        @Test("1,000 sockets at once on loopback, each echoing its own messages, all closed")
        func thousandSockets() async throws {
            try await WebSocketTestServer.run { server in
                let client = Self.client()
                let endpoint = SocketEndpoint(base: server.baseURL, pathString: "/ws")
                let matched = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<1_000 {
                        group.addTask {
                            let socket = try await client.enqueue(endpoint).webSocket()
                            var iterator = socket.messages.makeAsyncIterator()
                            var matched = 0
                            for round in 0..<3 {
                                try await socket.send(.text("\(index).\(round)"))
                                if try await iterator.next() == .text("\(index).\(round)") { matched += 1 }
                            }
                            await socket.close()
                            return matched
                        }
                    }
                    return try await group.reduce(0, +)
                }
                #expect(matched == 3_000)
                #expect(server.requests.withLock { $0.count } == 1_000)
            }
        }
    }

    /// An endpoint on a test server, with or without authorization.
    struct SocketEndpoint: Requestable {
        var base: BaseURL
        var pathString: String
        var authorized = false
        var requiresAuthorization: Bool { authorized }
        func baseURL() throws(CourierError) -> BaseURL { base }
        func path() throws(CourierError) -> URLPath { try URLPath(pathString) }
    }

    extension CourierError {
        /// The kind of a transport failure, if this is one.
        var transportKind: TransportFailure.Kind? {
            if case .transport(let failure) = self { return failure.kind }
            return nil
        }
    }
#endif
