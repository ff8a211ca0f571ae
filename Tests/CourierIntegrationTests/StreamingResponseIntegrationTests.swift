import CourierTesting
import FlyingFox
import FlyingSocks
import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// Responses stream from URLSession through a bounded buffer: a call that collects stops at its
/// limit, and a slow reader holds a bounded number of bytes whatever the size of the body.
@Suite("Streamed responses on the wire", .heavy, .timeLimit(.minutes(2)))
struct StreamingResponseIntegrationTests {
    /// 100 MB; 16 MB under a sanitizer (`COURIER_SANITIZER`, set by `.ci/sanitizers.sh`), where
    /// every byte costs several times more and 16 MB is still 16 times the buffer and the limit.
    static let hundredMegabytes = ProcessInfo.processInfo.environment["COURIER_SANITIZER"] == nil ? 100_000_000 : 16_000_000

    /// Serves `count` pattern bytes at `/bytes`, chunked (no `Content-Length`, so nothing can be
    /// refused up front), counting what the server produced.
    /// - Parameter paced: whether to pause 1 ms after each 64 KiB, so that 100 MB take seconds and a
    ///   transfer stopped early is seen to stop early (corelibs is slow to carry out a cancellation
    ///   while libcurl reads as fast as loopback allows).
    static func serve(_ count: Int, on server: TestServer, meter: ProductionMeter, paced: Bool = false) async {
        await server.route("GET /bytes") { _ in
            FlyingFox.HTTPResponse(
                statusCode: .ok, headers: [.contentType: "application/octet-stream"],
                body: HTTPBodySequence(from: PatternBody(count: count, meter: meter, paced: paced), suggestedBufferSize: 64 << 10))
        }
    }

    /// Serves 100 MB at `/bytes` and sends a GET for it straight through a `URLSessionTransport`
    /// (no size limit): the streamed response, and the meter of what the server produced.
    static func streamHundredMegabytes(
        from server: TestServer, through kind: TransportKind, paced: Bool = false
    ) async throws -> (StreamedResponse, ProductionMeter) {
        let meter = ProductionMeter()
        await serve(hundredMegabytes, on: server, meter: meter, paced: paced)
        let response = try await kind.make().send(get("/bytes", on: server))
        #expect(response.statusCode == 200)
        return (response, meter)
    }

