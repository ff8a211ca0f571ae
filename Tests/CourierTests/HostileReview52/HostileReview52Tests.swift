import CourierTesting
import Foundation
import HTTPTypes
import InMemoryTracing
import Logging
import Testing
import Tracing

@testable import Courier

// Hostile review of issue 52 (d07d9d4 the pipeline as one list of stages, 1d14475 token requests
// take the client's path, 381aa38 / e6b28ff the API renames).
//
// "Hostile review 52: defects" holds one test per defect found, each of which failed on the
// reviewed code and passes since its fix: "WRONG" says what the code did, "CORRECT" what it does
// now. "Hostile review 52: hazards" holds documented behaviour the review found unsafe, changed
// the same way. "Hostile review 52: invariants" holds the attacks that held.

// MARK: - Support

/// Opens once; every waiter, past and future, goes on.
private actor H52Gate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func open() {
        isOpen = true
        for waiter in waiting { waiter.resume() }
        waiting = []
    }

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }
}

/// Lets its parties go once all of them have arrived.
private actor Barrier {
    private let parties: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(parties: Int) { self.parties = parties }

    func arrive() async {
        arrived += 1
        if arrived >= parties {
            for waiter in waiting { waiter.resume() }
            waiting = []
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}

/// `body`'s value, or `nil` when it has not returned within `seconds` (a watchdog against a
/// hang, not a wait for something to happen: every test below finishes at once when it holds).
private func within<T: Sendable>(seconds: Int, _ body: @escaping @Sendable () async -> T) async -> T? {
    let once = LockedState<CheckedContinuation<T?, Never>?>(nil)
    return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
        once.withLock { $0 = continuation }
        Task {
            let value = await body()
            once.withLock { slot -> CheckedContinuation<T?, Never>? in
                defer { slot = nil }
                return slot
            }?.resume(returning: value)
        }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            once.withLock { slot -> CheckedContinuation<T?, Never>? in
                defer { slot = nil }
                return slot
            }?.resume(returning: nil)
        }
    }
}

/// A configuration whose logger keeps every line.
private func logged(_ transport: RecordingTransport, _ configure: (inout Configuration) -> Void = { _ in }) -> (Configuration, CapturedLines) {
    let captured = CapturedLines()
    var configuration = Configuration(transport: transport)
    configuration.logger = Logger(label: "hostile52") { _ in CapturingHandler(captured: captured) }
    configure(&configuration)
    return (configuration, captured)
}

extension CapturedLines {
    /// The "failed in stage" lines.
    fileprivate var stageLines: [String] { all.map(\.1).filter { $0.contains("failed in stage") } }
}

private func x(_ name: String) -> HTTPField.Name { HTTPField.Name(name)! }

/// A transport that never answers: every request fails as a lost connection.
private func failingTransport() -> RecordingTransport {
    RecordingTransport { _ throws(CourierError) in throw .transport(TransportFailure(kind: .connectionLost)) }
}

/// Passes everything through, errors included.
private struct Relay: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        try await next(request)
    }
}

/// Throws an error of its own without calling `next`.
private struct Refuser: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        throw .invalidRequest(.invalidHeaderName("X-Refused"))
    }
}

/// An endpoint with middleware of its own.
private struct Guarded: Requestable {
    var own: [any Middleware]
    var query: [QueryItem]? = nil
    var requiresAuthorization: Bool { false }
    var middleware: [any Middleware] { own }
    var queryItems: [QueryItem]? { query }
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath("/items") }
}

/// Edits the request with `edit`, then passes it on.
private struct Editor: Middleware {
    let edit: @Sendable (inout TransportRequest) -> Void
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        var request = request
        edit(&request)
        return try await next(request)
    }
}

// MARK: - Defects

/// `next(request)`'s outcome as a `Result`.
private func outcome(of next: Middleware.Next, _ request: TransportRequest) async -> Result<StreamedResponse, CourierError> {
    do throws(CourierError) {
        return .success(try await next(request))
    } catch {
        return .failure(error)
    }
}

/// Sends every request twice at once (`async let`) and keeps the first success (a hedging
/// middleware); relays the first failure otherwise.
private struct Hedge: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        async let first = outcome(of: next, request)
        async let second = outcome(of: next, request)
        let results = await [first, second]
        for case .success(let response) in results { return response }
        if case .failure(let error)? = results.first { throw error }
        throw .cancelled
    }
}

/// Relays every error, but only once both of its concurrent runs have failed.
private struct WaitsForBoth: Middleware {
    let barrier: Barrier
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        do {
            return try await next(request)
        } catch {
            await barrier.arrive()
            throw error
        }
    }
}

