import Foundation

/// How far an upload or a download has come.
///
/// Courier reports it through ``TransferProgressUpdates`` only: ``Call/uploadProgress``,
/// ``Call/downloadProgress`` and ``Download/progress``. Values of one transfer never go backwards, at most about 20 arrive per second, and the last one of a
/// transfer that succeeded counts every byte of the body.
///
/// ```swift
/// let call = client.enqueue(UploadVideo(file: movie)).withProgress()
/// Task {
///     for await progress in call.uploadProgress {
///         print("\(progress.completedBytes) of \(progress.expectedBytes ?? -1) bytes")
///     }
/// }
/// let response = try await call.resume()
/// ```
public struct TransferProgress: Sendable, Equatable, CustomStringConvertible {
    /// Which way the bytes go.
    public enum Direction: String, Sendable, Equatable {
        /// The request body, counted as the transport reads it.
        case upload
        /// The response body, counted as it arrives (for a download to disk: as it is written).
        case download
    }

    /// Which way the bytes go.
    public var direction: Direction
    /// The bytes sent or received so far. A resumed download counts the bytes already on disk.
    public var completedBytes: Int64
    /// The size of the whole body, when known (a `Content-Length`, a file's size, a
    /// `Content-Range` total); `nil` otherwise.
    public var expectedBytes: Int64?

    /// Creates a progress value, for tests and for code that forwards progress of its own.
    public init(direction: Direction, completedBytes: Int64, expectedBytes: Int64? = nil) {
        self.direction = direction
        self.completedBytes = completedBytes
        self.expectedBytes = expectedBytes
    }

    /// `completedBytes / expectedBytes` in `0...1`, or `nil` when the size is not known. An empty
    /// body is complete: `1`.
    public var fraction: Double? {
        guard let expectedBytes else { return nil }
        guard expectedBytes > 0 else { return 1 }
        return Swift.min(1, Double(completedBytes) / Double(expectedBytes))
    }

    /// E.g. `download 1048576/4194304 bytes (25%)`.
    public var description: String {
        let total = expectedBytes.map { "/\($0)" } ?? ""
        let percent = fraction.map { " (\(Int(($0 * 100).rounded(.down)))%)" } ?? ""
        return "\(direction.rawValue) \(completedBytes)\(total) bytes\(percent)"
    }
}

/// The progress of one transfer as an `AsyncSequence`: it exists before the request starts, so
/// no event is missed, and it ends when the transfer ends (after a final value counting the
/// whole body when it succeeded; without one when it failed).
///
/// Values are throttled (at most one per 50 ms, plus the first and the last) and never go
/// backwards, even across a retry or a resumed download. A slow reader does not slow the
/// transfer: values wait in the sequence's buffer, which stays small because of the throttle.
///
/// ```swift
/// let download = client.enqueue(GetImage()).makeDownload(to: destination)
/// Task { @MainActor in for await progress in download.progress { bar.value = progress.fraction ?? 0 } }
/// await download.start()
/// let file = try await download.finished()
/// ```
public struct TransferProgressUpdates: AsyncSequence, Sendable {
    /// A progress value.
    public typealias Element = TransferProgress
    /// The sequence never throws: a failed transfer just ends it.
    public typealias Failure = Never

    let stream: AsyncStream<TransferProgress>

    /// Starts reading the values. Read it from one task: the values are not shared between
    /// iterators.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator())
    }

    /// Reads the values in order.
    public struct Iterator: AsyncIteratorProtocol {
        /// The sequence never throws.
        public typealias Failure = Never

        var base: AsyncStream<TransferProgress>.Iterator

        /// The next value, or `nil` once the transfer ended.
        public mutating func next() async -> TransferProgress? {
            await base.next()
        }

        /// ``next()``, from `actor`'s isolation.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        public mutating func next(isolation actor: isolated (any Actor)?) async -> TransferProgress? {
            await base.next(isolation: actor)
        }
    }
}

/// Where one transfer's progress goes: a ``TransferProgressUpdates`` sequence.
///
/// It exists only when someone listens: a transfer nobody observes has no meter and pays for
/// nothing. It keeps the values monotonic (a replayed upload or a resumed download does not
/// go back), throttles them (at most one per ``interval``; a value held back is delivered when
/// the interval is over, so a stalled transfer still shows what it has), and ends the sequence
/// once.
final class ProgressMeter: Sendable {
    /// The shortest time between two reported values (the first and the last excepted): 20 a second.
    static let interval: Duration = .milliseconds(50)

    let direction: TransferProgress.Direction
    private let continuation: AsyncStream<TransferProgress>.Continuation
    private let state = LockedState(State())

