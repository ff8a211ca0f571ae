import Foundation

/// The messages a transport received and the reader has not taken yet, bounded: when
/// ``WebSocketSettings/bufferedMessages`` wait, the transport stops reading (``isFull``) until
/// the reader takes one (`onDrain`). Then the end of the socket, once.
package final class WebSocketInbox: Sendable {
    private struct State {
        var queue: [WebSocketMessage] = []
        var head = 0
        var reader: CheckedContinuation<Result<WebSocketMessage?, CourierError>, Never>?
        /// How the socket ended: `nil` while open, `.success` for a normal end.
        var end: Result<Void, CourierError>?
        var waitsForDrain = false
        var count: Int { queue.count - head }
    }

    private let state = LockedState(State())
    private let capacity: Int
    private let onDrain: @Sendable () -> Void

    /// An inbox of `capacity` messages; `onDrain` runs (outside the lock) when the reader took one
    /// after ``isFull`` said so.
    package init(capacity: Int, onDrain: @escaping @Sendable () -> Void) {
        self.capacity = max(1, capacity)
        self.onDrain = onDrain
    }

    /// Hands `message` to the waiting reader or queues it; dropped after the end.
    package func push(_ message: WebSocketMessage) {
        let reader: CheckedContinuation<Result<WebSocketMessage?, CourierError>, Never>? = state.withLock { state in
            guard state.end == nil else { return nil }
            if let reader = state.reader {
                state.reader = nil
                return reader
            }
            state.queue.append(message)
            return nil
        }
        reader?.resume(returning: .success(message))
    }

    /// Whether the transport should stop reading; if so, `onDrain` runs once the reader took one.
    /// A waiting ping allows four times the capacity, so that its pong can be read.
    package func isFull(pingWaiting: Bool = false) -> Bool {
        let limit = pingWaiting ? capacity.multipliedReportingOverflow(by: 4).partialValue : capacity
        return state.withLock { state in
            guard state.count >= max(capacity, limit) else { return false }
            state.waitsForDrain = true
            return true
        }
    }

    /// Ends the socket: queued messages are still read, then `end` (the first end wins).
    package func finish(_ end: Result<Void, CourierError>) {
        let reader: CheckedContinuation<Result<WebSocketMessage?, CourierError>, Never>? = state.withLock { state in
            guard state.end == nil else { return nil }
            state.end = end
            let reader = state.reader
            state.reader = nil
            return reader
        }
        reader?.resume(returning: end.map { nil })
    }

    /// How the socket ended, if it has.
    package var ended: Result<Void, CourierError>? {
        state.withLock { $0.end }
    }

    /// The next message, `nil` after a normal end, or the failure that ended the socket.
    package func next() async throws(CourierError) -> WebSocketMessage? {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<WebSocketMessage?, CourierError>, Never>) in
            let (ready, drained): (Result<WebSocketMessage?, CourierError>?, Bool) = state.withLock { state in
                if state.count > 0 {
                    let message = state.queue[state.head]
                    state.head += 1
                    if state.head == state.queue.count {
                        state.queue.removeAll(keepingCapacity: true)
                        state.head = 0
                    } else if state.head > 64, state.head * 2 > state.queue.count {
                        state.queue.removeFirst(state.head)
                        state.head = 0
                    }
                    let drained = state.waitsForDrain && state.count < capacity
                    if drained { state.waitsForDrain = false }
                    return (.success(message), drained)
                }
                if let end = state.end { return (end.map { nil }, false) }
                if state.reader != nil { return (.failure(CourierError.secondReader), false) }
                state.reader = continuation
                return (nil, false)
            }
            if drained { onDrain() }
            if let ready { continuation.resume(returning: ready) }
        }
        return try result.get()
    }
}