    /// A GET of `path` on `server`, with no size limit.
    static func get(_ path: String, on server: TestServer) -> TransportRequest {
        TransportRequest(
            head: HTTPTypes.HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)", path: path),
            timeout: .seconds(100), maximumResponseSize: nil)
    }

    @Test(
        "a 100 MB response through resume() with a 1 MiB limit fails as too large, and the server stops sending long before 100 MB",
        arguments: TransportKind.allCases)
    func aHundredMegabytesStopAtTheLimit(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let meter = ProductionMeter()
            await Self.serve(Self.hundredMegabytes, on: server, meter: meter)
            let client = Client(configuration: Configuration(transport: kind.make(), maximumResponseSize: 1 << 20))
            let result = await client.enqueue(try server.endpoint("/bytes")).result()
            guard case .failure(.transport(let failure)) = result, failure.kind == .responseTooLarge else {
                Issue.record("expected responseTooLarge, got \(result)")
                return
            }
            // The transfer ended: the server let go of the body.
            try await awaitCondition("the server stopped sending") { try await meter.released.wait() }
            if Exchange.canPauseTransfers {
                let produced = meter.produced
                #expect(produced < 32 << 20, "the server produced \(produced) bytes for a call limited to 1 MiB")
            }
            // On Linux, corelibs takes its time to carry out a cancellation while libcurl is busy
            // reading (measured: 100 MB from a loopback server in 0.27 s, all of it read after the
            // task was cancelled at 1 MiB). Courier drops those bytes as they arrive and holds no
            // more than the limit; what libcurl reads off the socket meanwhile is out of its hands.
        }
    }

    @Test(
        "a slow reader of a 100 MB body holds at most the buffer's high-water mark in memory, and reads every byte in order",
        arguments: TransportKind.allCases)
    func aSlowReaderHoldsABoundedBuffer(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let (response, meter) = try await Self.streamHundredMegabytes(from: server, through: kind)
            guard case .streamed(let source) = response.body.storage, let buffer = source as? ChunkBuffer else {
                Issue.record("a chunked 100 MB body must be streamed, got a whole body")
                return
            }
            var read = 0
            var sinceLastWait = 0
            var mismatch: Int?
            var readBeforeTheEnd: Int?
            for try await chunk in response.body {
                for (offset, byte) in chunk.enumerated() where byte != PatternBody.byte(at: read + offset) {
                    mismatch = mismatch ?? read + offset
                }
                read += chunk.count
                sinceLastWait += chunk.count
                guard sinceLastWait >= 1 << 20 else { continue }
                sinceLastWait = 0
                if buffer.canPause {
                    // Slow: after each MiB, let the transfer run ahead until the producer paused
                    // or the server is done.
                    while !buffer.isProducerPaused && meter.produced < Self.hundredMegabytes { await Task.yield() }
                } else {
                    // Slowest: a transfer that cannot pause runs to its end before the second MiB
                    // is read, so everything past the high-water mark must go to disk. (Waiting only
                    // for "more went to disk" raced the scheduler: on a busy machine 5 MB spilled.)
                    if readBeforeTheEnd == nil { readBeforeTheEnd = read }
                    await buffer.waitForEnd()
                }
            }
            #expect(read == Self.hundredMegabytes)
            #expect(mismatch == nil, "first wrong byte at \(mismatch ?? -1)")
            let peak = buffer.peakBufferedBytes
            if buffer.canPause {
                // After the pause is asked for, the transport may still hand over what it already
                // read: allow 1 MiB on top of the high-water mark, against 100 MB without backpressure.
                #expect(peak <= ChunkBuffer.highWater + (1 << 20), "peak buffered \(peak) bytes")
            } else {
                // corelibs URLSession: the transfer cannot pause, so the backlog went to disk and memory held
                // no more than the high-water mark.
                #expect(peak <= ChunkBuffer.highWater, "peak buffered \(peak) bytes")
                // All but what was read before the transfer ended and the high-water mark went to disk.
                let spilled = buffer.spilledBytes
                let expected = Self.hundredMegabytes - (readBeforeTheEnd ?? 0) - ChunkBuffer.highWater
                #expect(spilled >= expected, "only \(spilled) bytes went to disk")
            }
        }
    }

    @Test("a streamed body dropped unread stops the transfer on the server", arguments: TransportKind.allCases)
    func droppingTheBodyStopsTheTransfer(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let meter = try await Self.streamHundredMegabytes(from: server, through: kind, paced: true).1  // the response is dropped unread
            try await awaitCondition("the server stopped sending") { try await meter.released.wait() }
            #expect(meter.produced < Self.hundredMegabytes)
        }
    }

    @Test("cancelling the task that reads a streamed body ends the read with .cancelled and stops the transfer", arguments: TransportKind.allCases)
    func cancellingTheReaderStopsTheTransfer(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let (response, meter) = try await Self.streamHundredMegabytes(from: server, through: kind, paced: true)
            let firstChunk = Latch()
            let reader = Task { () -> CourierError? in
                do throws(CourierError) {
                    var iterator = response.body.makeAsyncIterator()
                    while try await iterator.next() != nil { firstChunk.open() }
                    return nil
                } catch {
                    return error
                }
            }
            try await awaitCondition("the reader got a chunk") { try await firstChunk.wait() }
            reader.cancel()
            let error = await reader.value
            guard case .cancelled? = error else {
                Issue.record("expected .cancelled, got \(String(describing: error))")
                return
            }
            try await awaitCondition("the server stopped sending") { try await meter.released.wait() }
            #expect(meter.produced < Self.hundredMegabytes)
        }
    }
}

/// What the server produced of a ``PatternBody``, and when it let go of it.
final class ProductionMeter: Sendable {
    private let count = LockedState(0)
    /// Opened when the server released the body's iterator: it finished or stopped sending.
    let released = Latch()

    var produced: Int { count.withLock { $0 } }

    func add(_ bytes: Int) {
        count.withLock { $0 += bytes }
    }
}

/// `count` bytes where byte `i` is `i % 251` (a prime, so chunk boundaries never line up with
/// the pattern), produced as fast as the server writes them.
struct PatternBody: AsyncBufferedSequence {
    typealias Element = UInt8
    let count: Int
    let meter: ProductionMeter
    let paced: Bool

    static func byte(at index: Int) -> UInt8 { UInt8(index % 251) }

    /// The pattern from 0, long enough to slice any buffer from: producing a chunk is one copy,
    /// so the in-process server does not starve the client of CPU in a debug build.
    static let pattern: [UInt8] = (0..<(251 + (1 << 20))).map { byte(at: $0) }

    func makeAsyncIterator() -> Iterator {
        Iterator(remaining: count, meter: meter, paced: paced, token: Token(meter: meter))
    }

    final class Token: Sendable {
        let meter: ProductionMeter
        init(meter: ProductionMeter) { self.meter = meter }
        deinit { meter.released.open() }
    }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var remaining: Int
        var position = 0
        let meter: ProductionMeter
        let paced: Bool
        let token: Token

        mutating func next() async throws -> UInt8? {
            try await nextBuffer(suggested: 1)?.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
            guard remaining > 0 else { return nil }
            if paced { try await Task.sleep(for: .milliseconds(1)) }  // pacing the stream, not waiting for anything
            let size = Swift.min(Swift.max(count, 1), remaining, 1 << 20)
            let start = position % 251
            let bytes = Array(PatternBody.pattern[start..<(start + size)])
            position += size
            remaining -= size
            meter.add(size)
            return bytes
        }
    }
}
