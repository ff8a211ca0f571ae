import Foundation
import HTTPTypes
import Logging

/// One step of a client's pipeline: Courier's own stages and each of the users' middleware.
///
/// A client builds its list once (``Pipeline``); what differs from call to call (the endpoint,
/// its middleware, whether it is authorized, whether it collects its body, a progress meter, the
/// span) is in the ``StageCall``. A stage that has nothing to do for a call says so in
/// ``applies(to:)`` and is skipped without a frame.
protocol Stage: Sendable {
    /// What the stage is called in ``Pipeline/description`` and in the log line and span
    /// attribute of a call it failed.
    var name: String { get }
    /// Whether the stage does anything for `call`.
    func applies(to call: StageCall) -> Bool
    /// Whether the stage names the failing stage itself (a list of its own), so that the
    /// pipeline does not name it too.
    var namesItsFailures: Bool { get }
    /// Handles one request; `next(request, call)` runs the stages below (the last stage never
    /// calls it).
    func run(_ request: TransportRequest, call: StageCall, next: StageNext) async throws(CourierError) -> StreamedResponse
}

extension Stage {
    func applies(to call: StageCall) -> Bool { true }
    var namesItsFailures: Bool { false }
}

/// What the stages know of the call going through them (built per call by `Client.prepare`).
struct StageCall: Sendable {
    /// What users' middleware see: the caller's own endpoint, whether it is authorized, the metrics.
    let context: MiddlewareContext
    /// The client whose pipeline runs the call.
    let client: Client
    /// The call's span, when it is traced.
    let trace: CallTrace?
    /// Whether the body is read whole inside the retry loop (``CallOptions/collectsBody``).
    let collectsBody: Bool
    /// Counts the response body as it is read, when download progress is observed.
    let downloadMeter: ProgressMeter?
    /// The endpoint's own middleware (``Requestable/middleware``), read once.
    let endpointMiddleware: [any Middleware]
    /// Whether the client's credential is attached to this call.
    let authenticates: Bool
    /// The origin the endpoint declared, when a credential may be attached.
    let declaredOrigin: RedirectPolicy.Origin?
    /// What the stages' `next`s threw, so that a stage's own error can be told from one it
    /// passes on; `nil` when no stage above the attempt applies. Then, too, the transport stage
    /// sends the request as `RequestBuilder` made it without checking it again.
    var trail: FailureTrail?
}

/// What the `next`s of a call's stages threw, by level, so that a stage's own error can be told
/// from one it relays: written only when something fails (the storage is allocated then).
///
/// An error a stage throws is relayed when one of its level's `next`s threw the same error (and
/// that record is used up); any other is its own. Records are per level, not per run, so two
/// runs of a level at once (a middleware calling `next` twice) each find their own.
struct FailureTrail: Sendable {
    private let failures = LockedState<[Int: [String]]>([:])

    /// The level of each of an endpoint's own middleware: apart from the pipeline's (0…) and the
    /// pipeline itself (-1).
    static func endpointLevel(_ index: Int) -> Int { -2 - index }

    /// Records that a `next` called by `level` threw `error`.
    func markFailed(below level: Int, with error: CourierError) {
        guard level != -1 else { return }
        let key = Self.key(error)
        failures.withLock { $0[level, default: []].append(key) }
    }

    /// Whether `error`, thrown by a stage of `level`, is one its `next` threw (the record is used up).
    func relays(_ error: CourierError, at level: Int) -> Bool {
        let key = Self.key(error)
        return failures.withLock { failures in
            guard let index = failures[level]?.firstIndex(of: key) else { return false }
            failures[level]?.remove(at: index)
            return true
        }
    }

    /// What tells two errors apart here: what they print.
    private static func key(_ error: CourierError) -> String { String(describing: error) }
}

/// The stages below one stage: `next(request, call)` runs them.
struct StageNext: Sendable {
    /// The stage to run.
    let index: Int
    /// The level of the stage that calls this (`-1`: the pipeline itself).
    let caller: Int

    @inline(__always)
    func callAsFunction(_ request: TransportRequest, _ call: StageCall) async throws(CourierError) -> StreamedResponse {
        let pipeline = call.client.pipeline
        let stage = pipeline.stages[index]
        do throws(CourierError) {
            return try await stage.run(request, call: call, next: StageNext(index: pipeline.firstStage(from: index + 1, for: call), caller: index))
        } catch {
            if let trail = call.trail { pipeline.failed(error, in: stage, at: index, caller: caller, request: request, call: call, trail: trail) }
            throw error
        }
    }
}

