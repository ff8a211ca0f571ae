/// What one call has cost so far: its attempts, how long each took, and the bytes that went
/// each way. A middleware reads it from ``MiddlewareContext/metrics`` after `next` returns.
///
/// ```swift
/// struct Timing: Middleware {
///     func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
///         let response = try await next(request)
///         let attempts = context.metrics.snapshot.attempts
///         let time = attempts.reduce(Duration.zero) { $0 + $1.duration }
///         print("\(attempts.count) attempt(s) in \(time), status \(response.statusCode)")
///         return response
///     }
/// }
/// ```
///
/// Safe to read from any task while the call records into it.
public final class CallMetrics: Sendable {
    /// One attempt at sending the request.
    public struct Attempt: Sendable, Equatable {
        /// How long the attempt took, from handing the request to the transport to its outcome.
        public var duration: Duration
        /// The status code, or `nil` when no response arrived.
        public var statusCode: Int?
        /// The bytes of the request body, when known.
        public var bytesSent: Int64?
        /// The bytes of the response body; for a body the caller streams, the bytes read by the
        /// time the attempt ended (none).
        public var bytesReceived: Int
    }

    /// The metrics at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// Every attempt so far, in order (a 401 replay counts as an attempt).
        public var attempts: [Attempt] = []
        /// Request body bytes over all attempts.
        package var bytesSent: Int64 { attempts.reduce(0) { $0 + ($1.bytesSent ?? 0) } }
        /// Response body bytes over all attempts.
        package var bytesReceived: Int { attempts.reduce(0) { $0 + $1.bytesReceived } }
    }

    /// The metrics now.
    public var snapshot: Snapshot { storage.withLock { $0 } }

    private let storage = LockedState(Snapshot())
    /// Whether ``record(_:)`` keeps nothing: ``discarding``.
    let discards: Bool

    /// Creates empty metrics (for testing middleware on its own).
    public init() {
        discards = false
    }

    private init(discarding: Bool) {
        discards = discarding
    }

    /// Metrics that keep nothing, for calls no middleware can read them from (one instance for
    /// all: a call without users' middleware then allocates none).
    static let discarding = CallMetrics(discarding: true)

    func record(_ attempt: Attempt) {
        if discards { return }
        storage.withLock { $0.attempts.append(attempt) }
    }
}
