/// A precondition that requests can wait for, such as "has a session id" or "consent given".
///
/// While the constraint is unsatisfied, every caller of ``waitUntilSatisfied()`` waits, and
/// exactly **one** `satisfy` runs at a time, however many wait. When it succeeds, every waiter
/// is released; when it fails, every waiter fails with a ``ConstraintFailure`` that keeps the
/// error, and the next caller starts a new run. ``invalidate()`` makes the next run call
/// `satisfy` without asking `isSatisfied`.
///
/// ```swift
/// let session = Constraint(name: "session", timeout: .seconds(30),
///                          isSatisfied: { await sessionStore.sessionID != nil },
///                          satisfy: { try await sessionStore.startSession() })   // must make isSatisfied true
/// try await session.waitUntilSatisfied()   // returns at once when a session exists
/// ```
public final class Constraint: Sendable {
    // The rules in full:
    // - Check first. A caller that finds no run in flight asks `isSatisfied`; if it says yes, the
    //   caller returns at once without waiting. Otherwise the caller starts a run (or joins the one
    //   in flight). A run asks `isSatisfied` once more and calls `satisfy` only if it still says
    //   no, so a run that finished a moment ago is not repeated.
    // - One run, shared. Callers that arrive while a run is in flight join it and get its result.
    //   `isSatisfied` may be called by several callers at once: keep it cheap and free of side
    //   effects. After `satisfy` succeeds, `isSatisfied` should return `true`.
    // - No sticky failure. A failed run fails its waiters; the next caller starts a new run.
    // - Leaving early. A waiter whose task is cancelled leaves at once with `.cancelled`; a waiter
    //   that waits longer than `timeout` leaves with `.timedOut(after:)`. Neither disturbs the other
    //   waiters, and neither cancels `satisfy`: it runs to the end (even if every waiter has left)
    //   and its result goes to whoever is still waiting.
    // - Invalidation. invalidate() makes the next run call `satisfy` without asking `isSatisfied`
    //   (which may still say yes about a session the server has dropped).

    /// The name that identifies the constraint in errors and logs.
    ///
    /// ```swift
    /// print(session.name)   // "session"
    /// ```
    public let name: String

    /// How long one caller may wait for a run before it fails with
    /// ``ConstraintFailure/Reason/timedOut(after:)``; `nil` waits as long as the run takes.
    /// Measured per caller, from the moment it starts waiting for a run, on the constraint's clock.
    ///
    /// ```swift
    /// let consent = Constraint(name: "consent", timeout: .seconds(60),
    ///                          isSatisfied: { await privacy.hasConsent },
    ///                          satisfy: { try await privacy.askForConsent() })
    /// print(consent.timeout as Any)   // Optional(60.0 seconds)
    /// ```
    package let timeout: Duration?

    private let clock: any Clock<Duration>
    private let isSatisfied: @Sendable () async -> Bool
    private let satisfy: @Sendable () async throws -> Void
    /// The error a caller that waited longer than ``timeout`` gets. A ``CourierError`` reaches
    /// the caller as it is; anything else is wrapped in ``CourierError/constraint(_:)``.
    private let timeoutError: @Sendable (_ name: String, _ timeout: Duration) -> any Error
    /// Who waits for which run, under a lock: a cancelled or timed-out caller leaves from its
    /// cancellation handler or timer at once, synchronously. Continuations are resumed outside
    /// the lock.
    let state: LockedState<State>

    /// The gate, and the task of every run that has not returned yet (an abandoned run stays
    /// here until its cancelled `satisfy` returns). One lock: a run's task is stored in the same
    /// critical section that starts the run, so a waiter leaving at once still finds it.
    struct State {
        var gate: ConstraintGate<Waiter>
        var runTasks: [UInt64: Task<Void, Never>] = [:]
        /// Tests waiting in ``waitForWaiters(_:)``.
        var waiterWatchers = CountWatchers()
    }

    /// A caller waiting for the run in flight.
    typealias Waiter = CheckedContinuation<Void, any Error>

    /// Creates a constraint.
    ///
    /// - Parameters:
    ///   - name: Identifies the constraint in errors and logs.
    ///   - timeout: How long one caller may wait for a run; `nil` for no limit.
    ///   - clock: The clock that measures `timeout`. Tests pass a manual clock.
    ///   - isSatisfied: Whether the precondition holds now. Cheap, without side effects; may be
    ///     called concurrently.
    ///   - satisfy: Makes the precondition hold (logs in, asks for consent, …). Never runs twice
    ///     at once. A thrown error fails every waiter of that run.
    public convenience init(
        name: String,
        timeout: Duration? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        isSatisfied: @escaping @Sendable () async -> Bool,
        satisfy: @escaping @Sendable () async throws -> Void
    ) {
        self.init(
            name: name, timeout: timeout, clock: clock,
            timeoutError: { name, timeout in ConstraintFailure(name: name, reason: .timedOut(after: timeout)) },
            isSatisfied: isSatisfied, satisfy: satisfy)
    }

