import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// Responses travel the pipeline as a head and a streamed body: the transport stage reads the
/// body for calls that want it whole (inside the retry loop), stages can wrap or replace it, and
/// a response that is not used has its transfer stopped.
@Suite("Streamed responses through the pipeline")
struct StreamingPipelineTests {
    /// Answers attempt `n` with `answers[n]` (the last one again past the end), counting attempts.
    final class StreamingTransport: Transport, @unchecked Sendable {
        private let attempts = LockedState(0)
        private let answers: [@Sendable (TransportRequest) -> StreamedResponse]

        init(_ answers: [@Sendable (TransportRequest) -> StreamedResponse]) {
            self.answers = answers
        }

        var count: Int { attempts.withLock { $0 } }

        func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
            let index = attempts.withLock { count in
                defer { count += 1 }
                return count
            }
            return answers[min(index, answers.count - 1)](request)
        }
    }

    static func streamed(_ status: HTTPResponse.Status, _ source: ScriptedChunks, url: URL) -> StreamedResponse {
        StreamedResponse(status: status, body: ResponseBody(source: source, expectedLength: nil), url: url)
    }

    static func client(_ transport: some Transport, configure: (inout Configuration) -> Void = { _ in }) -> Client {
        var configuration = Configuration(transport: transport)
        configuration.clock = TestClock(sleepsReturnImmediately: true)
        configuration.retryPolicy = .default
        configure(&configuration)
        return Client(configuration: configuration)
    }

    /// Runs the stages of a call that streams (its body is not read in the transport stage).
    static func stream(
        _ endpoint: some Requestable, _ transport: some Transport, configure: (inout Configuration) -> Void = { _ in }
    ) async throws(CourierError) -> StreamedResponse {
        var configuration = Configuration(transport: transport)
        configuration.clock = TestClock(sleepsReturnImmediately: true)
        configuration.retryPolicy = .default
        configure(&configuration)
        var options = CallOptions()
        options.collectsBody = false
        let client = Client(configuration: configuration)
        let call = try client.prepare(endpoint, options: options, trace: nil)
        return try await client.pipeline.run(call.request, call: call.stages)
    }

    @Test("a connection lost halfway through the body is one failed attempt, retried like one lost before the head")
    func aBodyLostMidwayIsRetried() async throws {
        let lost = CourierError.transport(TransportFailure(kind: .connectionLost))
        let transport = StreamingTransport([
            { Self.streamed(.ok, ScriptedChunks([Data(#"{"id":"#.utf8)], failure: lost), url: $0.url) },
            { Self.streamed(.ok, ScriptedChunks([Data(#"{"id":"#.utf8), Data("7}".utf8)]), url: $0.url) },
        ])
        struct Item: Decodable, Sendable { var id: Int }
        let item = try await Self.client(transport).enqueue(TestEndpoint()).resume(expecting: Item.self)
        #expect(item.id == 7)
        #expect(transport.count == 2)
    }

    @Test("a call that collects reads a retried response's short body to its end, so its connection can be reused")
    func aCollectingCallReadsTheRetriedBody() async throws {
        let first = ScriptedChunks([Data("busy".utf8)])
        let transport = StreamingTransport([
            { Self.streamed(.serviceUnavailable, first, url: $0.url) },
            { Self.streamed(.ok, ScriptedChunks([Data("ok".utf8)]), url: $0.url) },
        ])
        let response = try await Self.client(transport).enqueue(TestEndpoint()).resume()
        #expect(response.body == Data("ok".utf8))
        #expect(transport.count == 2)
        #expect(!first.wasCancelled)
        #expect(first.reads == 2, "the chunk, then the end")
    }

    @Test("for a streaming call, the body of a response that is retried is not read: its transfer is stopped")
    func aRetriedResponsesBodyIsCancelled() async throws {
        let first = ScriptedChunks([Data("busy".utf8)])
        let transport = StreamingTransport([
            { Self.streamed(.serviceUnavailable, first, url: $0.url) },
            { Self.streamed(.ok, ScriptedChunks([Data("ok".utf8)]), url: $0.url) },
        ])
        let response = try await Self.stream(TestEndpoint(), transport)
        #expect(try await response.body.collect(upTo: nil) == Data("ok".utf8))
        #expect(first.wasCancelled)
        #expect(first.reads == 0)
    }

    @Test("for a streaming call, the body of a 401 that is replayed with a fresh token is not read: its transfer is stopped")
    func aReplayed401sBodyIsCancelled() async throws {
        let rejected = ScriptedChunks([Data("expired".utf8)])
        let transport = StreamingTransport([
            { Self.streamed(.unauthorized, rejected, url: $0.url) },
            { request in
                #expect(request.head.headerFields[.authorization] == "Bearer fresh")
                return Self.streamed(.ok, ScriptedChunks([Data("ok".utf8)]), url: request.url)
            },
        ])
        let refresher = TokenRefresher(
            store: InMemoryTokenStore(TokenCredential(accessToken: "stale", refreshToken: "r", expiresAt: .distantFuture))
        ) { _ in
            TokenCredential(accessToken: "fresh", refreshToken: "r", expiresAt: .distantFuture)
        }
        let response = try await Self.stream(TestEndpoint(), transport) {
            $0.authentication = .bearer(refresher)
            $0.authorizedHosts = ["api.example.com"]
        }
        #expect(try await response.body.collect(upTo: nil) == Data("ok".utf8))
        #expect(rejected.wasCancelled)
        #expect(rejected.reads == 0)
    }

    /// Counts the bytes of every body it passes up, by wrapping the body.
    struct CountingBytes: Middleware {
        let counter: LockedState<Int>

        struct Counted: AsyncSequence, Sendable {
            typealias Element = Data
            let base: ResponseBody
            let counter: LockedState<Int>

            func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator(), counter: counter) }

            struct Iterator: AsyncIteratorProtocol {
                var base: ResponseBody.Iterator
                let counter: LockedState<Int>
                mutating func next() async throws -> Data? {
                    let chunk = try await base.next()
                    if let chunk { counter.withLock { $0 += chunk.count } }
                    return chunk
                }
            }
        }

        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            var response = try await next(request)
            response.body = ResponseBody(Counted(base: response.body, counter: counter), expectedLength: response.body.expectedLength)
            return response
        }
    }

    @Test("a middleware can wrap the body, and the call reads it through the wrapper")
    func aMiddlewareWrapsTheBody() async throws {
        let counter = LockedState(0)
        let transport = StreamingTransport([{ Self.streamed(.ok, ScriptedChunks([Data("abc".utf8), Data("de".utf8)]), url: $0.url) }])
        let client = Self.client(transport) { $0.middleware = [CountingBytes(counter: counter)] }
        let response = try await client.enqueue(TestEndpoint()).resume()
        #expect(response.body == Data("abcde".utf8))
        #expect(counter.withLock { $0 } == 5)
    }

    /// Answers with a body of its own that never ends.
    struct EndlessAnswer: Middleware {
        let source: ScriptedChunks
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            StreamedResponse(status: .ok, body: ResponseBody(source: source, expectedLength: nil), url: request.url)
        }
    }

    @Test("a streamed body a middleware returns is collected by the call under the same limit")
    func aMiddlewaresOwnBodyIsCollectedUnderTheLimit() async throws {
        let source = ScriptedChunks([Data(count: 1024)], endless: true)
        let client = Self.client(RecordingTransport()) {
            $0.middleware = [EndlessAnswer(source: source)]
            $0.maximumResponseSize = 64 << 10
        }
        let result = await client.enqueue(TestEndpoint()).result()
        guard case .failure(.transport(let failure)) = result, failure.kind == .responseTooLarge else {
            Issue.record("expected responseTooLarge, got \(result)")
            return
        }
        #expect(source.wasCancelled)
        #expect(source.reads == 65)
    }

    @Test("a transport that ignores the size limit still cannot make a call hold more than the limit")
    func theTransportStageEnforcesTheLimit() async throws {
        let source = ScriptedChunks([Data(count: 4096)], endless: true)
        let transport = StreamingTransport([{ Self.streamed(.ok, source, url: $0.url) }])
        let client = Self.client(transport) { $0.maximumResponseSize = 1 << 20 }
        let result = await client.enqueue(TestEndpoint()).result()
        guard case .failure(.transport(let failure)) = result, failure.kind == .responseTooLarge else {
            Issue.record("expected responseTooLarge, got \(result)")
            return
        }
        #expect(source.reads == 257)
        #expect(transport.count == 1, "too large is not retried")
    }

    @Test("the attempt's metrics count the bytes of the body read in the transport stage")
    func metricsCountTheCollectedBody() async throws {
        let transport = StreamingTransport([{ Self.streamed(.ok, ScriptedChunks([Data(count: 10), Data(count: 5)]), url: $0.url) }])
        let seen = LockedState<CallMetrics?>(nil)
        struct Spy: Middleware {
            let seen: LockedState<CallMetrics?>
            func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
                seen.withLock { $0 = context.metrics }
                return try await next(request)
            }
        }
        let client = Self.client(transport) { $0.middleware = [Spy(seen: seen)] }
        _ = try await client.enqueue(TestEndpoint()).resume()
        let metrics = try #require(seen.withLock { $0 })
        #expect(metrics.snapshot.bytesReceived == 15)
    }
}