/// Hedges like ``Hedge``, marking its two requests `a` and `b`, and opens `bFailed` once `b`'s
/// failure has come back up to it.
private struct MarkedHedge: Middleware {
    let bFailed: H52Gate
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        var a = request
        a.head.headerFields[x("X-Branch")] = "a"
        var b = request
        b.head.headerFields[x("X-Branch")] = "b"
        async let first = outcome(of: next, a)
        async let second = Self.openingOnFailure(outcome(of: next, b), bFailed)
        let results = await [first, second]
        for case .success(let response) in results { return response }
        if case .failure(let error)? = results.first { throw error }
        throw .cancelled
    }

    private static func openingOnFailure(
        _ result: Result<StreamedResponse, CourierError>, _ gate: H52Gate
    ) async -> Result<StreamedResponse, CourierError> {
        if case .failure = result { await gate.open() }
        return result
    }
}

/// Branch `b` throws an error of its own (after `a`'s next failed); branch `a` relays the
/// transport's failure (after `b`'s error went up).
private struct Splitter: Middleware {
    let aFailed: H52Gate
    let bFailed: H52Gate
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        if request.head.headerFields[x("X-Branch")] == "b" {
            await aFailed.wait()
            throw .invalidRequest(.invalidHeaderName("X-Own-Error-Of-Branch-B"))
        }
        do {
            return try await next(request)
        } catch {
            await aFailed.open()
            await bFailed.wait()
            throw error
        }
    }
}

/// Calls `next` twice, one after the other, and returns the second outcome (a user-level
/// "try again" middleware).
private struct TwoPasses: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        _ = try? await next(request)
        return try await next(request)
    }
}

/// First run: serves a fallback when `next` fails. Second run: refuses on its own, without
/// calling `next`.
private struct OfflineFallback: Middleware {
    let runs = LockedState(0)
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        let run = runs.withLock { runs -> Int in
            runs += 1
            return runs
        }
        guard run == 1 else { throw .invalidRequest(.invalidHeaderName("X-Offline-Budget-Spent")) }
        do {
            return try await next(request)
        } catch {
            return StreamedResponse(status: .ok, headers: [x("X-Fallback"): "1"], url: request.url)
        }
    }
}

/// Serves a fallback when `next` fails.
private struct Fallback: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        do {
            return try await next(request)
        } catch {
            return StreamedResponse(status: .ok, url: request.url)
        }
    }
}

/// Refuses every response on its own, after `next` succeeded.
private struct Validator: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        _ = try await next(request)
        throw .invalidRequest(.invalidHeaderName("X-Validator"))
    }
}

/// An in-memory tracer whose propagation writes a framing header (a careless instrument).
private struct FramingTracer: Tracer {
    let recorded = InMemoryTracer()

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind, at instant: @autoclosure () -> Instant,
        function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        recorded.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        injector.inject("chunked", forKey: "Transfer-Encoding", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}
}

/// The call of the exit test below: a client with no middleware (so no `FailureTrail`), whose
/// tracer writes `Transfer-Encoding` into every attempt. Exits 0 when the call is refused with
/// `reservedHeader` and nothing was sent.
private func framingHeaderWithoutMiddleware() async {
    let transport = RecordingTransport()
    var configuration = Configuration(transport: transport)
    configuration.tracer = FramingTracer()
    configuration.retryPolicy = .none
    let result = await Client(configuration: configuration).enqueue(TestEndpoint()).result()
    guard case .failure(.invalidRequest(.reservedHeader)) = result else { exit(3) }
    guard await transport.requests.isEmpty else { exit(4) }
}

/// An API endpoint that requires the bearer token.
private struct Me: Requestable {
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath("/me") }
}

/// On the token request only: waits for `go`, then asks `client` to run exclusively; records how it ended.
private struct ExclusiveOnTokenRequest: Middleware {
    let client: LockedState<Client?>
    let seen: H52Gate
    let go: H52Gate
    let outcome: LockedState<[String]>
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        if request.head.path == "/oauth/token", let client = client.withLock({ $0 }) {
            await seen.open()
            await go.wait()
            do {
                try await client.runExclusively {}
                outcome.withLock { $0.append("ran") }
            } catch {
                if let error = error as? CourierError, case .invalidRequest(.wouldDeadlock) = error {
                    outcome.withLock { $0.append("wouldDeadlock") }
                } else {
                    outcome.withLock { $0.append("other: \(error)") }
                }
            }
        }
        return try await next(request)
    }
}

