import Courier
/// The current path and everyone listening for changes, under a lock: the platform source (a
/// netlink thread, `NWPathMonitor`'s queue, a test) publishes from wherever it runs, without a
/// task or an actor hop, and readers ask ``current`` synchronously.
///
/// - Every listener gets the current path first, then each change, in order; a publication that
///   changes nothing reaches nobody.
/// - Values are handed to the streams under the lock, so two publishers racing cannot deliver
///   their paths in the opposite order to the one ``current`` ends with.
/// - ``finish()`` ends every stream and refuses new listeners (their stream ends after the
///   current path); ``current`` keeps the last path.
final class PathBroadcaster: Sendable {
    struct State {
        var current: ConnectivityPath
        var listeners: [UInt64: AsyncStream<ConnectivityPath>.Continuation] = [:]
        var nextID: UInt64 = 0
        var isFinished = false
        /// Tests waiting in ``waitForListeners(_:)``.
        var listenerWatchers = CountWatchers()

        /// Sets or removes a listener; returns the watchers to resume for the new count.
        mutating func setListener(_ id: UInt64, _ listener: AsyncStream<ConnectivityPath>.Continuation?) -> [CheckedContinuation<Void, Never>] {
            let before = listeners.count
            listeners[id] = listener
            return listeners.count == before ? [] : listenerWatchers.take(at: listeners.count)
        }
    }

    let state: LockedState<State>

    init(_ initial: ConnectivityPath) {
        state = LockedState(State(current: initial))
    }

    var current: ConnectivityPath { state.withLock { $0.current } }

    var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Makes `path` current and hands it to every listener, unless it is the current one already
    /// or the broadcaster has finished.
    func publish(_ path: ConnectivityPath) {
        let watchers = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.isFinished, path != state.current else { return [] }
            state.current = path
            var watchers: [CheckedContinuation<Void, Never>] = []
            for (id, listener) in state.listeners {
                // A stream whose consumer went away is dropped here too, in case its termination
                // handler ran before it was registered.
                if case .terminated = listener.yield(path) { watchers += state.setListener(id, nil) }
            }
            return watchers
        }
        for watcher in watchers { watcher.resume() }
    }

    /// A stream of the current path, then every change. A consumer that falls behind skips to
    /// the newest path; it never reads a stale one after a newer one.
    func paths() -> AsyncStream<ConnectivityPath> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectivityPath.self, bufferingPolicy: .bufferingNewest(1))
        let state = self.state
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        continuation.onTermination = { _ in
            for watcher in state.withLock({ $0.setListener(id, nil) }) { watcher.resume() }
        }
        let (registered, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            continuation.yield(state.current)
            guard !state.isFinished else { return (false, []) }
            return (true, state.setListener(id, continuation))
        }
        for watcher in watchers { watcher.resume() }
        // Outside the lock: finishing runs the termination handler, which takes the lock.
        if !registered { continuation.finish() }
        return stream
    }

    /// Ends every stream; later publications are ignored.
    func finish() {
        let (listeners, watchers) = state.withLock { state in
            state.isFinished = true
            defer { state.listeners = [:] }
            return (Array(state.listeners.values), state.listeners.isEmpty ? [] : state.listenerWatchers.take(at: 0))
        }
        for listener in listeners { listener.finish() }
        for watcher in watchers { watcher.resume() }
    }
}
