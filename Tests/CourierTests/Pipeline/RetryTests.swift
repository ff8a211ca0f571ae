import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Answers with the given statuses in turn (the last one forever).
private func sequenceTransport(_ statuses: [Int], headers: [String: String] = [:]) -> RecordingTransport {
    RecordingTransport(script: statuses.map { .status($0, headers: HTTPFields(headers)) })
}

@Suite("Retries through the client")
struct RetryTests {
    private func client(_ transport: RecordingTransport, clock: TestClock, policy: RetryPolicy = .default) -> Client {
        makeClient(transport) {
            $0.retryPolicy = policy
            $0.clock = clock
        }
    }

    @Test func aGETAnswered503TwiceThen200IsRetriedAndSucceedsWithJitteredDelaysWithinTheBackoff() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        let transport = sequenceTransport([503, 503, 200])

        let response = try await client(transport, clock: clock).enqueue(TestEndpoint()).resume()

        #expect(response.statusCode == 200)
        #expect(await transport.count == 3)
        let sleeps = clock.sleeps
        #expect(sleeps.count == 2)
        #expect(sleeps[0] >= .zero && sleeps[0] <= .milliseconds(250))
        #expect(sleeps[1] >= .zero && sleeps[1] <= .milliseconds(500))
    }

    @Test(arguments: ["1", "Sun, 06 Nov 1994 08:49:37 GMT"])
    func retryAfterIsHonoured(value: String) async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        let transport = sequenceTransport([503, 200], headers: ["Retry-After": value])

        _ = try await client(transport, clock: clock).enqueue(TestEndpoint()).resume()

        // Delta-seconds wait that long; a date in the past means at once.
        #expect(clock.sleeps == [value == "1" ? .seconds(1) : .zero])
    }

    /// Issue 41: the date was read against the system's `Date()` while the delay was slept on the
    /// injected clock, so what a date meant depended on the wall time the test took. It is read
    /// against the clock's own date now: an hour into the test clock's time, a date 7 s after the
    /// clock's date is a 7 s wait (read against the system's date it was 3,607 s, past
    /// `maxRetryAfter`, and the 503 was the answer).
    @Test func aRetryAfterDateIsReadAgainstTheInjectedClock() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        clock.advance(by: .seconds(3_600))
        let transport = sequenceTransport([503, 200], headers: ["Retry-After": httpDate(clock.date.addingTimeInterval(7))])

        let response = try await client(transport, clock: clock).enqueue(TestEndpoint()).resume()

        #expect(response.statusCode == 200)
        #expect(clock.sleeps == [.seconds(7)])
    }

    @Test func attemptsStopAtTheMaximumAndTheLastResponseIsTheError() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        let transport = sequenceTransport([503])
        let error = await #expect(throws: CourierError.self) {
            _ = try await client(transport, clock: clock).enqueue(TestEndpoint()).resume()
        }
        #expect(error?.response?.statusCode == 503)
        #expect(await transport.count == 3)
        #expect(clock.sleeps.count == 2)
    }

    @Test func aPOSTWithoutAnIdempotencyKeyIsNotRetried() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        let transport = sequenceTransport([503, 200])
        await #expect(throws: CourierError.self) {
            _ = try await client(transport, clock: clock).enqueue(TestEndpoint(method: .post, body: .data(Data("x".utf8)))).resume()
        }
        #expect(await transport.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func aPOSTWithAnIdempotencyKeyIsRetriedWithTheSameKey() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        let transport = sequenceTransport([503, 200])
        let endpoint = TestEndpoint(method: .post, headerItems: [HeaderItem(name: "Idempotency-Key", value: "k-1")], body: .data(Data("x".utf8)))

        _ = try await client(transport, clock: clock).enqueue(endpoint).resume()

        #expect(await transport.requests.map { $0.header("Idempotency-Key") } == ["k-1", "k-1"])
    }

    @Test func aGeneratedIdempotencyKeyMakesAPOSTRetryableAndStaysTheSameAcrossAttempts() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        let transport = sequenceTransport([503, 200])
        var policy = RetryPolicy.default
        policy.generatesIdempotencyKey = true

        _ = try await client(transport, clock: clock, policy: policy).enqueue(TestEndpoint(method: .post, body: .data(Data("x".utf8)))).resume()

        let keys = await transport.requests.map { $0.header("Idempotency-Key") }
        #expect(keys.count == 2)
        #expect(keys[0] != nil && keys[0] == keys[1])
    }

    @Test func cancellingDuringARetryDelayEndsTheCallAsCancelled() async throws {
        let transport = sequenceTransport([503])
        let clock = TestClock()
        let client = makeClient(transport) {
            $0.retryPolicy = RetryPolicy(maxAttempts: 5, baseDelay: .seconds(3_600), maxDelay: .seconds(3_600))
            $0.clock = clock
        }
        let call = Task { try await client.enqueue(TestEndpoint()).resume() }
        await clock.waitForSleepers(1)  // the call is in its delay after the first 503
        call.cancel()
        let outcome = await call.result
        guard case .failure(let error) = outcome, case .cancelled? = error as? CourierError else {
            Issue.record("expected cancelled, got \(outcome)")
            return
        }
    }

    @Test func noPolicyMeansNoRetry() async throws {
        let transport = sequenceTransport([503, 200])
        await #expect(throws: CourierError.self) {
            _ = try await makeClient(transport).enqueue(TestEndpoint()).resume()
        }
        #expect(await transport.count == 1)
    }
}

