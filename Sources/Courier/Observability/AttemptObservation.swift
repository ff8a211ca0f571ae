import Logging
import Tracing

/// The attempt-observation stage, just above the transport: one log line and one
/// ``CallMetrics/Attempt`` per request handed to the transport (each retry and each 401 replay
/// is one), with its duration, status and bytes; and, when the call is traced, one client span
/// per request (``AttemptTrace``), whose trace context it writes into the request.
///
/// It sits below authentication, so it sees the request as sent; it logs only the method, the
/// URL as ``TransportRequest/redaction`` prints it, the status and the timing, never a header.
/// Being below authentication, it also writes `traceparent` into the final headers of every
/// attempt, and never into a request above it (a retry or replay gets a fresh one).
struct AttemptObservation: Middleware {
    let logger: Logger
    /// The call's span, when the call is traced.
    var trace: CallTrace? = nil

    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        try await run(request, metrics: context.metrics, next: next)
    }

    /// ``intercept(_:context:next:)`` with a non-escaping `next`, as ``CallPipeline`` calls it.
    ///
    /// The recording and the log lines are in functions of their own, not inlined here: what an
    /// async function holds is allocated in its task's frame on every call, and the log
    /// messages' string building would make that frame several times larger.
    func run(
        _ request: TransportRequest, metrics: CallMetrics, next: (TransportRequest) async throws(CourierError) -> StreamedResponse
    ) async throws(CourierError) -> StreamedResponse {
        if let trace {
            return try await traced(request, trace: trace, metrics: metrics, next: next)
        }
        return try await untraced(request, metrics: metrics, next: next)
    }

    /// ``run(_:metrics:next:)`` inside the attempt's client span, which is the current
    /// `ServiceContext` (and ``AttemptTrace/current``, for redirects) while the transport sends.
    @inline(never)
    private func traced(
        _ request: TransportRequest, trace: CallTrace, metrics: CallMetrics,
        next: (TransportRequest) async throws(CourierError) -> StreamedResponse
    ) async throws(CourierError) -> StreamedResponse {
        var request = request
        let attempt = AttemptTrace(call: trace, request: &request)
        let outcome = await ServiceContext.$current.withValue(attempt.context) { [request] () async -> Result<StreamedResponse, CourierError> in
            await AttemptTrace.$current.withValue(attempt) { () async -> Result<StreamedResponse, CourierError> in
                do throws(CourierError) {
                    return .success(try await untraced(request, metrics: metrics, next: next))
                } catch {
                    return .failure(error)
                }
            }
        }
        attempt.end(outcome)
        return try outcome.get()
    }

    /// The log line and the ``CallMetrics`` of one attempt.
    private func untraced(
        _ request: TransportRequest, metrics: CallMetrics, next: (TransportRequest) async throws(CourierError) -> StreamedResponse
    ) async throws(CourierError) -> StreamedResponse {
        let started = ContinuousClock.now
        do throws(CourierError) {
            let response = try await next(request)
            // Nothing to record and nothing to log: the usual call, with no users' middleware to
            // read metrics and the log level above debug.
            if !metrics.discards || logger.logLevel <= .debug {
                observe(request, response: response, started: started, metrics: metrics)
            }
            return response
        } catch {
            observe(request, error: error, started: started, metrics: metrics)
            throw error
        }
    }

    @inline(never)
    private func observe(_ request: TransportRequest, response: StreamedResponse, started: ContinuousClock.Instant, metrics: CallMetrics) {
        let duration = ContinuousClock.now - started
        metrics.record(
            CallMetrics.Attempt(
                duration: duration, statusCode: response.statusCode,
                bytesSent: request.body?.count, bytesReceived: response.body.wholeData?.count ?? 0))
        logger.debug(
            "\(request.head.method.rawValue) \(request.redaction.redact(url: request.url)) \(response.statusCode) in \(duration), attempt \(Attempt.current)"
        )
    }

    @inline(never)
    private func observe(_ request: TransportRequest, error: CourierError, started: ContinuousClock.Instant, metrics: CallMetrics) {
        let duration = ContinuousClock.now - started
        metrics.record(
            CallMetrics.Attempt(
                duration: duration, statusCode: nil,
                bytesSent: request.body?.count, bytesReceived: 0))
        logger.error(
            "\(request.head.method.rawValue) \(request.redaction.redact(url: request.url)) failed after \(duration), attempt \(Attempt.current): \(error)")
    }
}
