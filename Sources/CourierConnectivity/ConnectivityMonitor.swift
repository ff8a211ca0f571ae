public import Courier

/// Watches whether the device has a usable network path, and tells you when that changes.
///
/// On Apple platforms it is an `NWPathMonitor`; on watchOS it watches nothing and the path is
/// always ``ConnectivityPath/Status/requiresConnection``. On Linux it follows the kernel's
/// rtnetlink notifications; a path is usable when a **default route** leads through an interface
/// that is up and running and has an address. To hold calls while offline, give it to
/// `Constraint.connectivity(_:timeout:clock:)`. Share one monitor per application; ``stop()``
/// (or releasing the last reference) ends it.
///
/// ```swift
/// let monitor = try ConnectivityMonitor()
/// for await path in monitor.paths() {    // the current path first, then each change
///     offlineBanner.isHidden = path.status != .unsatisfied
/// }
/// ```
public final class ConnectivityMonitor: Sendable {
    // watchOS: Apple's TN3135 says a normal watch app's NWPathMonitor reports no usable path even
    // while URLSession works (through the paired iPhone, Wi-Fi or cellular), so the system decides
    // when a request is made, and Constraint.connectivity holds no call there.
    // Linux: rtnetlink notifications (links, addresses and routes, IPv4 and IPv6) on a thread of its
    // own, after reading the current tables. The default route may be in any routing table; its
    // interface must not be loopback, must be up and running (a cable pulled or a Wi-Fi association
    // lost clears "running"), and must have an address of the route's family. A host that can
    // reach only its own subnet counts as unsatisfied. Each monitor on Linux has a socket and a
    // thread, hence one per application.
    let broadcaster: PathBroadcaster
    let source: Source

    /// What produces the paths.
    enum Source: Sendable {
        /// Whoever calls ``ConnectivityMonitor/publish(_:)``: tests.
        case manual
        /// Nothing: the platform does not tell the app its path (watchOS, TN3135). The path
        /// stays ``ConnectivityPath/Status/requiresConnection``.
        case unobservable
        #if os(Linux)
            /// An rtnetlink socket on a thread of its own.
            case netlink(NetlinkReader)
        #elseif canImport(Network) && !os(watchOS)
            /// `NWPathMonitor`.
            case network(NetworkPathSource)
        #endif
    }

    private init(broadcaster: PathBroadcaster, source: Source) {
        self.broadcaster = broadcaster
        self.source = source
    }

    /// Starts watching the system's network paths.
    ///
    /// On Linux it returns once the kernel has listed its tables, so ``currentPath`` is known at
    /// once. On Apple platforms it returns at once; until the first update arrives ``currentPath``
    /// is ``ConnectivityPath/Status/requiresConnection``, which holds no call.
    ///
    /// ```swift
    /// let monitor = try? ConnectivityMonitor()   // nil: cannot watch the network here; send without waiting
    /// ```
    /// - Throws: `CourierError.transport(_:)` (kind `TransportFailure.Kind.other`, with a
    ///   message) when the system cannot be watched: on Linux when a netlink socket cannot be
    ///   made or the kernel refuses to list its tables (a sandbox that forbids netlink), and on
    ///   platforms that have neither.
    public convenience init() throws(CourierError) {
        // On Linux: the first dumps of the link, address and route tables. On Apple platforms it does
        // not block its caller: NWPathMonitor's first update usually comes within milliseconds, and
        // paths() delivers the real path as soon as it is known. On watchOS the path stays
        // .requiresConnection for as long as the monitor runs (see the type).
        #if os(Linux)
            try self.init(linuxNetworkNamespacePath: nil)
        #elseif os(watchOS)
            self.init(unobservablePath: ())
        #elseif canImport(Network)
            // Until NWPathMonitor's first update: not known to be unusable.
            let broadcaster = PathBroadcaster(ConnectivityPath(status: .requiresConnection))
            self.init(broadcaster: broadcaster, source: .network(NetworkPathSource(publishingTo: broadcaster)))
        #else
            throw .transport(TransportFailure(kind: .other, message: "connectivity monitor: not available on this platform"))
        #endif
    }

