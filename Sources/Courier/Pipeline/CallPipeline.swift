import Foundation

/// Every stage a call passes through, in order: this file is the map.
///
/// ```
/// Client.enqueue(endpoint) → Call.resume()
///   call span and metrics, when a backend is there (Observability/CallObservation.swift)
///   pause-and-drain admission → constraints → RequestBuilder (endpoint → TransportRequest)
///   ┌ 1. Configuration.middleware   users' stages, outermost first
///   │ 2. Requestable.middleware     the endpoint's own stages
///   │ 3. RetryStage                 attempts and delays (Pipeline/RetryStage.swift)
///   │ 4. AuthenticationStage        host check, signing, the one 401 replay (Auth/AuthenticationStage.swift)
///   │ 5. AttemptObservation         log line, metrics and client span per attempt (Observability/AttemptObservation.swift)
///   └ 6. transport                  checkSendable, Configuration.transport, then (for calls
///                                   that want it whole) the body, up to maximumResponseSize
///   status validation → decoding (Call.resume(expecting:))
/// ```
///
/// Built-in stages are ``Middleware`` like users' own; a request reaches a stage exactly as the
/// stages above it left it, and only stages below authentication see a credential.
enum CallPipeline {
    /// Runs the stages of one call around the transport.
    /// - Parameters:
    ///   - middleware: users' stages: ``Configuration/middleware``, then the endpoint's.
    ///   - collectsBody: whether the caller wants the body whole (``Call/resume()``): it is then
    ///     read in stage 6, inside the retry loop.
    ///   - trace: the call's span, when it is traced: stage 5 starts a span per request under it.
    static func run(
        _ request: TransportRequest, endpoint: any Requestable, middleware users: [any Middleware],
        configuration: Configuration, declaredOrigin: RedirectPolicy.Origin?, metrics: CallMetrics,
        collectsBody: Bool = true, trace: CallTrace? = nil
    ) async throws(CourierError) -> StreamedResponse {
        // The common call, with no users' middleware, no retries and no credential, goes through
        // stages 5 and 6 only. Every stage is an async function whose frame each call's task
        // allocates anew (a call usually runs in a task of its own), so the full list is built
        // in a function of its own, whose frame only the calls that need it allocate.
        let authenticates = endpoint.requiresAuthorization && !configuration.authentication.isNone
        guard users.isEmpty, !authenticates, RetryStage.passesThrough(configuration.retryPolicy) else {
            return try await runAllStages(
                request, endpoint: endpoint, middleware: users, configuration: configuration,
                declaredOrigin: declaredOrigin, metrics: metrics, collectsBody: collectsBody, trace: trace)
        }
        if Task.isCancelled { throw .cancelled }
        // No stage ran, so the request is the one `RequestBuilder` made, which passes
        // `checkSendable` by construction (a `BaseURL` is http or https with a validated host, a
        // `URLPath` has no user-info to add, reserved headers were refused): not checked again.
        assert((try? RequestBuilder.checkSendable(request)) != nil, "a request RequestBuilder made is sendable")
        let transport = configuration.transport
        return try await AttemptObservation(logger: configuration.logger, trace: trace).run(request, metrics: metrics) { request throws(CourierError) in
            try await send(request, through: transport, collectsBody: collectsBody, checked: true)
        }
    }

