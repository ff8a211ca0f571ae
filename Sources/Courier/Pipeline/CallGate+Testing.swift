// What the package's tests observe of the pause-and-drain gate.

extension PauseGate {
    /// The ids of the held calls, in the order they will be released.
    var heldIDs: [UInt64] { held.waiterIDs }
    /// Cancellations waiting for their call to be held: 0 once every call has been held.
    var pendingCancellationCount: Int { held.pendingCancellationCount }
}
