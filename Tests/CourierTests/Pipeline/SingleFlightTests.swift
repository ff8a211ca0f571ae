import Testing

@testable import Courier

/// The single-flight state machine driven by hand, one interleaving per test. Waiters are plain
/// strings: what the machine hands back is exactly what the test expects to resume, and nothing
/// is resumed by the machine itself.
@Suite("SingleFlight: the single-flight state machine")
struct SingleFlightTests {
    /// How a caller enters: `register` (starts a run when idle) or `join` (only joins one).
    enum Entry: String, CaseIterable, CustomTestStringConvertible {
        case register, join
        var testDescription: String { rawValue }
    }

    /// Registers `waiter` the way `entry` says, and names the answer.
    private static func enter(_ flight: inout SingleFlight<String>, _ waiter: String, id: SingleFlight<String>.ID, by entry: Entry) -> String {
        switch entry {
        case .register: "\(flight.register(waiter, id: id))"
        case .join: "\(flight.join(waiter, id: id))"
        }
    }

    @Test func theFirstRegistrationStartsTheRunAndLaterOnesJoinIt() {
        var flight = SingleFlight<String>()
        #expect(flight.isRunning == false)
        #expect(flight.register("a", id: flight.makeID()) == .startRun)
        #expect(flight.isRunning)
        #expect(flight.register("b", id: flight.makeID()) == .joinedRun)
        #expect(flight.join("c", id: flight.makeID()) == .joined)
        #expect(flight.waiterCount == 3)

        #expect(flight.finish() == ["a", "b", "c"])
        #expect(flight.isRunning == false)
        #expect(flight.waiterCount == 0)
    }

    @Test(arguments: Entry.allCases)
    func cancelBeforeRegisterResumesAtRegistration(entry: Entry) {
        var flight = SingleFlight<String>()
        let id = flight.makeID()
        #expect(flight.cancel(id) == nil, "nothing to resume yet: the caller is not registered")
        #expect(flight.pendingCancellationCount == 1)

        #expect(Self.enter(&flight, "a", id: id, by: entry) == "cancelled")
        #expect(flight.waiterCount == 0)
        #expect(flight.isRunning == false, "a caller turned away starts no run")
        #expect(flight.pendingCancellationCount == 0)
        #expect(flight.unregisteredCount == 0)
    }

    @Test func aCancellationBeforeJoiningWinsOverARunThatEndedMeanwhile() {
        var flight = SingleFlight<String>()
        #expect(flight.startRun() == true)
        let id = flight.makeID()
        #expect(flight.cancel(id) == nil)
        #expect(flight.finish().isEmpty)
        // Cancelled, not "no run in flight, go on": the caller's task is cancelled.
        #expect(flight.join("a", id: id) == .cancelled)
    }

    @Test(arguments: Entry.allCases)
    func cancelAfterReleaseIsANoOpAndRemembersNothing(entry: Entry) {
        var flight = SingleFlight<String>()
        #expect(flight.startRun() == true)
        let id = flight.makeID()
        _ = Self.enter(&flight, "a", id: id, by: entry)
        #expect(flight.finish() == ["a"])

        #expect(flight.cancel(id) == nil, "the cancellation lost the race with the release")
        #expect(flight.pendingCancellationCount == 0)
        #expect(flight.unregisteredCount == 0)
        #expect(flight.register("b", id: flight.makeID()) == .startRun)
    }

    @Test func aCancellationForAnIDNeverHandedOutIsNotRemembered() {
        var flight = SingleFlight<String>()
        #expect(flight.cancel(41) == nil)
        #expect(flight.pendingCancellationCount == 0)
        #expect(flight.unregisteredCount == 0)
    }

    @Test(arguments: 0..<5)
    func cancellingOneWaiterLeavesTheOthers(leaving: Int) {
        var flight = SingleFlight<String>()
        let names = (0..<5).map { "w\($0)" }
        var ids: [SingleFlight<String>.ID] = []
        for name in names {
            let id = flight.makeID()
            _ = flight.register(name, id: id)
            ids.append(id)
        }

        #expect(flight.cancel(ids[leaving]) == names[leaving])
        #expect(flight.cancel(ids[leaving]) == nil, "handed back once")
        #expect(flight.isRunning, "the run goes on for the others")
        #expect(flight.waiterCount == 4)
        #expect(flight.finish() == names.filter { $0 != names[leaving] })
    }

    @Test func theRunGoesOnWhenEveryWaiterHasLeftAndALaterCallerJoinsIt() {
        var flight = SingleFlight<String>()
        let first = flight.makeID()
        #expect(flight.register("a", id: first) == .startRun)
        #expect(flight.cancel(first) == "a")
        #expect(flight.isRunning)

        #expect(flight.register("b", id: flight.makeID()) == .joinedRun)
        #expect(flight.finish() == ["b"])
    }

