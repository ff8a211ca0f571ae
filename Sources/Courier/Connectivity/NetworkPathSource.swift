#if canImport(Network) && !os(Linux)
    import Dispatch
    import Network

    /// The Apple monitor: an `NWPathMonitor` on a serial queue of its own, whose updates are
    /// mapped onto ``ConnectivityPath`` and published as they come. Thin on purpose: it cannot be
    /// compiled on Linux, where the rest of the monitor is tested.
    final class NetworkPathSource: Sendable {
        /// Behind a lock so that the source is `Sendable` whatever the SDK says of `NWPathMonitor`.
        private let monitor: LockedState<NWPathMonitor>

        /// How long ``init(publishingTo:)`` waits for the first update before it reads
        /// `currentPath` instead.
        private static let firstUpdateTimeout: DispatchTimeInterval = .seconds(2)

        /// Starts the monitor and returns once its first update was published.
        init(publishingTo broadcaster: PathBroadcaster) {
            let monitor = NWPathMonitor()
            let firstUpdate = DispatchSemaphore(value: 0)
            monitor.pathUpdateHandler = { path in
                broadcaster.publish(ConnectivityPath(path))
                firstUpdate.signal()
            }
            monitor.start(queue: DispatchQueue(label: "Courier.ConnectivityMonitor"))
            if firstUpdate.wait(timeout: .now() + Self.firstUpdateTimeout) == .timedOut {
                broadcaster.publish(ConnectivityPath(monitor.currentPath))
            }
            self.monitor = LockedState(monitor)
        }

        /// Cancels the monitor: no update follows.
        func stop() {
            monitor.withLock { $0.cancel() }
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