@Suite("Hostile review 52: defects")
struct HostileReview52DefectTests {
    /// WRONG (before the fix): `FailureTrail` keeps one bit per level for the whole call. A middleware that calls
    /// `next` twice at once runs the stages below it twice with the same trail: both runs of
    /// `WaitsForBoth` mark its level failed, the first to end consumes the bit, the second finds
    /// it clear and is named, although it only relayed the transport's failure. One
    /// "failed in stage WaitsForBoth: Transport failure…" line and `courier.failed_stage =
    /// WaitsForBoth`.
    /// CORRECT: no stage is named (every failure came from the transport), as for one run.
    @Test("a middleware calling next twice at once: a relayed transport failure is not named")
    func concurrentNextNamesARelayingStage() async throws {
        let tracer = InMemoryTracer()
        let (configuration, lines) = logged(failingTransport()) {
            $0.middleware = [Hedge(), WaitsForBoth(barrier: Barrier(parties: 2))]
            $0.tracer = tracer
        }
        let result = await Client(configuration: configuration).enqueue(TestEndpoint(pathString: "/hedged")).result()
        guard case .failure(.transport) = result else {
            Issue.record("expected the transport's failure, got \(result)")
            return
        }
        #expect(lines.stageLines == [], "every failure came from the transport")
        var named: [String] = []
        for span in tracer.finishedSpans {
            if case .string(let stage)? = span.attributes.get("courier.failed_stage") { named.append(stage) }
        }
        #expect(named == [])
    }

    /// WRONG (before the fix): the same shared bit the other way round: branch `b`'s own error consumes the bit
    /// branch `a`'s failed `next` set, so it is not named; then branch `a`, relaying the
    /// transport failure, finds the bit clear and is named with the transport's error. The log
    /// says "failed in stage Splitter: Transport failure (connection lost…)".
    /// CORRECT: one line naming Splitter with its own error (`X-Own-Error-Of-Branch-B`).
    @Test("a middleware calling next twice at once: its own error is named, not the relayed one")
    func concurrentNextSwapsTheNamedError() async throws {
        let aFailed = H52Gate()
        let bFailed = H52Gate()
        let (configuration, lines) = logged(failingTransport()) {
            $0.middleware = [MarkedHedge(bFailed: bFailed), Splitter(aFailed: aFailed, bFailed: bFailed)]
        }
        _ = await Client(configuration: configuration).enqueue(TestEndpoint(pathString: "/split")).result()
        let named = lines.stageLines
        #expect(named.count == 1)
        #expect(named.first?.contains("failed in stage Splitter") == true)
        #expect(named.first?.contains("X-Own-Error-Of-Branch-B") == true, "named: \(named)")
        #expect(named.first?.contains("Transport failure") == false, "named: \(named)")
    }

    /// WRONG (before the fix): a level's bit outlives the run that set it. `OfflineFallback`'s first run recovers
    /// from a failed `next` (the bit stays set); its second run refuses on its own without calling
    /// `next`, finds the stale bit and is not named: no "failed in stage" line at all, no
    /// `courier.failed_stage`.
    /// CORRECT: "failed in stage OfflineFallback: … X-Offline-Budget-Spent": no `next` of that
    /// run failed (Pipeline's own rule).
    @Test("a stage's later run that fails on its own is named, whatever an earlier run recovered from")
    func aStaleBitHidesALaterOwnError() async throws {
        let (configuration, lines) = logged(failingTransport()) {
            $0.middleware = [TwoPasses(), OfflineFallback()]
        }
        let result = await Client(configuration: configuration).enqueue(TestEndpoint(pathString: "/offline")).result()
        guard case .failure(.invalidRequest) = result else {
            Issue.record("expected OfflineFallback's own error, got \(result)")
            return
        }
        #expect(lines.stageLines.count == 1)
        #expect(lines.stageLines.first?.contains("failed in stage OfflineFallback") == true, "lines: \(lines.stageLines)")
    }

    /// WRONG (before the fix): the endpoint's middleware use levels 32, 33… (`FailureTrail.endpointLevel`), the
    /// client's middleware their index: with 33 or more client middleware the two share bits.
    /// Here the endpoint's `Fallback` recovers from a failed `next` (marking level 32), then the
    /// 33rd client middleware (index 32) refuses the response on its own, finds "its" bit set
    /// and is not named. With one client middleware the same `Validator` is named (the
    /// invariant test `validatorIsNamedWithFewMiddleware`).
    /// CORRECT: "failed in stage Validator", whatever the number of middleware (or, past what the
    /// trail can hold, nothing named — never a wrong or missing name because of a collision).
    @Test("33 client middleware: the endpoint middleware's level does not collide with the 33rd's")
    func endpointLevelsCollideWithClientMiddleware() async throws {
        let (configuration, lines) = logged(failingTransport()) {
            $0.middleware = Array(repeating: Relay(), count: 32) + [Validator()]
        }
        let result = await Client(configuration: configuration).enqueue(Guarded(own: [Fallback()])).result()
        guard case .failure(.invalidRequest) = result else {
            Issue.record("expected Validator's own error, got \(result)")
            return
        }
        #expect(lines.stageLines.count == 1)
        #expect(lines.stageLines.first?.contains("failed in stage Validator") == true, "lines: \(lines.stageLines)")
    }

