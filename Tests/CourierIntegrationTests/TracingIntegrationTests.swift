import Courier
import CourierTesting
import FlyingFox
import Foundation
import InMemoryTracing
import Testing
import Tracing

#if AsyncHTTPClientLinked
    import AsyncHTTPClient
#endif

/// An in-memory tracer whose ids have the W3C shapes and whose propagation writes `traceparent`,
/// as an OpenTelemetry tracer's does: what a server receives can be matched to the spans.
struct W3CTracer: Tracer {
    let recorded: InMemoryTracer

    init() {
        let next = LockedState(UInt64(0))
        let count = { @Sendable in
            next.withLock { value -> UInt64 in
                value += 1
                return value
            }
        }
        recorded = InMemoryTracer(
            idGenerator: .init(
                nextTraceID: { String(format: "%032llx", count()) },
                nextSpanID: { String(format: "%016llx", count()) }),
            recordInjections: false, recordExtractions: false)
    }

    var finishedSpans: [FinishedInMemorySpan] { recorded.finishedSpans }

    func finished(_ kind: SpanKind) -> [FinishedInMemorySpan] {
        recorded.finishedSpans.filter { $0.kind == kind }
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind, at instant: @autoclosure () -> Instant,
        function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        recorded.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject(Self.traceparent(traceID: span.traceID, spanID: span.spanID), forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}

    static func traceparent(traceID: String, spanID: String) -> String {
        "00-\(traceID)-\(spanID)-01"
    }

    static func traceparent(of span: FinishedInMemorySpan) -> String {
        traceparent(traceID: span.traceID, spanID: span.spanID)
    }
}

extension FinishedInMemorySpan {
    func string(_ key: String) -> String? {
        if case .string(let value)? = attributes.get(key) { return value }
        return nil
    }

    func int(_ key: String) -> Int? {
        if case .int64(let value)? = attributes.get(key) { return Int(value) }
        return nil
    }
}

/// Every `traceparent` field a request arrived with (more than one would be a bug).
private func traceparents(_ request: FlyingFox.HTTPRequest) -> [String] {
    request.headers.values(for: HTTPHeader("traceparent"))
}

@Suite("Tracing over the wire", .loopback, .timeLimit(.minutes(1)))
struct TracingIntegrationTests {
    private func client(_ kind: TransportKind, tracer: W3CTracer) -> Client {
        Client(
            configuration: Configuration(
                transport: kind.make(), timeout: generousTimeout, tracer: tracer,
                retryPolicy: .default, clock: TestClock(sleepsReturnImmediately: true)))
    }

    @Test("a failure recorded on the call and attempt spans hides the query items the client's redaction names", arguments: TransportKind.allCases)
    func recordedFailuresAreRedacted(_ kind: TransportKind) async throws {
        var port = 0
        try await TestServer.run { server in port = server.port }  // stopped: nothing listens there now
        let tracer = W3CTracer()
        var configuration = Configuration(transport: kind.make(), timeout: generousTimeout, tracer: tracer)
        configuration.redaction = Redaction(queryItems: Redaction.defaultParameterNames.union(["ticket"]))
        let endpoint = TestEndpoint(baseURL: try BaseURL(scheme: .http, host: "127.0.0.1", port: port), path: try URLPath("/closed")).with {
            $0.queryItems = [QueryItem(name: "ticket", value: "s3cret-ticket")]
        }
        let result = await Client(configuration: configuration).enqueue(endpoint).result()
        guard case .failure(.transport) = result else { Issue.record("expected a transport failure, got \(result)"); return }
        let recorded = tracer.finishedSpans.flatMap(\.errors).map { String(describing: $0.error) }
        #expect(recorded.count >= 2)  // the call's span and the attempt's
        #expect(recorded.allSatisfy { !$0.contains("s3cret-ticket") }, "\(recorded)")
    }

