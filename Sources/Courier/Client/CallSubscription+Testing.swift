// What the package's tests observe of a subscription.

extension CallSubscription {
    /// Whether the call was started and has not ended.
    var isRunning: Bool {
        state.withLock { state in
            if case .running = state { return true }
            return false
        }
    }
}
