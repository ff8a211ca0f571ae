import Foundation

/// Every stage a call passes through, in order (the map is the comment at the top of the type).
struct CallPipeline: Sendable {
    // Client.enqueue(endpoint) → Call.resume() / stream() / download(to:) / events()
    //   → Client.send(endpoint, options:)   the one way out (CallOptions: what the call changes)
    //   call span and metrics, when a backend is there (Observability/CallObservation.swift)
    //   pause-and-drain admission → constraints → RequestBuilder (endpoint + options → TransportRequest)
    //   ┌ 1. Configuration.middleware   users' stages, outermost first
    //   │ 2. Requestable.middleware     the endpoint's own stages (then a progress observer's counter)
    //   │ 2½. CacheStage                stored responses, validation, storing (Pipeline/Cache/CacheStage.swift)
    //   │ 3. RetryStage                 attempts and delays (Pipeline/RetryStage.swift)
    //   │ 4. AuthenticationStage        host check, signing, the one 401 replay (Auth/AuthenticationStage.swift)
    //   │ 5. AttemptObservation         log line, metrics and client span per attempt (Observability/AttemptObservation.swift)
    //   └ 6. transport                  checkSendable, Configuration.transport, then (for calls
    //                                   that want it whole) the body, up to maximumResponseSize
    //   size limit (StreamedResponse.whole(upTo:)) and status validation → decoding (Call.resume(expecting:))
    //
    // Users' stages are Middleware; Courier's own (cache, retry, authentication) are values of
    // their own types with a non-escaping `run`. Either way a request reaches a stage exactly as
    // the stages above it left it, and only stages below authentication see a credential.
    //
    // Stages 1–4 are one list, built once per call with only the stages that do something (no
    // cache stage without Configuration.cache, no retry stage without retries, no authentication
    // stage without a credential), and run by recursing through it by index. Every stage is an
    // async function whose frame each call's task allocates anew, so the common call (no
    // middleware, no retries, no credential) goes straight to stages 5–6. Courier's own stages are
    // called through their non-escaping `run`, so that a call allocates no closure for them.

    /// One of stages 1–4.
    enum Stage: Sendable {
        case middleware(any Middleware)
        case cache(CacheStage)
        case retry(RetryStage)
        case authentication(AuthenticationStage)
    }

    /// The stages of this call that do something, outermost first.
    let stages: [Stage]
    /// What the stages see: the caller's own endpoint and the call's metrics.
    let context: MiddlewareContext
    /// The client the call goes through: its configuration's transport and logger are used
    /// where they are kept, not copied into each call.
    let client: Client
    /// The call's span, when it is traced: stage 5 starts a span per request under it.
    let trace: CallTrace?
    /// Whether the caller wants the body whole (``CallOptions/collectsBody``): it is then read
    /// in stage 6, inside the retry loop.
    let collectsBody: Bool
    /// The meter of a call that observes download progress and reads the body whole: stage 6
    /// counts an accepted body into it as it arrives (the counting stage above only sees it once
    /// it is whole, which for a response from the network is too late to show any progress).
    let liveDownloadMeter: ProgressMeter?

    /// The stages of a call to `endpoint` through `client`.
    /// - Parameters:
    ///   - declaredOrigin: the origin the endpoint declared, when a credential may be attached.
    ///   - trace: the call's span, when it is traced.
    init(endpoint: any Requestable, options: __shared CallOptions, client: Client, declaredOrigin: RedirectPolicy.Origin?, trace: CallTrace?) {
        let endpointMiddleware = endpoint.middleware
        let users = client.configuration.middleware.count + endpointMiddleware.count
        let authenticates = endpoint.requiresAuthorization && client.hasCredential
        var stages: [Stage] = []
        let caches = client.configuration.cache != nil
        let count =
            users + (options.downloadMeter == nil ? 0 : 1) + (caches ? 1 : 0) + (client.retries ? 1 : 0) + (authenticates ? 1 : 0)
        if count > 0 {
            stages.reserveCapacity(count)
            for middleware in client.configuration.middleware { stages.append(.middleware(middleware)) }
            for middleware in endpointMiddleware { stages.append(.middleware(middleware)) }
            if let meter = options.downloadMeter { stages.append(.middleware(DownloadCountingStage(meter: meter))) }
            if let cache = client.configuration.cache {
                stages.append(
                    .cache(
                        CacheStage(
                            cache: cache, policy: endpoint.cachePolicy, partition: authenticates ? client.cachePartition : "",
                            authentication: authenticates ? client.configuration.authentication : nil,
                            hasCredentials: authenticates, collectsBody: options.collectsBody, logger: client.configuration.logger,
                            redaction: client.configuration.redaction,
                            secrets: client.cacheSecrets ?? CacheSecrets(client.configuration.redaction), cookies: client.cacheCookies,
                            trace: trace, metrics: client.observation?.metrics)))
            }
            if client.retries { stages.append(.retry(RetryStage(policy: client.configuration.retryPolicy, clock: client.configuration.clock))) }
            if authenticates {
                stages.append(
                    .authentication(
                        AuthenticationStage(
                            authentication: client.configuration.authentication, authorizedHosts: client.configuration.authorizedHosts,
                            declaredOrigin: declaredOrigin)))
            }
        }
        self.stages = stages
        // Users' stages are the only readers of a call's metrics: without any, nothing records them.
        self.context = MiddlewareContext(
            endpoint: endpoint, requiresAuthorization: endpoint.requiresAuthorization,
            metrics: users == 0 ? .discarding : CallMetrics())
        self.client = client
        self.trace = trace
        self.collectsBody = options.collectsBody
        self.liveDownloadMeter = options.collectsBody ? options.downloadMeter : nil
    }