    private struct State {
        var reported: Int64 = -1
        var expected: Int64?
        var ended = false
        var lastReport: ContinuousClock.Instant?
        /// A value held back by the throttle, and whether a delivery of it is scheduled.
        var pending: Int64?
        var flushScheduled = false
    }

    private init(direction: TransferProgress.Direction, continuation: AsyncStream<TransferProgress>.Continuation) {
        self.direction = direction
        self.continuation = continuation
    }

    /// A meter feeding a new sequence, returned with it.
    static func makeUpdates(_ direction: TransferProgress.Direction) -> (TransferProgressUpdates, ProgressMeter) {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .unbounded)
        return (TransferProgressUpdates(stream: stream), ProgressMeter(direction: direction, continuation: continuation))
    }

    /// Reports `completed` bytes of `expected`, unless it is not past what was already reported
    /// (the first value always is) or the transfer ended. Unless `force`, a value within the
    /// interval after the last one is held back and delivered at the interval's end (if nothing
    /// newer was reported by then).
    func update(_ completed: Int64, of expected: Int64?, force: Bool) {
        let flushAt: ContinuousClock.Instant? = state.withLock { state in
            guard !state.ended, completed > state.reported else { return nil }
            if let expected { state.expected = expected }
            let now = ContinuousClock.now
            if !force, let last = state.lastReport, now < last.advanced(by: Self.interval) {
                state.pending = completed
                guard !state.flushScheduled else { return nil }
                state.flushScheduled = true
                return last.advanced(by: Self.interval)
            }
            deliver(completed, at: now, in: &state)
            return nil
        }
        if let flushAt { scheduleFlush(at: flushAt) }
    }

    private func scheduleFlush(at deadline: ContinuousClock.Instant) {
        Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            self.flush()
        }
    }

    /// Delivers the value held back, if it is still news, once the interval since the last
    /// value is over (a value may have been reported since the flush was scheduled).
    private func flush() {
        let later: ContinuousClock.Instant? = state.withLock { state in
            guard !state.ended, let pending = state.pending, pending > state.reported else {
                state.flushScheduled = false
                return nil
            }
            let now = ContinuousClock.now
            if let last = state.lastReport, now < last.advanced(by: Self.interval) { return last.advanced(by: Self.interval) }
            state.flushScheduled = false
            deliver(pending, at: now, in: &state)
            return nil
        }
        if let later { scheduleFlush(at: later) }
    }

    /// Records and delivers a value. Under the lock, so that two deliveries (a flush and the
    /// transfer's last value) can never reach the reader out of order.
    private func deliver(_ completed: Int64, at now: ContinuousClock.Instant, in state: inout State) {
        state.reported = completed
        state.lastReport = now
        state.pending = nil
        let progress = TransferProgress(direction: direction, completedBytes: completed, expectedBytes: state.expected)
        continuation.yield(progress)
    }

    /// Whether ``end()`` was called.
    var hasEnded: Bool { state.withLock { $0.ended } }

    /// Ends the sequence; later values are dropped. Calling it again does nothing.
    func end() {
        let first = state.withLock { state in
            defer { state.ended = true }
            return !state.ended
        }
        if first { continuation.finish() }
    }
}

/// One reader's way into a ``ProgressMeter``: nothing at all without one.
struct ProgressTicker {
    let meter: ProgressMeter?

    init(_ meter: ProgressMeter?) {
        self.meter = meter
    }

    /// Reports `completed` bytes, throttled.
    func advance(to completed: Int64, of expected: Int64?) {
        meter?.update(completed, of: expected, force: false)
    }

    /// Reports `completed` bytes now: the first value or the last.
    func force(_ completed: Int64, of expected: Int64?) {
        meter?.update(completed, of: expected, force: true)
    }
}

/// Counts the chunks of one pass over a body into a ``ProgressTicker``: 0 before the first
/// chunk, the count after each (throttled), and the total at once when it reaches `expected` (a
/// transport that knows the length may never ask for the end) or when the body ends.
struct ChunkCounter {
    var ticker: ProgressTicker
    let expected: Int64?
    private(set) var count: Int64 = 0
    private var started = false

    init(ticker: ProgressTicker, expected: Int64?) {
        self.ticker = ticker
        self.expected = expected
    }

    /// Reports the start once, before any chunk is awaited.
    mutating func start() {
        guard !started else { return }
        started = true
        ticker.force(0, of: expected)
    }

    /// Counts `chunk` (`nil`: the end) and hands it back.
    mutating func counted(_ chunk: Data?) -> Data? {
        guard let chunk else {
            ticker.force(count, of: expected)
            return nil
        }
        count += Int64(chunk.count)
        if let expected, count >= expected {
            ticker.force(count, of: expected)
        } else {
            ticker.advance(to: count, of: expected)
        }
        return chunk
    }
}
