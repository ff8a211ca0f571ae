import Courier
import CourierTesting
import CourierWebSockets
import Foundation
import Testing

/// WebSocket calls through the whole pipeline, against CourierTesting's scripted peer.
@Suite("WebSockets against the scripted peer")
struct WebSocketStubTests {
    /// A client of api.example.com signing with `refresher`, when given.
    func client(_ refresher: TokenRefresher? = nil) -> Client {
        Client(
            configuration: Configuration(
                authentication: refresher.map { .bearer($0) } ?? .none, authorizedHosts: ["api.example.com"]))
    }

    @Test("messages go both ways in order; the peer's 1000 ends the reader; the upgrade request is recorded")
    func echo() async throws {
        try await withStubbedNetwork { network in
            network.stub(
                .get, "/chat",
                with: .webSocket { peer in
                    while let message = await peer.receive() {
                        try peer.send(message)
                        if message == .text("bye") { break }
                    }
                    peer.close(code: 1000)
                })
            let socket = try await client().enqueue(TestEndpoint(.get, "/chat")).webSocket()
            #expect(socket.head.status == .switchingProtocols)
            let sent: [WebSocket.Message] = (0..<100).map { $0.isMultiple(of: 2) ? .text("m\($0)") : .data(Data([UInt8($0)])) } + [.text("bye")]
            for message in sent { try await socket.send(message) }
            var received: [WebSocket.Message] = []
            for try await message in socket.messages { received.append(message) }
            #expect(received == sent)
            #expect(network.requests.first?.url.path == "/chat")
        }
    }

