import Courier
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryTracing
import Testing
import Tracing

// Every test gives its client an `InMemoryTracer` of its own through `Configuration.tracer`:
// nothing is bootstrapped, so suites running in parallel never share spans.

extension FinishedInMemorySpan {
    func string(_ key: String) -> String? {
        switch attributes.get(key) {
        case .string(let value)?: value
        default: nil
        }
    }

    func int(_ key: String) -> Int? {
        switch attributes.get(key) {
        case .int64(let value)?: Int(value)
        case .int32(let value)?: Int(value)
        default: nil
        }
    }

    /// Every attribute value, as text.
    var attributeTexts: [String] {
        var texts: [String] = []
        attributes.forEach { key, value in texts.append("\(key)=\(value)") }
        return texts
    }
}

extension InMemoryTracer {
    /// The finished spans of `kind`, in the order they ended.
    func finished(_ kind: SpanKind) -> [FinishedInMemorySpan] {
        finishedSpans.filter { $0.kind == kind }
    }
}

/// A middleware that starts a span of its own around `next`, with the current context.
private struct SpanningMiddleware: Middleware {
    let tracer: InMemoryTracer

    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        let span = tracer.startSpan("middleware", context: ServiceContext.current ?? .topLevel)
        defer { span.end() }
        return try await next(request)
    }
}

@Suite("Tracing")
struct TracingTests {
    private func client(
        _ transport: RecordingTransport, tracer: InMemoryTracer, configure: (inout Configuration) -> Void = { _ in }
    ) -> Client {
        makeClient(transport) {
            $0.tracer = tracer
            configure(&$0)
        }
    }

    @Test func aCallIsAnInternalSpanUnderTheCallersContextWithOneClientSpanPerRequestUnderIt() async throws {
        let tracer = InMemoryTracer()
        let transport = RecordingTransport()
        let parent = tracer.startSpan("caller", context: .topLevel)
        try await ServiceContext.$current.withValue(parent.context) {
            _ = try await client(transport, tracer: tracer).enqueue(TestEndpoint(pathString: "/items")).resume()
        }
        parent.end()

        let call = try #require(tracer.finished(.internal).first { $0.operationName == "GET" })
        let attempt = try #require(tracer.finished(.client).first)
        #expect(tracer.finished(.client).count == 1)
        #expect(call.parentSpanID == parent.spanID)
        #expect(call.traceID == parent.traceID)
        #expect(attempt.parentSpanID == call.spanID)
        #expect(attempt.traceID == parent.traceID)
        for span in [call, attempt] {
            #expect(span.operationName == "GET")
            #expect(span.string("http.request.method") == "GET")
            #expect(span.string("url.full") == "https://api.example.com/items")
            #expect(span.string("url.scheme") == "https")
            #expect(span.string("server.address") == "api.example.com")
            #expect(span.int("server.port") == 443)
            #expect(span.int("http.response.status_code") == 200)
            #expect(span.attributes.get("error.type") == nil)
            #expect(span.status == nil)
        }
        #expect(attempt.attributes.get("http.request.resend_count") == nil)
    }

    @Test func aCallWithoutAContextStartsATraceOfItsOwn() async throws {
        let tracer = InMemoryTracer()
        _ = try await client(RecordingTransport(), tracer: tracer).enqueue(TestEndpoint()).resume()
        let call = try #require(tracer.finished(.internal).first)
        #expect(call.parentSpanID == nil)
        #expect(tracer.finished(.client).first?.parentSpanID == call.spanID)
    }

    @Test func eachRetryIsAClientSpanOfItsOwnWithItsResendCount() async throws {
        let tracer = InMemoryTracer()
        let transport = RecordingTransport(script: [.status(503), .status(503), .status(200)])
        _ = try await client(transport, tracer: tracer) {
            $0.retryPolicy = .default
            $0.clock = TestClock(sleepsReturnImmediately: true)
        }.enqueue(TestEndpoint()).resume()

        let attempts = tracer.finished(.client)
        #expect(attempts.map { $0.int("http.request.resend_count") } == [nil, 1, 2])
        #expect(attempts.map { $0.int("http.response.status_code") } == [503, 503, 200])
        #expect(attempts.map { $0.string("error.type") } == ["503", "503", nil])
        #expect(attempts.map { $0.status?.code } == [.error, .error, nil])
        let call = try #require(tracer.finished(.internal).first)
        #expect(attempts.allSatisfy { $0.parentSpanID == call.spanID })
        #expect(call.int("http.response.status_code") == 200)
        #expect(call.status == nil)
    }

