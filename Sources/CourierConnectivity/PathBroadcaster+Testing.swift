// What the package's tests observe of a broadcaster.

extension PathBroadcaster {
    /// How many streams are listening.
    var listenerCount: Int { state.withLock { $0.listeners.count } }

    /// Returns once exactly `count` streams are listening (await it instead of
    /// polling ``listenerCount``).
    func waitForListeners(_ count: Int) async {
        let state = self.state
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { $0.listenerWatchers.add(continuation, until: count, now: $0.listeners.count) }?.resume()
        }
    }
}
