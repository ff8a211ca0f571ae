import CoreMetrics
import Courier
import CourierTesting
import Foundation
import HTTPTypes
import MetricsTestKit
import Testing

// Every test gives its client a `TestMetrics` of its own through `Configuration.metricsFactory`
// (and a refresher one bound with `withMetricsFactory` while it is created): nothing is
// bootstrapped, so suites running in parallel never share counts.

/// Answers by path: `/ok` 200, `/fail` 500, `/down` a connection failure, anything else waits
/// until its task is cancelled.
private final class RoutedTransport: Transport {
    let waiting = LockedState(0)

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        switch request.head.path {
        case "/ok":
            return StreamedResponse(statusCode: 200, url: request.url)
        case "/fail":
            return StreamedResponse(statusCode: 500, url: request.url)
        case "/down":
            throw .transport(TransportFailure(URLError(.cannotConnectToHost), url: request.url))
        default:
            waiting.withLock { $0 += 1 }
            // An AsyncStream's iteration ends when the iterating task is cancelled.
            let (stream, continuation) = AsyncStream.makeStream(of: Never.self)
            for await _ in stream {}
            continuation.finish()
            throw .cancelled
        }
    }
}

/// Waits, without sleeping, until `condition` holds; records an issue if it never does.
private func waitUntil(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async -> Bool) async {
    for _ in 0..<1_000_000 {
        if await condition() { return }
        await Task.yield()
    }
    Issue.record("never happened: \(what)", sourceLocation: sourceLocation)
}

@Suite("Metrics", .heavy)
struct MetricsTests {
    private func dimensions(_ method: String, _ statusClass: String) -> [(String, String)] {
        [("method", method), ("status_class", statusClass)]
    }

    @Test func twoThousandConcurrentCallsAreCountedAndTimedByMethodAndStatusClassAndTheGaugeReturnsToZero() async throws {
        let metrics = TestMetrics()
        let transport = RoutedTransport()
        let client = Client(configuration: Configuration(transport: transport, metricsFactory: metrics))
        func endpoint(_ path: String, _ method: HTTPMethod) -> TestEndpoint {
            var endpoint = TestEndpoint(pathString: path)
            endpoint.method = method
            return endpoint
        }

        // 300 calls that wait until cancelled, then 1,700 that end at once, all in flight together.
        let waiting = (0..<300).map { _ in Task { await client.enqueue(endpoint("/wait", .get)).result() } }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<1_700 {
                let (path, method): (String, HTTPMethod) =
                    switch index % 17 {
                    case 0..<10: ("/ok", .get)
                    case 10..<14: ("/fail", .post)
                    default: ("/down", .delete)
                    }
                group.addTask { _ = await client.enqueue(endpoint(path, method)).result() }
            }
        }
        await waitUntil("300 calls waiting in the transport") { transport.waiting.withLock { $0 } == 300 }
        let inFlight = try metrics.expectMeter("courier_requests_in_flight")
        #expect(inFlight.lastValue == 300)

        for task in waiting { task.cancel() }
        for task in waiting { _ = await task.value }

