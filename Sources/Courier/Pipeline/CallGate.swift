/// The state behind ``Client/runExclusively(_:)``: calls in flight, calls held while the client
/// is paused, and exclusive actions waiting their turn. A pure value type; the ``Client`` keeps
/// it under a lock (so an unheld call costs no actor hop) and does the waiting.
struct CallGate {
    /// What a held call is told when it may go on.
    enum Admission: Sendable { case admitted, cancelled }

    private(set) var inFlight = 0
    /// Whether new calls are held (an exclusive action is waiting for the drain or running).
    private(set) var isPaused = false
    private var held: [(id: UInt64, continuation: CheckedContinuation<Admission, Never>)] = []
    /// Ids whose cancellation arrived before ``hold(_:_:)`` saw them. Ids are handed out in
    /// increasing order and held in that order, so only ids above ``highestHeldID`` can be here.
    private var cancelledBeforeHeld: Set<UInt64> = []
    /// The highest id ``hold(_:_:)`` has seen: a cancellation for an id at or below it that is no
    /// longer held belongs to a call that has already gone on (or left), and is dropped.
    private var highestHeldID: UInt64 = 0
    private var drained: CheckedContinuation<Void, Never>?
    private var exclusiveQueue: [CheckedContinuation<Void, Never>] = []

    private var lastHoldID: UInt64 = 0

    var heldCount: Int { held.count }

    /// A new id for a call about to be held; ids increase, so they are held in arrival order.
    mutating func nextHoldID() -> UInt64 {
        lastHoldID += 1
        return lastHoldID
    }
    /// The ids of the held calls, in the order they will be released, for tests.
    var heldIDs: [UInt64] { held.map(\.id) }

    /// A call arrives: `true` if it may go at once (and is now in flight), `false` if it must be held.
    mutating func arrive() -> Bool {
        guard !isPaused else { return false }
        inFlight += 1
        return true
    }

    /// Holds a call until the exclusive action has run; a call cancelled before it got here is
    /// turned away at once.
    mutating func hold(_ id: UInt64, _ continuation: CheckedContinuation<Admission, Never>) {
        highestHeldID = max(highestHeldID, id)
        if cancelledBeforeHeld.remove(id) != nil {
            continuation.resume(returning: .cancelled)
            return
        }
        guard isPaused else {
            // The pause ended between `arrive()` and here.
            inFlight += 1
            continuation.resume(returning: .admitted)
            return
        }
        held.append((id, continuation))
    }

    /// A held call's task was cancelled: it leaves the queue at once; the others keep their places.
    mutating func cancel(_ id: UInt64) {
        if let index = held.firstIndex(where: { $0.id == id }) {
            held.remove(at: index).continuation.resume(returning: .cancelled)
        } else if id > highestHeldID {
            cancelledBeforeHeld.insert(id)
        }
        // Otherwise the call was already admitted (a cancellation that raced its release):
        // nothing to do, and nothing to remember.
    }

    /// Cancellations waiting for their call to be held, for tests: 0 once every call has been held.
    var pendingCancellationCount: Int { cancelledBeforeHeld.count }

    /// A call in flight ended.
    mutating func depart() {
        inFlight -= 1
        if inFlight == 0, let drained {
            self.drained = nil
            drained.resume()
        }
    }

    /// An exclusive action wants to run: `continuation` is resumed at once when it may pause the
    /// client now, or queued until the exclusive actions before it have finished.
    mutating func requestExclusive(_ continuation: CheckedContinuation<Void, Never>) {
        if isPaused {
            exclusiveQueue.append(continuation)
        } else {
            isPaused = true
            continuation.resume()
        }
    }

    /// Waits (through `continuation`) until no call is in flight.
    mutating func awaitDrain(_ continuation: CheckedContinuation<Void, Never>) {
        if inFlight == 0 {
            continuation.resume()
        } else {
            drained = continuation
        }
    }

    /// The exclusive action ended: the next queued one runs (the client stays paused), or the held
    /// calls go on, in the order they arrived.
    mutating func finishExclusive() {
        if !exclusiveQueue.isEmpty {
            exclusiveQueue.removeFirst().resume()
            return
        }
        isPaused = false
        let released = held
        held.removeAll()
        for call in released {
            inFlight += 1
            call.continuation.resume(returning: .admitted)
        }
    }
}
