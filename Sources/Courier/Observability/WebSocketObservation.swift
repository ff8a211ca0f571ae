import CoreMetrics
import Foundation
import Tracing

/// A WebSocket's life in its client's traces and metrics: a client span from the upgrade to the
/// socket's end (its messages counted on it, its failure recorded), counters of messages and bytes
/// each way, and the gauge of open sockets. Made only for a client that reports to either.
final class WebSocketObservation: Sendable {
    private let span: (any Span)?
    private let counters: Counters?
    private let redaction: Redaction
    private let state = LockedState(Tally())

    private struct Counters: Sendable {
        let receivedMessages, sentMessages, receivedBytes, sentBytes: Counter
        let open: Meter
    }

    private struct Tally {
        var received = 0
        var sent = 0
        var ended = false
    }

    /// Starts observing a socket opened to `url`, as a child span of the caller's context.
    init(_ observation: CallObservation, url: URL, redaction: Redaction, subprotocol: String?) {
        self.redaction = redaction
        span = observation.tracing.map { tracing in
            let span = tracing.tracer.startSpan("WebSocket", context: ServiceContext.current ?? .topLevel, ofKind: .client)
            span.updateAttributes { attributes in
                attributes.merge(HTTPSemantics.requestAttributes(method: "GET", url: url, authority: nil, redaction: redaction))
                if let host = url.host { attributes[HTTPSemantics.serverAddress] = host }
                if let subprotocol { attributes["courier.websocket.subprotocol"] = subprotocol }
            }
            return span
        }
        counters = observation.metrics.map { metrics in
            let factory = metrics.factory
            func counter(_ label: String, _ direction: String) -> Counter {
                Counter(label: label, dimensions: [("direction", direction)], factory: factory)
            }
            return Counters(
                receivedMessages: counter(MetricNames.webSocketMessages, "received"), sentMessages: counter(MetricNames.webSocketMessages, "sent"),
                receivedBytes: counter(MetricNames.webSocketBytes, "received"), sentBytes: counter(MetricNames.webSocketBytes, "sent"),
                open: Meter(label: MetricNames.webSocketsOpen, factory: factory))
        }
        counters?.open.increment()
    }

    /// The reader got `message`.
    func received(_ message: WebSocketMessage) {
        state.withLock { $0.received += 1 }
        counters?.receivedMessages.increment()
        counters?.receivedBytes.increment(by: Int64(message.byteCount))
    }

    /// `message` went out.
    func sent(_ message: WebSocketMessage) {
        state.withLock { $0.sent += 1 }
        counters?.sentMessages.increment()
        counters?.sentBytes.increment(by: Int64(message.byteCount))
    }

    /// The socket ended, with `failure` or normally: the span ends and the gauge drops, once.
    func ended(_ failure: CourierError?) {
        let tally = state.withLock { tally -> Tally? in
            guard !tally.ended else { return nil }
            tally.ended = true
            return tally
        }
        guard let tally else { return }
        counters?.open.decrement()
        guard let span else { return }
        span.attributes["courier.websocket.messages_received"] = tally.received
        span.attributes["courier.websocket.messages_sent"] = tally.sent
        if case .webSocketClosed(let code, _)? = failure { span.attributes["courier.websocket.close_code"] = Int(code) }
        HTTPSemantics.setOutcome(on: span, statusCode: 101, error: failure, redaction: redaction)
        span.end()
    }
}

extension WebSocketMessage {
    /// The bytes of the message: its UTF-8 for text.
    var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .data(let data): data.count
        }
    }
}