    /// Answers `statuses` in turn (the last one from then on), recording each request's
    /// `traceparent` fields.
    private func route(
        _ path: String, on server: TestServer, answering statuses: [Int], recorder: Recorder<[String]>
    ) async {
        let served = Recorder<Int>()
        await server.route(HTTPRoute("GET \(path)")) { request in
            await recorder.record(traceparents(request))
            await served.record(1)
            let index = await served.values.count - 1
            return FlyingFox.HTTPResponse(statusCode: HTTPStatusCode(statuses[min(index, statuses.count - 1)], phrase: "Status"))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func theServerReceivesOneTraceparentNamingTheRequestsSpanInTheCallersTrace(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let tracer = W3CTracer()
            let received = Recorder<[String]>()
            await route("/traced", on: server, answering: [200], recorder: received)
            let parent = tracer.startSpan("caller", context: .topLevel)
            try await ServiceContext.$current.withValue(parent.context) {
                _ = try await client(kind, tracer: tracer).enqueue(server.endpoint("/traced")).resume()
            }
            parent.end()

            let attempt = try #require(tracer.finished(.client).first)
            #expect(tracer.finished(.client).count == 1)
            #expect(attempt.traceID == parent.traceID)
            #expect(await received.values == [[W3CTracer.traceparent(of: attempt)]])
            #expect(attempt.int("server.port") == server.port)
            #expect(attempt.string("server.address") == "127.0.0.1")
            #expect(attempt.string("url.full") == "http://127.0.0.1:\(server.port)/traced")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func eachRetryReachesTheServerWithTheTraceparentOfItsOwnSpan(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let tracer = W3CTracer()
            let received = Recorder<[String]>()
            await route("/flaky", on: server, answering: [503, 503, 200], recorder: received)

            _ = try await client(kind, tracer: tracer).enqueue(server.endpoint("/flaky")).resume()

            let attempts = tracer.finished(.client)
            #expect(attempts.map { $0.int("http.request.resend_count") } == [nil, 1, 2])
            #expect(attempts.map { $0.int("http.response.status_code") } == [503, 503, 200])
            #expect(await received.values == attempts.map { [W3CTracer.traceparent(of: $0)] })
            #expect(Set(attempts.map(\.spanID)).count == 3)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func eachRedirectIsAClientSpanOfItsOwnAndItsTargetReceivesThatSpansTraceparent(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let tracer = W3CTracer()
            let atSource = Recorder<[String]>(), atTarget = Recorder<[String]>()
            await server.route("GET /from") { request in
                await atSource.record(traceparents(request))
                return FlyingFox.HTTPResponse(statusCode: .found, headers: [HTTPHeader("Location"): "/to"], body: Data())
            }
            await route("/to", on: server, answering: [200], recorder: atTarget)

            let response = try await client(kind, tracer: tracer).enqueue(server.endpoint("/from")).resume()

            #expect(response.statusCode == 200)
            let hops = tracer.finished(.client)
            try #require(hops.count == 2)
            #expect(hops.map { $0.int("http.request.resend_count") } == [nil, 1])
            #expect(hops.map { $0.int("http.response.status_code") } == [302, 200])
            #expect(hops.map { $0.string("url.full") } == ["/from", "/to"].map { "http://127.0.0.1:\(server.port)\($0)" })
            #expect(hops.allSatisfy { $0.status == nil })
            #expect(await atSource.values == [[W3CTracer.traceparent(of: hops[0])]])
            #expect(await atTarget.values == [[W3CTracer.traceparent(of: hops[1])]])
            let call = try #require(tracer.finished(.internal).first)
            #expect(hops.allSatisfy { $0.parentSpanID == call.spanID })
        }
    }

    /// Trace context goes where the caller sends, not where a server redirects to: a redirect hop
    /// on another origin gets none by default (before issue 22 it got a fresh `traceparent`).
    @Test(arguments: TransportKind.allCases)
    func aRedirectHopToAnotherOriginGetsNoTraceContext(_ kind: TransportKind) async throws {
        try await TestServer.run { a in
            try await TestServer.run { b in
                let tracer = W3CTracer()
                let atSource = Recorder<[String]>(), atTarget = Recorder<[String]>()
                await a.route("GET /from") { request in
                    await atSource.record(traceparents(request))
                    return FlyingFox.HTTPResponse(statusCode: .found, headers: [HTTPHeader("Location"): b.url("/to")], body: Data())
                }
                await route("/to", on: b, answering: [200], recorder: atTarget)

                let response = try await client(kind, tracer: tracer).enqueue(a.endpoint("/from")).resume()

                #expect(response.statusCode == 200)
                let hops = tracer.finished(.client)
                try #require(hops.count == 2)
                #expect(await atSource.values == [[W3CTracer.traceparent(of: hops[0])]])
                #expect(await atTarget.values == [[]], "the cross-origin hop")
            }
        }
    }

    /// `traceContextHosts` names the hosts that get trace context (every hop checked), and an
    /// empty set sends it nowhere. Spans are recorded either way.
    @Test(arguments: TransportKind.allCases, [nil, [], ["127.0.0.1"]] as [Set<String>?])
    func traceContextGoesOnlyToTheHostsAllowed(_ kind: TransportKind, hosts: Set<String>?) async throws {
        try await TestServer.run { a in
            try await TestServer.run { b in
                let tracer = W3CTracer()
                let atSource = Recorder<[String]>(), atTarget = Recorder<[String]>()
                await a.route("GET /from") { request in
                    await atSource.record(traceparents(request))
                    return FlyingFox.HTTPResponse(statusCode: .found, headers: [HTTPHeader("Location"): b.url("/to")], body: Data())
                }
                await route("/to", on: b, answering: [200], recorder: atTarget)
                var configuration = Configuration(transport: kind.make(), timeout: generousTimeout, tracer: tracer)
                configuration.traceContextHosts = hosts

                let response = try await Client(configuration: configuration).enqueue(a.endpoint("/from")).resume()

                #expect(response.statusCode == 200)
                let hops = tracer.finished(.client)
                try #require(hops.count == 2)
                let expectedAtSource = hosts == [] ? [] : [W3CTracer.traceparent(of: hops[0])]
                let expectedAtTarget = hosts == ["127.0.0.1"] ? [W3CTracer.traceparent(of: hops[1])] : []
                #expect(await atSource.values == [expectedAtSource])
                #expect(await atTarget.values == [expectedAtTarget], "the cross-origin hop")
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aTraceparentTheCallerSetReachesTheServerUnchanged(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let tracer = W3CTracer()
            let received = Recorder<[String]>()
            await route("/own", on: server, answering: [200], recorder: received)
            let own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
            let endpoint = try server.endpoint("/own").with { $0.headerItems = [HeaderItem(name: "traceparent", value: own)] }

            _ = try await client(kind, tracer: tracer).enqueue(endpoint).resume()

            #expect(await received.values == [[own]])
            #expect(tracer.finished(.client).count == 1)
        }
    }

    #if AsyncHTTPClientLinked
        @Test func overAsyncHTTPClientEveryRequestIsExactlyOneClientSpanEvenWithTheTracerTheProcessUses() async throws {
            try await TestServer.run { server in
                let tracer = W3CTracer()
                let received = Recorder<[String]>()
                await route("/once", on: server, answering: [503, 200], recorder: received)
                // Made while `tracer` is the process's: async-http-client's own tracing would
                // pick it up by default, as it picks up a bootstrapped one.
                let client = withTracer(tracer) {
                    Client(
                        configuration: Configuration(
                            transport: AsyncHTTPClientTransport(), retryPolicy: .default, clock: TestClock(sleepsReturnImmediately: true)))
                }

                _ = try await client.enqueue(server.endpoint("/once")).resume()

                let attempts = tracer.finished(.client)
                #expect(attempts.count == 2)
                #expect(tracer.finishedSpans.count == 3)  // and the call's
                #expect(await received.values == attempts.map { [W3CTracer.traceparent(of: $0)] })
            }
        }

        @Test func anHTTPClientYouPassWithATracerAddsItsSpanUnderCouriersAndWritesTheOnlyTraceparent() async throws {
            try await TestServer.run { server in
                let tracer = W3CTracer()
                let received = Recorder<[String]>()
                await route("/yours", on: server, answering: [200], recorder: received)
                // Its configuration's tracer is the process's at creation: `tracer`.
                let httpClient = withTracer(tracer) {
                    HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))
                }
                let client = Client(configuration: Configuration(transport: AsyncHTTPClientTransport(client: httpClient), tracer: tracer))

                let result = await client.enqueue(try server.endpoint("/yours")).result()
                try await httpClient.shutdown()

                #expect((try? result.get())?.statusCode == 200)
                let clientSpans = tracer.finished(.client)
                try #require(clientSpans.count == 2)
                // async-http-client names the status code `http.status_code`, Courier as the
                // stable conventions do.
                let courier = try #require(clientSpans.first { $0.int("http.response.status_code") == 200 })
                let theirs = try #require(clientSpans.first { $0.attributes.get("http.status_code") != nil })
                #expect(theirs.parentSpanID == courier.spanID)
                #expect(await received.values == [[W3CTracer.traceparent(of: theirs)]])
            }
        }
    #endif
}
