import Courier
import CourierTesting
import FlyingFox
import Foundation
import Testing

/// Many calls in flight on one client and one server: every one completes, and each gets its own
/// response, never another call's.
@Suite("Concurrent calls", .heavy, .timeLimit(.minutes(2)))
struct ConcurrencyIntegrationTests {
    struct Echo: Decodable, Sendable {
        var id: Int
    }

    actor Counter {
        private(set) var count = 0
        func increment() { count += 1 }
    }

    @Test func fiveHundredConcurrentCallsAllCompleteWithTheirOwnResponses() async throws {
        try await TestServer.run { server in
            let served = Counter()
            await server.route("GET /echo") { request in
                await served.increment()
                let id = request.query["id"] ?? "missing"
                return FlyingFox.HTTPResponse(
                    statusCode: .ok,
                    headers: [.contentType: "application/json"],
                    body: Data(#"{"id":\#(id)}"#.utf8)
                )
            }
            let client = server.client()
            let endpoint = try server.endpoint("/echo")
            let callCount = 500

            let pairs = try await withThrowingTaskGroup(of: (sent: Int, echoed: Int).self) { group in
                for id in 0..<callCount {
                    group.addTask {
                        let call = client.enqueue(endpoint.with { $0.queryItems = [QueryItem(name: "id", value: String(id))] })
                        let echo = try await call.resume(expecting: Echo.self)
                        return (id, echo.id)
                    }
                }
                var pairs: [(sent: Int, echoed: Int)] = []
                for try await pair in group {
                    pairs.append(pair)
                }
                return pairs
            }

            #expect(pairs.count == callCount)
            let mismatched = pairs.filter { $0.sent != $0.echoed }
            #expect(mismatched.isEmpty, "responses delivered to the wrong call: \(mismatched.prefix(5))")
            #expect(Set(pairs.map(\.sent)) == Set(0..<callCount))
            #expect(await served.count == callCount)
        }
    }
}