    @Test func aFailureWhileWaitersArriveReleasesThoseRegisteredAndTheNextArrivalStartsANewRun() {
        var flight = SingleFlight<String>()
        #expect(flight.register("a", id: flight.makeID()) == .startRun)
        let arriving = flight.makeID()  // has its id, not registered yet when the run fails
        #expect(flight.register("b", id: flight.makeID()) == .joinedRun)

        // The run failed: the owner resumes exactly these with the failure.
        #expect(flight.finish() == ["a", "b"])

        // The failure is not remembered: the caller still on its way in starts the next run.
        #expect(flight.register("c", id: arriving) == .startRun)
        #expect(flight.register("d", id: flight.makeID()) == .joinedRun)
        #expect(flight.finish() == ["c", "d"])
        #expect(flight.unregisteredCount == 0)
    }

    @Test(
        "waiters are released in arrival order (the order of their ids), whatever order they registered in",
        arguments: [[0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1], [1, 3, 0, 2]])
    func waitersAreReleasedInArrivalOrder(registrationOrder: [Int]) {
        var flight = SingleFlight<String>()
        let ids = (0..<4).map { _ in flight.makeID() }
        for index in registrationOrder {
            _ = flight.register("w\(index)", id: ids[index])
        }
        #expect(flight.waiterIDs == ids)
        #expect(flight.finish() == ["w0", "w1", "w2", "w3"])
    }

