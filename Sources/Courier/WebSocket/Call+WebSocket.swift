import Foundation

extension Call {
    /// Opens a WebSocket to the endpoint (an `http` base URL is sent as `ws`, `https` as `wss`).
    ///
    /// The upgrade request is an ordinary call: host and path checks, headers, middleware,
    /// authentication (a `401` refreshes the credential once and retries, as for any call),
    /// logging, tracing and CourierTesting's stubs apply to it.
    ///
    /// ```swift
    /// let socket = try await client.enqueue(chat).webSocket(WebSocket.Options(subprotocols: ["chat.v2"]))
    /// ```
    /// - Throws: ``CourierError/response(_:)`` when the server refused the upgrade (its status and
    ///   body kept); ``InvalidRequest/webSocketUnavailable(_:)`` for a method other than `GET`, a body,
    ///   or a transport that cannot open WebSockets; a `badResponse` transport failure for a
    ///   handshake that does not follow RFC 6455; otherwise what any call throws.
    public func webSocket(_ options: WebSocket.Options = WebSocket.Options()) async throws(CourierError) -> WebSocket {
        var callOptions = self.options
        callOptions.collectsBody = false
        callOptions.progress = nil
        let upgrade = WebSocketUpgrade(options: options)
        callOptions.webSocket = upgrade
        let response: StreamedResponse
        do {
            response = try await client.send(endpoint, options: callOptions)
        } catch {
            upgrade.take()?.abandon()
            throw error
        }
        guard response.head.status.code == 101, let connection = upgrade.take() else {
            // A status the endpoint accepts (a 200), or a middleware's own response.
            upgrade.take()?.abandon()
            throw .transport(
                TransportFailure(
                    synthesizing: .badResponse, url: response.head.url,
                    message: "the WebSocket upgrade was answered with HTTP \(response.head.status.code), not 101 Switching Protocols"))
        }
        let observation = client.observation.map { observation in
            WebSocketObservation(
                observation, url: response.head.url, redaction: client.configuration.redaction, subprotocol: response.head.headers[.secWebSocketProtocol])
        }
        return WebSocket(head: response.head, connection: connection, observation: observation)
    }
}

/// A client's connection over one end of a ``WebSocketPipe`` (CourierTesting's scripted peer).
package struct PipeWebSocketConnection: WebSocketConnection {
    let end: WebSocketPipe.End

    package init(_ end: WebSocketPipe.End) {
        self.end = end
    }

    package func send(_ message: WebSocket.Message) async throws(CourierError) {
        try end.send(message)
    }

    package func receive() async throws(CourierError) -> WebSocket.Message? {
        switch try await end.receive() {
        case .message(let message):
            return message
        case .close(let close):
            end.close(close)  // the answer to the peer's close
            if let error = CourierError.ended(by: close) { throw error }
            return nil
        case nil:
            return nil
        }
    }

    package func ping() async throws(CourierError) {
        if let close = end.ended { throw .webSocketClosed(close) }
    }

    package func close(code: UInt16, reason: String) async {
        end.close(WebSocketClose(code: code, reason: WebSocketClose.wireReason(reason)))
    }

    package func abandon(code: UInt16) {
        end.close(WebSocketClose(code: code))
    }
}
