import Courier
import CourierTesting
import FlyingFox
import Foundation
import Testing

/// A clock whose sleeps end at once and are recorded, so the test takes no real time.
private final class InstantClock: Clock, @unchecked Sendable {
    // `@unchecked Sendable`: `slept` is only touched under `lock`.
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let lock = NSLock()
    private var slept: [Duration] = []
    var now: Instant { Instant(offset: .zero) }
    var minimumResolution: Duration { .nanoseconds(1) }
    var sleeps: [Duration] { lock.withLock { slept } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        lock.withLock { slept.append(deadline.offset) }
    }
}

@Suite("Retries against a real server", .loopback, .timeLimit(.minutes(1)))
struct RetryIntegrationTests {
    /// 503 with `Retry-After: 1` for the first two requests of each method, then 200.
    private func install(on server: TestServer, counts: Recorder<String>) async {
        for route in ["GET /flaky", "POST /flaky"] {
            await server.route(HTTPRoute(stringLiteral: route)) { request in
                await counts.record(request.method.rawValue)
                let seen = await counts.values.filter { $0 == request.method.rawValue }.count
                if seen <= 2 {
                    let headers: HTTPHeaders = [HTTPHeader("Retry-After"): "1"]
                    return FlyingFox.HTTPResponse(statusCode: .serviceUnavailable, headers: headers)
                }
                return FlyingFox.HTTPResponse(statusCode: .ok)
            }
        }
    }

    @Test func aGETAnswered503WithRetryAfterTwiceIsRetriedAndSucceeds() async throws {
        try await TestServer.run { server in
            let counts = Recorder<String>()
            await install(on: server, counts: counts)
            let clock = InstantClock()
            let client = Client(
                configuration: Configuration(
                    transport: TransportKind.platformDefault.make(), timeout: generousTimeout,
                    retryPolicy: .default, clock: clock))

            let response = try await client.enqueue(server.endpoint("/flaky")).resume()

            #expect(response.statusCode == 200)
            #expect(await counts.values == ["GET", "GET", "GET"])
            #expect(clock.sleeps == [.seconds(1), .seconds(1)])
        }
    }

    @Test func thePOSTIsNotRetried() async throws {
        try await TestServer.run { server in
            let counts = Recorder<String>()
            await install(on: server, counts: counts)
            let clock = InstantClock()
            let client = Client(
                configuration: Configuration(
                    transport: TransportKind.platformDefault.make(), timeout: generousTimeout,
                    retryPolicy: .default, clock: clock))
            let endpoint = try server.endpoint("/flaky").with {
                $0.method = .post
                $0.body = .json(["order": 1])
            }

            let result = await client.enqueue(endpoint).result()

            guard case .failure(.response(let response)) = result else {
                Issue.record("expected the 503 as .response, got \(result)")
                return
            }
            #expect(response.statusCode == 503)
            #expect(await counts.values == ["POST"])
            #expect(clock.sleeps.isEmpty)
        }
    }
}