    @Test(arguments: [1, 10, 1_000])
    func cancellationsRememberedBeforeRegistrationAreBoundedAndEmptiedOnceRegistered(count: Int) {
        var flight = SingleFlight<String>()
        let ids = (0..<count).map { _ in flight.makeID() }
        for id in ids { #expect(flight.cancel(id) == nil) }
        // Cancelling again remembers nothing more.
        for id in ids { _ = flight.cancel(id) }
        #expect(flight.pendingCancellationCount == count)

        for id in ids { #expect(flight.register("w\(id)", id: id) == .cancelled) }
        #expect(flight.pendingCancellationCount == 0)
        #expect(flight.unregisteredCount == 0)
        #expect(flight.waiterCount == 0)
        // Late cancellations of callers that were turned away leave nothing behind either.
        for id in ids { #expect(flight.cancel(id) == nil) }
        #expect(flight.pendingCancellationCount == 0)
    }

    @Test func joiningWithoutARunInFlightGoesOnAtOnceAndRegistersNothing() {
        var flight = SingleFlight<String>()
        #expect(flight.join("a", id: flight.makeID()) == .noRunInFlight)
        #expect(flight.waiterCount == 0)
        #expect(flight.unregisteredCount == 0)
        #expect(flight.isRunning == false)
    }

    @Test func startRunRefusesASecondRunInFlight() {
        var flight = SingleFlight<String>()
        #expect(flight.startRun() == true)
        #expect(flight.startRun() == false)
        #expect(flight.register("a", id: flight.makeID()) == .joinedRun)
        #expect(flight.finish() == ["a"])
        #expect(flight.startRun() == true)
    }

    @Test func idsIncrease() {
        var flight = SingleFlight<String>()
        let ids = (0..<100).map { _ in flight.makeID() }
        #expect(ids == ids.sorted() && Set(ids).count == ids.count)
    }
}

@Suite("ConstraintGate: cancellation through the single-flight machine")
struct ConstraintGateCancellationTests {
    @Test func aWaiterCancelledBeforeRegisteringIsTurnedAwayAndStartsNoRun() {
        var gate = ConstraintGate<String>()
        let id = gate.makeWaiterID()
        #expect(gate.removeWaiter(id) == nil)
        #expect(gate.addWaiter("a", id: id) == .cancelled)
        #expect(gate.isRunning == false)
        #expect(gate.mayCheckBeforeWaiting)
        // The next caller starts the run.
        #expect(gate.addWaiter("b", id: gate.makeWaiterID()) == .start(.init(checksFirst: true, number: 0)))
    }

    @Test func aTimedOutWaiterIsHandedBackOnceAndTheRunReleasesTheRest() {
        var gate = ConstraintGate<String>()
        let early = gate.makeWaiterID()
        #expect(gate.addWaiter("early", id: early) == .start(.init(checksFirst: true, number: 0)))
        _ = gate.addWaiter("late", id: gate.makeWaiterID())
        #expect(gate.removeWaiter(early) == "early")  // its timer fired
        #expect(gate.removeWaiter(early) == nil)  // its cancellation came after: nothing to do
        #expect(gate.finishRun(.init(checksFirst: true, number: 0), succeeded: true) == ["late"])
        #expect(gate.unregisteredCount == 0)
    }
}

@Suite("PauseGate: pause and drain, interleaving by interleaving")
struct PauseGateTests {
    typealias PlainGate = PauseGate<String, String>

    /// The id a call arriving while the gate is paused is held under.
    private static func arriveHeld(_ gate: inout PlainGate) -> UInt64? {
        guard case .mustHold(let id) = gate.arrive() else { return nil }
        return id
    }

    @Test func anExclusiveActionRunsAtOnceWhenNothingIsInFlight() {
        var gate = PlainGate()
        #expect(gate.requestExclusive("A") == "A")
        #expect(gate.isPaused)
        #expect(gate.awaitDrain("A") == "A")
        #expect(gate.finishExclusive() == .admit([]))
        #expect(gate.isPaused == false)
    }

    @Test func theExclusiveActionWaitsForTheLastCallInFlight() {
        var gate = PlainGate()
        #expect(gate.arrive() == .admitted)
        #expect(gate.arrive() == .admitted)
        #expect(gate.requestExclusive("A") == "A")
        #expect(gate.awaitDrain("A") == nil)
        #expect(gate.depart() == nil)
        #expect(gate.depart() == "A")
        #expect(gate.inFlight == 0)
    }

    @Test func nestedExclusiveActionsQueueBehindTheRunningOneAndHeldCallsGoOnlyAfterTheLast() throws {
        var gate = PlainGate()
        #expect(gate.requestExclusive("A") == "A")
        #expect(gate.awaitDrain("A") == "A")
        let first = try #require(Self.arriveHeld(&gate))
        #expect(gate.hold(first, "call 1") == nil)

        #expect(gate.requestExclusive("B") == nil, "B waits for A")
        #expect(gate.requestExclusive("C") == nil, "C waits for B")
        let second = try #require(Self.arriveHeld(&gate))
        #expect(gate.hold(second, "call 2") == nil)

        #expect(gate.finishExclusive() == .runNext("B"))
        #expect(gate.isPaused, "the client stays paused between queued actions")
        #expect(gate.awaitDrain("B") == "B")
        let third = try #require(Self.arriveHeld(&gate))
        #expect(gate.hold(third, "call 3") == nil)

        #expect(gate.finishExclusive() == .runNext("C"))
        #expect(gate.heldCount == 3)
        #expect(gate.finishExclusive() == .admit(["call 1", "call 2", "call 3"]))
        #expect(gate.isPaused == false)
        #expect(gate.inFlight == 3)
    }

    @Test func heldCallsAreReleasedInTheOrderTheyArrivedNotTheOrderTheyWereHeld() throws {
        var gate = PlainGate()
        _ = gate.requestExclusive("A")
        let ids = try (0..<3).map { _ in try #require(Self.arriveHeld(&gate)) }
        for (index, id) in ids.enumerated().reversed() {
            #expect(gate.hold(id, "call \(index)") == nil)
        }
        #expect(gate.heldIDs == ids)
        #expect(gate.finishExclusive() == .admit(["call 0", "call 1", "call 2"]))
    }

    @Test func aCallThatArrivedDuringThePauseButIsHeldAfterItIsAdmittedAtOnce() throws {
        var gate = PlainGate()
        _ = gate.requestExclusive("A")
        let id = try #require(Self.arriveHeld(&gate))
        #expect(gate.finishExclusive() == .admit([]))
        #expect(gate.hold(id, "late") == .admitted)
        #expect(gate.inFlight == 1)
    }

    @Test func aHeldCallCancelledLeavesAtOnceAndIsNotAdmitted() throws {
        var gate = PlainGate()
        _ = gate.requestExclusive("A")
        let kept = try #require(Self.arriveHeld(&gate))
        let leaving = try #require(Self.arriveHeld(&gate))
        #expect(gate.hold(kept, "kept") == nil)
        #expect(gate.hold(leaving, "leaving") == nil)
        #expect(gate.cancel(leaving) == "leaving")
        #expect(gate.finishExclusive() == .admit(["kept"]))
        #expect(gate.inFlight == 1, "the cancelled call is not counted in flight")
    }

    @Test func aCallCancelledBeforeItIsHeldIsTurnedAwayEvenAfterThePauseEnded() throws {
        var gate = PlainGate()
        _ = gate.requestExclusive("A")
        let id = try #require(Self.arriveHeld(&gate))
        #expect(gate.cancel(id) == nil)
        #expect(gate.pendingCancellationCount == 1)
        #expect(gate.finishExclusive() == .admit([]))
        #expect(gate.hold(id, "call") == .cancelled)
        #expect(gate.inFlight == 0)
        #expect(gate.pendingCancellationCount == 0)
    }

    @Test func aCancellationForACallHeldAfterALaterArrivalIsStillRemembered() throws {
        // The old gate kept a high-water mark of held ids and dropped this cancellation: the
        // first call's id was below the second call's, already held, so it looked released.
        var gate = PlainGate()
        _ = gate.requestExclusive("A")
        let first = try #require(Self.arriveHeld(&gate))
        let second = try #require(Self.arriveHeld(&gate))
        #expect(gate.hold(second, "second") == nil)
        #expect(gate.cancel(first) == nil)
        #expect(gate.hold(first, "first") == .cancelled)
        #expect(gate.heldIDs == [second])
    }

    @Test func aCancellationAfterTheReleaseIsNotRemembered() throws {
        var gate = PlainGate()
        _ = gate.requestExclusive("A")
        let id = try #require(Self.arriveHeld(&gate))
        #expect(gate.hold(id, "call") == nil)
        #expect(gate.finishExclusive() == .admit(["call"]))
        #expect(gate.cancel(id) == nil)
        #expect(gate.pendingCancellationCount == 0)
        #expect(gate.inFlight == 1)
    }
}
