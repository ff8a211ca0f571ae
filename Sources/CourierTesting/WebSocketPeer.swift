public import Courier
public import CourierWebSockets
import Foundation
import Testing

extension StubResponse {
    /// Answers a WebSocket call (`Call.webSocket(_:)`) with `101 Switching Protocols` and plays
    /// `script` as the server, in memory: receive the client's messages, reply, close.
    ///
    /// ```swift
    /// network.stub(.get, "/chat", with: .webSocket { peer in
    ///     #expect(await peer.receive() == .text("hello"))
    ///     try peer.send(.text("hi, Ada"))
    ///     peer.close(code: 4000, reason: "bye")
    /// })
    /// ```
    /// A script that returns without closing closes with 1000; one that throws closes with 1011
    /// and records the error as a test issue. A request that is not a WebSocket call fails with
    /// a transport failure naming the stub.
    public static func webSocket(subprotocol: String? = nil, _ script: @escaping @Sendable (WebSocketPeer) async throws -> Void) -> StubResponse {
        var headers: HTTPFields = [.upgrade: "websocket", .connection: "Upgrade"]
        if let subprotocol { headers[.secWebSocketProtocol] = subprotocol }
        var response = StubResponse(statusCode: 101, headers: headers)
        response.peerScript = WebSocketPeer.Script(run: script)
        return response
    }
}

/// The server side of a stubbed WebSocket (``StubResponse/webSocket(subprotocol:_:)``), handed
/// to the stub's script.
public final class WebSocketPeer: Sendable {
    /// The upgrade request the client sent.
    public let request: RecordedRequest
    private let end: WebSocketPipe.End

    init(request: RecordedRequest, end: WebSocketPipe.End) {
        self.request = request
        self.end = end
    }

    /// The client's next message, or `nil` once the client closed (``clientClose`` says how) or
    /// the script closed.
    public func receive() async -> WebSocket.Message? {
        switch (try? await end.receive()) ?? nil {
        case .message(let message): return WebSocket.Message(message)
        case .close(let close):
            end.close(close)
            return nil
        case nil: return nil
        }
    }

    /// How the client closed the socket, once it has (code 1001 when its reader was cancelled or
    /// the socket dropped).
    public var clientClose: (code: UInt16, reason: String)? {
        end.received.map { ($0.code, $0.reason) }
    }

    /// Sends `message` to the client.
    /// - Throws: `CourierError.webSocketClosed(code:reason:)` once either side closed.
    public func send(_ message: WebSocket.Message) throws(CourierError) {
        try end.send(message.frame)
    }

    /// Closes the socket with `code` and `reason`; the client's reader ends (1000) or throws
    /// `CourierError.webSocketClosed(code:reason:)` (any other code).
    public func close(code: UInt16 = 1000, reason: String = "") {
        end.close(WebSocketClose(code: code, reason: reason))
    }

    /// A script, compared by identity (``StubResponse`` is `Equatable`).
    final class Script: Sendable, Equatable {
        let run: @Sendable (WebSocketPeer) async throws -> Void

        init(run: @escaping @Sendable (WebSocketPeer) async throws -> Void) {
            self.run = run
        }

        static func == (lhs: Script, rhs: Script) -> Bool { lhs === rhs }
    }

    /// Connects a client to a new peer running `script` and returns the client's connection.
    static func start(_ script: Script, request: RecordedRequest) -> any WebSocketConnection {
        let (client, server) = WebSocketPipe.makePair()
        let peer = WebSocketPeer(request: request, end: server)
        Task {
            do {
                try await script.run(peer)
                peer.close()
            } catch {
                peer.close(code: 1011, reason: "the script failed")
                Issue.record(error, "the WebSocket stub's script failed")
            }
        }
        return PipeWebSocketConnection(client)
    }
}
