// What the package's tests observe of a connectivity monitor.

extension ConnectivityMonitor {
    /// How many ``paths()`` sequences are listening.
    var listenerCount: Int { broadcaster.listenerCount }

    /// Returns once exactly `count` ``paths()`` sequences are listening.
    func waitForListeners(_ count: Int) async { await broadcaster.waitForListeners(count) }

    /// The Linux monitor's netlink port; `nil` elsewhere.
    var netlinkPortID: UInt32? {
        #if os(Linux)
            if case .netlink(let reader) = source { return reader.portID }
        #endif
        return nil
    }

    /// Returns once the system source has released its resources after ``stop()`` (on Linux:
    /// the thread closed its descriptors and ended); at once for other monitors.
    func waitUntilSourceEnded() async {
        #if os(Linux)
            if case .netlink(let reader) = source { await reader.waitUntilEnded() }
        #endif
    }
}
