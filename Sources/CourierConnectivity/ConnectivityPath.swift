import Courier
/// Whether the device has a usable network path, as a ``ConnectivityMonitor`` sees it.
///
/// ```swift
/// let monitor = try ConnectivityMonitor()
/// print(monitor.currentPath)          // satisfied via eth0
/// for await path in monitor.paths() {
///     banner.isHidden = path.status != .unsatisfied
/// }
/// ```
public struct ConnectivityPath: Sendable, Hashable, CustomStringConvertible {
    /// Whether a path is usable.
    public enum Status: String, Sendable, Hashable {
        /// A usable path exists. On Linux: a default route through an interface that is up,
        /// running and has an address of the route's family (see ``ConnectivityMonitor``). On
        /// Apple platforms: `NWPath.Status.satisfied`.
        case satisfied
        /// No usable path: requests would fail to connect.
        case unsatisfied
        /// Apple platforms only (`NWPath.Status.requiresConnection`): no path now, but
        /// attempting a connection may bring one up (a VPN on demand, a cellular interface
        /// waking). `Constraint.connectivity(_:timeout:clock:)` lets calls through: their
        /// connection attempt is what activates the path.
        case requiresConnection
    }

    /// Whether a path is usable.
    ///
    /// ```swift
    /// if monitor.currentPath.status == .unsatisfied { showOfflineBanner() }
    /// ```
    public var status: Status

    /// The interfaces that carry a usable path, sorted by name (`["eth0", "wlan0"]`); empty when
    /// ``status`` is not ``Status/satisfied``. On Apple platforms, the path's available
    /// interfaces (`en0`, `pdp_ip0`…) in the system's order of preference.
    ///
    /// ```swift
    /// print(monitor.currentPath.interfaceNames)   // ["wlan0"]
    /// ```
    public var interfaceNames: [String]

    /// Creates a path; tests use it with ``ConnectivityMonitor``s they drive themselves (see
    /// `TestConnectivityMonitor` in CourierTesting).
    ///
    /// ```swift
    /// let offline = ConnectivityPath(status: .unsatisfied)
    /// let online = ConnectivityPath(status: .satisfied, interfaceNames: ["eth0"])
    /// ```
    public init(status: Status, interfaceNames: [String] = []) {
        self.status = status
        self.interfaceNames = interfaceNames
    }

    /// A usable path through no interface in particular.
    ///
    /// ```swift
    /// network.update(.satisfied)   // TestConnectivityMonitor
    /// ```
    public static let satisfied = ConnectivityPath(status: .satisfied)

    /// No usable path.
    ///
    /// ```swift
    /// network.update(.unsatisfied)   // TestConnectivityMonitor
    /// ```
    public static let unsatisfied = ConnectivityPath(status: .unsatisfied)

    /// `satisfied via eth0, wlan0`, `unsatisfied`, `requiresConnection`.
    ///
    /// ```swift
    /// print(ConnectivityPath(status: .satisfied, interfaceNames: ["eth0"]))   // satisfied via eth0
    /// ```
    public var description: String {
        interfaceNames.isEmpty ? status.rawValue : "\(status.rawValue) via \(interfaceNames.joined(separator: ", "))"
    }
}