    /// WRONG (before the fix) (hostile server): the new "failed in stage" line prints the stage's error as it
    /// is. A failed refresh's error carries the authorization server's `error_description`
    /// verbatim, CR and LF included, so the server writes a line of its choosing into the app's
    /// error log ("GET https://api.example.com/admin failed in stage Forged: injected").
    /// Courier prints other untrusted text with `debugDescription` (header names, hosts).
    /// CORRECT: the line has no CR or LF (escaped, or control characters replaced).
    @Test("a token server's error_description cannot forge a line in the failing-stage log")
    func errorDescriptionForgesALogLine() async throws {
        let forged = #"{"error":"invalid_grant","error_description":"revoked\r\nGET https://api.example.com/admin failed in stage Forged: injected"}"#
        let server = Tokens.server(
            tokenAnswer: Response(
                status: .badRequest, headers: [.contentType: "application/json"], body: Data(forged.utf8),
                url: URL(string: "https://auth.example.com/oauth/token")!))
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        let (configuration, lines) = logged(server) {
            $0.authentication = .bearer(refresher)
            $0.authorizedHosts = ["api.example.com"]
        }
        let result = await Client(configuration: configuration).enqueue(Me()).result()
        guard case .failure(.authentication(.refreshFailed)) = result else {
            Issue.record("expected a failed refresh, got \(result)")
            return
        }
        let named = lines.stageLines
        #expect(named.count == 1)
        #expect(named.allSatisfy { !$0.contains("\n") && !$0.contains("\r") }, "lines: \(named.map(\.debugDescription))")
    }

    /// WRONG (before the fix): a client without middleware gives its calls no `FailureTrail`, and the transport
    /// stage then only `assert`s that the request is sendable ("no stage that could change it
    /// ran"). But the attempt stage, below that reasoning, writes the tracer's propagation
    /// fields into the request: an instrument that writes a framing header
    /// (`Transfer-Encoding`) traps the process in a debug build (the exit test sees a crash)
    /// and, in release, reaches the transport unchecked. With one middleware the same call is
    /// refused with `reservedHeader` (`framingHeaderWithMiddlewareIsRefused`).
    /// CORRECT: refused with `.invalidRequest(.reservedHeader)`, nothing sent, no crash: check
    /// the fields `AttemptTrace` injects (or skip `checkSendable` only when no trace context is
    /// written).
    @Test("a tracer's framing header is refused even when the client has no middleware (no crash)")
    func framingHeaderWithoutMiddlewareCrashes() async {
        // Observed on the reviewed code: `.signal(SIGILL)`, stderr "Courier/Pipeline.swift:300:
        // Assertion failed: a request RequestBuilder made is sendable".
        await #expect(processExitsWith: .success) {
            await framingHeaderWithoutMiddleware()
        }
    }

    /// WRONG (before the fix): the refresh that a middleware of the token request runs inside may have been
    /// started outside any call (`forceRefresh()` from app code): `CallScope` then does not say
    /// the task is inside a call on the app client, so `runExclusively` from the token
    /// request's middleware waits for the app's calls to drain, while a call of the app waits
    /// for that refresh. Nobody moves: the call never ends (the watchdog fires).
    /// CORRECT: fails at once with `wouldDeadlock` (the task is inside a refresh of this
    /// client's own refresher, `RefreshScope`), and the call completes.
    @Test("runExclusively from the token request's middleware, refresh started outside a call: fails at once, no hang")
    func runExclusivelyInsideARefreshStartedOutsideACall() async throws {
        let box = LockedState<Client?>(nil)
        let seen = H52Gate()
        let go = H52Gate()
        let outcome = LockedState<[String]>([])
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        var configuration = Configuration(transport: Tokens.server())
        configuration.middleware = [ExclusiveOnTokenRequest(client: box, seen: seen, go: go, outcome: outcome)]
        configuration.authentication = .bearer(refresher)
        configuration.authorizedHosts = ["api.example.com"]
        let client = Client(configuration: configuration)
        box.withLock { $0 = client }
        defer { box.withLock { $0 = nil } }  // the middleware holds the client: no cycle left behind

        let refresh = Task { try? await refresher.forceRefresh() }
        await seen.wait()  // the refresh is in flight, started by no call
        let call = Task { await client.enqueue(Me()).result() }
        // The call joins the refresh (the refresher counts its waiters: forceRefresh's and the call's).
        var spins = 0
        while await refresher.waitingCallerCount < 2, spins < 1_000_000 {
            spins += 1
            await Task.yield()
        }
        #expect(await refresher.waitingCallerCount >= 2, "the call did not join the refresh")
        await go.open()

        let status = await within(seconds: 10) { () async -> Int? in
            guard case .success(let response) = await call.value else { return nil }
            return response.statusCode
        }
        #expect(status == .some(200), "the call never ended: runExclusively waits for it, it waits for the refresh")
        #expect(outcome.withLock { $0 } == ["wouldDeadlock"])
        refresh.cancel()
        _ = await refresh.value
    }
}