    /// ``run(_:endpoint:middleware:configuration:declaredOrigin:metrics:collectsBody:)`` through
    /// every stage.
    @inline(never)
    private static func runAllStages(
        _ request: TransportRequest, endpoint: any Requestable, middleware users: [any Middleware],
        configuration: Configuration, declaredOrigin: RedirectPolicy.Origin?, metrics: CallMetrics,
        collectsBody: Bool, trace: CallTrace?
    ) async throws(CourierError) -> StreamedResponse {
        // Stages see the caller's endpoint, not the wrapper an event stream, a download or a
        // progress observer sends in its place.
        let declared = (endpoint as? any EndpointWrapper)?.declared ?? endpoint
        let context = MiddlewareContext(endpoint: declared, requiresAuthorization: endpoint.requiresAuthorization, metrics: metrics)
        let courierStages = CourierStages(
            retry: RetryStage(policy: configuration.retryPolicy, clock: configuration.clock),
            authentication: AuthenticationStage(
                authentication: endpoint.requiresAuthorization ? configuration.authentication : .none,
                authorizedHosts: configuration.authorizedHosts, declaredOrigin: declaredOrigin),
            observation: AttemptObservation(logger: configuration.logger, trace: trace),
            transport: configuration.transport, collectsBody: collectsBody)
        // 1–2. Users' middleware, outermost first; without any, no chain is built at all.
        if users.isEmpty {
            return try await courierStages.run(request, context: context)
        }
        return try await MiddlewareChain.run(users, request: request, context: context) { request throws(CourierError) in
            try await courierStages.run(request, context: context)
        }
    }

    /// Stages 3–6. Courier's own stages are ``Middleware`` (each also runs in a user's chain),
    /// called here through their non-escaping `run` so that a call allocates no closure for them.
    struct CourierStages: Sendable {
        let retry: RetryStage
        let authentication: AuthenticationStage
        let observation: AttemptObservation
        let transport: any Transport
        let collectsBody: Bool

        func run(_ request: TransportRequest, context: MiddlewareContext) async throws(CourierError) -> StreamedResponse {
            // 3. retry → 4. authentication → 5. attempt observation → 6. transport. A stage that
            // would only call `next` (no retries, no credential) is left out: each stage is an
            // async frame of its own, allocated anew by every call's task.
            guard RetryStage.passesThrough(retry.policy) else {
                return try await retry.run(request, context: context) { request throws(CourierError) in
                    try await authenticated(request, context: context)
                }
            }
            return try await authenticated(request, context: context)
        }

        /// Stages 4–6.
        private func authenticated(_ request: TransportRequest, context: MiddlewareContext) async throws(CourierError) -> StreamedResponse {
            guard authentication.passesThrough else {
                return try await authentication.run(request, context: context) { request throws(CourierError) in
                    try await observed(request, context: context)
                }
            }
            if Task.isCancelled { throw .cancelled }
            return try await observed(request, context: context)
        }

        /// Stages 5–6.
        private func observed(_ request: TransportRequest, context: MiddlewareContext) async throws(CourierError) -> StreamedResponse {
            try await observation.run(request, metrics: context.metrics) { request throws(CourierError) in
                try await CallPipeline.send(request, through: transport, collectsBody: collectsBody)
            }
        }
    }

    /// Stage 6: refuses what must not be sent (``RequestBuilder/checkSendable(_:)``), sends, and,
    /// when the call wants the body whole, reads it up to ``TransportRequest/maximumResponseSize``
    /// (also when the transport does not enforce it). Read here, a body whose connection drops
    /// halfway is one failed attempt, retried like any other.
    /// - Parameter checked: whether `request` is known to pass ``RequestBuilder/checkSendable(_:)``
    ///   (no stage could have changed it since it was built).
    static func send(
        _ request: TransportRequest, through transport: any Transport, collectsBody: Bool, checked: Bool = false
    ) async throws(CourierError) -> StreamedResponse {
        // The endpoint was checked when the request was built; what the stages made of it is
        // checked here, the last moment before the wire.
        if !checked { try RequestBuilder.checkSendable(request) }
        let response = try await transport.send(request)
        guard collectsBody else { return response }
        guard let whole = response.body.wholeData else {
            return try await collected(response, limit: request.maximumResponseSize, url: request.url)
        }
        if let limit = request.maximumResponseSize, whole.count > limit {
            throw .transport(.responseTooLarge(limit: limit, url: request.url))
        }
        return response
    }

    /// `response` with its streamed body read whole, up to `limit`.
    private static func collected(_ response: StreamedResponse, limit: Int?, url: URL) async throws(CourierError) -> StreamedResponse {
        var response = response
        response.body = ResponseBody(try await response.body.collect(upTo: limit, url: url))
        return response
    }
}
