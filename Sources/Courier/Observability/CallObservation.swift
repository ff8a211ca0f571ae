import Tracing

/// What a client reports about each call through the server ecosystem's APIs: a span
/// (swift-distributed-tracing) and metrics (swift-metrics).
///
/// Worked out once, when the client is created: `nil` when neither has a backend (no tracer
/// and no metrics factory bootstrapped, nor configured), and then a call does none of this
/// work: it checks one optional reference. A class, so that the check and the copy are one
/// pointer.
final class CallObservation: Sendable {
    let tracing: ClientTracing?
    let metrics: ClientMetrics?

    /// `nil` when there is nothing to report to.
    init?(configuration: Configuration) {
        tracing = ClientTracing(tracer: configuration.tracer, transport: configuration.transport, hosts: configuration.traceContextHosts)
        metrics = ClientMetrics(factory: configuration.metricsFactory)
        if tracing == nil && metrics == nil { return nil }
    }

    /// Runs `call` (admission, constraints, every stage and the status check) inside the call's
    /// span, counted in flight while it runs, then records its outcome.
    ///
    /// The span is the current `ServiceContext` inside `call`, so spans that users' middleware
    /// starts are its children. Whatever `call` throws, cancellation included, ends the span and
    /// takes the call out of the in-flight gauge.
    /// - Parameters:
    ///   - method: the endpoint's method.
    ///   - operation: the OpenAPI operation the call runs, if any: it names the span and is a
    ///     metrics dimension.
    ///   - statusCode: the status code of what `call` returns.
    ///   - call: the call, given its trace (to describe its request and hand to the attempt
    ///     stage), or `nil` when it is not traced.
    func observe<Value>(
        method: String, operation: String? = nil, statusCode: (Value) -> Int, _ call: (CallTrace?) async throws(CourierError) -> Value
    ) async throws(CourierError) -> Value {
        let started = ContinuousClock.now
        metrics?.started()
        let outcome: Result<Value, CourierError>
        let trace = tracing.map { CallTrace(tracing: $0, method: method, operation: operation) }
        if let trace {
            outcome = await ServiceContext.$current.withValue(trace.span.context) { () async -> Result<Value, CourierError> in
                do throws(CourierError) {
                    return .success(try await call(trace))
                } catch {
                    return .failure(error)
                }
            }
        } else {
            do throws(CourierError) {
                outcome = .success(try await call(nil))
            } catch {
                outcome = .failure(error)
            }
        }
        let code: Int?
        let failure: CourierError?
        switch outcome {
        case .success(let value):
            code = statusCode(value)
            failure = nil
        case .failure(let error):
            code = error.response?.statusCode
            failure = error
        }
        if let metrics {
            let elapsed = (ContinuousClock.now - started).components
            metrics.ended(
                method: method, operation: operation, statusCode: code, nanoseconds: elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
        }
        trace?.end(statusCode: code, error: failure)
        return try outcome.get()
    }
}
