// What the package's tests observe of a constraint; not part of the public API.

extension Constraint {
    /// How many callers are waiting for the run in flight.
    package var waiterCount: Int { state.withLock { $0.gate.waiterCount } }

    /// Whether a run is in flight.
    package var isRunning: Bool { state.withLock { $0.gate.isRunning } }

    /// Callers handed a waiter id that have not registered yet (0 once every caller is
    /// registered or gone).
    package var unregisteredWaiterCount: Int { state.withLock { $0.gate.unregisteredCount } }

    /// Returns once exactly `count` callers wait for the run in flight (await it instead of
    /// polling ``waiterCount``).
    package func waitForWaiters(_ count: Int) async {
        let state = self.state
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { $0.waiterWatchers.add(continuation, until: count, now: $0.gate.waiterCount) }?.resume()
        }
    }

    /// Returns once every run started so far has returned, abandoned ones included.
    package func waitUntilRunsReturned() async {
        for task in state.withLock({ Array($0.runTasks.values) }) { await task.value }
    }
}
