/// Tasks waiting for a count (a constraint's waiters, a monitor's listeners) to reach a value,
/// so that tests await the moment instead of polling for it.
///
/// It lives inside its owner's locked state: the owner calls ``add(_:until:now:)`` and
/// ``take(at:)`` under its lock each time the count changes, and resumes what they hand back
/// after releasing the lock.
package struct CountWatchers: Sendable {
    private var watchers: [(target: Int, continuation: CheckedContinuation<Void, Never>)] = []

    package init() {}

    /// Registers `continuation` to be resumed when the count equals `target`; returns it at once
    /// (for the owner to resume) if the count, `now`, already does.
    package mutating func add(
        _ continuation: CheckedContinuation<Void, Never>, until target: Int, now: Int
    ) -> CheckedContinuation<Void, Never>? {
        if now == target { return continuation }
        watchers.append((target, continuation))
        return nil
    }

    /// Removes and returns the watchers waiting for `count`.
    package mutating func take(at count: Int) -> [CheckedContinuation<Void, Never>] {
        guard !watchers.isEmpty else { return [] }
        let due = watchers.filter { $0.target == count }.map(\.continuation)
        watchers.removeAll { $0.target == count }
        return due
    }
}
