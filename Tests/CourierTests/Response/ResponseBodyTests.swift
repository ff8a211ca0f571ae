import Foundation
import Testing

@testable import Courier

/// A chunk source for tests: yields `chunks` (then, when given, fails with `failure`), counts
/// the reads and remembers a cancellation.
final class ScriptedChunks: ResponseChunkSource, @unchecked Sendable {
    private let state: LockedState<(chunks: [Data], claimed: Bool, cancelled: Bool, reads: Int)>
    private let failure: CourierError?
    /// Whether the chunks never end (each read returns the last chunk again).
    private let endless: Bool

    init(_ chunks: [Data], failure: CourierError? = nil, endless: Bool = false) {
        state = LockedState((chunks, false, false, 0))
        self.failure = failure
        self.endless = endless
    }

    var wasCancelled: Bool { state.withLock { $0.cancelled } }
    var reads: Int { state.withLock { $0.reads } }

    func claim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    func next() async throws(CourierError) -> Data? {
        let (chunk, cancelled): (Data?, Bool) = state.withLock { state in
            state.reads += 1
            if state.cancelled { return (nil, true) }
            if endless, let last = state.chunks.last { return (last, false) }
            return (state.chunks.isEmpty ? nil : state.chunks.removeFirst(), false)
        }
        if cancelled { throw .cancelled }
        if let chunk { return chunk }
        if let failure { throw failure }
        return nil
    }

    func cancel() {
        state.withLock { $0.cancelled = true }
    }
}

@Suite("ResponseBody: whole and streamed bodies, one reader, collected up to a limit")
struct ResponseBodyTests {
    static let url = URL(string: "https://api.example.com/items")!

    @Test func aWholeBodyCanBeReadAnyNumberOfTimes() async throws {
        let body = ResponseBody(Data("hello".utf8))
        #expect(body.expectedLength == 5)
        #expect(try await body.collect(upTo: nil) == Data("hello".utf8))
        var chunks: [Data] = []
        for try await chunk in body { chunks.append(chunk) }
        #expect(chunks == [Data("hello".utf8)])
        #expect(try await body.collect(upTo: 5) == Data("hello".utf8))
    }

    @Test func anEmptyWholeBodyYieldsNoChunk() async throws {
        var count = 0
        for try await _ in ResponseBody() { count += 1 }
        #expect(count == 0)
    }

    @Test func aStreamedBodyHasOneReaderAndASecondOneFailsInsteadOfSeeingNothing() async throws {
        let body = ResponseBody(source: ScriptedChunks([Data("ab".utf8), Data("cd".utf8)]), expectedLength: nil)
        #expect(try await body.collect(upTo: nil) == Data("abcd".utf8))
        await #expect(throws: CourierError.self) { try await body.collect(upTo: nil) }
        var iterator = body.makeAsyncIterator()
        do {
            _ = try await iterator.next()
            Issue.record("a second reader must fail")
        } catch {
            guard case .transport(let failure) = error else {
                Issue.record("expected a transport failure, got \(error)")
                return
            }
            #expect(failure.message?.contains("already read") == true)
        }
    }

    @Test func aBodyAnnouncedPastTheLimitFailsBeforeAnythingIsReadAndStopsTheTransfer() async throws {
        let source = ScriptedChunks([Data(count: 10)])
        let body = ResponseBody(source: source, expectedLength: 10)
        let response = StreamedResponse(status: .ok, body: body, url: Self.url)
        do {
            _ = try await response.collect(upTo: 9)
            Issue.record("must fail")
        } catch {
            guard case .transport(let failure) = error, failure.kind == .responseTooLarge else {
                Issue.record("expected responseTooLarge, got \(error)")
                return
            }
            #expect(failure.url == Self.url)
        }
        #expect(source.reads == 0)
        #expect(source.wasCancelled)
    }

    @Test(arguments: [1, 100, 4096])
    func anEndlessBodyIsReadOnlyUpToTheLimit(chunkSize: Int) async throws {
        let source = ScriptedChunks([Data(count: chunkSize)], endless: true)
        let body = ResponseBody(source: source, expectedLength: nil)
        let limit = 64 << 10
        await #expect(throws: CourierError.self) { try await body.collect(upTo: limit) }
        // Every chunk read fit under the limit, except the one that crossed it.
        #expect(source.reads == limit / chunkSize + 1)
        #expect(source.wasCancelled)
    }

    @Test func aBodyExactlyAtTheLimitIsAccepted() async throws {
        let body = ResponseBody(source: ScriptedChunks([Data(count: 3), Data(count: 4)]), expectedLength: nil)
        #expect(try await body.collect(upTo: 7).count == 7)
    }

    @Test func aFailureAfterSomeChunksEndsTheCollectionWithThatFailure() async throws {
        let lost = CourierError.transport(TransportFailure(kind: .connectionLost))
        let body = ResponseBody(source: ScriptedChunks([Data(count: 3)], failure: lost), expectedLength: nil)
        do {
            _ = try await body.collect(upTo: nil)
            Issue.record("must fail")
        } catch {
            guard case .transport(let failure) = error else {
                Issue.record("expected the transport failure, got \(error)")
                return
            }
            #expect(failure.kind == .connectionLost)
        }
    }

    @Test func aSequenceIsWrappedAndItsNonCourierErrorsBecomeConnectionLost() async throws {
        struct Broken: Error {}
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        continuation.yield(Data("ab".utf8))
        continuation.finish(throwing: Broken())
        let body = ResponseBody(stream, expectedLength: nil)
        var received = Data()
        do {
            for try await chunk in body { received.append(chunk) }
            Issue.record("must fail")
        } catch {
            guard case .transport(let failure) = error else {
                Issue.record("expected a transport failure, got \(error)")
                return
            }
            #expect(failure.kind == .connectionLost)
        }
        #expect(received == Data("ab".utf8))
    }

    @Test func wrappingAWholeBodyWithTheSameLengthKeepsItWhole() {
        let body = ResponseBody(Data("abc".utf8))
        #expect(ResponseBody(body, expectedLength: 3).wholeData == Data("abc".utf8))
        #expect(ResponseBody(body, expectedLength: nil).wholeData == nil)
    }

    @Test func aStreamedResponseCollectsIntoAResponseWithTheSameHead() async throws {
        let streamed = StreamedResponse(
            status: .created, headers: [.contentType: "text/plain"],
            body: ResponseBody(source: ScriptedChunks([Data("a".utf8), Data("b".utf8)]), expectedLength: 2), url: Self.url)
        let response = try await streamed.collect(upTo: nil)
        #expect(response.statusCode == 201)
        #expect(response.headerValue(for: "Content-Type") == "text/plain")
        #expect(response.body == Data("ab".utf8))
        #expect(response.url == Self.url)
    }
}