/// Hands the metrics it saw after `next` to the test.
private struct MetricsSpy: Middleware {
    let seen: @Sendable (CallMetrics.Snapshot) -> Void
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        let response = try await next(request)
        seen(context.metrics.snapshot)
        return response
    }
}

@Suite("Per-call metrics")
struct CallMetricsTests {
    @Test func middlewareSeesEveryAttemptWithItsStatusAndBytes() async throws {
        let (snapshots, continuation) = AsyncStream.makeStream(of: CallMetrics.Snapshot.self)
        let transport = sequenceTransport([503, 503, 200])
        let client = makeClient(transport) {
            $0.retryPolicy = .default
            $0.clock = TestClock(sleepsReturnImmediately: true)
            $0.middleware = [MetricsSpy { continuation.yield($0) }]
        }

        _ = try await client.enqueue(TestEndpoint(method: .put, body: .data(Data(repeating: 1, count: 100)))).resume()
        continuation.finish()

        var iterator = snapshots.makeAsyncIterator()
        let snapshot = try #require(await iterator.next())
        #expect(snapshot.attempts.map(\.statusCode) == [503, 503, 200])
        #expect(snapshot.bytesSent == 300)
        #expect(snapshot.attempts.allSatisfy { $0.duration >= .zero })
    }
}

/// `CallMetrics`' doc-comment example, as written there (only `print` replaced by a recorder):
/// it compiles against the public API and reports every attempt of a retried call.
@Suite("CallMetrics' doc example")
struct CallMetricsExampleTests {
    struct Timing: Middleware {
        let print: @Sendable (String) -> Void

        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            let response = try await next(request)
            let attempts = context.metrics.snapshot.attempts
            let time = attempts.reduce(Duration.zero) { $0 + $1.duration }
            print("\(attempts.count) attempt(s) in \(time), status \(response.statusCode)")
            return response
        }
    }

    @Test func theExampleReportsEveryAttempt() async throws {
        let lines = LockedState<[String]>([])
        let client = makeClient(sequenceTransport([503, 200])) {
            $0.retryPolicy = .default
            $0.clock = TestClock(sleepsReturnImmediately: true)
            $0.middleware = [Timing { line in lines.withLock { $0.append(line) } }]
        }
        _ = try await client.enqueue(TestEndpoint()).resume()
        let line = try #require(lines.withLock { $0 }.first)
        #expect(line.hasPrefix("2 attempt(s) in "))
        #expect(line.hasSuffix(", status 200"))
    }
}
