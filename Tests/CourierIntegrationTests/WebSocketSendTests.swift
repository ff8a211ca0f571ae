#if AsyncHTTPClientLinked && !canImport(Darwin)
    import CourierWebSockets
    import Foundation
    import NIOCore
    import Testing

    @testable import Courier

    /// Sending over SwiftNIO: a send returns once its frame is queued, a peer that does not read
    /// holds the sender within the send window, and a waiting send can be cancelled.
    @Suite("WebSockets over SwiftNIO: sending to a slow peer")
    struct WebSocketSendTests {
        static let message = Data(repeating: 9, count: 16 << 10)
        /// 10 MiB: more than twice what loopback's socket buffers held for a peer that does not
        /// read (about 4 MiB: the sender was held after 82 messages of 48 KiB).
        static let count = 640

        /// Sends ``message`` `count` times from a task of its own; returns the task, how many sends
        /// returned (-1 once all did or one threw), and the most bytes that waited to be written
        /// after a send returned.
        static func sending(_ socket: WebSocket, _ connection: NIOWebSocketConnection) -> (Task<Void, any Error>, LockedState<Int>, LockedState<Int>) {
            let sent = LockedState(0)
            let most = LockedState(0)
            let sender = Task {
                defer { sent.withLock { $0 = -1 } }
                for index in 0..<count {
                    try await socket.send(.data(Data(repeating: UInt8(index % 256), count: message.count)))
                    sent.withLock { $0 = index + 1 }
                    let waiting = connection.sendQueue.bytes
                    most.withLock { $0 = max($0, waiting) }
                }
            }
            return (sender, sent, most)
        }

        /// Returns whether a send waits because the kernel takes no more: SwiftNIO holds bytes it
        /// could not write (it buffers only after the socket refused some) while the peer does not
        /// read, so the wait lasts; `false` when the sender ended first.
        static func held(_ connection: NIOWebSocketConnection, sent: LockedState<Int>) async -> Bool {
            while true {
                if sent.withLock({ $0 }) < 0 { return false }
                if connection.sendQueue.waiting > 0 {
                    // The option fails once the channel closed: then the sender ends soon.
                    if let buffered = try? await connection.channel.getOption(.bufferedWritableBytes).get(), buffered > 0 { return true }
                }
                await Task.yield()
            }
        }

        static func open(_ server: WebSocketTestServer) async throws -> (WebSocket, NIOWebSocketConnection) {
            let socket = try await WebSocketIntegrationTests.socket(server)
            let connection = try #require(socket.session.connection as? NIOWebSocketConnection)
            return (socket, connection)
        }

        @Test("a peer that does not read holds the sender within the send window; once it reads, every message arrives, in order")
        func slowPeerHoldsSender() async throws {
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(echoes: false, holdsReads: true) }) { server in
                let (socket, connection) = try await Self.open(server)
                let (sender, sent, most) = Self.sending(socket, connection)
                #expect(await Self.held(connection, sent: sent))
                // About 250 of 640 in 16 KiB messages; the rest wait for the peer.
                #expect((1..<Self.count).contains(sent.withLock { $0 }))
                #expect(connection.sendQueue.bytes <= NIOWebSocketConnection.sendWindow + Self.message.count)
                try await server.releaseReads()
                try await sender.value
                #expect(most.withLock { $0 } <= NIOWebSocketConnection.sendWindow + Self.message.count)
                await socket.close()
                var closes = server.closes.makeAsyncIterator()
                #expect(await closes.next() == .some(1000))
                #expect(connection.sendQueue.bytes == 0)
                let payloads = server.received.withLock { $0 }.filter { $0.opcode == .binary }.map(\.unmaskedData)
                #expect(payloads.count == Self.count)
                #expect(payloads.enumerated().allSatisfy { $1 == ByteBuffer(repeating: UInt8($0 % 256), count: Self.message.count) })
            }
        }

        @Test("cancelling a send that waits for a peer that does not read throws cancelled and closes the socket")
        func cancelWaitingSend() async throws {
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(echoes: false, holdsReads: true) }) { server in
                let (socket, connection) = try await Self.open(server)
                let (sender, sent, _) = Self.sending(socket, connection)
                #expect(await Self.held(connection, sent: sent))
                sender.cancel()
                let error = await #expect(throws: CourierError.self) { try await sender.value }
                guard case .cancelled? = error else {
                    Issue.record("got \(String(describing: error))")
                    return
                }
                await #expect(throws: CourierError.self) { try await socket.send(.text("after")) }
                var iterator = socket.messages.makeAsyncIterator()
                #expect(try await iterator.next() == nil)
                try await server.releaseReads()
            }
        }

        @Test("2,000 tasks sending on one socket at once: every message reaches the server once, whole")
        func concurrentSenders() async throws {
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(echoes: false) }) { server in
                let (socket, connection) = try await Self.open(server)
                // 4.5 MB at once: past the window, some sends wait while others queue.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<2_000 {
                        group.addTask { try await socket.send(.text("\(index):" + String(repeating: "x", count: index % 7 * 1_500))) }
                    }
                    try await group.waitForAll()
                }
                await socket.close()
                var closes = server.closes.makeAsyncIterator()
                #expect(await closes.next() == .some(1000))
                let texts = server.received.withLock { $0 }.filter { $0.opcode == .text }.map { String(buffer: $0.unmaskedData) }
                #expect(texts.count == 2_000)
                #expect(Set(texts) == Set((0..<2_000).map { "\($0):" + String(repeating: "x", count: $0 % 7 * 1_500) }))
                #expect(connection.sendQueue.bytes == 0 && connection.sendQueue.waiting == 0)
            }
        }

        @Test("a connection reset while sends are queued fails the following sends and the reader with connectionLost")
        func resetSurfaces() async throws {
            try await WebSocketTestServer.run(plan: { _ in WebSocketTestServer.Plan(echoes: false, resets: true) }) { server in
                let (socket, _) = try await Self.open(server)
                let error = await #expect(throws: CourierError.self) {
                    for _ in 0..<100_000 { try await socket.send(.data(Self.message)) }
                }
                #expect(error?.transportKind == .connectionLost)
                let again = await #expect(throws: CourierError.self) { try await socket.send(.text("after")) }
                #expect(again?.transportKind == .connectionLost)
                let reader = await #expect(throws: CourierError.self) { for try await _ in socket.messages {} }
                #expect(reader?.transportKind == .connectionLost)
            }
        }
    }
#endif
