// What the package's tests observe of a client; not part of the public API.

extension Client {
    /// The number of calls held by an exclusive action.
    package var heldCallCount: Int { gate.withLock { $0.heldCount } }
    /// Cancellations remembered for calls not yet held (0 once every call was held).
    package var pendingCancellationCountForTests: Int { gate.withLock { $0.pendingCancellationCount } }
    /// Whether new calls are being held.
    package var isPausedForTests: Bool { gate.withLock { $0.isPaused } }
}
