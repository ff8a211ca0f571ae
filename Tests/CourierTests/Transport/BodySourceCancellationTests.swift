import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A streamed request body whose call is cancelled tells its source so: a caller feeding an
/// `AsyncStream` (and keeping its continuation, as callers do) sees `onTermination`, wherever the
/// cancellation lands, instead of feeding a stream nobody reads any more.
/// Heavy: its 2,000 pumps share the pump executor's queue, and beside the other suites of an
/// AddressSanitizer run on a slow machine they did not all finish within the minute (1,702 of
/// 2,000 heard after 77 s; alone, under the same sanitizer, the suite takes 0.06 s).
@Suite("A cancelled body read tells its source", .heavy, .timeLimit(.minutes(1)))
struct BodySourceCancellationTests {
    /// A single-use body over an `AsyncStream` holding one chunk, with the stream's continuation
    /// (kept by the caller) and whether its `onTermination` ran.
    static func body(chunk: Data) -> (BodyStream, AsyncStream<Data>.Continuation, terminated: AsyncStream<Void>) {
        let (chunks, continuation) = AsyncStream.makeStream(of: Data.self)
        let (terminated, signal) = AsyncStream.makeStream(of: Void.self)
        continuation.onTermination = { _ in signal.finish() }
        continuation.yield(chunk)
        return (BodyStream(chunks, length: nil), continuation, terminated)
    }

    @Test("a reader asked in a cancelled task asks its source first (which ends), then throws cancelled")
    func readerInACancelledTask() async throws {
        let (chunks, continuation) = AsyncStream.makeStream(of: Data.self)
        let ended = LockedState(false)
        continuation.onTermination = { _ in ended.withLock { $0 = true } }
        continuation.yield(Data("abc".utf8))
        let body = BodyStream(chunks, length: nil)
        let read = Task { () -> Result<Data?, CourierError> in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(CourierError) {
                var reader = try body.makeReader()
                return .success(try await reader.next())
            } catch {
                return .failure(error)
            }
        }
        guard case .failure(.cancelled) = await read.value else {
            Issue.record("expected cancelled, got \(await read.value)")
            return
        }
        // The stream's onTermination runs inside `next()`, before it returns.
        #expect(ended.withLock { $0 })
        withExtendedLifetime(continuation) {}
    }

    @Test("2,000 pumps cancelled at different points (not started, parked on a full buffer, waiting for a chunk): every source hears it")
    func everyCancelledPumpTellsItsSource() async throws {
        let count = 2000
        var kept: [AsyncStream<Data>.Continuation] = []
        var signals: [AsyncStream<Void>] = []
        var pumps: [BodyPump] = []
        for index in 0..<count {
            // Chunks of 8 bytes into a buffer of 4 (the producer parks once it pushed one), or of
            // 2 (it pushes, then waits in the stream for a second chunk).
            let (body, continuation, terminated) = Self.body(chunk: Data(repeating: 7, count: index.isMultiple(of: 2) ? 8 : 2))
            kept.append(continuation)
            signals.append(terminated)
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
        var heard = 0
        for terminated in signals {
            for await _ in terminated {}
            if Task.isCancelled { break }  // the time limit ended the wait, not the stream
            heard += 1
        }
        #expect(heard == count)
        withExtendedLifetime(kept) {}
    }
}
