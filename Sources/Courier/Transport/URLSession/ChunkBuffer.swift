import Foundation

/// What a ``ChunkBuffer`` asks of the transfer that fills it.
protocol ChunkProducer: AnyObject, Sendable {
    /// The buffer is full: stop delivering until ``resumeProducing()``.
    func pauseProducing()
    /// The reader has caught up: deliver again.
    func resumeProducing()
    /// Nobody will read the rest: stop the transfer.
    func stopProducing()
}

/// A bounded buffer between a transfer that delivers chunks through callbacks (URLSession's
/// delegate) and the one reader of a streamed ``ResponseBody``.
///
/// Past ``highWater`` buffered bytes it asks the producer to pause; once the reader has taken
/// the buffer down to ``lowWater`` it asks it to resume. A producer that cannot pause spills the
/// backlog to an unlinked temporary file (``SpillFile``).
final class ChunkBuffer: ResponseChunkSource, @unchecked Sendable {
    // So a slow reader holds at most `highWater` bytes plus what the producer delivers before its
    // pause takes effect, whatever the size of the body. A producer that cannot pause (`canPause`
    // false: corelibs URLSession on Linux, where suspending a task mid-transfer removes it from
    // libcurl and the transfer never resumes) keeps delivering; past `highWater` the buffer then
    // writes what the reader has not taken to a SpillFile and reads it back in order. Memory stays
    // bounded; disk holds the backlog of a slow reader.
    //
    // The producer is held weakly: the transfer keeps the buffer alive only through its reader, and
    // a buffer dropped before its end stops the transfer.
    //
    // `@unchecked Sendable`: all mutable state is in `state` or (`spill`, not `Sendable`) used only
    // under `state`'s lock; continuations are resumed and the producer is called outside the lock.

    /// Bytes buffered before the producer is asked to pause.
    static let highWater = 1 << 20
    /// Bytes left in the buffer when the producer is asked to resume.
    static let lowWater = 256 << 10

    typealias Reader = CheckedContinuation<Result<Data?, CourierError>, Never>

    /// The most bytes read back from the spill file at once.
    static let spillReadSize = 256 << 10

    struct State {
        var chunks: [Data] = []
        var first = 0
        var buffered = 0
        /// How the body ended, once it has; the reader drains ``chunks`` first (unless cancelled).
        var end: Result<Void, CourierError>? {
            didSet {
                // Resuming only schedules the waiting task: safe under the lock.
                guard end != nil else { return }
                for waiter in endWaiters { waiter.resume() }
                endWaiters = []
            }
        }
        /// Tasks in ``waitForEnd()``.
        var endWaiters: [CheckedContinuation<Void, Never>] = []
        var reader: Reader?
        var claimed = false
        var producerPaused = false
        /// The most bytes ever buffered in memory at once, and every byte ever spilled, for tests
        /// and the benchmark.
        var peakBuffered = 0
        var spilledTotal = 0

        /// The oldest bytes not yet read, if any, and whether the producer may resume now.
        mutating func pop(lowWater: Int, spill: SpillFile?) -> (Result<Data, CourierError>, resume: Bool)? {
            guard first < chunks.count else {
                guard let spill, spill.unread > 0 else { return nil }
                do throws(CourierError) {
                    guard let data = try spill.read(upTo: ChunkBuffer.spillReadSize) else { return nil }
                    return (.success(data), false)
                } catch {
                    return (.failure(error), false)
                }
            }
            let chunk = chunks[first]
            chunks[first] = Data()
            first += 1
            if first == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                first = 0
            }
            buffered -= chunk.count
            let resume = producerPaused && buffered <= lowWater
            if resume { producerPaused = false }
            return (.success(chunk), resume)
        }

