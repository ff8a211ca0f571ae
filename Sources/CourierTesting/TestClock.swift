import Courier
public import Foundation

/// A clock your tests move by hand, for `Configuration/clock` (retry delays) and `Constraint` timeouts.
///
/// By default `sleep` suspends until ``advance(by:)`` moves the clock past its deadline (await
/// ``waitForSleepers(_:)``, check, then advance). With `sleepsReturnImmediately: true` every
/// `sleep` moves the clock to its deadline and returns at once; read ``sleeps``. Cancelling a
/// sleeping task ends its sleep with `CancellationError`. A client reads a `Retry-After` date
/// against the clock's ``date``, so the delay a date means is exact.
///
/// ```swift
/// let transport = RecordingTransport(script: [.status(503), .status(503), .status(200)])
/// let clock = TestClock(sleepsReturnImmediately: true)
/// var configuration = Configuration(transport: transport)
/// configuration.retryPolicy = .default
/// configuration.clock = clock
/// _ = try await Client(configuration: configuration).enqueue(GetUser(id: 42)).resume()
/// #expect(clock.sleeps.count == 2)   // two retries, and no real time spent
/// ```
public final class TestClock: Clock, Sendable {
    /// A point on the test clock: the time since the clock was made.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// The time since the clock was made.
        public var offset: Duration

        /// An instant `offset` after the clock's start.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Whether `lhs` comes first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        /// `+1.5 seconds`, say.
        public var description: String { "+\(offset)" }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var sleeps: [Duration] = []
        var nextID: UInt64 = 0
        /// Tasks waiting in ``waitForSleepers(_:)``, with the count each waits for.
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedState(State())
    private let sleepsReturnImmediately: Bool
    private let startDate: Date

    /// Creates a clock at offset zero.
    /// - Parameters:
    ///   - sleepsReturnImmediately: `true` to move the clock and return from every `sleep` at
    ///     once; `false` (the default) to suspend each `sleep` until ``advance(by:)``.
    ///   - date: the ``date`` at offset zero. Default: the system's date now, in whole seconds
    ///     (as an HTTP-date names it).
    public init(sleepsReturnImmediately: Bool = false, date: Date? = nil) {
        self.sleepsReturnImmediately = sleepsReturnImmediately
        self.startDate = date ?? Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }

    /// The current instant.
    public var now: Instant { state.withLock { $0.now } }

    /// The date at ``now``: the date the clock started at, plus the time it has moved since.
    /// Courier reads a `Retry-After` date against it when this clock is `Configuration/clock`.
    public var date: Date { startDate.addingTimeInterval(now.offset.timeInterval) }

    /// `.zero`: any duration can be slept.
    public var minimumResolution: Duration { .zero }

    /// Every sleep asked for, in order, as the duration from the instant it was asked.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// How many sleeps are suspended now, waiting for ``advance(by:)``.
    public var pendingSleepCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock reaches `deadline` (or at once in immediate mode).
    /// - Throws: `CancellationError` when the task is cancelled, before or during the sleep.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        if sleepsReturnImmediately {
            try Task.checkCancellation()
            state.withLock {
                $0.sleeps.append($0.now.duration(to: deadline))
                $0.now = max($0.now, deadline)
            }
            return
        }
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enqueue(Sleeper(id: id, deadline: deadline, continuation: continuation))
            }
        } onCancel: {
            let cancelled: Sleeper? = state.withLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and wakes every sleep whose deadline has come, in
    /// deadline order.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` sleeps are suspended on this clock: await it before
    /// ``advance(by:)`` instead of polling or sleeping for real.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func enqueue(_ sleeper: Sleeper) {
        enum Outcome { case wait([CheckedContinuation<Void, Never>]), wake, cancel }
        let outcome: Outcome = state.withLock { state in
            if Task.isCancelled { return .cancel }
            state.sleeps.append(state.now.duration(to: sleeper.deadline))
            if sleeper.deadline <= state.now { return .wake }
            state.sleepers.append(sleeper)
            let count = state.sleepers.count
            let satisfied = state.watchers.filter { $0.count <= count }.map(\.continuation)
            state.watchers.removeAll { $0.count <= count }
            return .wait(satisfied)
        }
        switch outcome {
        case .wait(let watchers): for watcher in watchers { watcher.resume() }
        case .wake: sleeper.continuation.resume()
        case .cancel: sleeper.continuation.resume(throwing: CancellationError())
        }
    }
}

extension TestClock: DateTellingClock {}
