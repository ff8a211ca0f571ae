public import Foundation
import HTTPTypes

/// An open WebSocket (RFC 6455), from ``Call/webSocket(_:)``: send messages, read the peer's as
/// an `AsyncSequence`, ping, and close.
///
/// ```swift
/// let socket = try await client.enqueue(chat).webSocket()
/// try await socket.send(.text("hello"))
/// for try await message in socket.messages {
///     if case .text(let line) = message { print(line) }
/// }
/// ```
/// The socket closes when ``close(code:reason:)`` is called, when the peer closes it, when the
/// task reading ``messages`` is cancelled (code 1001), or when the last reference to it goes.
public final class WebSocket: Sendable {
    /// A whole message: text (valid UTF-8) or binary.
    public enum Message: Sendable, Hashable {
        /// A text message.
        case text(String)
        /// A binary message.
        case data(Data)
    }

    /// The limits and settings of one socket.
    public struct Options: Sendable, Equatable {
        /// The subprotocols offered in `Sec-WebSocket-Protocol`, preferred first; the one the
        /// server chose is ``WebSocket/subprotocol``. Default: none.
        public var subprotocols: [String]
        /// The most bytes one incoming message may have; a larger one closes the socket with code
        /// 1009 and fails the reader with a `responseTooLarge` transport failure. Default: 1 MiB.
        public var maximumMessageSize: Int
        /// How many received messages wait for the reader before the socket stops reading from the
        /// network (the peer then waits too). Default: 16.
        public var bufferedMessages: Int
        /// How long the connection may stay silent before a ping is sent; a second silent interval
        /// closes it with a `timedOut` transport failure. `nil` sends no pings. Default: 30 seconds.
        public var pingInterval: Duration?

        /// Options with the given settings; every parameter has the default described above.
        public init(
            subprotocols: [String] = [], maximumMessageSize: Int = 1 << 20, bufferedMessages: Int = 16,
            pingInterval: Duration? = .seconds(30)
        ) {
            self.subprotocols = subprotocols
            self.maximumMessageSize = maximumMessageSize
            self.bufferedMessages = bufferedMessages
            self.pingInterval = pingInterval
        }
    }

    /// The server's `101 Switching Protocols` response head.
    public let head: ResponseHead

    let connection: any WebSocketConnection
    /// The socket's span and counters, when its client reports to a tracer or metrics.
    let observation: WebSocketObservation?
    /// How many messages its reader got (``Call/webSocket(_:reconnecting:refreshingOn:_:)`` counts
    /// the sockets that ended before any).
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

    /// The subprotocol the server chose from ``Options/subprotocols``, if any.
    public var subprotocol: String? {
        head.headers[.secWebSocketProtocol]
    }

    /// The peer's messages, in order. One task reads them; cancelling it closes the socket with
    /// code 1001. The sequence ends after ``close(code:reason:)`` or the peer's normal close (code
    /// 1000 or none) and throws ``CourierError/webSocketClosed(_:)`` for any other code (1001, going
    /// away, included), a `connectionLost` transport
    /// failure when the connection drops without a close, `responseTooLarge` for a message over
    /// ``Options/maximumMessageSize``.
    public var messages: Messages { Messages(socket: self) }

    /// Sends one message.
    /// - Throws: ``CourierError/webSocketClosed(_:)`` or a transport failure once the socket is closed;
    ///   ``CourierError/cancelled`` when the task is cancelled while the network is busy.
    public func send(_ message: Message) async throws(CourierError) {
        try await connection.send(message)
        observation?.sent(message)
    }

    /// Sends a ping and returns when the peer's pong arrives.
    /// - Throws: as ``send(_:)``, also when the socket closes before the pong.
    public func ping() async throws(CourierError) {
        try await connection.ping()
    }

    /// Starts the closing handshake with `code` (1000 by default) and a reason of at most 123
    /// UTF-8 bytes (longer ones are cut), and returns when the peer answered or the connection
    /// ended. A code no endpoint may send (below 1000, 1004–1006, 1015–2999, above 4999) is sent
    /// as 1000. Closing a closed socket does nothing.
    public func close(code: UInt16 = 1000, reason: String = "") async {
        await connection.close(code: WebSocketClose.isValidOnTheWire(code) ? code : 1000, reason: reason)
        observation?.ended(nil)
    }

    /// The peer's messages as an `AsyncSequence` (``WebSocket/messages``).
    public struct Messages: AsyncSequence, Sendable {
        /// A message.
        public typealias Element = Message
        /// The errors the sequence throws.
        public typealias Failure = CourierError

        /// The socket, kept open while its messages are read.
        let socket: WebSocket

        /// The sequence's iterator.
        public func makeAsyncIterator() -> Iterator { Iterator(socket: socket) }

        /// Reads messages one at a time.
        public struct Iterator: AsyncIteratorProtocol {
            let socket: WebSocket

            /// The next message, or `nil` after a normal close.
            /// - Throws: as described on ``WebSocket/messages``.
            public mutating func next() async throws(CourierError) -> Message? {
                try await next(isolation: nil)
            }

            /// The next message, or `nil` after a normal close.
            /// - Throws: as described on ``WebSocket/messages``.
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(CourierError) -> Message? {
                let connection = socket.connection
                let result: Result<Message?, CourierError> = await withTaskCancellationHandler {
                    do throws(CourierError) {
                        return .success(try await connection.receive())
                    } catch {
                        return .failure(error)
                    }
                } onCancel: {
                    connection.abandon(code: 1001)
                }
                let observation = socket.observation
                if Task.isCancelled {
                    connection.abandon(code: 1001)
                    observation?.ended(.cancelled)
                    throw .cancelled
                }
                if case .success(_?) = result { socket.receivedMessages.withLock { $0 += 1 } }
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
    }
}

/// How a WebSocket was closed by its peer with a code other than a normal one
/// (``CourierError/webSocketClosed(_:)``).
public struct WebSocketClose: Error, Sendable, Equatable, CustomStringConvertible {
    /// The close code (RFC 6455 §7.4), e.g. 1008 (policy violation) or 4001 (an application's own).
    public var code: UInt16
    /// The peer's reason, as sent (at most 123 bytes).
    public var reason: String

    /// A close with `code` and `reason`.
    public init(code: UInt16, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// `close code 1008: "policy violation"`, the reason escaped.
    public var description: String {
        reason.isEmpty ? "close code \(code)" : "close code \(code): \"\(Redaction.singleLine(reason))\""
    }
}
