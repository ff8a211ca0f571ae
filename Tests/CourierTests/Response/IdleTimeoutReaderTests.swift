import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Chunks the test feeds; `asked` gets an element each time the body's reader asks for the next
/// one, so a test knows the reader is waiting on the network before it moves the clock.
struct ObservedChunks: AsyncSequence, Sendable {
    let chunks: AsyncStream<Data>
    let askedFeed: AsyncStream<Void>.Continuation

    struct AsyncIterator: AsyncIteratorProtocol {
        var inner: AsyncStream<Data>.Iterator
        let askedFeed: AsyncStream<Void>.Continuation

        mutating func next() async -> Data? {
            askedFeed.yield()
            return await inner.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inner: chunks.makeAsyncIterator(), askedFeed: askedFeed) }

    /// A body of these chunks stopped when idle, the feed, and the stream of the reader's asks.
    static func idleWatchedBody(
        timeout: Duration, clock: some Clock<Duration>
    ) -> (body: ResponseBody, feed: AsyncStream<Data>.Continuation, asked: AsyncStream<Void>) {
        let (chunks, feed) = AsyncStream.makeStream(of: Data.self)
        let (asked, askedFeed) = AsyncStream.makeStream(of: Void.self)
        let body = ResponseBody(ObservedChunks(chunks: chunks, askedFeed: askedFeed)).stoppingWhenIdle(for: timeout, clock: clock, url: nil)
        return (body, feed, asked)
    }
}

@Suite("Hardening III: the idle timeout measures the network, not the reader")
struct IdleTimeoutReaderTests {
    /// Defect 7: activity was recorded when the caller took a chunk, so a reader that spent
    /// longer than the timeout on one event lost the next, which had already arrived.
    @Test("a reader that works longer than the idle timeout on a chunk still gets the next one, which had arrived")
    func aSlowReaderIsNotIdle() async throws {
        let clock = TestClock()
        let (body, feed, _) = ObservedChunks.idleWatchedBody(timeout: .milliseconds(300), clock: clock)
        var reader = body.makeAsyncIterator()
        feed.yield(Data("first".utf8))
        feed.yield(Data("second".utf8))
        #expect(try await reader.next() == Data("first".utf8))
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(700))  // the reader works on "first" for 700 ms
        #expect(try await reader.next() == Data("second".utf8))
        feed.finish()
        #expect(try await reader.next() == nil)
    }

    @Test("a reader waiting while nothing arrives still times out")
    func aWaitingReaderTimesOut() async throws {
        let clock = TestClock()
        let (body, feed, asked) = ObservedChunks.idleWatchedBody(timeout: .milliseconds(300), clock: clock)
        let reader = Task { () -> CourierError? in
            do throws(CourierError) {
                for try await _ in body {}
                return nil
            } catch {
                return error
            }
        }
        var asks = asked.makeAsyncIterator()
        await asks.next()  // the reader waits on the network
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(300))
        feed.finish()  // what a cancelled transfer hands over last: the end, read once the idle time ran out
        let error = await reader.value
        guard case .transport(let failure)? = error else {
            Issue.record("expected a timed-out failure, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .timedOut)
    }
}
