import Courier
public import CourierConnectivity

/// A `ConnectivityMonitor` your tests drive: it reports the path you set, so code that waits
/// for connectivity (`Constraint/connectivity(_:timeout:clock:)`, your own `paths()` loops) can
/// be tested offline and online without touching the machine's network.
///
/// ```swift
/// let network = TestConnectivityMonitor(.unsatisfied)
/// let clock = TestClock()
/// let online = Constraint.connectivity(network.monitor, timeout: .seconds(30), clock: clock)
///
/// let call = Task { try await online.waitUntilSatisfied() }   // held: offline
/// network.update(.satisfied)                                   // released
/// try await call.value
/// ```
public final class TestConnectivityMonitor: Sendable {
    /// The monitor to hand to the code under test.
    ///
    /// ```swift
    /// let constraint = Constraint.connectivity(network.monitor)
    /// ```
    public let monitor: ConnectivityMonitor

    /// Creates a monitor whose path is `initial` until ``update(_:)`` changes it.
    ///
    /// ```swift
    /// let network = TestConnectivityMonitor(.satisfied)
    /// ```
    public init(_ initial: ConnectivityPath = .satisfied) {
        monitor = ConnectivityMonitor(manuallyPublishing: initial)
    }

    /// Makes `path` the monitor's current path (`currentPath` reads it when this returns) and
    /// hands it to every `paths()` sequence, unless it equals the current one. Calls a
    /// connectivity constraint holds are released right after, on their own tasks.
    ///
    /// ```swift
    /// import CourierConnectivity
    ///
    /// network.update(ConnectivityPath(status: .satisfied, interfaceNames: ["wlan0"]))
    /// ```
    public func update(_ path: ConnectivityPath) {
        monitor.publish(path)
    }
}
