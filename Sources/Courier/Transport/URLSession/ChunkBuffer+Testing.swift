// What the package's tests observe of a buffered response body; not used by the transport.

extension ChunkBuffer {
    /// The most bytes buffered at once so far.
    var peakBufferedBytes: Int { state.withLock { $0.peakBuffered } }

    /// Whether the producer was asked to pause and not yet to resume.
    var isProducerPaused: Bool { state.withLock { $0.producerPaused } }

    /// Every byte written to the spill file so far.
    var spilledBytes: Int { state.withLock { $0.spilledTotal } }

    /// Bytes buffered in memory now.
    var bufferedBytes: Int { state.withLock { $0.buffered } }

    /// Returns once the body has ended: every byte has arrived, or the transfer failed or was
    /// cancelled (for tests).
    func waitForEnd() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state in
                if state.end != nil { return true }
                state.endWaiters.append(waiter)
                return false
            }
            if ended { waiter.resume() }
        }
    }
}
