import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The single-flight machine through its three owners (the refresher, a constraint, the client's
/// pause), with thousands of concurrent callers of which half are cancelled: exact counts, and
/// nothing left behind in the machine afterwards.
@Suite("SingleFlight through the actors: exact counts under concurrent cancellation", .heavy, .timeLimit(.minutes(2)))
struct SingleFlightConcurrencyTests {
    /// When half of the callers are cancelled.
    enum CancelTiming: String, CaseIterable, CustomTestStringConvertible {
        /// Once every caller is registered and waiting: the cancellation handlers find them.
        case whileWaiting
        /// At once, as they arrive: some are cancelled before they register, some after.
        case whileArriving

        var testDescription: String { rawValue }
    }

    private struct Endpoint: Requestable {
        var requiresAuthorization: Bool { false }
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    }

    /// Waits, without sleeping, until `condition` holds; records an issue if it never does.
    private static func waitUntil(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async -> Bool
    ) async {
        for _ in 0..<1_000_000 {
            if await condition() { return }
            await Task.yield()
        }
        Issue.record("never happened: \(what)", sourceLocation: sourceLocation)
    }

    /// How many of `tasks` ended with ``CourierError/cancelled``.
    private static func cancelledCount<T>(_ tasks: [Task<T, any Error>]) async -> Int {
        var count = 0
        for task in tasks {
            if case .failure(let error) = await task.result, case .cancelled? = error as? CourierError { count += 1 }
        }
        return count
    }

    /// The tasks at even positions, to cancel, and those at odd positions, to keep.
    private static func halves<T>(_ tasks: [Task<T, any Error>]) -> (cancelled: [Task<T, any Error>], kept: [Task<T, any Error>]) {
        (tasks.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element), tasks.enumerated().filter { !$0.offset.isMultiple(of: 2) }.map(\.element))
    }

    @Test(arguments: CancelTiming.allCases)
    func twoThousandCallersOfOneRefreshWithHalfCancelledGetExactCounts(timing: CancelTiming) async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = CountingStore(clock.credential("old", expiresIn: -1))
        let release = Gate()
        let refresher = TokenRefresher(store: store, now: clock.closure) { _ in
            await release.wait()
            return mint.next()
        }

        let callers = (0..<2_000).map { _ in Task { try await refresher.validCredential() } }
        let (cancelled, kept) = Self.halves(callers)
        if timing == .whileWaiting {
            await Self.waitUntil("2,000 callers waiting") { await refresher.waitingCallerCount == 2_000 }
        }
        for task in cancelled { task.cancel() }

        // Every cancelled caller leaves while the refresh is still held.
        #expect(await Self.cancelledCount(cancelled) == 1_000)
        await Self.waitUntil("1,000 callers waiting") { await refresher.waitingCallerCount == 1_000 }
        #expect(await refresher.isRefreshInFlight)

        await release.open()
        var tokens: [String] = []
        for task in kept { tokens.append(try await task.value.accessToken) }
        #expect(tokens.count == 1_000)
        #expect(Set(tokens) == ["at-1"])
        #expect(mint.count.value == 1)
        #expect(await store.stored?.accessToken == "at-1")
        #expect(await refresher.waitingCallerCount == 0)
        #expect(await refresher.unregisteredWaiterCount == 0)
    }

    @Test(arguments: CancelTiming.allCases)
    func twoThousandWaitersOfOneConstraintWithHalfCancelledGetExactCounts(timing: CancelTiming) async throws {
        let satisfied = Locked(false), runs = Locked(0)
        let release = Gate()
        let constraint = Constraint(name: "session", isSatisfied: { satisfied.value }) {
            runs.withValue { $0 += 1 }
            await release.wait()
            satisfied.withValue { $0 = true }
        }

        let waiters = (0..<2_000).map { _ in Task { try await constraint.waitUntilSatisfied() } }
        let (cancelled, kept) = Self.halves(waiters)
        if timing == .whileWaiting {
            await Self.waitUntil("2,000 waiters") { constraint.waiterCount == 2_000 }
        }
        for task in cancelled { task.cancel() }

        #expect(await Self.cancelledCount(cancelled) == 1_000)
        await Self.waitUntil("1,000 waiters") { constraint.waiterCount == 1_000 }
        #expect(constraint.isRunning)

        await release.open()
        for task in kept { try await task.value }
        #expect(runs.value == 1)
        #expect(constraint.waiterCount == 0)
        #expect(constraint.unregisteredWaiterCount == 0)
        #expect(constraint.isRunning == false)
    }

    @Test(arguments: CancelTiming.allCases)
    func aThousandCallsHeldByAnExclusiveActionWithHalfCancelledGetExactCounts(timing: CancelTiming) async throws {
        let transport = RecordingTransport()
        let client = makeClient(transport)
        let (released, release) = AsyncStream.makeStream(of: Never.self)
        let exclusive = Task { try await client.runExclusively { for await _ in released {} } }
        await Self.waitUntil("the client paused") { await client.isPausedForTests }

        let calls = (0..<1_000).map { _ in Task { try await client.enqueue(Endpoint()).resume() } }
        let (cancelled, kept) = Self.halves(calls)
        if timing == .whileWaiting {
            await Self.waitUntil("1,000 calls held") { await client.heldCallCount == 1_000 }
        }
        for task in cancelled { task.cancel() }

        #expect(await Self.cancelledCount(cancelled) == 500)
        await Self.waitUntil("500 calls held") { await client.heldCallCount == 500 }
        #expect(await transport.count == 0)

        release.finish()
        try await exclusive.value
        for task in kept { _ = try await task.value }
        #expect(await transport.count == 500)
        #expect(await client.heldCallCount == 0)
        #expect(await client.pendingCancellationCountForTests == 0)
        #expect(await client.isPausedForTests == false)
    }

    @Test("a timeout racing a cancellation hands each of 500 waiters back exactly once")
    func timeoutsRacingCancellationsHandEachWaiterBackOnce() async throws {
        let clock = TestClock()
        let release = Gate()
        let constraint = Constraint(name: "consent", timeout: .seconds(1), clock: clock, isSatisfied: { false }) {
            await release.wait()
        }
        let waiters = (0..<500).map { _ in Task { try await constraint.waitUntilSatisfied() } }
        await Self.waitUntil("500 waiters with their timers") {
            constraint.waiterCount == 500 && clock.pendingSleepCount == 500
        }

        // The timers fire on another task while the cancellations run here: for each waiter,
        // whichever reaches the machine first resumes it; the other finds nothing (a second
        // resume of its continuation would crash the test run).
        let firing = Task.detached { clock.advance(by: .seconds(1)) }
        for task in waiters { task.cancel() }
        await firing.value

        var cancelled = 0, timedOut = 0
        for task in waiters {
            guard case .failure(let error) = await task.result else { continue }
            switch error as? CourierError {
            case .cancelled?: cancelled += 1
            case .constraint(let failure)?: if case .timedOut = failure.reason { timedOut += 1 }
            default: break
            }
        }
        #expect(cancelled + timedOut == 500)
        #expect(constraint.waiterCount == 0)
        #expect(constraint.isRunning, "satisfy goes on with nobody left")
        await release.open()
        await Self.waitUntil("the run ended") { constraint.isRunning == false }
        #expect(clock.pendingSleepCount == 0)
    }
}