// MARK: - Hazards (documented, but unsafe)

/// Adds the API's key to every request, as many apps do with a middleware.
private struct APIKey: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        var request = request
        request.head.headerFields[x("X-Api-Key")] = "API-SECRET"
        return try await next(request)
    }
}

@Suite("Hostile review 52: hazards")
struct HostileReview52HazardTests {
    /// WRONG (before the fix) (by default since 1d14475): `OAuth2Exchange.client` leaves out the default headers
    /// that carry a credential ("the authorization server is not the API"), but the same
    /// credential added by the app's middleware now goes to the authorization server: before,
    /// a token endpoint made without a configuration ran no app middleware.
    /// CORRECT: the API's credential (by the redaction's rule) never reaches the token endpoint
    /// unless the app opts in: strip secret fields the form POST did not set below the
    /// middleware of the token client, or adopt the path without the client's middleware.
    @Test("an API-key middleware of the client does not send the API key to the authorization server")
    func apiKeyMiddlewareReachesTheAuthorizationServer() async throws {
        let server = Tokens.server()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        var configuration = Configuration(transport: server, middleware: [APIKey()])
        configuration.authentication = .bearer(refresher)
        configuration.authorizedHosts = ["api.example.com"]
        _ = try await Client(configuration: configuration).enqueue(Me()).resume()
        let token = try #require(await server.requests.first { $0.head.path == "/oauth/token" })
        #expect(token.header("X-Api-Key") == nil, "the API's key went to auth.example.com")
    }

    /// WRONG (before the fix) (documented: "the first Client created with a TokenRefresher made with it"): one
    /// `OAuth2TokenEndpoint` value shared by two accounts' refreshers (a `static let` of the
    /// app) shares one `OAuth2TokenPath`: Bob's refresh goes through Alice's client, her
    /// transport (and its cookie storage) and her headers, for as long as the process lives.
    /// CORRECT: a refresher's token requests take the path of a client that uses that refresher.
    @Test("two accounts, one token endpoint value: Bob's refresh goes through Bob's client")
    func aSecondUsersRefreshTakesTheFirstUsersPath() async throws {
        let endpoint = try Tokens.endpoint()
        let alice = Tokens.server()
        let bob = Tokens.server()
        for (transport, user) in [(alice, "alice"), (bob, "bob")] {
            var configuration = Configuration(transport: transport)
            configuration.headers = [HeaderItem(name: "X-User", value: user)]
            configuration.authentication = .bearer(TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: endpoint))
            configuration.authorizedHosts = ["api.example.com"]
            if user == "bob" { _ = try await Client(configuration: configuration).enqueue(Me()).resume() } else { _ = Client(configuration: configuration) }
        }
        #expect(await alice.requests.isEmpty, "Bob's token request went through Alice's transport")
        let token = try #require(await bob.requests.first { $0.head.path == "/oauth/token" })
        #expect(token.header("X-User") == "bob")
    }
}

// MARK: - Invariants (attacks that held)

/// Holds a secret, to check that the client's description does not print it.
private struct SecretHolder: Middleware {
    let apiKey = "sk_live_HOSTILE52"
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        try await next(request)
    }
}

/// Moves the request on its second pass.
private struct MovesOnRetry: Middleware {
    let edit: @Sendable (inout TransportRequest) -> Void
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        let first = try await next(request)
        guard first.statusCode == 503 else { return first }
        var moved = request
        edit(&moved)
        return try await next(moved)
    }
}

/// A signer that writes a framing header.
private struct FramingSigner: RequestSigner {
    func sign(_ request: inout TransportRequest, context: SigningContext) async throws(CourierError) {
        request.head.headerFields[.connection] = "close"
    }
}