    #if os(Linux)
        /// A Linux monitor that watches the network namespace at `path` (`/run/netns/NAME`, as
        /// `ip netns add NAME` makes it) instead of the process's own: its thread enters that
        /// namespace before it creates the socket. For tests that build a network to watch.
        ///
        /// - Throws: like ``init()``, and when the namespace cannot be entered (not root: `EPERM`).
        package convenience init(networkNamespacePath path: String) throws(CourierError) {
            try self.init(linuxNetworkNamespacePath: path)
        }

        private convenience init(linuxNetworkNamespacePath path: String?) throws(CourierError) {
            let broadcaster = PathBroadcaster(.unsatisfied)
            let reader = try NetlinkReader.start(networkNamespace: path, publishingTo: broadcaster)
            self.init(broadcaster: broadcaster, source: .netlink(reader))
        }
    #endif

    /// A monitor for a platform that does not tell the app its path (watchOS: TN3135): its path
    /// is ``ConnectivityPath/Status/requiresConnection`` until ``stop()``, so it holds no call.
    package convenience init(unobservablePath: Void) {
        self.init(broadcaster: PathBroadcaster(ConnectivityPath(status: .requiresConnection)), source: .unobservable)
    }

    /// A monitor that reports what ``publish(_:)`` says, starting with `initial`: the engine of
    /// CourierTesting's `TestConnectivityMonitor`.
    package convenience init(manuallyPublishing initial: ConnectivityPath) {
        self.init(broadcaster: PathBroadcaster(initial), source: .manual)
    }

    deinit {
        stop()
    }

    /// The path as the monitor last saw it.
    ///
    /// ```swift
    /// if monitor.currentPath.status == .unsatisfied { showOfflineBanner() }
    /// ```
    public var currentPath: ConnectivityPath {
        broadcaster.current
    }

    /// The current path, then every change, for as long as the monitor runs (the sequence ends
    /// when it stops). Each call makes an independent sequence. A consumer that falls behind
    /// skips to the newest path rather than reading stale ones; a path that does not differ from
    /// the previous one is not repeated.
    ///
    /// ```swift
    /// for await path in monitor.paths() where path.status == .satisfied {
    ///     await syncPendingChanges()
    /// }
    /// ```
    public func paths() -> AsyncStream<ConnectivityPath> {
        broadcaster.paths()
    }

    /// Whether the monitor is watching: `false` after ``stop()``, or if the system source failed
    /// (on Linux: the kernel refused to list its tables again after messages were lost). A
    /// monitor that is not watching keeps its last ``currentPath``, ends its ``paths()``, and no
    /// longer holds calls in `Constraint.connectivity(_:timeout:clock:)`.
    ///
    /// ```swift
    /// monitor.stop()
    /// print(monitor.isMonitoring)   // false
    /// ```
    public var isMonitoring: Bool {
        !broadcaster.isFinished
    }

    /// Stops watching: ends every ``paths()`` sequence, releases the system's resources (on
    /// Linux the thread closes its socket and ends), and makes `Constraint.connectivity(_:timeout:clock:)`
    /// stop holding calls. Returns at once; calling it again does nothing.
    ///
    /// ```swift
    /// monitor.stop()
    /// ```
    public func stop() {
        switch source {
        case .manual, .unobservable:
            break
        #if os(Linux)
            case .netlink(let reader):
                reader.stop()
        #elseif canImport(Network) && !os(watchOS)
            case .network(let network):
                network.stop()
        #endif
        }
        broadcaster.finish()
    }

    /// Reports `path` (manual monitors only; a system monitor's own source would overwrite it).
    package func publish(_ path: ConnectivityPath) {
        broadcaster.publish(path)
    }

    /// Returns once the path allows calls: at once when it is not ``ConnectivityPath/Status/unsatisfied``,
    /// else when it changes to a status that does, when the monitor stops, or when the task is
    /// cancelled (the stream then ends and its listener is removed).
    func waitUntilCallsAllowed() async {
        for await path in paths() where path.status != .unsatisfied {
            return
        }
    }

    /// Whether `Constraint.connectivity(_:timeout:clock:)` lets a call through now.
    var allowsCalls: Bool {
        !isMonitoring || currentPath.status != .unsatisfied
    }
}
