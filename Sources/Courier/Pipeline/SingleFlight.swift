/// The one single-flight state machine: callers wait for a shared run (a token refresh, a
/// constraint's `satisfy`, an exclusive action), and each of them may leave early.
///
/// A pure value type: every mutating call returns what the owner must do, and the owner does
/// it after releasing whatever lock guards the machine.
struct SingleFlight<Waiter> {
    // It does no async work and never resumes anything: every mutating call returns what the owner
    // must do (start the run, resume these waiters, resume this one with cancellation). The owners
    // are thin: ConstraintGate (for Constraint), PauseGate (for Client.runExclusively(_:)) and
    // TokenRefresher. `Waiter` is whatever the owner needs to resume a caller later (a
    // continuation; tests use plain values).
    //
    // A caller's life:
    // 1. makeID() hands it an id. Ids increase, so they also record the order of arrival.
    // 2. register(_:id:) or join(_:id:) registers it as a waiter (or says why not).
    // 3. It is handed back exactly once: by finish() when the run ends, or by cancel(_:) when it
    //    leaves early. Never both, never twice.
    //
    // Every id handed out must be registered or joined once: the machine remembers it until then.
    //
    // Cancellation can come at any moment, also before the caller registered: a task cancelled
    // early runs its cancellation handler before the code that would register it. So cancel(_:)
    // remembers a cancellation for an id that was handed out and not registered yet, and the
    // registration answers `.cancelled`. Nothing is remembered for an id that was already handed
    // back (its cancellation raced the release and lost) or never handed out, so what is
    // remembered is bounded by the callers between makeID() and registration.
    //
    // The machine does not remember how a run ended: a failure is not sticky, and the caller that
    // arrives after the run finished starts (or waits for) the next one.

    /// Identifies a caller from ``makeID()`` until it is handed back.
    typealias ID = UInt64

    /// What ``register(_:id:)`` decided.
    enum Registration: Equatable, Sendable {
        /// No run was in flight: the waiter is registered and the owner must start the run, and
        /// end it with ``finish()``.
        case startRun
        /// The waiter is registered and waits for the run in flight.
        case joinedRun
        /// The caller's cancellation came first: the waiter is not registered; the owner resumes
        /// it with cancellation now.
        case cancelled
    }

    /// What ``join(_:id:)`` decided.
    enum Joining: Equatable, Sendable {
        /// The waiter is registered and waits for the run in flight.
        case joined
        /// The caller's cancellation came first: the waiter is not registered; the owner resumes
        /// it with cancellation now.
        case cancelled
        /// No run is in flight (it ended since the caller looked): the waiter is not registered
        /// and the caller goes on without waiting.
        case noRunInFlight
    }

    /// The registered waiters, by id.
    private(set) var waiters: [ID: Waiter] = [:]
    /// Ids handed out and not registered yet; `true` once a cancellation arrived for one.
    private(set) var unregistered: [ID: Bool] = [:]
    private var nextID: ID = 0

    /// Whether a run is in flight: from ``register(_:id:)`` answering ``Registration/startRun``
    /// (or ``startRun()`` answering `true`) until ``finish()``. Waiters leaving do not end it.
    private(set) var isRunning = false

    /// How many waiters are registered.
    var waiterCount: Int { waiters.count }

    /// A new id, higher than every id handed out before.
    mutating func makeID() -> ID {
        let id = nextID
        nextID &+= 1
        unregistered[id] = false
        return id
    }

    /// Starts a run without registering a waiter (an exclusive action of ``PauseGate``, which
    /// holds calls but is not one of them). `false` if a run is already in flight.
    mutating func startRun() -> Bool {
        guard !isRunning else { return false }
        isRunning = true
        return true
    }

    /// Registers a waiter for the run in flight, or for a new run it starts if none is.
    mutating func register(_ waiter: Waiter, id: ID) -> Registration {
        if takeRegistration(of: id) { return .cancelled }
        waiters[id] = waiter
        return startRun() ? .startRun : .joinedRun
    }

    /// Registers a waiter only if a run is in flight; never starts one.
    mutating func join(_ waiter: Waiter, id: ID) -> Joining {
        if takeRegistration(of: id) { return .cancelled }
        guard isRunning else { return .noRunInFlight }
        waiters[id] = waiter
        return .joined
    }

    /// The caller with this id leaves (its task was cancelled, or it timed out). Returns its
    /// waiter, for the owner to resume at once, or `nil`: it was already handed back, or it has
    /// not registered yet (then its registration answers "cancelled"). The run goes on for the
    /// others, and goes on even when nobody is left.
    mutating func cancel(_ id: ID) -> Waiter? {
        if let waiter = waiters.removeValue(forKey: id) { return waiter }
        if unregistered[id] != nil { unregistered[id] = true }
        // Otherwise it was handed back already (a cancellation that lost the race with the
        // release) or never handed out: nothing to do, and nothing to remember.
        return nil
    }

    /// Ends the run in flight and hands back every registered waiter, in the order they arrived
    /// (by id), for the owner to resume with the run's result. Callers handed an id but not
    /// registered yet are not part of this run: they register for the next one.
    mutating func finish() -> [Waiter] {
        isRunning = false
        let released = waiters.sorted { $0.key < $1.key }.map(\.value)
        waiters.removeAll()
        return released
    }

    /// Forgets that `id` awaits registration; `true` if its cancellation came first.
    private mutating func takeRegistration(of id: ID) -> Bool {
        assert(id < nextID, "registering an id that makeID() did not hand out")
        assert(waiters[id] == nil, "registering id \(id) twice")
        return unregistered.removeValue(forKey: id) ?? false
    }
}

extension SingleFlight: Sendable where Waiter: Sendable {}
