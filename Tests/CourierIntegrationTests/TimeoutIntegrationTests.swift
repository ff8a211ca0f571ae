import Courier
import CourierTesting
import FlyingFox
import Foundation
import Testing

extension QueueSensitiveTests {
    /// Linux URLSession truncates timeouts to whole seconds (`Int(interval) * 1000`): 0.5 s fails at
    /// once and 1.5 s acts as 1 s. Courier enforces its own deadline, so a timeout means what it says.
    ///
    /// Only lower bounds on time (a slow machine cannot break them): they prove the deadline was not
    /// cut short. That it fired at all is proven by the outcome: the server never answers and every
    /// other timeout is longer than the time limit.
    /// Serialized, and home of the stalled-upload tests too: on Linux a stalled body holds every
    /// URLSession of the process for as long as it stalls, which would eat a 0.5 s budget here.
    @Suite("Timeouts", .timeLimit(.minutes(1)))
    struct TimeoutIntegrationTests {
        struct TimeoutCase: Sendable, CustomTestStringConvertible {
            var timeout: Duration
            /// Whether the timeout is set on the endpoint or on the client's configuration.
            var onEndpoint: Bool
            var atLeast: Duration

            var testDescription: String {
                "\(timeout) on the \(onEndpoint ? "endpoint" : "configuration")"
            }
        }

        @Test(arguments: [
            // Would fail at once if truncated to 0 s.
            TimeoutCase(timeout: .milliseconds(500), onEndpoint: true, atLeast: .milliseconds(450)),
            // Would fail after 1 s if truncated to 1 s.
            TimeoutCase(timeout: .milliseconds(1500), onEndpoint: true, atLeast: .milliseconds(1400)),
            TimeoutCase(timeout: .milliseconds(500), onEndpoint: false, atLeast: .milliseconds(450)),
        ])
        func aServerThatDoesNotAnswerInTimeEndsAsTimedOutAfterTheFullTimeout(_ timeoutCase: TimeoutCase) async throws {
            try await TestServer.run { server in
                let arrived = Latch()
                await server.route("GET /slow") { _ in
                    arrived.open()
                    // Never answers: stopping the server cancels it.
                    try await suspendUntilCancelled()
                    return FlyingFox.HTTPResponse(statusCode: .ok)
                }
                let client: Client
                var endpoint = try server.endpoint("/slow")
                if timeoutCase.onEndpoint {
                    client = server.client()  // its timeout is longer than the time limit
                    endpoint.timeout = timeoutCase.timeout
                } else {
                    client = server.client(timeout: timeoutCase.timeout)
                }

                let started = ContinuousClock.now
                let result = await client.enqueue(endpoint).result()
                let elapsed = ContinuousClock.now - started

                guard case .failure(.transport(let failure)) = result else {
                    Issue.record("expected .transport(.timedOut), got \(result)")
                    return
                }
                #expect(failure.kind == .timedOut)
                #expect(failure.urlError?.code == .timedOut)
                #expect(failure.url?.path == "/slow")
                // Not cut short (a lower bound, which a slow machine cannot break). That it fired at
                // all needs no upper bound: nothing else would end the call before the time limit.
                #expect(elapsed >= timeoutCase.atLeast, "timed out after \(elapsed), before the \(timeoutCase.timeout) timeout")
                // It was the response that was late, not the connection: the handler had the request.
                try await awaitCondition("the request reached the handler") { try await arrived.wait() }
            }
        }

        /// A sub-second timeout that URLSession alone would truncate to 0 s, failing at once. The
        /// property is that the deadline is not cut short, so the test accepts either the response
        /// or a timeout that came only after the full 900 ms (a machine may be too busy to answer
        /// within 900 ms; a truncated deadline fails within milliseconds either way).
        @Test func aSubSecondTimeoutIsNotCutShort() async throws {
            try await TestServer.run { server in
                await server.route("GET /prompt") { _ in
                    FlyingFox.HTTPResponse(statusCode: .ok, body: Data("on time".utf8))
                }
                let endpoint = try server.endpoint("/prompt").with { $0.timeout = .milliseconds(900) }

                let started = ContinuousClock.now
                let result = await server.client().enqueue(endpoint).result(expecting: String.self)
                let elapsed = ContinuousClock.now - started

                switch result {
                case .success(let text):
                    #expect(text == "on time")
                case .failure(.transport(let failure)) where failure.kind == .timedOut:
                    #expect(elapsed >= .milliseconds(850), "a 900 ms timeout fired after only \(elapsed)")
                case .failure(let error):
                    Issue.record("expected the response, got \(error)")
                }
            }
        }
    }
}