    @Test func theReplayAfterA401IsAClientSpanWithResendCountOne() async throws {
        let tracer = InMemoryTracer()
        let api = BearerAPI(valid: { $0 != "Bearer at-0" })
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let refresher = TokenRefresher(store: CountingStore(clock.credential("at-0", expiresIn: 3600)), now: clock.closure) { _ in mint.next() }
        let client = Client(
            configuration: Configuration(
                transport: api, tracer: tracer, authentication: .bearer(refresher), authorizedHosts: ["api.example.com"]))

        _ = try await client.enqueue(APIEndpoint()).resume()

        let attempts = tracer.finished(.client)
        #expect(attempts.map { $0.int("http.request.resend_count") } == [nil, 1])
        #expect(attempts.map { $0.int("http.response.status_code") } == [401, 200])
    }

    @Test func everyRequestCarriesTheContextOfItsOwnSpanWrittenAfterSigning() async throws {
        let tracer = InMemoryTracer()
        let transport = RecordingTransport(script: [.status(503), .status(200)])
        _ = try await client(transport, tracer: tracer) {
            $0.retryPolicy = .default
            $0.clock = TestClock(sleepsReturnImmediately: true)
            $0.authentication = .basic(BasicCredential(username: "ada", password: "pw"))
            $0.authorizedHosts = ["api.example.com"]
        }.enqueue(TestEndpoint()).resume()

        let requests = await transport.requests
        let attempts = tracer.finished(.client)
        #expect(requests.map { $0.header(InMemoryTracer.spanIDKey) } == attempts.map(\.spanID))
        #expect(requests.map { $0.header(InMemoryTracer.traceIDKey) } == attempts.map(\.traceID))
        // Written below authentication: the request that carries it is the signed one.
        #expect(requests.allSatisfy { $0.header("Authorization") != nil })
    }

    @Test func traceContextTheRequestAlreadyCarriesIsNeverReplaced() async throws {
        let tracer = InMemoryTracer()
        let transport = RecordingTransport()
        var endpoint = TestEndpoint()
        endpoint.headerItems = [HeaderItem(name: InMemoryTracer.spanIDKey, value: "the-callers-span")]
        _ = try await client(transport, tracer: tracer).enqueue(endpoint).resume()

        let request = try #require(await transport.last)
        #expect(request.head.headerFields[values: HTTPField.Name(InMemoryTracer.spanIDKey)!] == ["the-callers-span"])
        // Nothing of Courier's context is mixed in, and the spans are still recorded.
        #expect(request.header(InMemoryTracer.traceIDKey) == nil)
        #expect(tracer.finished(.client).count == 1)
    }

    @Test func aRequestSpanDescribesTheRequestAsSentAndTheCallSpanTheRequestAsBuilt() async throws {
        struct Versioned: Middleware {
            func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
                var request = request
                request.head.path = "/v2" + (request.head.path ?? "/")
                request.head.authority = "eu.example.com:8443"
                return try await next(request)
            }
        }
        let tracer = InMemoryTracer()
        _ = try await client(RecordingTransport(), tracer: tracer) { $0.middleware = [Versioned()] }
            .enqueue(TestEndpoint(pathString: "/items")).resume()

