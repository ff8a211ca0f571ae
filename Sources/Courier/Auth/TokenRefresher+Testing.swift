// What the package's tests observe of a refresher; not part of the public API.

extension TokenRefresher {
    /// How many callers wait for the refresh in flight.
    package var waitingCallerCount: Int { waiters.waiterCount }

    /// Callers handed a waiter id that have not registered yet (0 once every caller is
    /// registered or gone).
    package var unregisteredWaiterCount: Int { waiters.unregisteredCount }
}
