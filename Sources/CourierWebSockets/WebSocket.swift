public import Courier
public import Foundation
import HTTPTypes

/// An open WebSocket (RFC 6455), from ``Courier/Call/webSocket(_:)``: send messages, read the
/// peer's as an `AsyncSequence`, ping, and close.
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

        /// The same settings, for Courier's machinery.
        var settings: WebSocketSettings {
            WebSocketSettings(
                subprotocols: subprotocols, maximumMessageSize: maximumMessageSize, bufferedMessages: bufferedMessages, pingInterval: pingInterval)
        }
    }

    /// The socket itself, in Courier.
    package let session: WebSocketSession

    package init(_ session: WebSocketSession) {
        self.session = session
    }

    /// The server's `101 Switching Protocols` response head.
    public var head: ResponseHead { session.head }

    /// The subprotocol the server chose from ``Options/subprotocols``, if any.
    public var subprotocol: String? {
        session.head.headers[.secWebSocketProtocol]
    }

    /// The peer's messages, in order. One task reads them; cancelling it closes the socket with
    /// code 1001. The sequence ends after ``close(code:reason:)`` or the peer's normal close (code
    /// 1000 or none) and throws `CourierError.webSocketClosed(code:reason:)` for any other code
    /// (1001, going away, included), a `connectionLost` transport failure when the connection drops
    /// without a close, `responseTooLarge` for a message over ``Options/maximumMessageSize``.
    public var messages: Messages { Messages(socket: self) }

    /// Sends one message: returns once the socket has taken it, and waits while the peer reads
    /// slower than you send. A write that fails later ends the socket: the next operation throws.
    /// - Throws: `CourierError.webSocketClosed(code:reason:)` or a transport failure once the
    ///   socket is closed; `CourierError.cancelled` when the task is cancelled while the send
    ///   waits (the socket is then closed with code 1001; the message may have gone out).
    public func send(_ message: Message) async throws(CourierError) {
        try await session.send(message.frame)
    }

    /// Sends a ping and returns when the peer's pong arrives.
    /// - Throws: as ``send(_:)``, also when the socket closes before the pong.
    public func ping() async throws(CourierError) {
        try await session.ping()
    }

    /// Starts the closing handshake with `code` (1000 by default) and a reason of at most 123
    /// UTF-8 bytes (longer ones are cut), and returns when the peer answered or the connection
    /// ended. A code no endpoint may send (below 1000, 1004–1006, 1015–2999, above 4999) is sent
    /// as 1000. Closing a closed socket does nothing.
    public func close(code: UInt16 = 1000, reason: String = "") async {
        await session.close(code: code, reason: reason)
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
                try await socket.session.next().map(Message.init)
            }

            /// The next message, or `nil` after a normal close.
            /// - Throws: as described on ``WebSocket/messages``.
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(CourierError) -> Message? {
                try await socket.session.next().map(Message.init)
            }
        }
    }
}

extension WebSocket.Message {
    /// `frame` as a message; the payload is shared, not copied.
    package init(_ frame: WebSocketMessage) {
        switch frame {
        case .text(let text): self = .text(text)
        case .data(let data): self = .data(data)
        }
    }

    /// The message for Courier's machinery; the payload is shared, not copied.
    package var frame: WebSocketMessage {
        switch self {
        case .text(let text): .text(text)
        case .data(let data): .data(data)
        }
    }
}