/// Refuses the requests whose path starts with `/fail`, relays the others.
private struct Picky: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        if request.head.path?.hasPrefix("/fail") == true { throw .invalidRequest(.invalidHeaderName("X-Picky")) }
        return try await next(request)
    }
}

/// On the token request only: asks the client's own refresher for a credential; records how it ended.
private struct AsksRefresher: Middleware {
    /// Held in a box the test empties at its end: the refresher's token path holds a client
    /// whose middleware is this one, so holding the refresher itself would be a cycle.
    let box: LockedState<TokenRefresher?>
    let outcome: LockedState<[String]>
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        if request.head.path == "/oauth/token", let refresher = box.withLock({ $0 }) {
            do {
                _ = try await refresher.validCredential()
                outcome.withLock { $0.append("credential") }
            } catch {
                if case .invalidRequest(.wouldDeadlock) = error {
                    outcome.withLock { $0.append("wouldDeadlock") }
                } else {
                    outcome.withLock { $0.append("other: \(error)") }
                }
            }
        }
        return try await next(request)
    }
}

@Suite("Hostile review 52: invariants")
struct HostileReview52InvariantTests {
    // MARK: checkSendable after a stage changed the request

    @Test(
        "an endpoint middleware that makes the request unsendable is refused before the transport",
        arguments: [
            "content-length", "transfer-encoding", "host", "user-info", "file-scheme", "no-host",
        ])
    func endpointMiddlewareIsChecked(_ attack: String) async throws {
        let transport = RecordingTransport()
        let client = Client(configuration: Configuration(transport: transport))
        let editor = Editor { request in
            switch attack {
            case "content-length": request.head.headerFields[.contentLength] = "0"
            case "transfer-encoding": request.head.headerFields[.transferEncoding] = "chunked"
            case "host": request.head.headerFields[x("Host")] = "evil.example.net"
            case "user-info": request.head.authority = "alice:hunter2@api.example.com"
            case "file-scheme": request.head.scheme = "file"
            default: request.head.authority = ""
            }
        }
        let result = await client.enqueue(Guarded(own: [editor])).result()
        guard case .failure(.invalidRequest) = result else {
            Issue.record("\(attack): expected invalidRequest, got \(result)")
            return
        }
        #expect(await transport.requests.isEmpty)
    }

    @Test("a header value with CR LF set by a middleware reaches the transport without CR or LF")
    func crlfIsLegalized() async throws {
        let transport = RecordingTransport()
        let client = Client(configuration: Configuration(transport: transport))
        let editor = Editor { $0.head.headerFields[x("X-Note")] = "a\r\nX-Injected: 1" }
        _ = try await client.enqueue(Guarded(own: [editor])).resume()
        let sent = try #require(await transport.last)
        #expect(sent.header("X-Injected") == nil)
        #expect(sent.head.headerFields.allSatisfy { !$0.value.contains("\r") && !$0.value.contains("\n") })
    }

    @Test("a middleware that moves the request on its second pass is checked on that pass too")
    func secondPassIsChecked() async throws {
        let transport = RecordingTransport(script: [.status(503), .status(200)])
        let client = Client(
            configuration: Configuration(
                transport: transport,
                middleware: [
                    MovesOnRetry { $0.head.headerFields[.transferEncoding] = "chunked" }
                ]))
        let result = await client.enqueue(TestEndpoint()).result()
        guard case .failure(.invalidRequest(.reservedHeader)) = result else {
            Issue.record("expected reservedHeader, got \(result)")
            return
        }
        #expect(await transport.count == 1)
    }

    @Test("a signer that writes a framing header is refused before the transport")
    func signerIsChecked() async throws {
        let transport = RecordingTransport()
        var configuration = Configuration(transport: transport)
        configuration.authentication = .signed(FramingSigner())
        configuration.authorizedHosts = ["api.example.com"]
        let result = await Client(configuration: configuration).enqueue(TestEndpoint()).result()
        guard case .failure(.invalidRequest(.reservedHeader)) = result else {
            Issue.record("expected reservedHeader, got \(result)")
            return
        }
        #expect(await transport.requests.isEmpty)
    }

    @Test("with one middleware, a tracer's framing header is refused (the trail is there)")
    func framingHeaderWithMiddlewareIsRefused() async throws {
        let transport = RecordingTransport()
        var configuration = Configuration(transport: transport, middleware: [Relay()])
        configuration.tracer = FramingTracer()
        let result = await Client(configuration: configuration).enqueue(TestEndpoint()).result()
        guard case .failure(.invalidRequest(.reservedHeader)) = result else {
            Issue.record("expected reservedHeader, got \(result)")
            return
        }
        #expect(await transport.requests.isEmpty)
    }

    // MARK: What the failing-stage line and span show

