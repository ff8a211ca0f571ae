import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A streamed request body whose call is cancelled tells its source so: a caller feeding an
/// `AsyncStream` (and keeping its continuation, as callers do) sees `onTermination`, wherever the
/// cancellation lands, instead of feeding a stream nobody reads any more.
/// Heavy: its 2,000 pumps share the pump executor's queue. The test counts the sources that
/// heard in their `onTermination` and wakes once, when the last one has: beside the other suites
/// on a busy machine, 2,000 sequential wake-ups of the test's own task (one per source) took
/// longer than the minute (629 of 2,000 in CI's busy run; alone, 0.06 s).
@Suite("A cancelled body read tells its source", .heavy, .timeLimit(.minutes(1)))
struct BodySourceCancellationTests {
    /// A single-use body over an `AsyncStream` holding one chunk, with the stream's continuation
    /// (kept by the caller) and whether its `onTermination` ran.
    static func body(chunk: Data, heard: @escaping @Sendable () -> Void) -> (BodyStream, AsyncStream<Data>.Continuation) {
        let (chunks, continuation) = AsyncStream.makeStream(of: Data.self)
        continuation.onTermination = { _ in heard() }
        continuation.yield(chunk)
        return (BodyStream(chunks, length: nil), continuation)
    }

    /// The first chunk a reader of `body` gets in a task of its own, cancelled before it reads
    /// when `cancelledFirst`.
    static func readFirstChunk(of body: BodyStream, cancelledFirst: Bool) async -> Result<Data?, CourierError> {
        await Task { () -> Result<Data?, CourierError> in
            if cancelledFirst { withUnsafeCurrentTask { $0?.cancel() } }
            do throws(CourierError) {
                var reader = try body.makeReader()
                return .success(try await reader.next())
            } catch {
                return .failure(error)
            }
        }.value
    }

    @Test("a reader asked in a cancelled task asks its source first (which ends), then throws cancelled")
    func readerInACancelledTask() async throws {
        let (chunks, continuation) = AsyncStream.makeStream(of: Data.self)
        let ended = LockedState(false)
        continuation.onTermination = { _ in ended.withLock { $0 = true } }
        continuation.yield(Data("abc".utf8))
        let result = await Self.readFirstChunk(of: BodyStream(chunks, length: nil), cancelledFirst: true)
        guard case .failure(.cancelled) = result else {
            Issue.record("expected cancelled, got \(result)")
            return
        }
        // The stream's onTermination runs inside `next()`, before it returns.
        #expect(ended.withLock { $0 })
        withExtendedLifetime(continuation) {}
    }

    /// A source that cancels the task reading it while it answers: the cancellation lands
    /// between its chunk and the reader's next look at the task.
    struct CancellingSequence: AsyncSequence, Sendable {
        let asked: LockedState<[Bool]>  // whether the task was cancelled at each call

        struct AsyncIterator: AsyncIteratorProtocol {
            let asked: LockedState<[Bool]>
            mutating func next() async -> Data? {
                let cancelled = Task.isCancelled
                asked.withLock { $0.append(cancelled) }
                if !cancelled { withUnsafeCurrentTask { $0?.cancel() } }
                return Data("chunk".utf8)
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(asked: asked) }
    }

    @Test("a reader cancelled just after its source answered asks the source once more, in the cancelled task, then throws cancelled")
    func cancelledAfterTheSourceAnswered() async throws {
        let asked = LockedState<[Bool]>([])
        let result = await Self.readFirstChunk(of: BodyStream(CancellingSequence(asked: asked), length: nil), cancelledFirst: false)
        guard case .failure(.cancelled) = result else {
            Issue.record("expected cancelled, got \(result)")
            return
        }
        #expect(asked.withLock { $0 } == [false, true])
    }

    @Test("2,000 pumps cancelled at different points (not started, parked on a full buffer, waiting for a chunk): every source hears it")
    func everyCancelledPumpTellsItsSource() async throws {
        let count = 2000
        var kept: [AsyncStream<Data>.Continuation] = []
        var pumps: [BodyPump] = []
        let heard = LockedState(0)
        let (allHeard, last) = AsyncStream.makeStream(of: Void.self)
        for index in 0..<count {
            // Chunks of 8 bytes into a buffer of 4 (the producer parks once it pushed one), or of
            // 2 (it pushes, then waits in the stream for a second chunk).
            let chunk = Data(repeating: 7, count: index.isMultiple(of: 2) ? 8 : 2)
            let (body, continuation) = Self.body(chunk: chunk) {
                let total = heard.withLock { heard in
                    heard += 1
                    return heard
                }
                if total == count { last.finish() }
            }
            kept.append(continuation)
            pumps.append(BodyPump(stream: body, capacity: 4) { _ in })
        }
        // No waits to place the cancellations (a yield is slow on a busy pool): a third are
        // cancelled as they start, most before their producer ran; the rest once all started,
        // the earliest most likely parked or waiting by then, the latest anywhere.
        for (index, pump) in pumps.enumerated() {
            pump.start()
            if index.isMultiple(of: 3) { pump.cancel() }
        }
        for (index, pump) in pumps.enumerated() where !index.isMultiple(of: 3) {
            pump.cancel()
        }
        // Ends when the last source heard, or when the time limit cancels the test.
        for await _ in allHeard {}
        #expect(heard.withLock { $0 } == count)
        withExtendedLifetime(kept) {}
    }
}
