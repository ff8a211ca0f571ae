import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The writer that fills the bound stream pair Apple platforms' URLSession reads a streamed body
/// from (`BodyPump.write(to:)`). It is compiled on every platform and tested here against an
/// `OutputStream` that behaves like the write half of a bound pair: `write` blocks while the
/// reader has not made room.
@Suite("Bound-stream body writer")
struct BoundStreamWriterTests {
    /// An output stream whose reader takes bytes when ``makeRoom()`` is called, or always.
    final class PairedOutputStream: OutputStream {
        private let condition = NSCondition()
        private var received = Data()
        private var isOpen = false
        private var closed = false
        private var room: Bool
        private var spaceQueries = 0
        private var spaceWatcher: CheckedContinuation<Void, Never>?

        /// - Parameter alwaysRoom: whether the reader keeps up, so writes never wait.
        init(alwaysRoom: Bool) {
            room = alwaysRoom
            super.init(toMemory: ())
        }

        required init(toMemory: ()) {
            room = true
            super.init(toMemory: ())
        }

        override func open() {
            condition.withLock { isOpen = true }
        }

        override func close() {
            condition.withLock {
                closed = true
                condition.broadcast()
            }
        }

        override var streamStatus: Stream.Status {
            condition.withLock { closed ? .closed : isOpen ? .open : .notOpen }
        }

        override var hasSpaceAvailable: Bool {
            let (hasRoom, watcher) = condition.withLock { () -> (Bool, CheckedContinuation<Void, Never>?) in
                spaceQueries += 1
                defer { spaceWatcher = nil }
                return (room, spaceWatcher)
            }
            watcher?.resume()
            return hasRoom
        }

        /// Blocks while there is no room, as a bound pair's write half does.
        override func write(_ buffer: UnsafePointer<UInt8>, maxLength length: Int) -> Int {
            condition.lock()
            defer { condition.unlock() }
            while !room && !closed { condition.wait() }
            if closed { return -1 }
            received.append(buffer, count: length)
            return length
        }

        /// Returns once the writer has asked whether there is room.
        func waitForSpaceQuery() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = condition.withLock { () -> Bool in
                    if spaceQueries > 0 { return true }
                    spaceWatcher = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        }

        var bytes: Data { condition.withLock { received } }
        var isClosed: Bool { condition.withLock { closed } }
    }

    static func body(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    }

    /// `data` as a stream of 16 KiB chunks; replayable like a file, or single-use like a sequence.
    static func stream(_ data: Data, replayable: Bool = true) -> BodyStream {
        BodyStream(length: Int64(data.count), isReplayable: replayable) { () throws(CourierError) -> any ChunkSource in
            MemoryChunks(data: data)
        }
    }

    struct MemoryChunks: ChunkSource {
        let data: Data
        var offset = 0

        mutating func next() async throws(CourierError) -> Data? {
            guard offset < data.count else { return nil }
            let end = min(offset + 16 << 10, data.count)
            defer { offset = end }
            return data.subdata(in: offset..<end)
        }
    }

    /// Starts `pump`'s writer into `output` and returns a function that waits for it to stop.
    static func startWriter(_ pump: BodyPump, into output: PairedOutputStream) -> @Sendable () async -> Void {
        let (exited, continuation) = AsyncStream.makeStream(of: Void.self)
        pump.start()
        pump.startWriter(to: output) { continuation.finish() }
        return {
            for await _ in exited {}
        }
    }

    @Test func theWriterCopiesTheWholeBodyAndThenClosesTheStream() async throws {
        let body = Self.body(300_000)
        let pump = BodyPump(stream: Self.stream(body), capacity: 64 << 10) { _ in }
        let output = PairedOutputStream(alwaysRoom: true)
        await Self.startWriter(pump, into: output)()
        #expect(output.bytes == body)
        #expect(output.isClosed)
    }

    /// A reader that stopped reading (the task was cancelled) must not keep the writer thread
    /// blocked in `write` for good: cancelling the pump ends it.
    @Test(.timeLimit(.minutes(1)))
    func aWriterWaitingForTheReaderStopsWhenThePumpIsCancelled() async throws {
        let pump = BodyPump(stream: Self.stream(Self.body(300_000)), capacity: 64 << 10) { _ in }
        let output = PairedOutputStream(alwaysRoom: false)
        let waitForExit = Self.startWriter(pump, into: output)
        await output.waitForSpaceQuery()
        pump.cancel()
        await waitForExit()
        #expect(output.bytes.isEmpty)
        #expect(output.isClosed)
    }

    /// A reader that closed its half stops the writer and the pump.
    @Test(.timeLimit(.minutes(1)))
    func aWriterWhoseStreamClosesStopsAndCancelsThePump() async throws {
        let pump = BodyPump(stream: Self.stream(Self.body(300_000)), capacity: 64 << 10) { _ in }
        let output = PairedOutputStream(alwaysRoom: false)
        let waitForExit = Self.startWriter(pump, into: output)
        await output.waitForSpaceQuery()
        output.close()
        await waitForExit()
        var byte: UInt8 = 0
        #expect(pump.read(into: &byte, maxLength: 1) == -1)
    }
}
