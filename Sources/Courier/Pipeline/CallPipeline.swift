/// Every stage a call passes through, in order: this file is the map.
///
/// ```
/// Client.enqueue(endpoint) → Call.resume()
///   pause-and-drain admission → constraints → RequestBuilder (endpoint → TransportRequest)
///   ┌ 1. Configuration.middleware   users' stages, outermost first
///   │ 2. Requestable.middleware     the endpoint's own stages
///   │ 3. RetryStage                 attempts and delays (Pipeline/RetryStage.swift)
///   │ 4. AuthenticationStage        host check, signing, the one 401 replay (Auth/AuthenticationStage.swift)
///   │ 5. AttemptObservation         log line and metrics per attempt (Observability/AttemptObservation.swift)
///   └ 6. transport                  checkSendable, then Configuration.transport
///   status validation → decoding (Call.resume(expecting:))
/// ```
///
/// Built-in stages are ``Middleware`` like users' own; a request reaches a stage exactly as the
/// stages above it left it, and only stages below authentication see a credential.
enum CallPipeline {
    /// Stages 1–5 for one call of `endpoint`.
    static func stages(
        for endpoint: some Requestable, configuration: Configuration,
        declaredOrigin: RedirectPolicy.Origin?
    ) -> [any Middleware] {
        var stages: [any Middleware] = configuration.middleware
        stages += endpoint.middleware
        stages.append(RetryStage(policy: configuration.retryPolicy, clock: configuration.clock))
        stages.append(
            AuthenticationStage(
                authentication: endpoint.requiresAuthorization ? configuration.authentication : .none,
                configuration: configuration, declaredOrigin: declaredOrigin))
        stages.append(AttemptObservation(logger: configuration.logger))
        return stages
    }

    /// Stage 6: refuses what must not be sent (``RequestBuilder/checkSendable(_:)``), sends, and
    /// holds a transport that does not enforce ``TransportRequest/maximumResponseSize`` to it.
    static func transport(_ transport: any Transport) -> Middleware.Next {
        { request throws(CourierError) in
            // The endpoint was checked when the request was built; what the stages made of it is
            // checked here, the last moment before the wire.
            try RequestBuilder.checkSendable(request)
            let response = try await transport.send(request)
            if let limit = request.maximumResponseSize, response.body.count > limit {
                throw .transport(.responseTooLarge(limit: limit, url: request.url))
            }
            return response
        }
    }

    /// Runs the stages of one call around the transport.
    static func run(
        _ request: TransportRequest, endpoint: some Requestable, configuration: Configuration,
        declaredOrigin: RedirectPolicy.Origin?, metrics: CallMetrics
    ) async throws(CourierError) -> Response {
        let context = MiddlewareContext(endpoint: endpoint, requiresAuthorization: endpoint.requiresAuthorization, metrics: metrics)
        return try await MiddlewareChain.run(
            stages(for: endpoint, configuration: configuration, declaredOrigin: declaredOrigin),
            request: request, context: context, terminal: transport(configuration.transport))
    }
}