/// A client's stages, outermost first, built once when the client is created and folded the same
/// way by every call: each stage gets the request and `next`, the stages below it.
///
/// Around the list: admission (``Client/runExclusively(_:)``), the endpoint's constraints and
/// the building of the request come before it (the request does not exist yet, and what a
/// constraint establishes may shape it); the status check and decoding come after it.
/// ``description`` prints the whole order, and `Client.description` shows it.
///
/// A stage above the attempt that throws an error none of its `next`s threw (a middleware's own
/// error, a host the credential may not go to, a failed refresh) is named in the call's error
/// log line and in its span's `courier.failed_stage` (see ``FailureTrail``). Failures at and below the attempt
/// are the attempt's, logged by ``AttemptObservationStage``.
struct Pipeline: Sendable, CustomStringConvertible {
    /// Every stage, outermost first.
    let stages: [any Stage]
    /// The index of ``AttemptObservationStage``.
    let attemptIndex: Int
    /// The index of the ``CacheStage``, when the client has a cache.
    let cacheIndex: Int?

    /// The stages of a client created with `configuration`.
    init(configuration: Configuration, retries: Bool, hasCredential: Bool, cache: CacheStage?) {
        var stages: [any Stage] = configuration.middleware.map(MiddlewareStage.init)
        stages.append(EndpointMiddlewareStage())
        stages.append(DownloadCountingStage())
        cacheIndex = cache.map { _ in stages.count }
        if let cache { stages.append(cache) }
        if retries { stages.append(RetryStage(policy: configuration.retryPolicy, clock: configuration.clock)) }
        if hasCredential {
            stages.append(AuthenticationStage(authentication: configuration.authentication, authorizedHosts: configuration.authorizedHosts))
        }
        attemptIndex = stages.count
        stages.append(AttemptObservationStage(logger: configuration.logger))
        stages.append(BodyCollectionStage())
        stages.append(TransportStage(transport: configuration.transport, cached: configuration.cache != nil))
        self.stages = stages
    }

    /// The whole order a call goes through, this list in the middle.
    var description: String {
        (["admission", "constraints", "request"] + stages.map(\.name) + ["status check"]).joined(separator: " → ")
    }

    /// Whether a request reaches the attempt as it was built: no stage that may change it applies.
    func leavesRequestAsBuilt(_ call: StageCall) -> Bool {
        firstStage(from: 0, for: call) >= attemptIndex
    }

    /// Runs `call`'s stages from the first that applies.
    @inline(__always)
    func run(_ request: TransportRequest, call: StageCall) async throws(CourierError) -> StreamedResponse {
        try await StageNext(index: firstStage(from: 0, for: call), caller: -1)(request, call)
    }

    /// Runs the stages below the ``CacheStage`` (its background revalidation).
    func runBelowCache(_ request: TransportRequest, call: StageCall) async throws(CourierError) -> StreamedResponse {
        // Only a client with a cache stage revalidates; without one, nothing is below it but the whole list.
        try await StageNext(index: firstStage(from: (cacheIndex ?? -1) + 1, for: call), caller: -1)(request, call)
    }

    /// The first stage from `index` on that applies to `call` (the transport always does; below
    /// it, the end of the list, which the transport never runs).
    @inline(__always)
    func firstStage(from index: Int, for call: StageCall) -> Int {
        var index = index
        while index < stages.count, !stages[index].applies(to: call) { index += 1 }
        return index
    }

    /// Stage `index` of `call`, called by `caller`, threw `error`: names it when the error is its
    /// own, and tells `caller` that its `next` failed.
    @inline(never)
    func failed(
        _ error: CourierError, in stage: any Stage, at index: Int, caller: Int, request: TransportRequest, call: StageCall,
        trail: FailureTrail
    ) {
        if index < attemptIndex, !stage.namesItsFailures, !trail.relays(error, at: index) {
            Self.report(error, in: stage.name, request: request, call: call)
        }
        trail.markFailed(below: caller, with: error)
    }

    /// Names `stage` as where the call failed: in its log line and its span.
    static func report(_ error: CourierError, in stage: String, request: TransportRequest, call: StageCall) {
        if case .cancelled = error { return }
        call.trace?.recordFailedStage(stage)
        call.client.configuration.logger.error(
            "\(request.head.method.rawValue) \(request.redaction.redact(url: request.url)) failed in stage \(stage): \(Redaction.singleLine("\(error)"))")
    }
}

/// One of ``Configuration/middleware``.
struct MiddlewareStage: Stage {
    let middleware: any Middleware

    var name: String { String(describing: type(of: middleware)) }

    func run(_ request: TransportRequest, call: StageCall, next: StageNext) async throws(CourierError) -> StreamedResponse {
        try await middleware.intercept(request, context: call.context) { request throws(CourierError) in try await next(request, call) }
    }
}

/// The endpoint's own middleware (``Requestable/middleware``), in order, each named when it fails.
struct EndpointMiddlewareStage: Stage {
    var name: String { "endpoint middleware" }