    /// Runs the call's stages around the transport.
    @inline(__always)
    func run(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        // No stage ran, so the request is the one `RequestBuilder` made, which passes
        // `checkSendable` by construction (a `BaseURL` is http or https with a validated host, a
        // `URLPath` has no user-info to add, reserved headers were refused): not checked again.
        guard !stages.isEmpty else {
            assert((try? RequestBuilder.checkSendable(request)) != nil, "a request RequestBuilder made is sendable")
            return try await attempt(request, checked: true)
        }
        return try await run(request, from: 0)
    }

    /// Stage `index` and those below it.
    private func run(_ request: TransportRequest, from index: Int) async throws(CourierError) -> StreamedResponse {
        guard index < stages.count else { return try await attempt(request, checked: false) }
        switch stages[index] {
        case .middleware(let middleware):
            return try await middleware.intercept(request, context: context) { [self] request throws(CourierError) in
                try await below(index, request)
            }
        case .cache(let cache):
            return try await cache.run(request) { request throws(CourierError) in
                try await below(index, request)
            } detached: { [self] request throws(CourierError) in
                try await client.inFlight { () async throws(CourierError) in try await below(index, request) }
            }
        case .retry(let retry):
            return try await retry.run(request, context: context) { request throws(CourierError) in
                try await below(index, request)
            }
        case .authentication(let authentication):
            return try await authentication.run(request, context: context) { request throws(CourierError) in
                try await below(index, request)
            }
        }
    }

    /// What comes below stage `index`: the next stage, or the attempt itself (without a frame of
    /// ``run(_:from:)`` in between).
    @inline(__always)
    private func below(_ index: Int, _ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        guard index + 1 < stages.count else { return try await attempt(request, checked: false) }
        return try await run(request, from: index + 1)
    }

    /// Stages 5 and 6: observes one attempt (log line, metrics, span) around the transport.
    /// Refuses what must not be sent (``RequestBuilder/checkSendable(_:)``), sends, and, when
    /// the call wants the body whole, reads it up to ``TransportRequest/maximumResponseSize``
    /// (also when the transport does not enforce it). Read here, a body whose connection drops
    /// halfway is one failed attempt, retried like any other.
    /// - Parameters:
    ///   - checked: whether `request` is known to pass ``RequestBuilder/checkSendable(_:)`` (no
    ///     stage could have changed it since it was built).
    ///   - spanned: whether the attempt's span is open already (see ``AttemptObservation``).
    private func attempt(_ request: TransportRequest, checked: Bool, spanned: Bool = false) async throws(CourierError) -> StreamedResponse {
        if !spanned, let trace {
            if Task.isCancelled { throw .cancelled }
            return try await AttemptObservation.traced(request, trace: trace) { request throws(CourierError) in
                try await attempt(request, checked: checked, spanned: true)
            }
        }
        if Task.isCancelled { throw .cancelled }
        let started = ContinuousClock.now
        do throws(CourierError) {
            // The endpoint was checked when the request was built; what the stages made of it is
            // checked here, the last moment before the wire.
            if !checked { try RequestBuilder.checkSendable(request) }
            var response = try await client.configuration.transport.send(request.belowHTTPCache(client.configuration.cache != nil))
            if collectsBody {
                // Only an accepted body is the one whose progress is reported: a refused attempt's
                // (a 503 before a retry) would leave the values above the final body's size.
                if let meter = liveDownloadMeter, response.body.wholeData == nil,
                    context.endpoint.acceptableStatusCodes.contains(response.head.statusCode)
                {
                    response.body = CountedChunks.body(response.body, counting: meter)
                }
                response = try await response.whole(upTo: request.maximumResponseSize)
            }
            AttemptObservation.observe(request, response: response, started: started, metrics: context.metrics, logger: client.configuration.logger)
            return response
        } catch {
            AttemptObservation.observe(request, error: error, started: started, metrics: context.metrics, logger: client.configuration.logger)
            throw error
        }
    }
}
