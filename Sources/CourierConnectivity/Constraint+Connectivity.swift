public import Courier
import Foundation

extension Constraint {
    /// A constraint that holds calls while `monitor` sees no usable network path, releases them
    /// all the moment one appears, and fails a call that waited longer than `timeout` with
    /// `CourierError.transport(_:)`: kind `TransportFailure.Kind.cannotConnect` with a
    /// `URLError(.notConnectedToInternet)`, as URLSession fails a request sent offline. A cancelled
    /// call leaves at once. Once the monitor stops, it holds no call.
    ///
    /// ```swift
    /// enum API {
    ///     static let online = (try? ConnectivityMonitor()).map { Constraint.connectivity($0, timeout: .seconds(20)) }
    /// }
    /// // in a Requestable:
    /// var constraints: [Constraint] { API.online.map { [$0] } ?? [] }
    /// ```
    /// - Parameters:
    ///   - monitor: Where the path comes from. Share one monitor between constraints.
    ///   - timeout: How long one call may wait for a usable path; `nil` waits as long as it takes.
    ///   - clock: The clock that measures `timeout`. Tests pass CourierTesting's `TestClock`.
    /// - Returns: A constraint named `"connectivity"`.
    public static func connectivity(
        _ monitor: ConnectivityMonitor,
        timeout: Duration? = .seconds(30),
        clock: any Clock<Duration> = ContinuousClock()
    ) -> Constraint {
        // The rules (Documentation/Connectivity.md says the same):
        // - No wait when online. A call arriving while the path is satisfied (or .requiresConnection,
        //   where the connection attempt is what activates the path) goes on at once.
        // - All released together. Every call that arrived offline waits for the same change, and every
        //   one still waiting is released, exactly once, when the path becomes usable.
        // - Timeouts and cancellation are per call. Each call's `timeout` runs from the moment it starts
        //   waiting, on `clock`; a cancelled call leaves with CourierError.cancelled. Neither disturbs
        //   the others.
        // - A stopped monitor holds nothing. Once the monitor stops (stop(), or its system source
        //   failed), waiting calls are released and new ones are not held: a broken monitor must not
        //   turn into an outage; the transport reports the real error.
        // The URLError matches URLSession's so that code that handles one handles both.
        Constraint(
            name: "connectivity",
            timeout: timeout,
            clock: clock,
            timeoutError: { _, timeout in CourierError.transport(.noUsableNetworkPath(waited: timeout)) },
            // The run only waits for a path: once every caller has timed out or been cancelled,
            // it stops listening (else it would hold the monitor and a listener for nobody).
            cancelsUnwatchedRuns: true,
            isSatisfied: { monitor.allowsCalls },
            satisfy: { await monitor.waitUntilCallsAllowed() }
        )
    }
}

extension TransportFailure {
    /// What a call gets from `Constraint.connectivity(_:timeout:clock:)` after waiting `waited`
    /// for a usable path: `Kind.cannotConnect` with the `URLError(.notConnectedToInternet)`
    /// URLSession reports for a request sent offline. No URL: the call was never built.
    static func noUsableNetworkPath(waited: Duration) -> TransportFailure {
        let message = "no usable network path after waiting \(waited)"
        return TransportFailure(
            kind: .cannotConnect, urlError: URLError(.notConnectedToInternet, userInfo: [NSLocalizedDescriptionKey: message]),
            url: nil, message: message)
    }
}
