import Foundation

/// Two connected in-memory WebSocket ends (CourierTesting's scripted peer talks to a client
/// through one): messages arrive in order, a close reaches the other end after the messages
/// sent before it, and an end that closed reads nothing more.
package final class WebSocketPipe: Sendable {
    /// What one end reads: a message, or the other end's close.
    package enum Item: Sendable {
        case message(WebSocketMessage)
        case close(WebSocketClose)
    }

    /// A waiting reader.
    private struct Reader {
        let continuation: CheckedContinuation<Result<Item?, CourierError>, Never>
        func resume(returning item: Item?) { continuation.resume(returning: .success(item)) }
    }

    private struct Direction {
        var queue: [Item] = []
        var reader: Reader?
        /// The close the writing end sent; nothing is written after it.
        var close: WebSocketClose?
        /// Whether the reading end stopped reading (it closed or was dropped).
        var readerGone = false
    }

    /// Direction 0 carries the client's messages to the server end, 1 the other way.
    private let state = LockedState([Direction(), Direction()])

    private init() {}

    /// A new pair: the client's end and the server's.
    package static func makePair() -> (client: End, server: End) {
        let pipe = WebSocketPipe()
        return (End(pipe: pipe, side: 0), End(pipe: pipe, side: 1))
    }

    /// One end of a pipe.
    package struct End: Sendable {
        let pipe: WebSocketPipe
        let side: Int

        /// Queues `message` for the other end.
        /// - Throws: ``CourierError/webSocketClosed(code:reason:)`` with the close that ended the socket.
        package func send(_ message: WebSocketMessage) throws(CourierError) {
            try pipe.write(.message(message), from: side)
        }

        /// The next item, or `nil` once this end closed.
        /// - Throws: when another task is already waiting for this end's next item.
        package func receive() async throws(CourierError) -> Item? {
            try await pipe.read(side: 1 - side).get()
        }

        /// Sends a close (once) and stops reading.
        package func close(_ close: WebSocketClose) {
            pipe.close(close, from: side)
        }

        /// The close the other end sent, if it has.
        package var received: WebSocketClose? {
            pipe.state.withLock { $0[1 - side].close }
        }

        /// The close this end received or sent, if any.
        package var ended: WebSocketClose? {
            pipe.state.withLock { $0[1 - side].close ?? $0[side].close }
        }
    }

    private func write(_ item: Item, from side: Int) throws(CourierError) {
        let result: Result<Reader?, CourierError> = state.withLock { directions in
            if let close = directions[side].close ?? directions[1 - side].close { return .failure(.closed(close)) }
            if directions[side].readerGone { return .success(nil) }
            if let reader = directions[side].reader {
                directions[side].reader = nil
                return .success(reader)
            }
            directions[side].queue.append(item)
            return .success(nil)
        }
        try result.get()?.resume(returning: item)
    }

    private func read(side: Int) async -> Result<Item?, CourierError> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Item?, CourierError>, Never>) in
            let ready: Result<Item?, CourierError>? = state.withLock { directions in
                if directions[side].readerGone { return .success(nil) }
                if !directions[side].queue.isEmpty { return .success(directions[side].queue.removeFirst()) }
                if let close = directions[side].close { return .success(.close(close)) }
                if directions[side].reader != nil { return .failure(CourierError.secondReader) }
                directions[side].reader = Reader(continuation: continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func close(_ close: WebSocketClose, from side: Int) {
        let (peerReader, ownReader) = state.withLock { directions in
            var peerReader: Reader?
            if directions[side].close == nil {
                directions[side].close = close
                // A waiting reader means an empty queue: the close is what it reads.
                peerReader = directions[side].reader
                directions[side].reader = nil
            }
            // This end reads no more: its own waiting reader wakes with nothing.
            directions[1 - side].readerGone = true
            directions[1 - side].queue.removeAll()
            let ownReader = directions[1 - side].reader
            directions[1 - side].reader = nil
            return (peerReader, ownReader)
        }
        peerReader?.resume(returning: .close(close))
        ownReader?.resume(returning: nil)
    }
}