        let call = try #require(tracer.finished(.internal).first)
        let request = try #require(tracer.finished(.client).first)
        #expect(call.string("url.full") == "https://api.example.com/items")
        #expect(request.string("url.full") == "https://eu.example.com:8443/v2/items")
        #expect(request.string("server.address") == "eu.example.com")
        #expect(request.int("server.port") == 8443)
    }

    @Test(arguments: [("[::1]", 8080, "::1", 8080), ("API.Example.com", nil, "api.example.com", 443), ("10.0.0.7", 80, "10.0.0.7", 80)])
    func serverAddressAndPortAreReportedAsTheConventionsWriteThem(host: String, port: Int?, address: String, reportedPort: Int) async throws {
        struct Endpoint: Requestable {
            let host: String
            let port: Int?
            var requiresAuthorization: Bool { false }
            func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: host, port: port) }
        }
        let tracer = InMemoryTracer()
        _ = try await client(RecordingTransport(), tracer: tracer).enqueue(Endpoint(host: host, port: port)).resume()
        for span in tracer.finishedSpans {
            #expect(span.string("server.address") == address)
            #expect(span.int("server.port") == reportedPort)
        }
        #expect(tracer.finishedSpans.count == 2)
    }

    @Test func spansOfUsersMiddlewareAreChildrenOfTheCallSpan() async throws {
        let tracer = InMemoryTracer()
        _ = try await client(RecordingTransport(), tracer: tracer) {
            $0.middleware = [SpanningMiddleware(tracer: tracer)]
        }.enqueue(TestEndpoint()).resume()

        let call = try #require(tracer.finishedSpans.first { $0.kind == .internal && $0.operationName == "GET" })
        let middleware = try #require(tracer.finishedSpans.first { $0.operationName == "middleware" })
        #expect(middleware.parentSpanID == call.spanID)
        #expect(tracer.finished(.client).first?.parentSpanID == call.spanID)
    }

    @Test(arguments: [
        (CourierError.transport(TransportFailure(URLError(.timedOut), url: URL(string: "https://api.example.com/")!)), "timedOut"),
        (CourierError.transport(TransportFailure(URLError(.cannotConnectToHost), url: URL(string: "https://api.example.com/")!)), "cannotConnect"),
        (CourierError.cancelled, "cancelled"),
    ])
    func aFailedRequestEndsBothSpansWithItsErrorTypeAndErrorStatus(error: CourierError, type: String) async throws {
        let tracer = InMemoryTracer()
        _ = await client(RecordingTransport(script: [.failure(error)]), tracer: tracer).enqueue(TestEndpoint()).result()

        let spans = [try #require(tracer.finished(.client).first), try #require(tracer.finished(.internal).first)]
        for span in spans {
            #expect(span.string("error.type") == type)
            #expect(span.status?.code == .error)
            #expect(span.attributes.get("http.response.status_code") == nil)
            // A cancellation is not an error to record; a transport failure is.
            #expect(span.errors.count == (type == "cancelled" ? 0 : 1))
        }
    }

    @Test func aRefusedStatusIsAnErrorTypedByItsCodeAndRecordsNoException() async throws {
        let tracer = InMemoryTracer()
        _ = await client(RecordingTransport(script: [.status(404)]), tracer: tracer).enqueue(TestEndpoint()).result()
        for span in tracer.finishedSpans {
            #expect(span.int("http.response.status_code") == 404)
            #expect(span.string("error.type") == "404")
            #expect(span.status?.code == .error)
            #expect(span.errors.isEmpty)
        }
        #expect(tracer.finishedSpans.count == 2)
    }

    @Test func anAcceptedClientErrorStatusStillMarksTheRequestSpanAsAnError() async throws {
        // The conventions: a client span with status 400 or more is an error, whatever the caller
        // makes of it; the call itself succeeded.
        let tracer = InMemoryTracer()
        var endpoint = TestEndpoint()
        endpoint.acceptableStatusCodes = [404]
        _ = try await client(RecordingTransport(script: [.status(404)]), tracer: tracer).enqueue(endpoint).resume()
        #expect(tracer.finished(.client).first?.string("error.type") == "404")
        #expect(tracer.finished(.internal).first?.string("error.type") == "404")
    }

    @Test func aMethodOutsideTheStandardSetIsReportedAsOtherUnderTheSpanNameHTTP() async throws {
        let tracer = InMemoryTracer()
        var endpoint = TestEndpoint()
        endpoint.method = try #require(HTTPMethod(rawValue: "PURGE"))
        _ = try await client(RecordingTransport(), tracer: tracer).enqueue(endpoint).resume()
        for span in tracer.finishedSpans {
            #expect(span.operationName == "HTTP")
            #expect(span.string("http.request.method") == "_OTHER")
            #expect(span.string("http.request.method_original") == "PURGE")
        }
    }

    @Test func aStreamedCallsSpansEndWithTheHead() async throws {
        let tracer = InMemoryTracer()
        let response = try await client(RecordingTransport(), tracer: tracer).enqueue(TestEndpoint()).stream()
        #expect(tracer.finishedSpans.count == 2)
        #expect(tracer.activeSpans.isEmpty)
        _ = try await response.body.collect(upTo: nil)
    }

    @Test func noSecretReachesASpanAttributeOrARecordedError() async throws {
        let tracer = InMemoryTracer()
        // A middleware that points the request at a URL with user-info: it is refused before the
        // wire, but its attempt span has seen it.
        struct UserInfo: Middleware {
            func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
                var request = request
                request.head.authority = "ada:S3CR3T-userinfo@api.example.com"
                return try await next(request)
            }
        }
        var endpoint = TestEndpoint()
        endpoint.queryItems = [QueryItem(name: "access_token", value: "S3CR3T-query"), QueryItem(name: "page", value: "2")]
        endpoint.headerItems = [HeaderItem(name: "X-Api-Key", value: "S3CR3T-api-key")]
        let basic = client(RecordingTransport(), tracer: tracer) {
            $0.authentication = .basic(BasicCredential(username: "ada", password: "S3CR3T-password"))
            $0.authorizedHosts = ["api.example.com"]
        }
        _ = try await basic.enqueue(endpoint).resume()
        let rewriting = client(RecordingTransport(), tracer: tracer) { $0.middleware = [UserInfo()] }
        _ = await rewriting.enqueue(endpoint).result()
        // A bearer token refreshed on the way (its refresh token is spent, a new pair minted).
        let clock = WallClock()
        let expired = TokenCredential(accessToken: "S3CR3T-access", refreshToken: "S3CR3T-refresh", expiresAt: clock.now.addingTimeInterval(-1))
        let refresher = TokenRefresher(store: CountingStore(expired), now: clock.closure) { _ in
            TokenCredential(accessToken: "S3CR3T-fresh", refreshToken: "S3CR3T-next")
        }
        let bearerTransport = RecordingTransport()
        let bearer = client(bearerTransport, tracer: tracer) {
            $0.authentication = .bearer(refresher)
            $0.authorizedHosts = ["api.example.com"]
        }
        _ = try await bearer.enqueue(endpoint).resume()
        #expect(await bearerTransport.last?.header("Authorization") == "Bearer S3CR3T-fresh")

        let spans = tracer.finishedSpans
        #expect(spans.count == 6)
        let texts = spans.flatMap { span in
            span.attributeTexts + span.errors.map { "\($0.error)" } + span.events.map(\.name) + [span.operationName]
        }
        #expect(!texts.isEmpty)
        #expect(!texts.contains { $0.contains("S3CR3T") }, "\(texts.filter { $0.contains("S3CR3T") })")
        let urls = spans.compactMap { $0.string("url.full") }
        #expect(urls.contains("https://api.example.com/?access_token=REDACTED&page=2"))
        #expect(urls.contains("https://REDACTED:REDACTED@api.example.com/?access_token=REDACTED&page=2"))
    }

    @Test func aConfiguredNoOpTracerKeepsTheClientOutOfTracesAndItsRequestsFreeOfContext() async throws {
        let process = InMemoryTracer()
        let transport = RecordingTransport()
        let client = withTracer(process) { makeClient(transport) { $0.tracer = NoOpTracer() } }
        try await withTracer(process) {
            _ = try await client.enqueue(TestEndpoint()).resume()
        }
        #expect(process.finishedSpans.isEmpty)
        #expect(await transport.last?.header(InMemoryTracer.spanIDKey) == nil)
    }

    @Test func withoutAConfiguredTracerTheClientUsesTheProcessTracerItWasCreatedWith() async throws {
        let process = InMemoryTracer()
        let client = withTracer(process) { makeClient(RecordingTransport()) }
        // Called outside the binding: the tracer was picked when the client was made.
        _ = try await client.enqueue(TestEndpoint()).resume()
        #expect(process.finishedSpans.count == 2)
    }
}
