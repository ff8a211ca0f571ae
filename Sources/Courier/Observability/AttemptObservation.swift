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
enum AttemptObservation {

    /// Runs `next` inside the attempt's client span, which is the current `ServiceContext` (and
    /// ``AttemptTrace/current``, for redirects) while the transport sends. `next` observes the
    /// attempt itself (``observe(_:response:started:metrics:)``), inside the span. Out of line:
    /// what an async function holds is allocated in its task's frame on every call.
    @inline(never)
    static func traced(
        _ request: TransportRequest, trace: CallTrace, next: (TransportRequest) async throws(CourierError) -> StreamedResponse
    ) async throws(CourierError) -> StreamedResponse {
        var request = request
        let attempt = AttemptTrace(call: trace, request: &request)
        let outcome = await ServiceContext.$current.withValue(attempt.context) { [request] () async -> Result<StreamedResponse, CourierError> in
            await AttemptTrace.$current.withValue(attempt) { () async -> Result<StreamedResponse, CourierError> in
                do throws(CourierError) {
                    return .success(try await next(request))
                } catch {
                    return .failure(error)
                }
            }
        }
        attempt.end(outcome)
        return try outcome.get()
    }

    /// The log line and the ``CallMetrics`` of an attempt that got `response`, begun at `started`.
    /// The recording and the log lines are in functions of their own, not inlined in the caller:
    /// the log messages' string building would make its async frame several times larger.
    @inline(__always)
    static func observe(
        _ request: TransportRequest, response: StreamedResponse, started: ContinuousClock.Instant, metrics: CallMetrics, logger: Logger
    ) {
        // Nothing to record and nothing to log: the usual call, with no users' middleware to
        // read metrics and the log level above debug.
        if !metrics.discards || logger.logLevel <= .debug {
            record(request, response: response, started: started, metrics: metrics, logger: logger)
        }
    }

    @inline(never)
    private static func record(
        _ request: TransportRequest, response: StreamedResponse, started: ContinuousClock.Instant, metrics: CallMetrics, logger: Logger
    ) {
        let duration = ContinuousClock.now - started
        metrics.record(
            CallMetrics.Attempt(
                duration: duration, statusCode: response.statusCode,
                bytesSent: request.body?.count, bytesReceived: response.body.wholeData?.count ?? 0))
        logger.debug(
            "\(request.head.method.rawValue) \(request.redaction.redact(url: request.url)) \(response.statusCode) in \(duration), attempt \(Attempt.current)",
            metadata: metadata(of: request))
    }

    /// The log line and the ``CallMetrics`` of an attempt that failed with `error`.
    @inline(never)
    static func observe(_ request: TransportRequest, error: CourierError, started: ContinuousClock.Instant, metrics: CallMetrics, logger: Logger) {
        let duration = ContinuousClock.now - started
        metrics.record(
            CallMetrics.Attempt(
                duration: duration, statusCode: nil,
                bytesSent: request.body?.count, bytesReceived: 0))
        logger.error(
            "\(request.head.method.rawValue) \(request.redaction.redact(url: request.url)) failed after \(duration), attempt \(Attempt.current): \(Redaction.singleLine("\(error)"))",
            metadata: metadata(of: request))
    }

    /// `operation`, for a request sent for a generated OpenAPI operation.
    private static func metadata(of request: TransportRequest) -> Logger.Metadata? {
        request.operationID.map { ["operation": .string($0)] }
    }
}
