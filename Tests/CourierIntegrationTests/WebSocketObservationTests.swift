import Courier
import CourierTesting
import CourierWebSockets
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

/// A WebSocket's life in traces and metrics: a span from the upgrade to the end, counters of
/// messages and bytes each way, and the gauge of open sockets, against the scripted peer.
@Suite("WebSocket observability")
struct WebSocketObservationTests {
    static func client(tracer: InMemoryTracer, metrics: TestMetrics) -> Client {
        var configuration = Configuration()
        configuration.tracer = tracer
        configuration.metricsFactory = metrics
        return Client(configuration: configuration)
    }

    static func endpoint() throws -> TestEndpoint {
        TestEndpoint(baseURL: try BaseURL(host: "api.example.com"), path: try URLPath("/live")).with {
            $0.queryItems = [QueryItem(name: "access_token", value: "secret")]
        }
    }

    @Test("messages and bytes are counted each way; the socket's span ends with its close code and counts")
    func countedAndTraced() async throws {
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        try await withStubbedNetwork { network in
            network.stub(
                .get, "/live", ignoringQuery: true,
                with: .webSocket { peer in
                    for _ in 0..<3 {
                        guard let message = await peer.receive() else { return }
                        try peer.send(message)
                    }
                    peer.close(code: 4001, reason: "token expired")
                })
            let socket = try await Self.client(tracer: tracer, metrics: metrics).enqueue(try Self.endpoint()).webSocket()
            #expect(try metrics.expectMeter("courier_websockets_open").lastValue == 1)
            let sent: [WebSocket.Message] = [.text("hi"), .data(Data(count: 5)), .text("é")]
            for message in sent { try await socket.send(message) }
            var received: [WebSocket.Message] = []
            let error = await #expect(throws: CourierError.self) { for try await message in socket.messages { received.append(message) } }
            #expect(received == sent)
            guard let close = error?.webSocketClose else { Issue.record("got \(String(describing: error))"); return }
            #expect(close.code == 4001)
        }
        for direction in ["sent", "received"] {
            #expect(try metrics.expectCounter("courier_websocket_messages_total", [("direction", direction)]).totalValue == 3)
            #expect(try metrics.expectCounter("courier_websocket_bytes_total", [("direction", direction)]).totalValue == 9)
        }
        #expect(try metrics.expectMeter("courier_websockets_open").lastValue == 0)
        let span = try #require(tracer.finishedSpans.first { $0.operationName == "WebSocket" })
        #expect(span.kind == .client)
        #expect(span.int("courier.websocket.messages_sent") == 3)
        #expect(span.int("courier.websocket.messages_received") == 3)
        #expect(span.int("courier.websocket.close_code") == 4001)
        #expect(span.status?.code == .error)
        let url = span.string("url.full") ?? ""
        #expect(url.contains("api.example.com/live") && !url.contains("secret"), "\(url)")
    }

    @Test("the gauge of open sockets drops once per socket, however it ends (close, drop, peer's close)")
    func gaugeDropsOnce() async throws {
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        try await withStubbedNetwork { network in
            network.stub(.get, "/live", ignoringQuery: true, with: .webSocket { peer in while await peer.receive() != nil {} })
            let client = Self.client(tracer: tracer, metrics: metrics)
            for round in 0..<60 {
                let socket = try await client.enqueue(try Self.endpoint()).webSocket()
                switch round % 3 {
                case 0: await socket.close()
                case 1: break  // dropped
                default:
                    await socket.close()
                    await socket.close()
                }
            }
        }
        let meter = try metrics.expectMeter("courier_websockets_open")
        #expect(meter.lastValue == 0)
        #expect(meter.values.allSatisfy { $0 == 0 || $0 == 1 })
        let spans = tracer.finishedSpans.filter { $0.operationName == "WebSocket" }
        #expect(spans.count == 60)
        #expect(spans.allSatisfy { $0.status?.code != .error })
    }
}