    @Test("the failing-stage line hides user-info a middleware above put in the URL, and a custom redaction's query secret")
    func failingStageLineIsRedacted() async throws {
        let tracer = InMemoryTracer()
        let (configuration, lines) = logged(RecordingTransport()) {
            $0.middleware = [Editor { $0.head.authority = "alice:hunter2@api.example.com" }, Refuser()]
            $0.redaction.queryItems.insert("otp")
            $0.tracer = tracer
        }
        _ = await Client(configuration: configuration).enqueue(Guarded(own: [], query: [QueryItem(name: "otp", value: "918273")])).result()
        let all = lines.all.map(\.1)
        #expect(lines.stageLines.count == 1)
        #expect(lines.stageLines.first?.contains("failed in stage Refuser") == true)
        #expect(all.allSatisfy { !$0.contains("hunter2") && !$0.contains("918273") }, "lines: \(all)")
        var attributes: [String] = []
        for span in tracer.finishedSpans { span.attributes.forEach { key, value in attributes.append("\(key)=\(value)") } }
        #expect(attributes.allSatisfy { !$0.contains("hunter2") && !$0.contains("918273") }, "attributes: \(attributes)")
    }

    @Test("the transport stage's refusal of user-info logs no password")
    func userInfoRefusalLogsNoPassword() async throws {
        let (configuration, lines) = logged(RecordingTransport()) {
            $0.middleware = [Editor { $0.head.authority = "alice:hunter2@api.example.com" }]
        }
        let result = await Client(configuration: configuration).enqueue(TestEndpoint()).result()
        guard case .failure(let error) = result, case .invalidRequest = error else {
            Issue.record("expected invalidRequest, got \(result)")
            return
        }
        #expect(!"\(error)".contains("hunter2"))
        #expect(lines.all.allSatisfy { !$0.1.contains("hunter2") })
    }

    @Test("print(client) names middleware by type only, never what they hold")
    func descriptionHasNoSecrets() {
        var configuration = Configuration(transport: RecordingTransport(), middleware: [SecretHolder()])
        configuration.authentication = .basic(BasicCredential(username: "ada", password: "pw-HOSTILE52"))
        configuration.headers = [HeaderItem(name: "X-Api-Key", value: "hdr-HOSTILE52")]
        let text = Client(configuration: configuration).description
        #expect(text.contains("SecretHolder"))
        #expect(!text.contains("HOSTILE52"))
    }

    // MARK: Concurrency