        /// Drops everything buffered in memory.
        mutating func drop() {
            chunks.removeAll()
            first = 0
            buffered = 0
        }
    }

    let state = LockedState(State())
    /// The backlog on disk, for a producer that cannot pause; newer than every chunk in memory.
    /// Used only under `state`'s lock.
    private var spill: SpillFile?
    private weak let producer: (any ChunkProducer)?
    private let highWater: Int
    private let lowWater: Int
    /// Whether the producer honours a pause (else the backlog goes to disk).
    let canPause: Bool

    /// - Parameter canPause: whether the producer honours ``ChunkProducer/pauseProducing()``;
    ///   when it does not, the backlog past `highWater` goes to a temporary file.
    init(producer: any ChunkProducer, canPause: Bool, highWater: Int = ChunkBuffer.highWater, lowWater: Int = ChunkBuffer.lowWater) {
        self.producer = producer
        self.canPause = canPause
        self.highWater = highWater
        self.lowWater = lowWater
    }

    deinit {
        // Dropped before its end (nobody reads it): the transfer stops.
        if state.withLock({ $0.end == nil }) { producer?.stopProducing() }
    }

    // MARK: Producer side

    /// Adds a chunk. Dropped when the body was cancelled.
    func append(_ data: Data) {
        guard !data.isEmpty else { return }
        enum Action { case none, deliver(Reader), pause, failed(CourierError) }
        let action: Action = state.withLock { state in
            guard state.end == nil else { return .none }
            if let reader = state.reader {
                // A reader waits only when nothing is buffered, in memory or on disk.
                state.reader = nil
                return .deliver(reader)
            }
            if (spill?.unread ?? 0) > 0 || (!canPause && state.buffered + data.count > highWater) {
                do throws(CourierError) {
                    let file: SpillFile
                    if let existing = spill {
                        file = existing
                    } else {
                        file = try SpillFile()
                        spill = file
                    }
                    try file.append(data)
                    state.spilledTotal += data.count
                    return .none
                } catch {
                    // No reader waits here (see above); the next read gets the error.
                    state.end = .failure(error)
                    state.drop()
                    spill = nil
                    return .failed(error)
                }
            }
            state.chunks.append(data)
            state.buffered += data.count
            state.peakBuffered = max(state.peakBuffered, state.buffered)
            guard canPause, state.buffered >= highWater, !state.producerPaused else { return .none }
            state.producerPaused = true
            return .pause
        }
        switch action {
        case .none: break
        case .deliver(let reader): reader.resume(returning: .success(data))
        case .pause: producer?.pauseProducing()
        case .failed:
            producer?.stopProducing()
        }
    }

    /// Ends the body: `.success` after the last chunk, or the error that ended the transfer. The
    /// first end wins; the reader gets the chunks buffered before it, then the end.
    func finish(_ end: Result<Void, CourierError>) {
        let reader: Reader? = state.withLock { state in
            guard state.end == nil else { return nil }
            state.end = end
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: end.map { nil })
    }

    // MARK: Reader side

    func claim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    func next() async throws(CourierError) -> Data? {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (reader: Reader) in
                let (ready, resume, stop): (Result<Data?, CourierError>?, Bool, Bool) = state.withLock { state in
                    switch state.pop(lowWater: lowWater, spill: spill) {
                    case (.success(let chunk), let resume)?:
                        return (.success(chunk), resume, false)
                    case (.failure(let error), _)?:
                        // The backlog could not be read back: the body ends with that error.
                        state.end = .failure(error)
                        state.drop()
                        spill = nil
                        return (.failure(error), false, true)
                    case nil:
                        if let end = state.end { return (end.map { nil }, false, false) }
                        state.reader = reader
                        return (nil, false, false)
                    }
                }
                if resume { producer?.resumeProducing() }
                if stop { producer?.stopProducing() }
                if let ready { reader.resume(returning: ready) }
            }
        } onCancel: {
            cancel()
        }
        return try result.get()
    }

    func cancel() {
        let (reader, wasOpen): (Reader?, Bool) = state.withLock { state in
            if case .failure(.cancelled)? = state.end { return (nil, false) }
            let wasOpen = state.end == nil
            state.end = .failure(.cancelled)
            state.drop()
            spill = nil
            defer { state.reader = nil }
            return (state.reader, wasOpen)
        }
        reader?.resume(returning: .failure(.cancelled))
        if wasOpen { producer?.stopProducing() }
    }
}
