import CourierWebSockets
import Foundation
import PropertyBased
import Testing

@testable import Courier

/// The promises of `webSocket(reconnecting:)` as invariants of its decision, over random ends.
@Suite("WebSocket reconnection decisions")
struct WebSocketReconnectionPropertyTests {
    /// How a socket might end, with whether a message arrived first.
    static let ends: [CourierError] = [
        .closed(WebSocketClose(code: 1001)), .closed(WebSocketClose(code: 1011)), .closed(WebSocketClose(code: 1012)),
        .closed(WebSocketClose(code: 4401)), .closed(WebSocketClose(code: 1008)), .closed(WebSocketClose(code: 4000)),
        .closed(WebSocketClose(code: 1003)),
        .transport(TransportFailure(synthesizing: .connectionLost, url: nil, message: "")),
        .transport(TransportFailure(synthesizing: .timedOut, url: nil, message: "")),
        .transport(TransportFailure(synthesizing: .badResponse, url: nil, message: "")),
        .transport(TransportFailure(synthesizing: .responseTooLarge, url: nil, message: "")),
        .cancelled,
        .invalidRequest(.webSocketUnavailable("x")),
    ]

    @Test("never more than maxAttempts fruitless sockets in a row; waits under the backoff ceiling; refresh only for its codes; stop for the rest")
    func invariants() async {
        let history = Gen.int(in: 0...(Self.ends.count - 1)).array(of: 1...30)
        await propertyCheck(count: 300, input: history, Gen.int(in: 1...5), Gen.bool, Gen.bool.array(of: 30)) { ends, attempts, canRefresh, productive in
            let policy = RetryPolicy(maxAttempts: attempts, baseDelay: .milliseconds(100), maxDelay: .seconds(2))
            var reconnection = WebSocketReconnection(policy: policy, refreshingOn: [1008, 4401, 4403], canRefresh: canRefresh)
            var random = SystemRandomNumberGenerator()
            var fruitless = 0
            for (index, end) in ends.enumerated() {
                let error = Self.ends[end]
                let received = productive[index] ? 1 : 0
                let decision = reconnection.next(after: error, receivedMessages: received, random: &random)
                fruitless = received > 0 ? 0 : fruitless + 1
                let code: UInt16? = if let close = error.webSocketClose { close.code } else { nil }
                let lost: Bool = if case .transport(let failure) = error { [.connectionLost, .timedOut].contains(failure.kind) } else { false }
                let worthIt = lost || code.map { [1001, 1011, 1012].contains($0) || ([1008, 4401].contains($0) && canRefresh) } ?? false
                switch decision {
                case .stop:
                    #expect(!worthIt || fruitless >= attempts, "stopped after \(error) with \(fruitless) of \(attempts)")
                    return
                case .reconnect(let delay, let refresh):
                    #expect(worthIt && fruitless < attempts, "reconnected after \(error)")
                    #expect(refresh == (code.map { [1008, 4401].contains($0) } ?? false))
                    #expect(delay >= .zero && delay <= .seconds(2))
                }
            }
        }
    }
}
