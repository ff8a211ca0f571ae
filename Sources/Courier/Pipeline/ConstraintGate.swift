/// The pure state machine behind ``Constraint``: who is waiting, whether a run (the
/// `isSatisfied` check and, if needed, `satisfy`) is in flight, and whether the constraint was
/// invalidated.
///
/// It does no async work and knows nothing about continuations, clocks or tasks: the
/// ``Constraint`` actor owns one, asks it what to do, and does it. `Waiter` is whatever the
/// owner needs to resume a caller later (the actor stores a continuation and a timeout timer;
/// tests store plain values).
///
/// The rules:
/// - At most one run is in flight. The first waiter to arrive while none is running starts one;
///   every waiter that arrives while it runs joins it.
/// - A finished run releases every waiter still registered, with the run's result. A failure is
///   not remembered: the next arrival starts a new run.
/// - A waiter can leave early (cancellation, timeout); the run goes on for the others, and goes
///   on even when nobody is left.
/// - ``invalidate()`` makes the next run skip the `isSatisfied` check and call `satisfy`. It
///   stays in force until a run that *started after* the last invalidation succeeds.
struct ConstraintGate<Waiter> {
    /// Identifies a registered waiter so that it can leave early.
    typealias WaiterID = UInt64

    /// What a new run must do, returned by ``addWaiter(_:id:)`` when that waiter starts one.
    struct Run: Equatable, Sendable {
        /// `true`: check `isSatisfied` first and skip `satisfy` if it says yes.
        /// `false` (the constraint was invalidated): call `satisfy` without asking.
        let checksFirst: Bool
    }

    private var waiters: [WaiterID: Waiter] = [:]
    private var nextID: WaiterID = 0
    /// How many times ``invalidate()`` has been called, ever.
    private var invalidations: UInt64 = 0
    /// The value of ``invalidations`` when the current run started.
    private var invalidationsAtRunStart: UInt64 = 0

    /// Whether a run is in flight.
    private(set) var isRunning = false
    /// Whether the next run must call `satisfy` without checking `isSatisfied`.
    private(set) var isInvalidated = false

    /// How many callers are waiting for the current run.
    var waiterCount: Int { waiters.count }

    /// Whether an arriving caller may ask `isSatisfied` on its own and, if it says yes, return
    /// without waiting: only when no run is in flight (else it joins the run) and the
    /// constraint is not invalidated.
    var mayCheckBeforeWaiting: Bool { !isRunning && !isInvalidated }

    /// A fresh identifier for a waiter about to register.
    mutating func makeWaiterID() -> WaiterID {
        defer { nextID &+= 1 }
        return nextID
    }

    /// Registers a waiter. Returns the run to start if none was in flight (the caller must start
    /// it and later call ``finishRun(succeeded:)``), or `nil` if the waiter joined the current run.
    mutating func addWaiter(_ waiter: Waiter, id: WaiterID) -> Run? {
        waiters[id] = waiter
        guard !isRunning else { return nil }
        isRunning = true
        invalidationsAtRunStart = invalidations
        return Run(checksFirst: !isInvalidated)
    }

    /// Removes a waiter that leaves early. Returns it, or `nil` if it was already released
    /// (the run finished first, or it already left).
    mutating func removeWaiter(_ id: WaiterID) -> Waiter? {
        waiters.removeValue(forKey: id)
    }

    /// Ends the run in flight and returns every waiter to release with its result.
    mutating func finishRun(succeeded: Bool) -> [Waiter] {
        assert(isRunning, "finishRun(succeeded:) without a run in flight")
        isRunning = false
        if succeeded && invalidationsAtRunStart == invalidations {
            isInvalidated = false
        }
        let released = Array(waiters.values)
        waiters.removeAll()
        return released
    }

    /// Marks the constraint unsatisfied: the next run calls `satisfy` whatever `isSatisfied`
    /// says. A run already in flight is not disturbed; its success does not clear the mark.
    mutating func invalidate() {
        invalidations &+= 1
        isInvalidated = true
    }
}
