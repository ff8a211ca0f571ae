import CourierTesting
import Foundation
import Testing

@testable import Courier

// MARK: - Test support (private to this file)

/// Counts `satisfy` calls and plays the precondition that `isSatisfied` reads.
private actor ConstraintProbe {
    private(set) var satisfyCalls = 0
    private(set) var satisfied: Bool
    private var failuresLeft: Int

    init(satisfied: Bool = false, failures: Int = 0) {
        self.satisfied = satisfied
        self.failuresLeft = failures
    }

    func recordSatisfyCall() { satisfyCalls += 1 }
    func markSatisfied() { satisfied = true }

    /// `true` while failures are left to hand out.
    func takeFailure() -> Bool {
        guard failuresLeft > 0 else { return false }
        failuresLeft -= 1
        return true
    }
}

/// A door that `satisfy` waits behind until the test opens it.
private actor ConstraintLatch {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting.removeAll()
    }
}

private struct SatisfyError: Error, Equatable {}

/// A constraint whose `satisfy` counts itself, waits behind `latch` (if any), fails while the
/// probe has failures left, and otherwise makes `isSatisfied` true.
private func makeConstraint(
    probe: ConstraintProbe,
    latch: ConstraintLatch? = nil,
    timeout: Duration? = nil,
    clock: TestClock = TestClock()
) -> Constraint {
    Constraint(
        name: "session",
        timeout: timeout,
        clock: clock,
        isSatisfied: { await probe.satisfied },
        satisfy: {
            await probe.recordSatisfyCall()
            await latch?.wait()
            if await probe.takeFailure() { throw SatisfyError() }
            await probe.markSatisfied()
        }
    )
}

/// Waits, without sleeping, until `condition` holds.
private func eventually(
    _ condition: @Sendable () async -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
) async {
    for _ in 0..<1_000_000 {
        if await condition() { return }
        await Task.yield()
    }
    Issue.record("condition never held", sourceLocation: sourceLocation)
}