    /// A constraint whose callers that wait longer than `timeout` fail with
    /// `timeoutError(name, timeout)` instead of ``ConstraintFailure/Reason/timedOut(after:)``:
    /// built-in constraints whose timeout means something more specific (no network path).
    /// With `cancelsUnwatchedRuns`, a run is cancelled as soon as its last waiter leaves early:
    /// only for a `satisfy` that merely waits (it must return or throw when cancelled), which
    /// would otherwise wait on, holding what it waits on, for nobody.
    package init(
        name: String,
        timeout: Duration?,
        clock: any Clock<Duration>,
        timeoutError: @escaping @Sendable (_ name: String, _ timeout: Duration) -> any Error,
        cancelsUnwatchedRuns: Bool = false,
        isSatisfied: @escaping @Sendable () async -> Bool,
        satisfy: @escaping @Sendable () async throws -> Void
    ) {
        self.state = LockedState(State(gate: ConstraintGate(abandonsUnwatchedRuns: cancelsUnwatchedRuns)))
        self.name = name
        self.timeout = timeout
        self.clock = clock
        self.timeoutError = timeoutError
        self.isSatisfied = isSatisfied
        self.satisfy = satisfy
    }

    /// Returns once the constraint is satisfied, running `satisfy` if needed (shared with every
    /// other caller waiting at the same time).
    ///
    /// ```swift
    /// try await session.waitUntilSatisfied()
    /// ```
    /// - Throws: ``CourierError/cancelled`` when the calling task is cancelled (the caller leaves
    ///   at once; the run goes on for the others), or ``CourierError/constraint(_:)`` when
    ///   `satisfy` failed (``ConstraintFailure/Reason/satisfyFailed(_:)``, keeping its error) or
    ///   this caller waited longer than the constraint's timeout (``ConstraintFailure/Reason/timedOut(after:)``).
    public func waitUntilSatisfied() async throws(CourierError) {
        do {
            try await waitOrThrow()
        } catch let error as CourierError {
            throw error
        } catch let failure as ConstraintFailure {
            throw .constraint(failure)
        } catch {
            throw .constraint(ConstraintFailure(name: name, reason: .satisfyFailed(error)))
        }
    }

