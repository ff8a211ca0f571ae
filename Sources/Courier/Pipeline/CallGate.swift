/// What a held call is told when it may go on.
enum CallAdmission: Sendable { case admitted, cancelled }

/// The pause-and-drain bookkeeping a ``Client`` keeps under its lock: held calls and exclusive
/// actions are continuations, resumed by the client outside the lock.
typealias CallGate = PauseGate<CheckedContinuation<CallAdmission, Never>, CheckedContinuation<Void, Never>>

/// The state behind ``Client/runExclusively(_:)``: calls in flight, calls held while the client
/// is paused, and exclusive actions waiting their turn. A pure value type; the ``Client`` keeps
/// it under a lock (so an unheld call costs no actor hop) and does the waiting.
///
/// The held calls are a ``SingleFlight`` whose run is the pause: it starts with the first
/// exclusive action and ends when the last one queued behind it has finished, so calls held by
/// nested (queued) exclusive actions are released only after all of them. Every mutating call
/// returns what to resume instead of resuming it, so the client resumes outside the lock.
///
/// `HeldCall` and `Turn` are what the owner resumes: a held call (with a ``CallAdmission``)
/// and an exclusive action waiting for its turn or for the drain. The client uses continuations
/// (``CallGate``); tests use plain values.
struct PauseGate<HeldCall, Turn> {
    /// What a held call is told when it may go on.
    typealias Admission = CallAdmission

    /// What ``arrive()`` decided.
    enum Arrival: Equatable, Sendable {
        /// The call goes on at once, and is now in flight.
        case admitted
        /// The client is paused: hold the call with ``hold(_:_:)`` under this id.
        case mustHold(id: UInt64)
    }

    /// What happens when an exclusive action ends.
    enum AfterExclusive {
        /// The next queued exclusive action runs (resume its turn); the client stays paused.
        case runNext(Turn)
        /// The pause is over: resume these held calls, in the order they arrived, with
        /// ``CallAdmission/admitted``. They are already counted in flight.
        case admit([HeldCall])
    }

    private(set) var inFlight = 0
    /// The held calls; its run is the pause.
    private(set) var held = SingleFlight<HeldCall>()
    /// The running exclusive action, waiting for the calls in flight to end.
    private var drained: Turn?
    /// Exclusive actions waiting for the running one, in the order they asked.
    private var exclusiveQueue: [Turn] = []

    /// Whether new calls are held (an exclusive action is waiting for the drain or running).
    var isPaused: Bool { held.isRunning }
    /// How many calls are held.
    var heldCount: Int { held.waiterCount }
    /// A call arrives: it goes on at once (and is now in flight), or must be held. Its id records
    /// its place in the queue: held calls are released in the order they arrived here.
    mutating func arrive() -> Arrival {
        guard isPaused else {
            inFlight += 1
            return .admitted
        }
        return .mustHold(id: held.makeID())
    }

    /// Holds a call until the exclusive actions have run. Returns `nil` when it is held, or what to
    /// resume it with at once: ``CallAdmission/cancelled`` for a call cancelled before it got
    /// here, ``CallAdmission/admitted`` (and counted in flight) if the pause ended since
    /// ``arrive()``.
    mutating func hold(_ id: UInt64, _ call: HeldCall) -> Admission? {
        switch held.join(call, id: id) {
        case .joined:
            return nil
        case .cancelled:
            return .cancelled
        case .noRunInFlight:
            inFlight += 1
            return .admitted
        }
    }

    /// A held call's task was cancelled: returns the call, to resume with
    /// ``CallAdmission/cancelled`` at once; the others keep their places. `nil` if it was already
    /// released (nothing to do) or is not held yet (``hold(_:_:)`` will turn it away).
    mutating func cancel(_ id: UInt64) -> HeldCall? {
        held.cancel(id)
    }

    /// A call in flight ended. Returns the exclusive action to resume if it was the last one it
    /// waited for.
    mutating func depart() -> Turn? {
        inFlight -= 1
        guard inFlight == 0, let drained else { return nil }
        self.drained = nil
        return drained
    }

    /// An exclusive action wants to run. Returns `turn` to resume at once when it may pause the
    /// client now, or `nil`: it is queued behind the exclusive actions before it and resumed by
    /// ``finishExclusive()``.
    mutating func requestExclusive(_ turn: Turn) -> Turn? {
        if held.startRun() { return turn }
        exclusiveQueue.append(turn)
        return nil
    }

    /// The running exclusive action waits until no call is in flight. Returns `turn` to resume at
    /// once if none is, or `nil`: ``depart()`` returns it when the last call ends.
    mutating func awaitDrain(_ turn: Turn) -> Turn? {
        guard inFlight > 0 else { return turn }
        assert(drained == nil, "two exclusive actions waiting for the drain")
        drained = turn
        return nil
    }

    /// The exclusive action ended: the next queued one runs (the client stays paused), or the
    /// held calls go on, in the order they arrived.
    mutating func finishExclusive() -> AfterExclusive {
        if !exclusiveQueue.isEmpty {
            return .runNext(exclusiveQueue.removeFirst())
        }
        let released = held.finish()
        inFlight += released.count
        return .admit(released)
    }
}

/// Comparable when what it resumes is, so tests can compare the actions with plain values.
extension PauseGate.AfterExclusive: Equatable where HeldCall: Equatable, Turn: Equatable {}

extension PauseGate: Sendable where HeldCall: Sendable, Turn: Sendable {}