    @Test("a close code other than 1000/1001 ends the reader with webSocketClosed, code and reason kept", arguments: [1008, 1011, 4001] as [UInt16])
    func abnormalClose(code: UInt16) async throws {
        try await withStubbedNetwork { network in
            network.stub(
                .get, "/chat",
                with: .webSocket { peer in
                    try peer.send(.text("first"))
                    peer.close(code: code, reason: "policy")
                })
            let socket = try await client().enqueue(TestEndpoint(.get, "/chat")).webSocket()
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("first"))
            let error = await #expect(throws: CourierError.self) { try await iterator.next() }
            guard let close = error?.webSocketClose else { Issue.record("expected webSocketClosed, got \(String(describing: error))"); return }
            #expect(close == WebSocketClose(code: code, reason: "policy"))
            await #expect(throws: CourierError.self) { try await socket.send(.text("late")) }
        }
    }

    @Test("a 401 on the upgrade refreshes the credential once and the retried upgrade carries the new token")
    func refreshOn401() async throws {
        try await withStubbedNetwork { network in
            let seen = LockedState<[String?]>([])
            network.stub { request in
                guard request.url.path == "/live" else { return nil }
                let authorization = request.headers[.authorization]
                seen.withLock { $0.append(authorization) }
                return authorization == "Bearer fresh" ? .webSocket { peer in try peer.send(.text("welcome")) } : .status(401)
            }
            let refreshes = LockedState(0)
            let refresher = TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "stale", refreshToken: "r"))) { _ in
                refreshes.withLock { $0 += 1 }
                return TokenCredential(accessToken: "fresh", refreshToken: "r")
            }
            let socket = try await client(refresher).enqueue(TestEndpoint(.get, "/live")).webSocket()
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("welcome"))
            #expect(seen.withLock { $0 } == ["Bearer stale", "Bearer fresh"])
            #expect(refreshes.withLock { $0 } == 1)
        }
    }

    @Test("a refused upgrade throws the response, its status and body kept")
    func refused() async throws {
        await withStubbedNetwork { network in
            network.stub(.get, "/chat", with: .text("no sockets here", status: 403))
            let error = await #expect(throws: CourierError.self) { try await client().enqueue(TestEndpoint(.get, "/chat")).webSocket() }
            #expect(error?.response?.statusCode == 403)
            #expect(error?.response?.body == Data("no sockets here".utf8))
        }
    }

    @Test("the offered subprotocols are sent, the chosen one is read from the head")
    func subprotocols() async throws {
        try await withStubbedNetwork { network in
            network.stub(.get, "/chat", with: .webSocket(subprotocol: "chat.v2") { _ in })
            let socket = try await client().enqueue(TestEndpoint(.get, "/chat")).webSocket(WebSocket.Options(subprotocols: ["chat.v2", "chat.v1"]))
            #expect(socket.subprotocol == "chat.v2")
            #expect(network.requests.first?.headers[.secWebSocketProtocol] == "chat.v2, chat.v1")
        }
    }

    @Test("a call that cannot be a WebSocket fails before anything is sent")
    func unavailable() async throws {
        await withStubbedNetwork { network in
            network.stub(.post, "/chat", with: .status(200))
            network.stub(.get, "/chat", with: .status(200))
            for endpoint in [TestEndpoint(.post, "/chat"), TestEndpoint(.get, "/chat", body: .text("x"))] {
                await #expect(throws: CourierError.self) { try await client().enqueue(endpoint).webSocket() }
            }
            let error = await #expect(throws: CourierError.self) {
                try await client().enqueue(TestEndpoint(.get, "/chat")).webSocket(WebSocket.Options(subprotocols: ["a b"]))
            }
            guard case .invalidRequest(let problem)? = error else { Issue.record("expected invalidRequest"); return }
            #expect(problem == .webSocketUnavailable("the subprotocol \"a b\" is not a token"))
            // A transport of the app's own, which cannot open WebSockets.
            let plain = Client(configuration: Configuration(transport: RecordingOnlyTransport()))
            await #expect(throws: CourierError.self) { try await plain.enqueue(TestEndpoint(.get, "/chat")).webSocket() }
            #expect(network.requests.isEmpty)
        }
    }

    @Test("a 200 where 101 was asked for is a bad response, not a socket")
    func notUpgraded() async throws {
        await withStubbedNetwork { network in
            network.stub(.get, "/chat", with: .text("hello"))
            let error = await #expect(throws: CourierError.self) { try await client().enqueue(TestEndpoint(.get, "/chat")).webSocket() }
            guard case .transport(let failure)? = error else { Issue.record("expected a transport failure, got \(String(describing: error))"); return }
            #expect(failure.kind == .badResponse)
        }
    }

    @Test("cancelling the reading task closes the socket with 1001; the peer sees it")
    func cancellationCloses() async throws {
        try await withStubbedNetwork { network in
            let closed = AsyncStream<UInt16?>.makeStream()
            network.stub(
                .get, "/chat",
                with: .webSocket { peer in
                    try peer.send(.text("one"))
                    while await peer.receive() != nil {}
                    closed.continuation.yield(peer.clientClose?.code)
                })
            let socket = try await client().enqueue(TestEndpoint(.get, "/chat")).webSocket()
            let first = AsyncStream<Void>.makeStream()
            let reader = Task {
                var count = 0
                for try await _ in socket.messages {
                    count += 1
                    first.continuation.yield()
                }
                return count
            }
            var iterator = first.stream.makeAsyncIterator()
            await iterator.next()
            reader.cancel()
            let error = await #expect(throws: CourierError.self) { try await reader.value }
            guard case .cancelled? = error else { Issue.record("expected cancelled, got \(String(describing: error))"); return }
            var closes = closed.stream.makeAsyncIterator()
            #expect(await closes.next() == .some(1001))
        }
    }

    @Test("1,000 concurrent sockets each get their own peer and exactly their own messages")
    func concurrentSockets() async throws {
        try await withStubbedNetwork { network in
            network.stub { request in
                .webSocket { peer in
                    while let message = await peer.receive() { try peer.send(message) }
                }
            }
            let client = client()
            let matched = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<1_000 {
                    group.addTask {
                        let socket = try await client.enqueue(TestEndpoint(.get, "/s/\(index)")).webSocket()
                        try await socket.send(.text("\(index)"))
                        var iterator = socket.messages.makeAsyncIterator()
                        let echoed = try await iterator.next()
                        await socket.close()
                        return echoed == .text("\(index)")
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(matched == 1_000)
        }
    }
}

/// A transport that answers every request with 204 and cannot open WebSockets.
struct RecordingOnlyTransport: Transport {
    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        StreamedResponse(status: .noContent, url: request.url)
    }
}
