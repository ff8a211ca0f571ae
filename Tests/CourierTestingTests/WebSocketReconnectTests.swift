import Courier
import CourierTesting
import CourierWebSockets
import Foundation
import Testing

/// `webSocket(reconnecting:)`: which ends reopen the socket, how long it waits (an injected
/// clock), when it refreshes the credential first, and when it gives up.
@Suite("WebSocket reconnection")
struct WebSocketReconnectTests {
    static let policy = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(1), maxDelay: .seconds(8))

    /// A client of api.example.com with `clock`, signing with `refresher` when given.
    static func client(_ clock: TestClock, _ refresher: TokenRefresher? = nil) -> Client {
        Client(
            configuration: Configuration(
                authentication: refresher.map { .bearer($0) } ?? .none, authorizedHosts: ["api.example.com"], retryPolicy: .none,
                clock: clock))
    }

    /// Stubs `/live` with `script`, given each upgrade's number from 1.
    static func stub(_ network: NetworkStub, _ script: @escaping @Sendable (Int, WebSocketPeer) async throws -> Void) {
        let count = LockedState(0)
        network.stub(
            .get, "/live",
            with: .webSocket { peer in
                let number = count.withLock {
                    $0 += 1
                    return $0
                }
                try await script(number, peer)
            })
    }

    /// The code of a `webSocketClosed` error.
    static func closeCode(_ error: CourierError) -> UInt16? {
        if let close = error.webSocketClose { return close.code }
        return nil
    }

    /// Reads the first message and returns it.
    static func firstMessage(_ socket: WebSocket) async throws(CourierError) -> WebSocket.Message? {
        var iterator = socket.messages.makeAsyncIterator()
        return try await iterator.next()
    }

    @Test("a server going away, restarting or failing (1001, 1012, 1011) is reconnected to after a growing, jittered wait")
    func transientCloses() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        try await withStubbedNetwork { network in
            Self.stub(network) { number, peer in
                switch number {
                case 1: peer.close(code: 1001)
                case 2: peer.close(code: 1012)
                case 3: peer.close(code: 1011)
                default: try peer.send(.text("hello \(number)"))
                }
                _ = await peer.receive()
            }
            let bodies = LockedState(0)
            let first = try await Self.client(clock).enqueue(TestEndpoint(.get, "/live")).webSocket(reconnecting: RetryPolicy(maxAttempts: 4)) {
                socket in
                bodies.withLock { $0 += 1 }
                return try await Self.firstMessage(socket)
            }
            #expect(first == .text("hello 4"))
            #expect(bodies.withLock { $0 } == 4)
            #expect(network.requests.count == 4)
        }
        // Full jitter under ceilings of 250 ms, 500 ms, 1 s (RetryPolicy's default base).
        let sleeps = clock.sleeps
        #expect(sleeps.count == 3)
        for (index, sleep) in sleeps.enumerated() {
            #expect(sleep >= .zero && sleep <= .milliseconds(250) * (1 << index))
        }
    }

    @Test("a close with an authentication code refreshes the credential once, then the new socket carries the new token")
    func refreshesOnAuthenticationClose() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        let refreshes = LockedState(0)
        let refresher = TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "stale", refreshToken: "r"))) { _ in
            refreshes.withLock { $0 += 1 }
            return TokenCredential(accessToken: "fresh", refreshToken: "r")
        }
        try await withStubbedNetwork { network in
            Self.stub(network) { _, peer in
                if peer.request.headers[.authorization] == "Bearer fresh" {
                    try peer.send(.text("authorized"))
                } else {
                    peer.close(code: 4401, reason: "token expired")
                }
                _ = await peer.receive()
            }
            let first = try await Self.client(clock, refresher).enqueue(TestEndpoint(.get, "/live")).webSocket(reconnecting: Self.policy) {
                socket in
                try await Self.firstMessage(socket)
            }
            #expect(first == .text("authorized"))
            #expect(refreshes.withLock { $0 } == 1)
            #expect(network.requests.map { $0.headers[.authorization] } == ["Bearer stale", "Bearer fresh"])
        }
    }

    @Test(
        "an authentication close without a credential to refresh, or a code not worth another try, ends it at once",
        arguments: [4401, 4000, 1003] as [UInt16])
    func stops(code: UInt16) async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        await withStubbedNetwork { network in
            Self.stub(network) { _, peer in peer.close(code: code) }
            let error = await #expect(throws: CourierError.self) {
                try await Self.client(clock).enqueue(TestEndpoint(.get, "/live")).webSocket(reconnecting: Self.policy) { socket in
                    try await Self.firstMessage(socket)
                }
            }
            #expect(error.map(Self.closeCode) == code)
            #expect(network.requests.count == 1)
        }
        #expect(clock.sleeps.isEmpty)
    }

    @Test("an error of the closure's own is thrown as it is, without reconnecting")
    func closureErrors() async throws {
        struct Unexpected: Error {}
        let clock = TestClock(sleepsReturnImmediately: true)
        await withStubbedNetwork { network in
            Self.stub(network) { _, peer in
                try peer.send(.text("?"))
                _ = await peer.receive()
            }
            await #expect(throws: Unexpected.self) {
                try await Self.client(clock).enqueue(TestEndpoint(.get, "/live")).webSocket(reconnecting: Self.policy) { socket in
                    _ = try await Self.firstMessage(socket)
                    throw Unexpected()
                }
            }
            #expect(network.requests.count == 1)
        }
    }

    @Test("maxAttempts sockets in a row that end before a message: the last error is thrown")
    func givesUp() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        await withStubbedNetwork { network in
            Self.stub(network) { _, peer in peer.close(code: 1011, reason: "down") }
            let error = await #expect(throws: CourierError.self) {
                try await Self.client(clock).enqueue(TestEndpoint(.get, "/live")).webSocket(reconnecting: Self.policy) { socket in
                    try await Self.firstMessage(socket)
                }
            }
            #expect(error.map(Self.closeCode) == 1011)
            #expect(network.requests.count == 3)
        }
        #expect(clock.sleeps.count == 2)
    }

    @Test("a socket that delivered messages starts a new streak: drops after messages never use up the attempts")
    func productiveSocketsResetTheStreak() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        try await withStubbedNetwork { network in
            Self.stub(network) { number, peer in
                try peer.send(.text("tick \(number)"))
                if number < 8 { peer.close(code: 1012) } else { _ = await peer.receive() }
            }
            let ticks = LockedState<[String]>([])
            try await Self.client(clock).enqueue(TestEndpoint(.get, "/live")).webSocket(reconnecting: RetryPolicy(maxAttempts: 2)) { socket in
                for try await message in socket.messages {
                    guard case .text(let tick) = message else { continue }
                    ticks.withLock { $0.append(tick) }
                    if tick == "tick 8" { return }
                }
            }
            #expect(ticks.withLock { $0 } == (1...8).map { "tick \($0)" })
        }
    }

    @Test("a refused upgrade: 503 is tried again, 403 is not", arguments: [(503, 3), (403, 1)])
    func refusedUpgrade(status: Int, upgrades: Int) async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        await withStubbedNetwork { network in
            network.stub(.get, "/live", with: .status(status))
            let error = await #expect(throws: CourierError.self) {
                try await Self.client(clock).enqueue(TestEndpoint(.get, "/live")).webSocket(reconnecting: Self.policy) { socket in
                    try await Self.firstMessage(socket)
                }
            }
            #expect(error?.response?.statusCode == status)
            #expect(network.requests.count == upgrades)
        }
    }

    @Test("cancelling the task ends it: no reconnection")
    func cancellation() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        await withStubbedNetwork { network in
            Self.stub(network) { _, peer in
                try peer.send(.text("ready"))
                _ = await peer.receive()
            }
            let (ready, signal) = AsyncStream<Void>.makeStream()
            let client = Self.client(clock)
            let task = Task {
                try await client.enqueue(TestEndpoint(.get, "/live")).webSocket(reconnecting: Self.policy) { socket in
                    for try await _ in socket.messages { signal.yield() }
                }
            }
            var iterator = ready.makeAsyncIterator()
            await iterator.next()
            task.cancel()
            let result = await task.result
            guard case .failure(CourierError.cancelled) = result else { Issue.record("got \(result)"); return }
            #expect(network.requests.count == 1)
        }
    }
}
