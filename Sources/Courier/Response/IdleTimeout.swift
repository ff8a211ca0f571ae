import Foundation

extension ResponseBody {
    /// This body, stopped when no byte of it arrives for `timeout` on `clock`: its reader then
    /// gets a ``TransportFailure/Kind/timedOut`` failure, and the transfer is cancelled.
    ///
    /// For endless bodies (an event stream) whose connection can die without a word: a proxy
    /// that drops idle connections, a peer that vanished behind a NAT. Any byte counts as life,
    /// a comment line (`: ping`) included, so a server's heartbeat keeps the body alive.
    func stoppingWhenIdle(for timeout: Duration, clock: any Clock<Duration>, url: URL?) -> ResponseBody {
        ResponseBody(source: IdleWatchedChunkSource(self, timeout: timeout, clock: ElapsedTime(clock), url: url), expectedLength: expectedLength)
    }
}

/// A clock's time as the duration since a starting instant, so that code holding an
/// `any Clock<Duration>` can compare and sleep until instants without knowing their type.
struct ElapsedTime: Sendable {
    /// The time since the start.
    let now: @Sendable () -> Duration
    /// Sleeps until this long after the start.
    let sleep: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        now = { start.duration(to: clock.now) }
        sleep = { try await clock.sleep(until: start.advanced(by: $0), tolerance: nil) }
    }
}

/// The source behind ``ResponseBody/stoppingWhenIdle(for:clock:url:)``: reads the inner body
/// while a watchdog task cancels it, and marks it expired, once the reader has waited `timeout`
/// on `clock` with nothing arriving. Only time the reader spends waiting counts.
///
/// `@unchecked Sendable`: `iterator` is only touched by the one reader that claimed the source,
/// one `next()` at a time; everything else is behind `state`'s lock or immutable.
final class IdleWatchedChunkSource: ResponseChunkSource, @unchecked Sendable {
    // While the reader works on a chunk, what arrives waits in the transport's buffer, so that
    // time is not the network's. Each wait starts the idle time afresh (after a long pause, what
    // arrived meanwhile is there at once). So the watchdog sleeps only while the reader waits:
    // when it wakes to find the reader busy (however long, descheduled on a loaded machine
    // included), it waits for the reader's next wait before it sleeps again.
    //
    // A chunk or end read when `timeout` has already passed expires the body too, so the outcome
    // does not depend on which of the two tasks runs first. The reader waiting on the inner body
    // is woken by the cancellation (the transports' bodies wake a waiting reader when cancelled)
    // and then gets the timeout failure.

    private struct State {
        var claimed = false
        var lastActivity: Duration
        /// The reader is waiting for a chunk.
        var waiting = false
        /// How many times the reader began to wait.
        var waits: UInt64 = 0
        /// The watchdog, waiting for the reader to wait (or for the end).
        var watchdogWaiting: CheckedContinuation<Void, Never>?
        var expired = false
        var ended = false

        /// The waiting watchdog, to resume outside the lock.
        mutating func takeWatchdog() -> CheckedContinuation<Void, Never>? {
            defer { watchdogWaiting = nil }
            return watchdogWaiting
        }

        /// Whether nothing arrived for `timeout` before `now`.
        func isIdle(at now: Duration, for timeout: Duration) -> Bool {
            now >= lastActivity + timeout
        }
    }

    private let inner: ResponseBody
    private var iterator: ResponseBody.Iterator
    private let state: LockedState<State>
    private let clock: ElapsedTime
    private let timeout: Duration
    private let url: URL?
    private let watchdog: Task<Void, Never>

    init(_ inner: ResponseBody, timeout: Duration, clock: ElapsedTime, url: URL?) {
        let state = LockedState(State(lastActivity: clock.now()))
        self.inner = inner
        iterator = inner.makeAsyncIterator()
        self.state = state
        self.clock = clock
        self.timeout = timeout
        self.url = url
        watchdog = Task {
            while true {
                guard let deadline = state.withLock({ $0.ended ? nil : $0.lastActivity + timeout }) else { return }
                do {
                    try await clock.sleep(deadline)
                } catch {
                    return  // cancelled: the body ended or was dropped
                }
                let verdict = state.withLock { state -> Verdict in
                    let now = clock.now()
                    guard !state.ended, state.isIdle(at: now, for: timeout) else { return .lookAgain }
                    // A busy reader is not idle: the watchdog waits for its next wait.
                    guard state.waiting else { return .busy(waitsSeen: state.waits) }
                    state.expired = true
                    return .expired
                }
                switch verdict {
                case .expired:
                    inner.cancel()
                    return
                case .busy(let seen):
                    await Self.untilReaderWaits(state, after: seen)
                    if Task.isCancelled { return }
                case .lookAgain:
                    break
                }
            }
        }
    }

    deinit {
        watchdog.cancel()
        inner.cancel()
    }

    private enum Verdict {
        case expired, lookAgain
        /// The reader was busy; it had begun to wait `waitsSeen` times.
        case busy(waitsSeen: UInt64)
    }

    /// Returns once the reader waits for a chunk or has waited since it had begun to `seen`
    /// times, the body ended, or the watchdog is cancelled.
    private static func untilReaderWaits(_ state: LockedState<State>, after seen: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (watchdog: CheckedContinuation<Void, Never>) in
                // Checked under the lock: a cancellation before this is seen here, one after it
                // finds the continuation stored.
                let goOn = state.withLock { state -> Bool in
                    if state.waiting || state.waits != seen || state.ended || Task.isCancelled { return true }
                    state.watchdogWaiting = watchdog
                    return false
                }
                if goOn { watchdog.resume() }
            }
        } onCancel: {
            state.withLock { $0.takeWatchdog() }?.resume()
        }
    }

    func claim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    func next() async throws(CourierError) -> Data? {
        let waitStart = clock.now()
        state.withLock { state in
            state.waiting = true
            state.waits &+= 1
            state.lastActivity = Swift.max(state.lastActivity, waitStart)
            return state.takeWatchdog()
        }?.resume()
        let outcome: Result<Data?, CourierError>
        do {
            outcome = .success(try await iterator.next())
        } catch {
            outcome = .failure(error)
        }
        let now = clock.now()
        let expired = state.withLock { state -> Bool in
            state.waiting = false
            if state.expired { return true }
            guard case .success(let chunk) = outcome else {
                state.ended = true
                return false
            }
            // The idle time ran out before this arrived, and the watchdog has not run yet: its
            // verdict stands, whichever task gets there first.
            if state.isIdle(at: now, for: timeout) {
                state.expired = true
                return true
            }
            if chunk != nil { state.lastActivity = now } else { state.ended = true }
            return false
        }
        // Once expired, whatever the cancelled transfer still hands over is dropped.
        if expired {
            watchdog.cancel()
            inner.cancel()
            throw idleFailure
        }
        if case .success(_?) = outcome {} else { watchdog.cancel() }
        return try outcome.get()
    }

    private var idleFailure: CourierError {
        .transport(
            TransportFailure(
                synthesizing: .timedOut, url: url?.redactedForErrors,
                message: "no byte of the response body arrived for \(timeout); the connection was closed"))
    }

    func cancel() {
        state.withLock { state in
            state.ended = true
            return state.takeWatchdog()
        }?.resume()
        watchdog.cancel()
        inner.cancel()
    }
}