    @Test("a middleware calling next twice at once: both requests sent, both attempts counted, no crash")
    func concurrentNextSucceeds() async throws {
        let transport = RecordingTransport()
        let metrics = LockedState<Int>(0)
        struct Counting: Middleware {
            let metrics: LockedState<Int>
            func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
                let response = try await next(request)
                metrics.withLock { $0 = context.metrics.snapshot.attempts.count }
                return response
            }
        }
        let client = Client(configuration: Configuration(transport: transport, middleware: [Counting(metrics: metrics), Hedge(), Relay()]))
        let response = try await client.enqueue(TestEndpoint()).resume()
        #expect(response.statusCode == 200)
        #expect(await transport.count == 2)
        #expect(metrics.withLock { $0 } == 2)
    }

    @Test("2,000 concurrent calls through 3 middleware, a third refused by the second: exactly that many lines, each naming it")
    func twoThousandCalls() async throws {
        let transport = RecordingTransport()
        let (configuration, lines) = logged(transport) { $0.middleware = [Relay(), Picky(), Relay()] }
        let client = Client(configuration: configuration)
        let failures = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<2_000 {
                group.addTask {
                    let path = index % 3 == 0 ? "/fail/\(index)" : "/ok/\(index)"
                    if case .failure = await client.enqueue(TestEndpoint(pathString: path)).result() { return true }
                    return false
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 667)
        #expect(lines.stageLines.count == 667)
        #expect(lines.stageLines.allSatisfy { $0.contains("failed in stage Picky: ") && $0.contains("/fail/") })
        #expect(await transport.count == 1_333)
    }

    @Test("with 1 client middleware the endpoint's Fallback does not hide Validator's own error (the collision's control)")
    func validatorIsNamedWithFewMiddleware() async throws {
        let (configuration, lines) = logged(failingTransport()) { $0.middleware = [Validator()] }
        _ = await Client(configuration: configuration).enqueue(Guarded(own: [Fallback()])).result()
        #expect(lines.stageLines.count == 1)
        #expect(lines.stageLines.first?.contains("failed in stage Validator") == true)
    }

    // MARK: The token path

    @Test("the adopted path leaves out every credential-bearing default header and never sends the bearer token")
    func tokenPathStripsCredentials() async throws {
        let server = Tokens.server()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        var configuration = Configuration(transport: server)
        configuration.headers = [
            HeaderItem(name: "authorization", value: "Static api-cred"), HeaderItem(name: "Cookie", value: "sid=api-cookie"),
            HeaderItem(name: "X-Api-Key", value: "api-key"), HeaderItem(name: "Proxy-Authorization", value: "Basic cHJveHk="),
            HeaderItem(name: "X-Tenant-Secret", value: "tenant-secret"), HeaderItem(name: "X-Tenant", value: "tenant-listed"),
            HeaderItem(name: "X-App", value: "1"),
        ]
        configuration.redaction.headers.insert("x-tenant")
        configuration.authentication = .bearer(refresher)
        configuration.authorizedHosts = ["api.example.com"]
        _ = try await Client(configuration: configuration).enqueue(Me()).resume()
        let token = try #require(await server.requests.first { $0.head.path == "/oauth/token" })
        let values = token.head.headerFields.map(\.value)
        #expect(token.header("X-App") == "1")
        #expect(token.header("Authorization")?.hasPrefix("Basic ") == true)
        for secret in ["Static", "api-cookie", "api-key", "cHJveHk=", "tenant-secret", "tenant-listed", "at-old"] {
            #expect(values.allSatisfy { !$0.contains(secret) }, "\(secret) went to the authorization server")
        }
    }

    @Test("the client's middleware asking the same refresher for a credential during the token request fails at once")
    func middlewareAskingTheRefresherFailsAtOnce() async throws {
        let outcome = LockedState<[String]>([])
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        var configuration = Configuration(transport: Tokens.server())
        let box = LockedState<TokenRefresher?>(refresher)
        defer { box.withLock { $0 = nil } }
        configuration.middleware = [AsksRefresher(box: box, outcome: outcome)]
        configuration.authentication = .bearer(refresher)
        configuration.authorizedHosts = ["api.example.com"]
        let client = Client(configuration: configuration)
        let status = await within(seconds: 20) { () async -> Int? in try? await client.enqueue(Me()).resume().statusCode }
        #expect(status == .some(200))
        #expect(outcome.withLock { $0 } == ["wouldDeadlock"])
    }

    @Test("the client's middleware calling runExclusively during a token request a call started fails at once")
    func runExclusivelyFromTheTokenRequestOfACall() async throws {
        let box = LockedState<Client?>(nil)
        let outcome = LockedState<[String]>([])
        let go = H52Gate()
        await go.open()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        var configuration = Configuration(transport: Tokens.server())
        configuration.middleware = [ExclusiveOnTokenRequest(client: box, seen: H52Gate(), go: go, outcome: outcome)]
        configuration.authentication = .bearer(refresher)
        configuration.authorizedHosts = ["api.example.com"]
        let client = Client(configuration: configuration)
        box.withLock { $0 = client }
        defer { box.withLock { $0 = nil } }  // the middleware holds the client: no cycle left behind
        let status = await within(seconds: 20) { () async -> Int? in try? await client.enqueue(Me()).resume().statusCode }
        #expect(status == .some(200))
        #expect(outcome.withLock { $0 } == ["wouldDeadlock"])
    }

    @Test("runExclusively { forceRefresh() } on the adopted path completes")
    func exclusiveRefreshCompletes() async throws {
        let server = Tokens.server()
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint())
        var configuration = Configuration(transport: server)
        configuration.authentication = .bearer(refresher)
        configuration.authorizedHosts = ["api.example.com"]
        let client = Client(configuration: configuration)
        let token = await within(seconds: 20) { () async -> String? in
            try? await client.runExclusively { try await refresher.forceRefresh().accessToken }
        }
        #expect(token == .some("at-new"))
        #expect(await server.requests.map { $0.head.path ?? "" } == ["/oauth/token"])
    }

    @Test("an endpoint given a configuration is never adopted, by any number of clients")
    func ownConfigurationIsNeverAdopted() async throws {
        let own = Tokens.server()
        let endpoint = try Tokens.endpoint(configuration: Configuration(transport: own))
        let refresher = TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: endpoint)
        var clients: [Client] = []
        for _ in 0..<3 {
            var configuration = Configuration(transport: Tokens.server(), middleware: [APIKey()])
            configuration.authentication = .bearer(refresher)
            configuration.authorizedHosts = ["api.example.com"]
            clients.append(Client(configuration: configuration))
        }
        _ = try await clients[2].enqueue(Me()).resume()
        let token = try #require(await own.requests.first)
        #expect(token.head.path == "/oauth/token")
        #expect(token.header("X-Api-Key") == nil)
    }
}
