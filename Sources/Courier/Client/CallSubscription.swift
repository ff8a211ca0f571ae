/// One subscription to a call's Combine publisher (`Call+Combine.swift`), without Combine: the
/// call starts on the first demand, at most once; cancelling cancels it; the outcome is
/// delivered at most once, and never after a cancel.
///
/// Combine is only on Apple platforms, so the whole lifecycle lives here, where Linux compiles
/// and tests it; `Call+Combine.swift` only adapts `Subscription.request(_:)` to ``request()``
/// and hands the outcome to the subscriber.
///
/// `deliver` runs once, on the task that ran the call, with no lock held. It is dropped as soon
/// as it ran or the subscription was cancelled, so a subscriber it holds is released then
/// (the subscriber holds the subscription: keeping it would be a cycle).
///
/// `@unchecked Sendable`: `deliver` (not `Sendable`) is only read and written under `state`'s lock.
final class CallSubscription<Output: Sendable>: @unchecked Sendable {
    typealias Deliver = (Result<Output, CourierError>) -> Void

    enum State: Sendable {
        /// Not asked for yet.
        case waiting(operation: @Sendable () async throws(CourierError) -> Output)
        /// Running; `deliver` is handed the outcome unless a cancel comes first.
        case running(Task<Void, Never>)
        /// Delivered or cancelled: nothing more happens.
        case ended
    }

    let state: LockedState<State>
    /// The subscriber's callback (a Combine subscriber is not `Sendable`): `nil` once the state
    /// has ended; taken out of the lock once, and called by the one task that takes it.
    private var deliver: Deliver?

    /// - Parameters:
    ///   - operation: the call, run once on the first ``request()``.
    ///   - deliver: receives the outcome, once, unless ``cancel()`` came first.
    init(operation: @escaping @Sendable () async throws(CourierError) -> Output, deliver: @escaping Deliver) {
        state = LockedState(.waiting(operation: operation))
        self.deliver = deliver
    }

    /// Starts the call, if it has not started and was not cancelled; otherwise does nothing.
    func request() {
        state.withLock { state in
            guard case .waiting(let operation) = state else { return }
            // Made under the lock: the task's `finish` waits for it, so it always finds `.running`.
            let task = Task { [self] in
                let result: Result<Output, CourierError>
                do throws(CourierError) {
                    result = .success(try await operation())
                } catch {
                    result = .failure(error)
                }
                finish(with: result)
            }
            state = .running(task)
        }
    }

    /// Cancels the call if it runs (it then ends with ``CourierError/cancelled``, which nobody
    /// is told), and makes sure nothing is delivered. Calling it again does nothing.
    func cancel() {
        let task: Task<Void, Never>? = state.withLock { state in
            defer {
                state = .ended
                deliver = nil
            }
            if case .running(let task) = state { return task }
            return nil
        }
        task?.cancel()
    }

    /// Whether nothing more can happen: the outcome was delivered or the subscription cancelled.
    var hasEnded: Bool {
        state.withLock { state in
            if case .ended = state { return true }
            return false
        }
    }

    private func finish(with result: Result<Output, CourierError>) {
        let deliver: Deliver? = state.withLock { state in
            guard case .running = state else { return nil }
            state = .ended
            defer { self.deliver = nil }
            return self.deliver
        }
        deliver?(result)
    }
}