/// Starts `count` concurrent waiters, runs `whileWaiting`, and returns every waiter's result.
private func runWaiters(
    _ count: Int,
    on constraint: Constraint,
    whileWaiting: () async -> Void = {}
) async -> [Result<Void, any Error>] {
    await withTaskGroup(of: Result<Void, any Error>.self) { group in
        for _ in 0..<count {
            group.addTask {
                do {
                    try await constraint.waitUntilSatisfied()
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
        }
        await whileWaiting()
        var results: [Result<Void, any Error>] = []
        for await result in group { results.append(result) }
        return results
    }
}

private func isCancelled(_ error: (any Error)?) -> Bool {
    if case .cancelled? = error as? CourierError { return true }
    return false
}

/// The error a wait ended with; a constraint failure is unwrapped from `CourierError.constraint`.
private func failure(of result: Result<Void, any Error>) -> (any Error)? {
    guard case .failure(let error) = result else { return nil }
    if case .constraint(let failure)? = error as? CourierError { return failure }
    return error
}

// MARK: - Constraint

@Suite("Constraint")
struct ConstraintTests {
    @Test("1,000 concurrent waiters share exactly one satisfy and are all released")
    func thousandWaitersShareOneSatisfy() async {
        let probe = ConstraintProbe()
        let latch = ConstraintLatch()
        let constraint = makeConstraint(probe: probe, latch: latch)

        let results = await runWaiters(1000, on: constraint) {
            await eventually { constraint.waiterCount == 1000 }
            await latch.open()
        }

        #expect(results.count == 1000)
        #expect(results.allSatisfy { failure(of: $0) == nil })
        #expect(await probe.satisfyCalls == 1)
        #expect(constraint.waiterCount == 0)
        #expect(constraint.isRunning == false)
    }

    @Test("a failing satisfy fails all 1,000 waiters with its error, and runs once")
    func failingSatisfyFailsEveryWaiter() async {
        let probe = ConstraintProbe(failures: 1)
        let latch = ConstraintLatch()
        let constraint = makeConstraint(probe: probe, latch: latch)

        let results = await runWaiters(1000, on: constraint) {
            await eventually { constraint.waiterCount == 1000 }
            await latch.open()
        }

        #expect(results.count == 1000)
        let failures = results.compactMap { failure(of: $0) as? ConstraintFailure }
        #expect(failures.count == 1000)
        #expect(
            failures.allSatisfy { failure in
                guard case .satisfyFailed(let error) = failure.reason else { return false }
                return failure.name == "session" && error as? SatisfyError == SatisfyError()
            })
        #expect(await probe.satisfyCalls == 1)
    }

    @Test("a failure is not sticky: the next caller runs satisfy again")
    func failureIsNotSticky() async throws {
        let probe = ConstraintProbe(failures: 1)
        let constraint = makeConstraint(probe: probe)

        let error = await #expect(throws: CourierError.self) { try await constraint.waitUntilSatisfied() }
        guard case .constraint? = error else {
            Issue.record("expected .constraint, got \(String(describing: error))")
            return
        }
        try await constraint.waitUntilSatisfied()

        #expect(await probe.satisfyCalls == 2)
    }

    @Test("an already satisfied constraint never calls satisfy")
    func alreadySatisfied() async {
        let probe = ConstraintProbe(satisfied: true)
        let constraint = makeConstraint(probe: probe)

        let results = await runWaiters(1000, on: constraint)

        #expect(results.allSatisfy { failure(of: $0) == nil })
        #expect(await probe.satisfyCalls == 0)
    }

    @Test("a cancelled waiter leaves at once; the other 99 succeed on the one satisfy")
    func cancelledWaiterLeavesAlone() async {
        let probe = ConstraintProbe()
        let latch = ConstraintLatch()
        let constraint = makeConstraint(probe: probe, latch: latch)
        let loner = Task { try await constraint.waitUntilSatisfied() }

        let results = await runWaiters(99, on: constraint) {
            await eventually { constraint.waiterCount == 100 }
            loner.cancel()
            // Returns while satisfy is still held behind the latch: the waiter left promptly.
            let lonerResult = await loner.result
            #expect(isCancelled(failure(of: lonerResult)))
            #expect(constraint.waiterCount == 99)
            #expect(constraint.isRunning)
            await latch.open()
        }

        #expect(results.count == 99)
        #expect(results.allSatisfy { failure(of: $0) == nil })
        #expect(await probe.satisfyCalls == 1)
    }

    @Test("satisfy runs on when every waiter has left; a later caller joins it")
    func satisfyOutlivesItsWaiters() async throws {
        let probe = ConstraintProbe()
        let latch = ConstraintLatch()
        let constraint = makeConstraint(probe: probe, latch: latch)

        let first = Task { try await constraint.waitUntilSatisfied() }
        await eventually {
            let waiting = constraint.waiterCount
            let calls = await probe.satisfyCalls
            return waiting == 1 && calls == 1
        }
        first.cancel()
        #expect(isCancelled(failure(of: await first.result)))
        #expect(constraint.isRunning)

        let second = Task { try await constraint.waitUntilSatisfied() }
        await eventually { constraint.waiterCount == 1 }
        await latch.open()
        try await second.value

        #expect(await probe.satisfyCalls == 1)
    }

    @Test("a caller cancelled before it waits throws .cancelled and starts nothing")
    func cancelledBeforeWaiting() async {
        let probe = ConstraintProbe()
        let constraint = makeConstraint(probe: probe)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await constraint.waitUntilSatisfied()
        }

        #expect(isCancelled(failure(of: await task.result)))
        #expect(constraint.isRunning == false)
        #expect(await probe.satisfyCalls == 0)
    }

    @Test("a waiter past its timeout fails alone; a later waiter still gets the satisfy")
    func timeoutFailsOnlyTheLateWaiter() async throws {
        let clock = TestClock()
        let probe = ConstraintProbe()
        let latch = ConstraintLatch()
        let constraint = makeConstraint(probe: probe, latch: latch, timeout: .seconds(5), clock: clock)

        let early = Task { try await constraint.waitUntilSatisfied() }
        await eventually { constraint.waiterCount == 1 && clock.pendingSleepCount == 1 }
        clock.advance(by: .seconds(3))

        let late = Task { try await constraint.waitUntilSatisfied() }
        await eventually { constraint.waiterCount == 2 && clock.pendingSleepCount == 2 }
        clock.advance(by: .seconds(2))  // early has waited 5 s, late 2 s

        let earlyError = failure(of: await early.result) as? ConstraintFailure
        guard case .timedOut(let after)? = earlyError?.reason else {
            Issue.record("expected a timeout, got \(String(describing: earlyError))")
            return
        }
        #expect(after == .seconds(5))
        #expect(earlyError?.name == "session")
        #expect(constraint.waiterCount == 1)

        await latch.open()
        try await late.value
        #expect(await probe.satisfyCalls == 1)
        await eventually { clock.pendingSleepCount == 0 }  // late's timer was cancelled
    }

    @Test("invalidate makes the next wait run satisfy again, even if isSatisfied says yes")
    func invalidateRunsSatisfyAgain() async throws {
        let probe = ConstraintProbe()
        let constraint = makeConstraint(probe: probe)

        try await constraint.waitUntilSatisfied()
        try await constraint.waitUntilSatisfied()
        #expect(await probe.satisfyCalls == 1)

        constraint.invalidate()
        #expect(await probe.satisfied)  // isSatisfied still says yes
        try await constraint.waitUntilSatisfied()
        #expect(await probe.satisfyCalls == 2)

        try await constraint.waitUntilSatisfied()
        #expect(await probe.satisfyCalls == 2)
    }

    @Test("description names the constraint and the reason")
    func failureDescription() {
        let timedOut = ConstraintFailure(name: "consent", reason: .timedOut(after: .seconds(30)))
        #expect(timedOut.description == "Constraint \"consent\" timed out after 30.0 seconds")
        let failed = ConstraintFailure(name: "session", reason: .satisfyFailed(CourierError.cancelled))
        #expect(failed.description == "Constraint \"session\" failed: Cancelled")
    }
}