    func applies(to call: StageCall) -> Bool { !call.endpointMiddleware.isEmpty }

    var namesItsFailures: Bool { true }

    func run(_ request: TransportRequest, call: StageCall, next: StageNext) async throws(CourierError) -> StreamedResponse {
        try await run(request, from: 0, call: call, next: next)
    }

    private func run(_ request: TransportRequest, from index: Int, call: StageCall, next: StageNext) async throws(CourierError) -> StreamedResponse {
        guard index < call.endpointMiddleware.count else { return try await next(request, call) }
        let middleware = call.endpointMiddleware[index]
        let level = FailureTrail.endpointLevel(index)
        do throws(CourierError) {
            return try await middleware.intercept(request, context: call.context) { request throws(CourierError) in
                do throws(CourierError) {
                    return try await run(request, from: index + 1, call: call, next: next)
                } catch {
                    call.trail?.markFailed(below: level, with: error)
                    throw error
                }
            }
        } catch {
            if let trail = call.trail, !trail.relays(error, at: level) {
                Pipeline.report(error, in: String(describing: type(of: middleware)), request: request, call: call)
            }
            throw error
        }
    }
}

/// The attempt: one log line and one ``CallMetrics/Attempt`` per request handed to the transport,
/// and a client span per request when the call is traced (see ``AttemptObservation``).
struct AttemptObservationStage: Stage {
    let logger: Logger

    var name: String { "attempt observation" }

    func run(_ request: TransportRequest, call: StageCall, next: StageNext) async throws(CourierError) -> StreamedResponse {
        if Task.isCancelled { throw .cancelled }
        guard let trace = call.trace else { return try await observed(request, call: call, next: next) }
        return try await AttemptObservation.traced(request, trace: trace) { request throws(CourierError) in
            try await observed(request, call: call, next: next)
        }
    }

    private func observed(_ request: TransportRequest, call: StageCall, next: StageNext) async throws(CourierError) -> StreamedResponse {
        let started = ContinuousClock.now
        do throws(CourierError) {
            let response = try await next(request, call)
            AttemptObservation.observe(request, response: response, started: started, metrics: call.context.metrics, logger: logger)
            return response
        } catch {
            AttemptObservation.observe(request, error: error, started: started, metrics: call.context.metrics, logger: logger)
            throw error
        }
    }
}

/// Reads the body whole for calls that want it (``CallOptions/collectsBody``), up to
/// ``TransportRequest/maximumResponseSize`` (also when the transport does not enforce it). Read
/// here, inside the retry loop, a body whose connection drops halfway is one failed attempt,
/// retried like any other.
struct BodyCollectionStage: Stage {
    var name: String { "body collection" }

    func applies(to call: StageCall) -> Bool { call.collectsBody }

    func run(_ request: TransportRequest, call: StageCall, next: StageNext) async throws(CourierError) -> StreamedResponse {
        var response = try await next(request, call)
        // Only an accepted body is the one whose progress is reported: a refused attempt's (a 503
        // before a retry) would leave the values above the final body's size. The download stage
        // above only sees the body once it is whole, too late to show any progress.
        if let meter = call.downloadMeter, response.body.wholeData == nil,
            call.context.endpoint.acceptableStatusCodes.contains(response.head.statusCode)
        {
            response.body = CountedChunks.body(response.body, counting: meter)
        }
        return try await response.whole(upTo: request.maximumResponseSize)
    }
}

/// The last stage: refuses what must not be sent (``RequestBuilder/checkSendable(_:)``) and hands
/// the request to ``Configuration/transport``.
struct TransportStage: Stage {
    let transport: any Transport
    /// Whether the client has an ``HTTPCache`` (the transport's own cache is then bypassed).
    let cached: Bool

    var name: String { "transport" }

    func run(_ request: TransportRequest, call: StageCall, next: StageNext) async throws(CourierError) -> StreamedResponse {
        if Task.isCancelled { throw .cancelled }
        // The endpoint was checked when the request was built; what the stages made of it is
        // checked here, the last moment before the wire. A request no stage could change passes
        // by construction (a `BaseURL` is http or https with a validated host, a `URLPath` has no
        // user-info to add, reserved headers were refused).
        // The attempt writes a span's propagation fields (`traceparent`…) into a traced request,
        // which a tracer chooses: a traced request is always checked.
        if call.trail == nil, call.trace == nil {
            assert((try? RequestBuilder.checkSendable(request)) != nil, "a request RequestBuilder made is sendable")
        } else {
            try RequestBuilder.checkSendable(request)
        }
        if let upgrade = request.webSocket {
            return try await upgrade.open(request, on: transport)
        }
        return try await transport.send(request.belowHTTPCache(cached))
    }
}
