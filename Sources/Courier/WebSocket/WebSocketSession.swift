package import Foundation
import HTTPTypes

/// A whole WebSocket message (CourierWebSockets' `WebSocket.Message`).
package enum WebSocketMessage: Sendable, Hashable {
    case text(String)
    case data(Data)
}

/// The limits and settings of one socket (CourierWebSockets' `WebSocket.Options`, which documents
/// each field).
package struct WebSocketSettings: Sendable, Equatable {
    package var subprotocols: [String]
    package var maximumMessageSize: Int
    package var bufferedMessages: Int
    package var pingInterval: Duration?

    package init(
        subprotocols: [String] = [], maximumMessageSize: Int = 1 << 20, bufferedMessages: Int = 16, pingInterval: Duration? = .seconds(30)
    ) {
        self.subprotocols = subprotocols
        self.maximumMessageSize = maximumMessageSize
        self.bufferedMessages = bufferedMessages
        self.pingInterval = pingInterval
    }
}

/// An open WebSocket: the machinery behind CourierWebSockets' `WebSocket`, which documents what
/// each operation does and throws. The connection is abandoned when the last reference goes.
package final class WebSocketSession: Sendable {
    /// The server's `101 Switching Protocols` response head.
    package let head: ResponseHead
    let connection: any WebSocketConnection
    /// The socket's span and counters, when its client reports to a tracer or metrics.
    let observation: WebSocketObservation?
    /// How many messages its reader got (``Call/reconnectingWebSocket(_:reconnecting:refreshingOn:_:)``
    /// counts the sockets that ended before any).
    let receivedMessages = LockedState(0)

    init(head: ResponseHead, connection: any WebSocketConnection, observation: WebSocketObservation? = nil) {
        self.head = head
        self.connection = connection
        self.observation = observation
    }

    deinit {
        connection.abandon()
        observation?.ended(nil)
    }

    package func send(_ message: WebSocketMessage) async throws(CourierError) {
        try await connection.send(message)
        observation?.sent(message)
    }

    package func ping() async throws(CourierError) {
        try await connection.ping()
    }

    package func close(code: UInt16 = 1000, reason: String = "") async {
        await connection.close(code: WebSocketClose.isValidOnTheWire(code) ? code : 1000, reason: reason)
        observation?.ended(nil)
    }

    /// The next message, or `nil` after a normal close; cancelling the reading task closes the
    /// socket with 1001 and throws ``CourierError/cancelled``.
    package func next() async throws(CourierError) -> WebSocketMessage? {
        let connection = connection
        let result: Result<WebSocketMessage?, CourierError> = await withTaskCancellationHandler {
            do throws(CourierError) {
                return .success(try await connection.receive())
            } catch {
                return .failure(error)
            }
        } onCancel: {
            connection.abandon(code: 1001)
        }
        if Task.isCancelled {
            connection.abandon(code: 1001)
            observation?.ended(.cancelled)
            throw .cancelled
        }
        if case .success(_?) = result { receivedMessages.withLock { $0 += 1 } }
        if let observation {
            switch result {
            case .success(let message?): observation.received(message)
            case .success(nil): observation.ended(nil)
            case .failure(let error): observation.ended(error)
            }
        }
        return try result.get()
    }
}

/// How a WebSocket was closed: a close frame's code and reason, or the one a socket was closed with
/// (``CourierError/webSocketClosed(code:reason:)`` carries a peer's abnormal one).
package struct WebSocketClose: Error, Sendable, Equatable, CustomStringConvertible {
    package var code: UInt16
    package var reason: String

    package init(code: UInt16, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// `close code 1008: "policy violation"`, the reason escaped.
    package var description: String {
        reason.isEmpty ? "close code \(code)" : "close code \(code): \"\(Redaction.singleLine(reason))\""
    }
}