// MARK: - ConstraintGate (the pure state machine)

@Suite("ConstraintGate")
struct ConstraintGateTests {
    @Test("the first waiter starts a run; later ones join; finishing releases them all")
    func oneRunShared() {
        var gate = ConstraintGate<String>()
        #expect(gate.mayCheckBeforeWaiting)

        let first = gate.makeWaiterID()
        #expect(gate.addWaiter("a", id: first) == .start(.init(checksFirst: true, number: 0)))
        #expect(gate.mayCheckBeforeWaiting == false)
        #expect(gate.addWaiter("b", id: gate.makeWaiterID()) == .joined)
        #expect(gate.waiterCount == 2)

        #expect(Set(gate.finishRun(.init(checksFirst: true, number: 0), succeeded: false)) == ["a", "b"])
        #expect(gate.isRunning == false)
        #expect(gate.waiterCount == 0)
        // No sticky failure: the next waiter starts a new run.
        #expect(gate.addWaiter("c", id: gate.makeWaiterID()) == .start(.init(checksFirst: true, number: 1)))
    }

    @Test("a waiter that leaves is removed once and not released by the run")
    func leaving() {
        var gate = ConstraintGate<String>()
        let id = gate.makeWaiterID()
        _ = gate.addWaiter("a", id: id)
        _ = gate.addWaiter("b", id: gate.makeWaiterID())

        #expect(gate.removeWaiter(id) == "a")
        #expect(gate.removeWaiter(id) == nil)
        #expect(gate.isRunning)  // the run goes on for the others
        #expect(gate.abandonRunIfUnwatched() == nil)  // a plain gate never abandons a run
        #expect(gate.finishRun(.init(checksFirst: true, number: 0), succeeded: true) == ["b"])
    }

