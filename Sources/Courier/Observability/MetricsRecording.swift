import CoreMetrics

/// The names of the metrics Courier records through swift-metrics (documented in the
/// Observability guide; dashboards depend on them, so they do not change).
enum MetricNames {
    /// Counter: calls that ended, by `method` and `status_class` (and `operation`, for a
    /// generated OpenAPI call).
    static let requests = "courier_requests_total"
    /// Timer (preferred unit: seconds): how long calls took, by `method` and `status_class` (and
    /// `operation`).
    static let duration = "courier_request_duration_seconds"
    /// Meter: calls in flight now.
    static let inFlight = "courier_requests_in_flight"
    /// Counter: token refreshes a ``TokenRefresher`` ran, by `outcome`.
    static let tokenRefreshes = "courier_token_refreshes_total"
    /// Counter: calls the ``HTTPCache`` looked up, by `result` (``CacheResult``).
    static let cacheLookups = "courier_cache_lookups_total"
    /// Counter: WebSocket messages, by `direction` (`sent`, `received`).
    static let webSocketMessages = "courier_websocket_messages_total"
    /// Counter: the bytes of those messages (as sent or as received, inflated), by `direction`.
    static let webSocketBytes = "courier_websocket_bytes_total"
    /// Meter: WebSockets open now.
    static let webSocketsOpen = "courier_websockets_open"
}

/// A client's call metrics: a counter and a timer per method and status class, and one gauge
/// of calls in flight. `nil` (see ``init(factory:)``) when the factory is swift-metrics' no-op,
/// so that a call without a metrics backend records nothing.
///
/// The counters and timers are made once per method and status class and kept, so a call takes
/// one short lock to find them rather than asking the factory each time.
final class ClientMetrics: Sendable {
    let factory: any MetricsFactory
    private let inFlight: Meter
    /// One counter per ``CacheResult``, made when the first lookup is counted.
    private let cacheLookups: LockedState<[CacheResult: Counter]> = LockedState([:])
    /// One slot per reported method (``methods``) and status class (``statusClasses``).
    private let series: LockedState<[Series?]>
    /// The same slots per OpenAPI operation, for at most ``maximumOperations`` operations.
    private let operationSeries: LockedState<[String: [Series?]]> = LockedState([:])
    /// How many operations get series of their own: a generated client names a fixed set, so
    /// this only bounds what a caller inventing operation IDs could add; calls of further
    /// operations are counted without the dimension.
    static let maximumOperations = 512

    private struct Series: Sendable {
        let requests: Counter
        let duration: Timer
    }

    /// The methods reported by name, then `_OTHER` for any other (``HTTPSemantics/reportedMethod(_:)``).
    private static let methods = HTTPSemantics.standardMethods + ["_OTHER"]
    /// The class of a call's final status code, `1xx` to `5xx`, then `error` for a call without a
    /// response.
    private static let statusClasses = ["1xx", "2xx", "3xx", "4xx", "5xx", "error"]

    /// The configured factory, else the process's (`MetricsSystem.factory`); `nil` when that is
    /// `NOOPMetricsHandler`.
    init?(factory configured: (any MetricsFactory)?) {
        let factory = configured ?? MetricsSystem.factory
        if factory is NOOPMetricsHandler { return nil }
        self.factory = factory
        inFlight = Meter(label: MetricNames.inFlight, factory: factory)
        series = LockedState(Array(repeating: nil, count: Self.methods.count * Self.statusClasses.count))
    }

    /// A call's ``HTTPCache`` lookup came to `result`.
    func recordCacheLookup(_ result: CacheResult) {
        let counter = cacheLookups.withLock { counters in
            if let existing = counters[result] { return existing }
            let made = Counter(label: MetricNames.cacheLookups, dimensions: [("result", result.rawValue)], factory: factory)
            counters[result] = made
            return made
        }
        counter.increment()
    }

    /// A call started.
    func started() {
        inFlight.increment()
    }

    /// A call to `method` ended after `nanoseconds`, with a response of `statusCode` or, when
    /// `nil`, none.
    func ended(method: String, operation: String? = nil, statusCode: Int?, nanoseconds: Int64) {
        let methodIndex = Self.methods.firstIndex(of: method) ?? Self.methods.count - 1
        let classIndex = statusCode.map { (100..<600).contains($0) ? $0 / 100 - 1 : Self.statusClasses.count - 1 } ?? Self.statusClasses.count - 1
        let slot = methodIndex * Self.statusClasses.count + classIndex
        func make(operation: String?) -> Series {
            var dimensions = [("method", Self.methods[methodIndex]), ("status_class", Self.statusClasses[classIndex])]
            if let operation { dimensions.append(("operation", operation)) }
            return Series(
                requests: Counter(label: MetricNames.requests, dimensions: dimensions, factory: factory),
                duration: Timer(label: MetricNames.duration, dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory))
        }
        let found: Series? =
            operation.flatMap { operation in
                operationSeries.withLock { operations -> Series? in
                    if let existing = operations[operation]?[slot] { return existing }
                    guard operations[operation] != nil || operations.count < Self.maximumOperations else { return nil }
                    let made = make(operation: operation)
                    operations[operation, default: Array(repeating: nil, count: Self.methods.count * Self.statusClasses.count)][slot] = made
                    return made
                }
            }
        let series =
            found
            ?? series.withLock { slots in
                if let existing = slots[slot] { return existing }
                let made = make(operation: nil)
                slots[slot] = made
                return made
            }
        series.requests.increment()
        series.duration.recordNanoseconds(nanoseconds)
        inFlight.decrement()
    }
}

/// A ``TokenRefresher``'s refresh counter; `nil` when the process has no metrics backend.
struct RefreshMetrics: Sendable {
    private let factory: any MetricsFactory

    /// What a refresh came to, as the `outcome` dimension reports it.
    enum Outcome: String {
        /// The token endpoint (or the refresh closure) gave a new credential.
        case success
        /// A coordinated store already held a newer credential, which was used instead.
        case adopted
        /// Refused for good (`invalid_grant`, 400/401): no more refreshes until a reset.
        case rejected
        /// Failed for now (network, timeout, 5xx); a later call may try again.
        case failed
        /// The token store could not be locked or read, so nothing was asked.
        case storeFailed = "store_failed"
        /// A reset or sign-out made the refresh stale; its result was dropped.
        case superseded
    }

    /// `MetricsSystem.factory` as it is now (bootstrapped, or bound with
    /// `withMetricsFactory(_:_:)`); `nil` when that is `NOOPMetricsHandler`.
    init?() {
        let factory = MetricsSystem.factory
        if factory is NOOPMetricsHandler { return nil }
        self.factory = factory
    }

    /// Counts one refresh. Refreshes are rare, so the counter is asked of the factory each time.
    func record(_ outcome: Outcome) {
        Counter(label: MetricNames.tokenRefreshes, dimensions: [("outcome", outcome.rawValue)], factory: factory).increment()
    }
}
