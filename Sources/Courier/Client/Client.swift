import Foundation
import HTTPTypes

/// Sends endpoints and decodes what comes back.
///
/// ```swift
/// let client = Client(configuration: Configuration(timeout: .seconds(10)))
/// let user = try await client.enqueue(GetUser(id: 42)).resume(expecting: User.self)
/// ```
///
/// A client is cheap to share: create one per API and use it from any task. It is an actor for
/// one method only, ``runExclusively(_:)``; everything else (``enqueue(_:)``, sending, its
/// ``configuration``) is `nonisolated`, so a call never waits for the actor: calls run in
/// parallel in their callers' tasks.
public actor Client {
    /// The configuration the client was created with.
    public nonisolated let configuration: Configuration
    /// Pause-and-drain bookkeeping under a lock: a call that is not held costs no actor hop.
    nonisolated let gate = LockedState(CallGate())
    /// Spans and metrics, or `nil` when there is no backend for either (then a call does none of
    /// that work).
    nonisolated let observation: CallObservation?
    /// The ``HTTPCache`` partition of calls with a credential, when it is the same for every call
    /// (`nil`: a ``TokenRefresher``'s session, read per call).
    private nonisolated let fixedCachePartition: String?
    /// Whether ``Configuration/authentication`` attaches a credential: worked out once, as a call
    /// reads it (asking the configuration each time copies the parts it asks).
    nonisolated let hasCredential: Bool
    /// How this client's responses decode (``Configuration/decoder``,
    /// ``Configuration/responseDecoders``): each response carries it, with its endpoint's own
    /// decoder when there is one.
    nonisolated let decoding: DecodingContext
    /// The stages every call goes through, built once.
    nonisolated let pipeline: Pipeline
    /// The client a ``TokenRefresher``'s token requests take on this client's path (its transport,
    /// middleware, logs; never its authentication or cache), when its token endpoint was not
    /// given a configuration of its own (``OAuth2TokenPath``).
    nonisolated let tokenClient: Client?

    /// Creates a client.
    ///
    /// The tracer and metrics factory its calls report to are picked now: those of
    /// `configuration` (``Configuration/tracer``, ``Configuration/metricsFactory``), else the
    /// ones bootstrapped for the process at this moment. Bootstrap them before creating clients.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let observation = CallObservation(configuration: configuration)
        self.observation = observation
        self.decoding = DecodingContext(configuration)
        self.fixedCachePartition = configuration.cache == nil ? "" : CachePartition.fixed(for: configuration.authentication)
        let hasCredential = !configuration.authentication.isNone
        self.hasCredential = hasCredential
        var refresher: TokenRefresher?
        if case .bearer(let bearer) = configuration.authentication {
            refresher = bearer
            if let cache = configuration.cache { bearer.purgesEntries(in: cache) }
        }
        // Token requests take this client's path unless their endpoint was given its own.
        let adopts = refresher?.tokenPath.map { !$0.isFixed } ?? false
        self.tokenClient = adopts ? OAuth2Exchange.client(configuration, postsForm: true) : nil
        let cacheStage = configuration.cache.map { cache in
            CacheStage(
                cache: cache, logger: configuration.logger, redaction: configuration.redaction,
                secrets: CacheSecrets(configuration.redaction),
                // The transport's cookie storage, read to key responses by the cookies sent.
                cookies: configuration.transport as? any StoredCookieSource, metrics: observation?.metrics,
                authentication: configuration.authentication)
        }
        self.pipeline = Pipeline(
            configuration: configuration, retries: !RetryStage.passesThrough(configuration.retryPolicy), hasCredential: hasCredential,
            cache: cacheStage)
        refresher?.tokenPath?.adopt(self)
    }

    /// Prepares a call to `endpoint`. Nothing is sent until the call is resumed.
    public nonisolated func enqueue(_ endpoint: some Requestable) -> Call {
        Call(client: self, endpoint: endpoint)
    }

    /// The one way a call goes out: builds the request from `endpoint` and `options`, runs it
    /// through the client's ``Pipeline``, enforces the size limit and validates the status.
    ///
    /// With ``CallOptions/collectsBody`` (``Call/resume()``) the response comes back with its body
    /// whole. Otherwise (``Call/stream()``, downloads, event streams) it returns once the head has
    /// arrived and was accepted, with the body still streaming; the call then counts as in flight
    /// for ``runExclusively(_:)`` until the head is back, not until its body ends, and its span
    /// and metrics end with the head.
    /// - Parameter endpoint: the call's own existential, passed on as it is (re-boxing it for the
    ///   middleware context would cost an allocation per call).
    nonisolated func send(_ endpoint: any Requestable, options: CallOptions) async throws(CourierError) -> StreamedResponse {
        guard let observation else {
            return try await admitted(endpoint, options: options, trace: nil)
        }
        return try await Self.observed(endpoint, operation: options.operationID, by: observation, statusCode: \.statusCode) {
            trace async throws(CourierError) in
            try await admitted(endpoint, options: options, trace: trace)
        }
    }

    /// `call`, in a span and counted in the metrics (``CallObservation``). Out of line: the calls
    /// of a client without tracer and metrics never allocate its frame.
    @inline(never)
    private static func observed<Value>(
        _ endpoint: any Requestable, operation: String?, by observation: CallObservation, statusCode: (Value) -> Int,
        _ call: (CallTrace?) async throws(CourierError) -> Value
    ) async throws(CourierError) -> Value {
        try await observation.observe(method: endpoint.method.rawValue, operation: operation, statusCode: statusCode, call)
    }

    /// Sends the call as one in flight on this client: refused inside this client's own
    /// exclusive action, held while one is pending (``runExclusively(_:)``), and counted until
    /// it returns.
    @inline(__always)
    private nonisolated func admitted(
        _ endpoint: any Requestable, options: CallOptions, trace: CallTrace?
    ) async throws(CourierError) -> StreamedResponse {
        if Task.isCancelled { throw .cancelled }
        let scope = CallScope.current
        if scope.isExclusive(on: self) {
            throw .invalidRequest(
                .wouldDeadlock(
                    "a call through this client from inside its own runExclusively action waits for that action to end"))
        }
        try await admit()
        let result = await CallScope.$current.withValue(scope.entering(callOn: self)) {
            do throws(CourierError) {
                return Result<StreamedResponse, CourierError>.success(try await sendAdmitted(endpoint, options: options, trace: trace))
            } catch {
                return .failure(error)
            }
        }
        depart()
        return try result.get()
    }

    /// Constraints, then the request, then the client's ``Pipeline``, then the size limit
    /// and the status check.
    /// - Parameter trace: the call's span, when it is traced.
    private nonisolated func sendAdmitted(_ endpoint: any Requestable, options: CallOptions, trace: CallTrace?) async throws(CourierError) -> StreamedResponse {
        // Constraints first: what they establish (a session, say) may shape the request.
        let constraints = endpoint.constraints
        if !constraints.isEmpty { try await Self.satisfy(constraints) }
        let call = try prepare(endpoint, options: options, trace: trace)
        trace?.describe(call.request)
        var response = try await pipeline.run(call.request, call: call.stages)
        response.decoding = decoding.preferring(endpoint.responseDecoder)
        let accepted =
            endpoint.acceptableStatusCodes.contains(response.statusCode) || (response.statusCode == 101 && options.webSocket != nil)
        guard accepted, !options.collectsBody else {
            // Whole already (read in the transport stage), unless a middleware streamed a body of
            // its own or the call streams and the status is refused: that one is read here, under
            // the same limit.
            let whole = try await response.whole(upTo: call.limit)
            guard accepted else { throw .response(whole.collected) }
            return whole
        }
        return response
    }

    /// Waits for each of `constraints` in turn. Out of line, as is ``prepare(_:options:trace:)``:
    /// inlined, their frames would grow ``sendAdmitted(_:options:trace:)``'s, which every
    /// call's task allocates.
    @inline(never)
    private static func satisfy(_ constraints: [Constraint]) async throws(CourierError) {
        for constraint in constraints {
            try await constraint.waitUntilSatisfied()
        }
    }

    /// What a call sends, worked out before the first stage.
    struct PreparedCall {
        var request: TransportRequest
        /// The most bytes a body read whole may have (``TransportRequest/maximumResponseSize`` as
        /// built; a call that streams sends its request without it).
        var limit: Int?
        /// What the stages know of the call.
        var stages: StageCall
    }

    /// The request, the declared origin's authorization and what the stages know of the call: synchronous work
    /// kept out of ``sendAdmitted(_:options:trace:)``, whose async frame every call's task
    /// allocates.
    @inline(never)
    nonisolated func prepare(_ endpoint: any Requestable, options: CallOptions, trace: CallTrace?) throws(CourierError) -> PreparedCall {
        var request = try RequestBuilder.build(endpoint, configuration: configuration, options: options)
        let limit = request.maximumResponseSize
        // The caller reads an accepted body chunk by chunk, so no size limit applies to it; a
        // refused status's body is read whole, under the usual limit.
        if !options.collectsBody { request.maximumResponseSize = nil }
        // The origin the endpoint declared: a host listed in `authorizedHosts` is authorized
        // there. Only worked out when a credential may be attached.
        let authenticated = endpoint.requiresAuthorization && hasCredential
        let declaredOrigin = authenticated ? request.resolvedURL.flatMap(RedirectPolicy.Origin.init) : nil
        if authenticated, !(declaredOrigin.map { configuration.authorizes($0, declaredOrigin: $0) } ?? false) {
            // An endpoint whose own origin may not receive the credential fails before any
            // middleware runs; the authentication stage checks each attempt again.
            throw .authentication(.hostNotAuthorized(host: declaredOrigin?.authority ?? "<no host>"))
        }
        let endpointMiddleware = endpoint.middleware
        // Users' middleware are the only readers of a call's metrics: without any, nothing records them.
        let reads = !configuration.middleware.isEmpty || !endpointMiddleware.isEmpty
        var stages = StageCall(
            context: MiddlewareContext(
                endpoint: endpoint, requiresAuthorization: endpoint.requiresAuthorization, metrics: reads ? CallMetrics() : .discarding),
            client: self, trace: trace, collectsBody: options.collectsBody, downloadMeter: options.downloadMeter,
            endpointMiddleware: endpointMiddleware, authenticates: authenticated, declaredOrigin: declaredOrigin)
        if !pipeline.leavesRequestAsBuilt(stages) { stages.trail = FailureTrail() }
        return PreparedCall(request: request, limit: limit, stages: stages)
    }

    /// The ``HTTPCache`` partition of this client's calls that carry a credential.
    nonisolated var cachePartition: String {
        fixedCachePartition ?? configuration.authentication.cachePartition
    }

    // MARK: - Pause and drain

    /// Holds new calls, waits until every call in flight has ended, runs `action` alone, then
    /// lets the held calls go, in the order they arrived (Conduit's `awaitsOutgoingCompletion`).
    ///
    /// ```swift
    /// try await client.runExclusively { try await keychain.rotateAPIKey() }
    /// ```
    /// Exclusive actions run one after another. A held call whose task is cancelled leaves at once
    /// with ``CourierError/cancelled``. Calling it from inside a call in flight on this client,
    /// another exclusive action or a refresh of this client's refresher (a token request's
    /// middleware), and calls through this client from inside `action`, fail at once with
    /// ``InvalidRequest/wouldDeadlock(_:)`` (so do `Task { }`s started there).
    /// - Throws: ``CourierError/invalidRequest(_:)`` with ``InvalidRequest/wouldDeadlock(_:)`` as
    ///   above; otherwise whatever `action` throws, after the held calls have been released.
    public func runExclusively<T: Sendable>(_ action: @Sendable () async throws -> T) async throws -> T {
        // Exclusive actions run in the order they were asked for; the calls they hold wait for all of
        // them. What would wait for itself forever fails at once instead: runExclusively from a
        // middleware or a constraint's `satisfy` of a call in flight, or from another exclusive action;
        // calls through this client from inside `action` (use another client, or the transport, there).
        // Tasks started with `Task { }` from those places inherit the context (CallScope) and are
        // refused too; `Task.detached` ones are not and would wait.
        let scope = CallScope.current
        if scope.isInCall(on: self) {
            throw CourierError.invalidRequest(
                .wouldDeadlock(
                    "runExclusively called from inside a call in flight on the same client waits for that call to end"))
        }
        if scope.isExclusive(on: self) {
            throw CourierError.invalidRequest(
                .wouldDeadlock(
                    "runExclusively called from inside an exclusive action of the same client waits for that action to end"))
        }
        if case .bearer(let refresher) = configuration.authentication, RefreshScope.refreshers.contains(ObjectIdentifier(refresher)) {
            // A token request's middleware or store: calls of this client may be waiting for
            // this very refresh, and the action would wait for them.
            throw CourierError.invalidRequest(
                .wouldDeadlock(
                    "runExclusively called from inside a refresh of this client's refresher waits for calls that wait for that refresh"))
        }
        // The gate answers with what to resume; it is resumed here, outside the lock.
        await withCheckedContinuation { turn in gate.withLock { $0.requestExclusive(turn) }?.resume() }
        await withCheckedContinuation { turn in gate.withLock { $0.awaitDrain(turn) }?.resume() }
        let result: Result<T, any Error> = await CallScope.$current.withValue(scope.entering(exclusiveOn: self)) {
            do {
                return .success(try await action())
            } catch {
                return .failure(error)
            }
        }
        switch gate.withLock({ $0.finishExclusive() }) {
        case .runNext(let turn):
            turn.resume()
        case .admit(let calls):
            for call in calls { call.resume(returning: .admitted) }
        }
        return try result.get()
    }

    /// Runs `work` as a call in flight on this client: held while an exclusive action waits or
    /// runs, and counted until it returns. For requests the pipeline sends after its call has
    /// returned (a `stale-while-revalidate` background revalidation), which
    /// ``runExclusively(_:)`` must wait for like any call.
    nonisolated func inFlight<T>(_ work: () async throws(CourierError) -> T) async throws(CourierError) -> T {
        try await admit()
        defer { depart() }
        return try await work()
    }

    /// Lets a call through, or holds it while an exclusive action waits or runs.
    private nonisolated func admit() async throws(CourierError) {
        guard case .mustHold(let id) = gate.withLock({ $0.arrive() }) else { return }
        let admission = await withTaskCancellationHandler {
            await withCheckedContinuation { call in
                if let now = gate.withLock({ $0.hold(id, call) }) { call.resume(returning: now) }
            }
        } onCancel: {
            gate.withLock { $0.cancel(id) }?.resume(returning: .cancelled)
        }
        if case .cancelled = admission { throw .cancelled }
    }

    private nonisolated func depart() {
        gate.withLock { $0.depart() }?.resume()
    }
}

extension Client: CustomStringConvertible {
    /// The stages a call through this client passes, in order: admission, constraints, the request,
    /// each of ``Configuration/middleware`` by type, the endpoint's middleware, progress, the cache,
    /// retries and authentication when configured, the attempt, the body, the transport, the
    /// status check.
    ///
    /// ```swift
    /// print(Client(configuration: Configuration(middleware: [RequestID()])))
    /// // admission → constraints → request → RequestID → endpoint middleware → … → transport → status check
    /// ```
    public nonisolated var description: String { pipeline.description }
}
