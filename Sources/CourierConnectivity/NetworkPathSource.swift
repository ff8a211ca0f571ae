// Not on watchOS, where a normal app's NWPathMonitor reports no usable path (TN3135): the
// monitor watches nothing there (ConnectivityMonitor's `unobservable` source).
#if canImport(Network) && !os(Linux) && !os(watchOS)
    import Courier
    import Dispatch
    import Network

    /// The Apple monitor: an `NWPathMonitor` on a serial queue of its own, whose updates are
    /// mapped onto ``ConnectivityPath`` and published as they come. Thin on purpose: it cannot be
    /// compiled on Linux, where the rest of the monitor is tested.
    ///
    /// It never waits: until the monitor's first update (which the system delivers on its queue,
    /// usually within milliseconds), the broadcaster keeps the path it was made with.
    final class NetworkPathSource: Sendable {
        private let monitor: NWPathMonitor

        /// Starts the monitor; its updates go to `broadcaster`. Returns at once.
        init(publishingTo broadcaster: PathBroadcaster) {
            let monitor = NWPathMonitor()
            monitor.pathUpdateHandler = { path in
                broadcaster.publish(ConnectivityPath(path))
            }
            monitor.start(queue: DispatchQueue(label: "Courier.ConnectivityMonitor"))
            self.monitor = monitor
        }

        /// Cancels the monitor: no update follows.
        func stop() {
            monitor.cancel()
        }
    }

    extension ConnectivityPath {
        /// `NWPath.Status` as ``Status``; a status added in a later SDK counts as
        /// ``Status/requiresConnection`` (not known to be unusable: calls go through). The
        /// interface names are those of a satisfied path, in the system's order.
        init(_ path: NWPath) {
            let status: Status =
                switch path.status {
                case .satisfied: .satisfied
                case .unsatisfied: .unsatisfied
                case .requiresConnection: .requiresConnection
                @unknown default: .requiresConnection
                }
            self.init(status: status, interfaceNames: status == .satisfied ? path.availableInterfaces.map(\.name) : [])
        }
    }
#endif