    @Test("a gate that abandons unwatched runs ends the run when its last waiter leaves, and ignores its late finish")
    func abandoningUnwatchedRuns() {
        var gate = ConstraintGate<String>(abandonsUnwatchedRuns: true)
        let (a, b) = (gate.makeWaiterID(), gate.makeWaiterID())
        #expect(gate.addWaiter("a", id: a) == .start(.init(checksFirst: true, number: 0)))
        #expect(gate.addWaiter("b", id: b) == .joined)

        #expect(gate.removeWaiter(a) == "a")
        #expect(gate.abandonRunIfUnwatched() == nil)  // "b" still waits
        #expect(gate.removeWaiter(b) == "b")
        #expect(gate.abandonRunIfUnwatched() == 0)
        #expect(gate.isRunning == false)
        #expect(gate.abandonRunIfUnwatched() == nil)  // nothing left to abandon

        // The next caller starts run 1; run 0's late finish releases nobody and ends nothing.
        let c = gate.makeWaiterID()
        #expect(gate.addWaiter("c", id: c) == .start(.init(checksFirst: true, number: 1)))
        #expect(gate.finishRun(.init(checksFirst: true, number: 0), succeeded: true).isEmpty)
        #expect(gate.isRunning)
        #expect(gate.finishRun(.init(checksFirst: true, number: 1), succeeded: true) == ["c"])
    }

    @Test("invalidation forces satisfy until a run started after it succeeds")
    func invalidation() {
        var gate = ConstraintGate<Int>()
        gate.invalidate()
        #expect(gate.mayCheckBeforeWaiting == false)
        #expect(gate.addWaiter(1, id: gate.makeWaiterID()) == .start(.init(checksFirst: false, number: 0)))

        gate.invalidate()  // during the run: its success does not count
        _ = gate.finishRun(.init(checksFirst: false, number: 0), succeeded: true)
        #expect(gate.isInvalidated)

        #expect(gate.addWaiter(2, id: gate.makeWaiterID()) == .start(.init(checksFirst: false, number: 1)))
        _ = gate.finishRun(.init(checksFirst: false, number: 1), succeeded: false)
        #expect(gate.isInvalidated)  // a failure does not clear it

        #expect(gate.addWaiter(3, id: gate.makeWaiterID()) == .start(.init(checksFirst: false, number: 2)))
        _ = gate.finishRun(.init(checksFirst: false, number: 2), succeeded: true)
        #expect(gate.isInvalidated == false)
        #expect(gate.mayCheckBeforeWaiting)
    }
}

/// Counts calls from any task.
private actor CallCount {
    private(set) var value = 0
    func increment() { value += 1 }
}

/// Set once satisfy ran.
private actor Flag {
    private(set) var isSet = false
    func set() { isSet = true }
}

private struct ConstrainedEndpoint: Requestable {
    let constraint: Constraint
    var constraints: [Constraint] { [constraint] }
    var requiresAuthorization: Bool { false }
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
}

@Suite("Constraints through the client", .heavy)
struct ClientConstraintTests {
    @Test func a1000ConcurrentCallsOnOneConstraintRunSatisfyOnceAndAllGoOut() async throws {
        let ready = Flag()
        let runs = CallCount()
        let constraint = Constraint(
            name: "session", isSatisfied: { await ready.isSet },
            satisfy: {
                await runs.increment()
                await ready.set()
            })
        let transport = RecordingTransport()
        let client = makeClient(transport)

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 {
                group.addTask { _ = try await client.enqueue(ConstrainedEndpoint(constraint: constraint)).resume() }
            }
            try await group.waitForAll()
        }

        #expect(await runs.value == 1)
        #expect(await transport.count == 1_000)
    }

    @Test func aFailingConstraintFailsEveryCallAndSendsNothing() async throws {
        struct NoSession: Error {}
        let runs = CallCount()
        let constraint = Constraint(
            name: "session", isSatisfied: { false },
            satisfy: {
                await runs.increment()
                throw NoSession()
            })
        let transport = RecordingTransport()
        let client = makeClient(transport)

        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    do {
                        _ = try await client.enqueue(ConstrainedEndpoint(constraint: constraint)).resume()
                        return false
                    } catch {
                        if case .constraint(let failure)? = error as? CourierError, case .satisfyFailed(let underlying) = failure.reason {
                            return underlying is NoSession
                        }
                        return false
                    }
                }
            }
            var count = 0
            for await failed in group where failed { count += 1 }
            return count
        }

        #expect(failures == 100)
        #expect(await transport.count == 0)
        #expect(await runs.value >= 1)
    }
}
