/// What one call has cost so far: its attempts, how long each took, and the bytes that went
/// each way. A middleware reads it from ``MiddlewareContext/metrics`` after `next` returns.
///
/// ```swift
/// struct Timing: Middleware {
///     func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> Response {
///         let response = try await next(request)
///         let metrics = await context.metrics.snapshot
///         print("\(metrics.attempts.count) attempt(s), \(metrics.bytesReceived) bytes in \(metrics.totalDuration)")
///         return response
///     }
/// }
/// ```
///
/// An actor, so that reading it is an `await` like any shared state; the pipeline records into
/// it under a lock, without an actor hop per attempt.
public actor CallMetrics {
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
        /// The sum of the attempts' durations (retry delays are not included).
        public var totalDuration: Duration { attempts.reduce(.zero) { $0 + $1.duration } }
        /// Request body bytes over all attempts.
        public var bytesSent: Int64 { attempts.reduce(0) { $0 + ($1.bytesSent ?? 0) } }
        /// Response body bytes over all attempts.
        public var bytesReceived: Int { attempts.reduce(0) { $0 + $1.bytesReceived } }
    }

    /// The metrics now.
    public var snapshot: Snapshot { storage.withLock { $0 } }

    private nonisolated let storage = LockedState(Snapshot())
    /// Whether ``record(_:)`` keeps nothing: ``discarding``.
    nonisolated let discards: Bool

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

    nonisolated func record(_ attempt: Attempt) {
        if discards { return }
        storage.withLock { $0.attempts.append(attempt) }
    }
}