// MARK: - Uploads whose body stalls

extension QueueSensitiveTests.TimeoutIntegrationTests {
    /// The body stalls after its first chunk, with libcurl waiting in the body's read (on Linux
    /// that holds URLSession's work queue); cancelling must still end the call at once, and end
    /// the producer's wait: async-http-client does not cancel the task reading the body itself,
    /// Courier does (a producer left suspended is reported by LeakSanitizer in CI).
    @Test(arguments: TransportKind.allCases)
    func cancellingAStalledUploadEndsTheCall(transport: TransportKind) async throws {
        try await TestServer.run { server in
            await server.route("POST /slow") { request in
                _ = try? await request.bodyData
                return FlyingFox.HTTPResponse(statusCode: .ok)
            }
            let stalled = Latch()
            let chunks = StallingChunks(stalled: stalled)
            let endpoint = try server.endpoint("/slow").with {
                $0.method = .post
                $0.body = .stream(chunks)
            }
            let call = server.client(transport: transport).enqueue(endpoint)
            let upload = Task { await call.result() }

            try await awaitCondition("the body ran dry") { try await stalled.wait() }
            upload.cancel()
            let result = await upload.value

            // The body stalls for good and the timeout is longer than the time limit: only the
            // cancellation can end the call.
            guard case .failure(.cancelled) = result else {
                Issue.record("expected cancelled, got \(result)")
                return
            }
            try await awaitCondition("the producer's wait ended") { try await chunks.released.wait() }
        }
    }

    #if AsyncHTTPClientLinked
        /// A server that answers before reading the body (413, say) ends the exchange; the upload
        /// that is still waiting on its producer ends with it instead of staying suspended.
        @Test func aResponseBeforeTheUploadEndsTheStalledProducer() async throws {
            try await TestServer.run { server in
                let chunks = StallingChunks(stalled: Latch())
                // The answer waits for the producer's stall: on a busy machine it could otherwise
                // arrive before the upload asked for more, and then no producer waits at all.
                await server.route("POST /early") { _ in
                    try await chunks.stalled.wait()
                    return FlyingFox.HTTPResponse(statusCode: HTTPStatusCode(413, phrase: "Content Too Large"))
                }
                let endpoint = try server.endpoint("/early").with {
                    $0.method = .post
                    $0.body = .stream(chunks)
                }

                let result = await server.client(timeout: .seconds(10), transport: .asyncHTTPClient).enqueue(endpoint).result()

                #expect(result.failureValue?.response?.status.code == 413)
                try await awaitCondition("the producer's wait ended") { try await chunks.released.wait() }
            }
        }
    #endif

    /// The deadline ends a stalled upload, and ends the producer's wait too (see above).
    @Test(arguments: TransportKind.allCases)
    func aStalledUploadTimesOut(transport: TransportKind) async throws {
        try await TestServer.run { server in
            await server.route("POST /slow") { request in
                _ = try? await request.bodyData
                return FlyingFox.HTTPResponse(statusCode: .ok)
            }
            let chunks = StallingChunks(stalled: Latch())
            let endpoint = try server.endpoint("/slow").with {
                $0.method = .post
                $0.body = .stream(chunks)
                $0.timeout = .milliseconds(300)
            }

            let result = await server.client(transport: transport).enqueue(endpoint).result()

            #expect(result.failureValue?.urlError?.code == .timedOut)
            try await awaitCondition("the producer's wait ended") { try await chunks.released.wait() }
        }
    }

}
