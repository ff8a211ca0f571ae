/// The pure state machine behind ``Constraint``: a ``SingleFlight`` of waiters for the run (the
/// `isSatisfied` check and, if needed, `satisfy`), plus whether the constraint was invalidated.
struct ConstraintGate<Waiter> {
    // It does no async work and knows nothing about continuations, clocks or tasks: the Constraint
    // class keeps one under a lock, asks it what to do, and does it outside the lock. `Waiter` is
    // whatever the owner needs to resume a caller later (the class stores a continuation; tests
    // store plain values).
    //
    // The rules:
    // - At most one run is in flight. The first waiter to arrive while none is running starts one;
    //   every waiter that arrives while it runs joins it.
    // - A finished run releases every waiter still registered, with the run's result. A failure is
    //   not remembered: the next arrival starts a new run.
    // - A waiter can leave early (cancellation, timeout), even before it registered; the run goes
    //   on for the others, and goes on even when nobody is left (unless the gate abandons
    //   unwatched runs, below).
    // - invalidate() makes the next run skip the `isSatisfied` check and call `satisfy`. It stays
    //   in force until a run that *started after* the last invalidation succeeds.
    // - A gate made with `abandonsUnwatchedRuns` (for a `satisfy` that only waits, with no side
    //   effect, such as waiting for a network path) ends a run the moment its last waiter leaves
    //   early: abandonRunIfUnwatched() says which, the owner cancels it, and the next arrival starts
    //   a fresh run. Without it a wait that nobody wants any more would go on forever, holding
    //   whatever it waits on.

    /// Identifies a waiter from ``makeWaiterID()`` on, so that it can leave early.
    typealias WaiterID = SingleFlight<Waiter>.ID

    /// What a new run must do, returned by ``addWaiter(_:id:)`` when that waiter starts one.
    struct Run: Equatable, Sendable {
        /// `true`: check `isSatisfied` first and skip `satisfy` if it says yes.
        /// `false` (the constraint was invalidated): call `satisfy` without asking.
        let checksFirst: Bool
        /// Which run this is (0 for the first): ``finishRun(_:succeeded:)`` ignores a run that
        /// was abandoned, and the owner finds the task of the run to cancel by it.
        let number: UInt64
    }

    /// What ``addWaiter(_:id:)`` decided; the owner acts on it outside the lock.
    enum Registration: Equatable, Sendable {
        /// The waiter starts a run: the owner performs `run` and then calls ``finishRun(succeeded:)``.
        case start(Run)
        /// The waiter joined the run in flight.
        case joined
        /// The waiter's cancellation came first: it is not registered; resume it with cancellation now.
        case cancelled
    }

    private(set) var flight = SingleFlight<Waiter>()
    /// How many times ``invalidate()`` has been called, ever.
    private var invalidations: UInt64 = 0
    /// The value of ``invalidations`` when the current run started.
    private var invalidationsAtRunStart: UInt64 = 0
    /// How many runs have started, ever; the run in flight (if any) is number `runsStarted - 1`.
    private var runsStarted: UInt64 = 0
    /// Whether a run ends as soon as nobody waits for it.
    let abandonsUnwatchedRuns: Bool

    /// A gate; `abandonsUnwatchedRuns` for a `satisfy` that is a pure wait (see the type's rules).
    init(abandonsUnwatchedRuns: Bool = false) {
        self.abandonsUnwatchedRuns = abandonsUnwatchedRuns
    }

    /// Whether a run is in flight.
    var isRunning: Bool { flight.isRunning }
    /// Whether the next run must call `satisfy` without checking `isSatisfied`.
    private(set) var isInvalidated = false

    /// How many callers are waiting for the current run.
    var waiterCount: Int { flight.waiterCount }

    /// Whether an arriving caller may ask `isSatisfied` on its own and, if it says yes, return
    /// without waiting: only when no run is in flight (else it joins the run) and the
    /// constraint is not invalidated.
    var mayCheckBeforeWaiting: Bool { !isRunning && !isInvalidated }

    /// A fresh identifier for a waiter about to register. It must be registered with
    /// ``addWaiter(_:id:)``; it can be cancelled with ``removeWaiter(_:)`` from now on.
    mutating func makeWaiterID() -> WaiterID {
        flight.makeID()
    }

    /// Registers a waiter: it starts a run if none was in flight, joins the one in flight, or
    /// is turned away because it was cancelled before it got here.
    mutating func addWaiter(_ waiter: Waiter, id: WaiterID) -> Registration {
        switch flight.register(waiter, id: id) {
        case .startRun:
            invalidationsAtRunStart = invalidations
            runsStarted += 1
            return .start(Run(checksFirst: !isInvalidated, number: runsStarted - 1))
        case .joinedRun:
            return .joined
        case .cancelled:
            return .cancelled
        }
    }

    /// A waiter leaves early (cancelled, or timed out). Returns it for the owner to resume, or
    /// `nil` if it was already released or already left; a waiter not registered yet is turned
    /// away when it registers.
    mutating func removeWaiter(_ id: WaiterID) -> Waiter? {
        flight.cancel(id)
    }

    /// Ends the run when nobody waits for it any more, if the gate abandons such runs: call it
    /// after ``removeWaiter(_:)``. Returns the run's number for the owner to cancel it, or `nil`
    /// (the gate keeps unwatched runs, no run is in flight, or somebody still waits). Callers
    /// handed an id but not registered yet start the next run when they register.
    mutating func abandonRunIfUnwatched() -> UInt64? {
        guard abandonsUnwatchedRuns, isRunning, flight.waiterCount == 0 else { return nil }
        let released = flight.finish()
        assert(released.isEmpty)
        return runsStarted - 1
    }

    /// Ends `run` and returns every waiter to release with its result, in the order they
    /// arrived; nothing if `run` was abandoned (a later run may be in flight by now).
    mutating func finishRun(_ run: Run, succeeded: Bool) -> [Waiter] {
        guard isRunning, run.number == runsStarted - 1 else { return [] }
        if succeeded && invalidationsAtRunStart == invalidations {
            isInvalidated = false
        }
        return flight.finish()
    }

    /// Marks the constraint unsatisfied: the next run calls `satisfy` whatever `isSatisfied`
    /// says. A run already in flight is not disturbed; its success does not clear the mark.
    mutating func invalidate() {
        invalidations &+= 1
        isInvalidated = true
    }
}

extension ConstraintGate: Sendable where Waiter: Sendable {}
