import Foundation

/// One open WebSocket as a transport provides it, message by message: the NIO one
/// (``NIOWebSocketConnection``), URLSession's, and the in-memory ``WebSocketPipe`` of tests.
package protocol WebSocketConnection: Sendable {
    /// Sends one message; throws once the socket is closed.
    func send(_ message: WebSocketMessage) async throws(CourierError)
    /// The next message, `nil` after a normal close, or the failure that ended the socket.
    func receive() async throws(CourierError) -> WebSocketMessage?
    /// Sends a ping and waits for its pong.
    func ping() async throws(CourierError)
    /// Closes with `code` and `reason` and waits for the peer's answer (bounded).
    func close(code: UInt16, reason: String) async
    /// Closes with `code` without waiting: the socket was dropped or its reader cancelled.
    func abandon(code: UInt16)
}

extension WebSocketConnection {
    func abandon() { abandon(code: 1001) }
}

/// What a WebSocket call asks of the transport, carried by its ``TransportRequest``; the
/// transport that answers `101` leaves the connection here for ``Call/openWebSocket(_:)``.
package final class WebSocketUpgrade: Sendable {
    package let options: WebSocketSettings
    private let slot = LockedState<(any WebSocketConnection)?>(nil)

    package init(options: WebSocketSettings) {
        self.options = options
    }

    /// Keeps the connection of the attempt that was upgraded, abandoning an earlier one.
    package func deliver(_ connection: any WebSocketConnection) {
        slot.withLock { $0.replace(with: connection) }?.abandon()
    }

    /// Sends `request` through `transport`, or fails before sending when it cannot do WebSockets.
    func open(_ request: TransportRequest, on transport: any Transport) async throws(CourierError) -> StreamedResponse {
        guard let transport = transport as? any WebSocketTransport else {
            throw .invalidRequest(.webSocketUnavailable("the transport \(type(of: transport)) cannot open WebSockets"))
        }
        return try await transport.openWebSocket(request, upgrade: self)
    }

    /// The upgraded connection, once: the caller owns it from here.
    func take() -> (any WebSocketConnection)? {
        slot.withLock { $0.take() }
    }
}

extension Optional {
    fileprivate mutating func replace(with value: Wrapped) -> Wrapped? {
        defer { self = value }
        return self
    }
}

/// A transport that can open WebSockets. ``TransportStage`` hands it a request whose
/// ``TransportRequest/webSocket`` is set; any other transport fails such a request before sending.
package protocol WebSocketTransport: Transport {
    /// Sends the upgrade request. A `101` with a valid handshake delivers the connection to
    /// `request.webSocket` and returns the head with an empty body; any other status returns the
    /// response, its body read whole (under the request's limit), the connection closed.
    func openWebSocket(_ request: TransportRequest, upgrade: WebSocketUpgrade) async throws(CourierError) -> StreamedResponse
}

extension WebSocketClose {
    /// Whether `code` ends a socket normally: 1000 (normal) or 1005 (none given). A peer's 1001
    /// (going away: a server shutting down) is not: its reader learns of it, to reconnect.
    package var isNormal: Bool { code == 1000 || code == 1005 }

    /// Whether a peer may send `code` in a close frame (RFC 6455 §7.4 and the IANA registry).
    package static func isValidOnTheWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// `reason` cut to the 123 bytes a close frame can carry, at a character boundary.
    package static func wireReason(_ reason: String) -> String {
        guard reason.utf8.count > 123 else { return reason }
        var cut = ""
        for character in reason {
            guard cut.utf8.count + character.utf8.count <= 123 else { break }
            cut.append(character)
        }
        return cut
    }
}

extension CourierError {
    /// How a socket ended, for the reader and for later senders: nil for a normal close.
    package static func ended(by close: WebSocketClose) -> CourierError? {
        close.isNormal ? nil : .closed(close)
    }

    /// The close a ``webSocketClosed(code:reason:)`` carries.
    package var webSocketClose: WebSocketClose? {
        if case .webSocketClosed(let code, let reason) = self { WebSocketClose(code: code, reason: reason) } else { nil }
    }

    /// ``webSocketClosed(code:reason:)`` with `close`'s code and reason.
    package static func closed(_ close: WebSocketClose) -> CourierError {
        .webSocketClosed(code: close.code, reason: close.reason)
    }

    /// What a second task reading one socket's messages at once gets.
    static let secondReader = CourierError.invalidRequest(.webSocketUnavailable("two tasks read one socket's messages at once"))

    /// What a send on a socket that ended throws: the failure that ended it, or the close.
    static func sendFailure(after end: Result<Void, CourierError>) -> CourierError {
        switch end {
        case .failure(let error): error
        case .success: .webSocketClosed(code: 1000, reason: "the socket is closed")
        }
    }
}
