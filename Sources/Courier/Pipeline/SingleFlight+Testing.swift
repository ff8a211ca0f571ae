// What the package's tests observe of a single-flight run's waiters.

extension SingleFlight {
    /// The ids of the registered waiters, in the order ``finish()`` hands them back.
    var waiterIDs: [ID] { waiters.keys.sorted() }

    /// How many cancellations wait for their caller to register (bounded, and 0 once
    /// every caller handed an id has registered).
    var pendingCancellationCount: Int { unregistered.values.count { $0 } }

    /// How many ids were handed out and not registered yet (0 when no caller is
    /// between ``makeID()`` and its registration).
    var unregisteredCount: Int { unregistered.count }
}
