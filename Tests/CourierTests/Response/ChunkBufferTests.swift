import Foundation
import Testing

@testable import Courier

/// Records what a ``ChunkBuffer`` asks of its producer.
final class RecordingProducer: ChunkProducer, @unchecked Sendable {
    private let calls = LockedState([String]())
    var log: [String] { calls.withLock { $0 } }
    func pauseProducing() { calls.withLock { $0.append("pause") } }
    func resumeProducing() { calls.withLock { $0.append("resume") } }
    func stopProducing() { calls.withLock { $0.append("stop") } }
}

@Suite("ChunkBuffer: a bounded buffer between a callback producer and one reader")
struct ChunkBufferTests {
    /// `count` bytes where byte `i` is `i % 251`, starting at `offset`.
    static func pattern(_ count: Int, from offset: Int = 0) -> Data {
        Data((0..<count).map { UInt8((offset + $0) % 251) })
    }

    @Test func theProducerIsPausedAtTheHighWaterMarkAndResumedAtTheLowWaterMark() async throws {
        let producer = RecordingProducer()
        let buffer = ChunkBuffer(producer: producer, canPause: true, highWater: 100, lowWater: 40)
        for _ in 0..<5 { buffer.append(Data(count: 20)) }  // 100 bytes: full
        #expect(producer.log == ["pause"])
        #expect(buffer.isProducerPaused)
        buffer.append(Data(count: 20))  // what arrives before the pause takes effect is kept
        #expect(producer.log == ["pause"])
        #expect(buffer.peakBufferedBytes == 120)
        for _ in 0..<3 { _ = try await buffer.next() }  // 60 left: above the low-water mark
        #expect(producer.log == ["pause"])
        _ = try await buffer.next()  // 40 left
        #expect(producer.log == ["pause", "resume"])
        #expect(!buffer.isProducerPaused)
    }

    @Test(
        "waitForEnd returns once the body ends (finished, failed or cancelled) for every waiter, and at once after the end",
        arguments: ["finish", "fail", "cancel"])
    func waitForEndFollowsTheEnd(_ ending: String) async throws {
        let buffer = ChunkBuffer(producer: RecordingProducer(), canPause: true, highWater: 100, lowWater: 40)
        let returned = LockedState(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    await buffer.waitForEnd()
                    returned.withLock { $0 += 1 }
                }
            }
            buffer.append(Data(count: 10))
            #expect(returned.withLock { $0 } == 0)
            switch ending {
            case "finish": buffer.finish(.success(()))
            case "fail": buffer.finish(.failure(.transport(TransportFailure(kind: .connectionLost, message: "gone"))))
            default: buffer.cancel()
            }
            try await group.waitForAll()
        }
        #expect(returned.withLock { $0 } == 100)
        await buffer.waitForEnd()
    }

    @Test func aProducerThatCannotPauseHasItsBacklogSpilledToDiskAndReadBackInOrder() async throws {
        let producer = RecordingProducer()
        let buffer = ChunkBuffer(producer: producer, canPause: false, highWater: 1000, lowWater: 100)
        var offset = 0
        for size in [300, 300, 300, 300, 7, 1, 2000, 50] {
            buffer.append(Self.pattern(size, from: offset))
            offset += size
        }
        buffer.finish(.success(()))
        #expect(producer.log.isEmpty, "never asked to pause: it cannot")
        #expect(buffer.peakBufferedBytes <= 1000)
        #expect(buffer.spilledBytes == offset - 900)
        var read = Data()
        while let chunk = try await buffer.next() { read.append(chunk) }
        #expect(read == Self.pattern(offset))
    }

    @Test func memoryIsUsedAgainOnceTheSpilledBacklogHasBeenRead() async throws {
        let buffer = ChunkBuffer(producer: RecordingProducer(), canPause: false, highWater: 10, lowWater: 0)
        buffer.append(Self.pattern(10))
        buffer.append(Self.pattern(5, from: 10))  // spilled
        #expect(buffer.spilledBytes == 5)
        #expect(try await buffer.next() == Self.pattern(10))
        #expect(try await buffer.next() == Self.pattern(5, from: 10))
        buffer.append(Self.pattern(3, from: 15))  // the backlog is empty: back to memory
        #expect(buffer.spilledBytes == 5)
        #expect(buffer.bufferedBytes == 3)
        #expect(try await buffer.next() == Self.pattern(3, from: 15))
    }

    @Test func chunksBufferedBeforeAFailureAreReadBeforeIt() async throws {
        let buffer = ChunkBuffer(producer: RecordingProducer(), canPause: true)
        buffer.append(Data("ab".utf8))
        buffer.finish(.failure(.transport(TransportFailure(kind: .connectionLost))))
        buffer.finish(.success(()))  // the first end wins
        #expect(try await buffer.next() == Data("ab".utf8))
        await #expect(throws: CourierError.self) { try await buffer.next() }
    }

    @Test func cancellingDropsTheBufferWakesTheReaderAndStopsTheProducer() async throws {
        let producer = RecordingProducer()
        let buffer = ChunkBuffer(producer: producer, canPause: true)
        let reader = Task { () -> Result<Data?, CourierError> in
            do throws(CourierError) {
                return .success(try await buffer.next())
            } catch {
                return .failure(error)
            }
        }
        // The reader may or may not be waiting yet: either way it ends cancelled.
        buffer.cancel()
        guard case .failure(.cancelled) = await reader.value else {
            Issue.record("the reader must end cancelled")
            return
        }
        buffer.append(Data("late".utf8))  // dropped
        #expect(buffer.bufferedBytes == 0)
        #expect(producer.log == ["stop"])
        buffer.cancel()
        #expect(producer.log == ["stop"], "stopped once")
    }

    @Test func aBufferDroppedBeforeItsEndStopsTheProducerAndOneDroppedAfterDoesNot() {
        let producer = RecordingProducer()
        do {
            let buffer = ChunkBuffer(producer: producer, canPause: true)
            buffer.append(Data("x".utf8))
        }
        #expect(producer.log == ["stop"])
        let finished = RecordingProducer()
        do {
            let buffer = ChunkBuffer(producer: finished, canPause: true)
            buffer.finish(.success(()))
        }
        #expect(finished.log.isEmpty)
    }

    @Test func cancellingTheReadingTaskEndsTheReadAsCancelledAndStopsTheProducer() async throws {
        let producer = RecordingProducer()
        let buffer = ChunkBuffer(producer: producer, canPause: true)
        let reader = Task { () -> CourierError? in
            do throws(CourierError) {
                while try await buffer.next() != nil {}
                return nil
            } catch {
                return error
            }
        }
        reader.cancel()
        guard case .cancelled? = await reader.value else {
            Issue.record("expected .cancelled")
            return
        }
        #expect(producer.log == ["stop"])
    }

    @Test("10,000 chunks appended from another thread while the reader reads: every byte once, in order")
    func aConcurrentProducerAndReaderLoseNothing() async throws {
        let producer = RecordingProducer()
        let buffer = ChunkBuffer(producer: producer, canPause: false, highWater: 64 << 10, lowWater: 16 << 10)
        let chunks = 10_000
        let size = 97
        let thread = Thread {
            for index in 0..<chunks { buffer.append(Self.pattern(size, from: index * size)) }
            buffer.finish(.success(()))
        }
        thread.start()
        var read = Data()
        while let chunk = try await buffer.next() { read.append(chunk) }
        #expect(read.count == chunks * size)
        #expect(read == Self.pattern(chunks * size))
        #expect(buffer.peakBufferedBytes <= 64 << 10)
    }
}
