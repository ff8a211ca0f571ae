import Foundation

extension Call {
    /// Opens the socket behind CourierWebSockets' `Call.webSocket(_:)`, which documents what it
    /// throws.
    package func openWebSocket(_ settings: WebSocketSettings) async throws(CourierError) -> WebSocketSession {
        var callOptions = self.options
        callOptions.collectsBody = false
        callOptions.progress = nil
        let upgrade = WebSocketUpgrade(options: settings)
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
        return WebSocketSession(head: response.head, connection: connection, observation: observation)
    }
}

/// A client's connection over one end of a ``WebSocketPipe`` (CourierTesting's scripted peer).
package struct PipeWebSocketConnection: WebSocketConnection {
    let end: WebSocketPipe.End

    package init(_ end: WebSocketPipe.End) {
        self.end = end
    }

    package func send(_ message: WebSocketMessage) async throws(CourierError) {
        try end.send(message)
    }

    package func receive() async throws(CourierError) -> WebSocketMessage? {
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
        if let close = end.ended { throw .closed(close) }
    }

    package func close(code: UInt16, reason: String) async {
        end.close(WebSocketClose(code: code, reason: WebSocketClose.wireReason(reason)))
    }

    package func abandon(code: UInt16) {
        end.close(WebSocketClose(code: code))
    }
}