    private func waitOrThrow() async throws {
        if Task.isCancelled { throw CourierError.cancelled }
        if state.withLock({ $0.gate.mayCheckBeforeWaiting }) {
            if await isSatisfied() { return }
            if Task.isCancelled { throw CourierError.cancelled }
        }
        let state = self.state
        let id = state.withLock { $0.gate.makeWaiterID() }
        // Started once the caller is registered, so that it always finds the waiter (or finds
        // it released); cancelled when the caller returns, however it returns.
        var timer: Task<Void, Never>?
        defer { timer?.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let (registration, watchers) = state.withLock { state in
                    let registration = state.gate.addWaiter(waiter, id: id)
                    if case .start(let run) = registration {
                        // Not a child of the caller: cancelling the caller must not cancel `satisfy`.
                        state.runTasks[run.number] = Task { await self.perform(run) }
                    }
                    return (registration, state.waiterWatchers.take(at: state.gate.waiterCount))
                }
                for watcher in watchers { watcher.resume() }
                switch registration {
                case .start, .joined:
                    timer = startTimer(for: id)
                case .cancelled:
                    waiter.resume(throwing: CourierError.cancelled)
                }
            }
        } onCancel: {
            // Synchronous: the waiter leaves now. Before registration, the gate remembers the
            // cancellation and `addWaiter` answers `.cancelled`.
            Self.leave(id, state: state, with: CourierError.cancelled)
        }
    }

    /// A waiter leaves early (cancelled, timed out) and is resumed with `error`. If it was the
    /// last waiter of the run and the constraint cancels unwatched runs, the run is cancelled.
    private static func leave(_ id: ConstraintGate<Waiter>.WaiterID, state: LockedState<State>, with error: any Error) {
        let (waiter, abandoned, watchers) = state.withLock { state in
            let waiter = state.gate.removeWaiter(id)
            let abandoned = state.gate.abandonRunIfUnwatched().flatMap { state.runTasks[$0] }
            return (waiter, abandoned, waiter == nil ? [] : state.waiterWatchers.take(at: state.gate.waiterCount))
        }
        waiter?.resume(throwing: error)
        abandoned?.cancel()
        for watcher in watchers { watcher.resume() }
    }

    /// Marks the constraint unsatisfied (for example, the server said the session expired): the
    /// next run calls `satisfy` without asking `isSatisfied`, and callers stop taking
    /// `isSatisfied`'s word until a run started after this call succeeds. A run already in
    /// flight is not disturbed.
    ///
    /// ```swift
    /// if response.statusCode == 440 {   // session expired
    ///     session.invalidate()
    ///     try await session.waitUntilSatisfied()   // starts a new session
    /// }
    /// ```
    public func invalidate() {
        state.withLock { $0.gate.invalidate() }
    }

    // MARK: - Running

    /// The caller's timeout, if the constraint has one: when it fires, the waiter leaves through
    /// the gate, like a cancellation.
    private func startTimer(for id: ConstraintGate<Waiter>.WaiterID) -> Task<Void, Never>? {
        guard let timeout else { return nil }
        let (clock, state) = (clock, state)
        let failure = timeoutError(name, timeout)
        return Task {
            do {
                // Bounded: a clock traps converting a wait of `Int64.max` seconds.
                try await clock.sleep(for: min(timeout, Duration.longestWait))
            } catch {
                return  // cancelled: the waiter was released or left
            }
            Self.leave(id, state: state, with: failure)
        }
    }

    private func perform(_ run: ConstraintGate<Waiter>.Run) async {
        let result: Result<Void, any Error>
        if run.checksFirst, await isSatisfied() {
            result = .success(())
        } else {
            do {
                try await satisfy()
                result = .success(())
            } catch {
                result = .failure(ConstraintFailure(name: name, reason: .satisfyFailed(error)))
            }
        }
        let succeeded = if case .success = result { true } else { false }
        let (released, watchers) = state.withLock { state in
            state.runTasks[run.number] = nil
            let released = state.gate.finishRun(run, succeeded: succeeded)
            return (released, released.isEmpty ? [] : state.waiterWatchers.take(at: 0))
        }
        for watcher in watchers { watcher.resume() }
        for waiter in released {
            waiter.resume(with: result)
        }
    }
}

/// Why a ``Constraint`` could not be satisfied for a caller.
///
/// ```swift
/// do {
///     try await session.waitUntilSatisfied()
/// } catch .constraint(let failure) {     // `waitUntilSatisfied` throws `CourierError`
///     switch failure.reason {
///     case .satisfyFailed(let error): print("could not start a session: \(error)")
///     case .timedOut(let after): print("gave up after \(after)")
///     }
/// } catch {
///     // CourierError.cancelled
/// }
/// ```
public struct ConstraintFailure: Error, Sendable {
    /// What went wrong.
    ///
    /// ```swift
    /// if case .timedOut = failure.reason { showRetryButton() }
    /// ```
    public enum Reason: Sendable {
        /// The constraint's `satisfy` threw this error. Every caller waiting for that run gets it.
        case satisfyFailed(any Error)
        /// This caller waited longer than the constraint's timeout. The others go on waiting.
        case timedOut(after: Duration)
    }

    /// The ``Constraint/name`` of the constraint that failed.
    ///
    /// ```swift
    /// print(failure.name)   // "session"
    /// ```
    public var name: String

    /// What went wrong.
    ///
    /// ```swift
    /// if case .satisfyFailed(let error as CourierError) = failure.reason { print(error) }
    /// ```
    public var reason: Reason

    /// Creates a constraint failure; tests and custom pipelines use it to stand in for one.
    ///
    /// ```swift
    /// let failure = ConstraintFailure(name: "session", reason: .timedOut(after: .seconds(30)))
    /// ```
    public init(name: String, reason: Reason) {
        self.name = name
        self.reason = reason
    }
}

extension ConstraintFailure: CustomStringConvertible {
    /// A one-line summary naming the constraint and the reason.
    ///
    /// ```swift
    /// print(ConstraintFailure(name: "session", reason: .timedOut(after: .seconds(30))))
    /// // Constraint "session" timed out after 30.0 seconds
    /// ```
    public var description: String {
        switch reason {
        case .satisfyFailed(let error):
            return "Constraint \"\(name)\" failed: \(error)"
        case .timedOut(let after):
            return "Constraint \"\(name)\" timed out after \(after)"
        }
    }
}