        #expect(inFlight.lastValue == 0)
        let expected = [("GET", "2xx", 1_000), ("POST", "5xx", 400), ("DELETE", "error", 300), ("GET", "error", 300)]
        for (method, statusClass, count) in expected {
            #expect(try metrics.expectCounter("courier_requests_total", dimensions(method, statusClass)).totalValue == Int64(count))
            let timer = try metrics.expectTimer("courier_request_duration_seconds", dimensions(method, statusClass))
            #expect(timer.values.count == count)
            #expect(timer.values.allSatisfy { $0 >= 0 })
        }
        #expect(metrics.counters.count == expected.count)
        #expect(metrics.timers.count == expected.count)
    }

    @Test func aMethodOutsideTheStandardSetIsCountedAsOther() async throws {
        let metrics = TestMetrics()
        var endpoint = TestEndpoint()
        endpoint.method = try #require(HTTPMethod(rawValue: "PURGE"))
        _ = try await makeClient(RecordingTransport()) { $0.metricsFactory = metrics }.enqueue(endpoint).resume()
        #expect(try metrics.expectCounter("courier_requests_total", dimensions("_OTHER", "2xx")).totalValue == 1)
    }

    @Test func aRefusedStatusIsCountedUnderItsStatusClass() async throws {
        let metrics = TestMetrics()
        _ = await makeClient(RecordingTransport(script: [.status(404)])) { $0.metricsFactory = metrics }.enqueue(TestEndpoint()).result()
        #expect(try metrics.expectCounter("courier_requests_total", dimensions("GET", "4xx")).totalValue == 1)
    }

    @Test func aConfiguredNoOpFactoryKeepsTheClientOutOfTheProcessMetrics() async throws {
        let process = TestMetrics()
        let silent = withMetricsFactory(process) { makeClient(RecordingTransport()) { $0.metricsFactory = NOOPMetricsHandler.instance } }
        _ = try await silent.enqueue(TestEndpoint()).resume()
        #expect(process.counters.isEmpty && process.timers.isEmpty && process.meters.isEmpty)
        // Without one configured, the process's factory at creation counts.
        let counted = withMetricsFactory(process) { makeClient(RecordingTransport()) }
        _ = try await counted.enqueue(TestEndpoint()).resume()
        #expect(try process.expectCounter("courier_requests_total", dimensions("GET", "2xx")).totalValue == 1)
    }

    @Test func aRefreshServingTwoThousandConcurrentCallsIsCountedOnce() async throws {
        let metrics = TestMetrics()
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let refresher = withMetricsFactory(metrics) {
            TokenRefresher(store: CountingStore(clock.credential("at-0", expiresIn: -1)), now: clock.closure) { _ in mint.next() }
        }
        let client = Client(
            configuration: Configuration(transport: BearerAPI(), authentication: .bearer(refresher), authorizedHosts: ["api.example.com"]))

        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<2_000 { group.addTask { (try? await client.enqueue(APIEndpoint()).resume()) != nil } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }

        #expect(results.allSatisfy { $0 })
        #expect(mint.count.value == 1)
        #expect(try metrics.expectCounter("courier_token_refreshes_total", [("outcome", "success")]).totalValue == 1)
        #expect(metrics.counters.count == 1)
    }

    @Test(arguments: [(true, "rejected"), (false, "failed")])
    func aFailedRefreshIsCountedOnceByWhetherItWasRejectedForGood(permanent: Bool, outcome: String) async throws {
        let metrics = TestMetrics()
        let clock = WallClock()
        let refresher = withMetricsFactory(metrics) {
            TokenRefresher(store: CountingStore(clock.credential("at-0", expiresIn: -1)), now: clock.closure) { _ in
                throw RefreshFailure(reason: .custom("no"), isPermanent: permanent)
            }
        }
        let client = Client(
            configuration: Configuration(transport: BearerAPI(), authentication: .bearer(refresher), authorizedHosts: ["api.example.com"]))

        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<200 { group.addTask { _ = try? await client.enqueue(APIEndpoint()).resume() } }
        }

        #expect(try metrics.expectCounter("courier_token_refreshes_total", [("outcome", outcome)]).totalValue == 1)
        #expect(metrics.counters.count == 1)
    }

    @Test func noSecretReachesAMetricLabelOrDimension() async throws {
        let metrics = TestMetrics()
        let clock = WallClock()
        let refresher = withMetricsFactory(metrics) {
            TokenRefresher(
                store: CountingStore(
                    TokenCredential(accessToken: "S3CR3T-access", refreshToken: "S3CR3T-refresh", expiresAt: clock.now.addingTimeInterval(-1))),
                now: clock.closure
            ) { _ in TokenCredential(accessToken: "S3CR3T-new", refreshToken: "S3CR3T-new-refresh") }
        }
        let client = Client(
            configuration: Configuration(
                transport: BearerAPI(), metricsFactory: metrics, authentication: .bearer(refresher), authorizedHosts: ["api.example.com"]))
        var endpoint = TestEndpoint()
        endpoint.queryItems = [QueryItem(name: "access_token", value: "S3CR3T-query")]
        _ = try await client.enqueue(APIEndpoint()).resume()
        _ = await makeClient(RecordingTransport()) { $0.metricsFactory = metrics }.enqueue(endpoint).result()

        let texts =
            metrics.counters.map { "\($0.label) \($0.dimensions)" } + metrics.timers.map { "\($0.label) \($0.dimensions)" }
            + metrics.meters.map { "\($0.label) \($0.dimensions)" }
        #expect(texts.count == 4)
        #expect(!texts.contains { $0.contains("S3CR3T") || $0.contains("api.example.com") })
    }
}
