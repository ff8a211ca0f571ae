import Foundation

/// Carries a ``BodyStream`` from its async reader to a consumer that reads synchronously
/// (URLSession's body `InputStream`), holding at most ``capacity`` bytes in between.
///
/// A producer task reads chunks ahead and parks when the buffer is full; the consumer's
/// ``read(into:maxLength:)`` blocks only while the buffer is empty. So a 1 GiB file goes out
/// with about `capacity` bytes in memory, and the consumer (on Linux, libcurl's one work queue
/// for the whole session) rarely waits: a file chunk is usually ready before it is asked for.
///
/// The first failure wins and is reported once through `onFailure`, so the exchange can stop the
/// request with the body's own error instead of the transport's generic one.
///
/// `@unchecked Sendable` because the producer task, the consumer's thread and the canceller all
/// touch the state below; every access goes through `condition`, and the producer's
/// continuation is resumed exactly once, by whoever takes it out of `parkedProducer`.
final class BodyPump: @unchecked Sendable {
    enum State: Equatable { case running, finished, failed, cancelled }

    /// The most bytes held between the reader and the consumer.
    let capacity: Int
    private let stream: BodyStream
    private let onFailure: @Sendable (CourierError) -> Void
    private let condition = NSCondition()
    private var chunks: [Data] = []
    private var head = 0  // index of the chunk being consumed
    private var offset = 0  // bytes of chunks[head] already consumed
    private var buffered = 0
    private var state = State.running
    private var failure: CourierError?
    private var parkedProducer: CheckedContinuation<Bool, Never>?
    private var producer: Task<Void, Never>?

    init(stream: BodyStream, capacity: Int = 4 * bodyChunkSize, onFailure: @escaping @Sendable (CourierError) -> Void) {
        self.stream = stream
        self.capacity = capacity
        self.onFailure = onFailure
    }

    /// A new pump for the same body, from its start; `nil` when the body cannot be read twice.
    func restarted() -> BodyPump? {
        guard stream.isReplayable else { return nil }
        return BodyPump(stream: stream, capacity: capacity, onFailure: onFailure)
    }

    /// Starts reading ahead.
    func start() {
        #if canImport(FoundationNetworking)
            // On Linux the consumer holds URLSession's work queue while it waits (see
            // ``makeInputStream()``): the producer must not wait for a cooperative thread, which
            // other work (or callers blocked on that same work queue) may be holding.
            let task = Task(executorPreference: BodyPumpExecutor.shared) { await self.produce() }
        #else
            let task = Task { await self.produce() }
        #endif
        condition.lock()
        producer = task
        let stopped = state == .cancelled
        condition.unlock()
        if stopped { task.cancel() }
    }

    /// Whether the pump was cancelled (``cancel()``).
    private var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state == .cancelled
    }

    /// Why the body failed, if it did.
    var error: CourierError? {
        condition.lock()
        defer { condition.unlock() }
        return failure
    }

    private func produce() async {
        var reader: BodyStream.Reader
        do {
            reader = try stream.makeReader()
        } catch {
            fail(error)
            return
        }
        while true {
            do {
                guard let chunk = try await reader.next() else {
                    end(.finished)
                    return
                }
                guard await push(chunk) else {
                    // Stopped while the chunk waited: when cancelled, the source is asked once more
                    // in the cancelled task, so that it learns it is not read any more (an
                    // `AsyncStream` calls its `onTermination`; ``BodyStream/Reader`` asks it first).
                    if isCancelled { _ = try? await reader.next() }
                    return
                }
            } catch {
                fail(error)
                return
            }
        }
    }

    /// Adds a chunk; parks while the buffer is full. `false` when the pump was stopped.
    private func push(_ chunk: Data) async -> Bool {
        await withCheckedContinuation { continuation in
            condition.lock()
            guard state == .running else {
                condition.unlock()
                continuation.resume(returning: false)
                return
            }
            chunks.append(chunk)
            buffered += chunk.count
            condition.broadcast()
            if buffered < capacity {
                condition.unlock()
                continuation.resume(returning: true)
            } else {
                parkedProducer = continuation
                condition.unlock()
            }
        }
    }

    /// Copies up to `maxLength` bytes into `buffer`, blocking while none are buffered.
    /// - Returns: the number of bytes copied; `0` at the end of the body; `-1` when the body
    ///   failed or the pump was cancelled.
    func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        guard maxLength > 0 else { return 0 }
        condition.lock()
        while head == chunks.count && state == .running {
            condition.wait()
        }
        guard head < chunks.count else {
            let result = state == .finished ? 0 : -1
            condition.unlock()
            return result
        }
        let chunk = chunks[head]
        let count = min(maxLength, chunk.count - offset)
        chunk.withUnsafeBytes { bytes in
            let start = bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: UInt8.self)
            buffer.update(from: start, count: count)
        }
        offset += count
        buffered -= count
        if offset == chunk.count {
            head += 1
            offset = 0
            if head > 16 {  // drop consumed chunks now and then, not on every read
                chunks.removeFirst(head)
                head = 0
            }
        }
        var resumed: CheckedContinuation<Bool, Never>?
        if buffered < capacity {
            resumed = parkedProducer
            parkedProducer = nil
        }
        condition.unlock()
        resumed?.resume(returning: true)
        return count
    }

    /// How long the bound-stream writer waits for the reader to make room before it looks again
    /// (``write(to:)``); a cancellation or failure wakes it at once.
    static let writerSpacePollInterval: TimeInterval = 0.05

    /// Blocks for at most `interval`, or until the pump is cancelled or fails or a chunk arrives.
    /// - Returns: `false` if the pump was cancelled or failed.
    func waitWhileRunning(upTo interval: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if state == .running || state == .finished {
            _ = condition.wait(until: Date(timeIntervalSinceNow: interval))
        }
        return state == .running || state == .finished
    }

    /// Fails the body with a transport failure that says `message` (see ``fail(_:)``).
    func failBody(_ message: String) {
        fail(.transport(TransportFailure(kind: .other, message: message)))
    }

    /// Stops reading ahead and wakes a blocked consumer (which then reads `-1`). Called when the
    /// exchange ends for any reason, and before a cancelled task is stopped.
    func cancel() {
        end(.cancelled)
    }

    /// Records the failure and reports it *before* waking the consumer: the consumer's `-1`
    /// makes libcurl abort at once, and the exchange must already know the body's own error by
    /// then, or the caller would get libcurl's generic one.
    private func fail(_ error: CourierError) {
        condition.lock()
        let first = state == .running
        if first { failure = error }
        condition.unlock()
        if first { onFailure(error) }
        end(.failed)
    }

    private func end(_ newState: State) {
        condition.lock()
        if state == .running || (state == .finished && newState == .cancelled) { state = newState }
        if newState == .cancelled {
            chunks.removeAll()
            head = 0
            offset = 0
            buffered = 0
        }
        let parked = parkedProducer
        parkedProducer = nil
        let task = newState == .cancelled ? producer : nil
        condition.broadcast()
        condition.unlock()
        parked?.resume(returning: false)
        task?.cancel()
    }
}

#if canImport(FoundationNetworking)
    /// Runs body producers on a dispatch queue of their own instead of Swift's cooperative pool.
    ///
    /// A serial queue: libdispatch always gives it a thread, however busy the pool is. Producers
    /// mostly read files in 64 KiB chunks, so one queue for all of them keeps up.
    final class BodyPumpExecutor: TaskExecutor {
        static let shared = BodyPumpExecutor()
        private let queue = DispatchQueue(label: "Courier.BodyPump")

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedTaskExecutor()
            queue.async {
                job.runSynchronously(on: executor)
            }
        }
    }
#endif
