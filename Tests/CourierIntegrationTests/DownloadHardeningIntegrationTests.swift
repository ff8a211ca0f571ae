import CourierTesting
import FlyingFox
import FlyingSocks
import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// Issue 22 (download part) on the wire: a download's timeout is a limit on the head and on each
/// gap in the body, not on the whole transfer; and a body the server encoded although
/// `Accept-Encoding: identity` was asked is never continued with a range counted in decoded bytes.
///
/// Heavy and serialized: its paced server must keep its 200 ms pace for the test that proves a
/// steady body outlives the 5 s timeout. Beside other suites (and its own tests) on a machine whose
/// cores are busy, the pacing task was starved for over 5 s (both transports timed out, as they
/// should on a silent server; seen at a919534 and after, with `.ci/busy-test.sh`).
@Suite("Downloads: idle timeouts and encoded bodies on the wire", .heavy, .serialized, .timeLimit(.minutes(2)))
struct DownloadHardeningIntegrationTests {
    /// 2 MiB in 64 KiB chunks, one every 200 ms: 6.4 s in all, longer than the 5 s timeout of the
    /// one connection allowed (the issue's 8 MiB at 1.3 MB/s with a 1 s timeout and 3 resumes,
    /// scaled). 5 s rather than 1: the whole suite runs in parallel on two cores, where tests that
    /// hash 16 MiB hold the cooperative pool for seconds, and a gap they cause must not look like
    /// a server's silence.
    static let pacedSize = 2 << 20
    static let pacedChunk = 64 << 10
    static let pacedInterval = Duration.milliseconds(200)
    static let pacedTimeout = Duration.seconds(5)

    @Test("a download whose bytes keep coming completes in one request, however much longer than the timeout it takes", arguments: TransportKind.allCases)
    func aSteadyDownloadIsNotCutByTheTimeout(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            let resource = await PacedResource.serve(size: Self.pacedSize, chunk: Self.pacedChunk, interval: Self.pacedInterval, on: server)
            let client = Client(configuration: Configuration(transport: kind.make(), timeout: Self.pacedTimeout))
            let clock = ContinuousClock()
            let start = clock.now
            let file = try await client.enqueue(server.endpoint("/paced")).download(
                to: files.destination, options: DownloadOptions(maximumResumeAttempts: 0))
            let elapsed = clock.now - start
            #expect(file.byteCount == Int64(Self.pacedSize))
            #expect(file.resumeCount == 0)
            try files.expectGenerated(Self.pacedSize)
            #expect(await resource.requests.values.count == 1, "the transfer was cut and continued")
            #expect(elapsed > Self.pacedTimeout, "the body took \(elapsed): not longer than the timeout")
        }
    }

    @Test("a body that stops arriving for longer than the timeout is cut and continued with a range", arguments: TransportKind.allCases)
    func aStalledBodyIsCutAndContinued(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            // The first response stops sending at 1 MB, without ending.
            let resource = await RangeResource.serve(size: 4_000_000, on: server, holdAt: 1_000_000)
            let client = Client(configuration: Configuration(transport: kind.make(), timeout: .seconds(3)))
            let file = try await client.enqueue(server.endpoint("/file")).download(to: files.destination)
            #expect(file.resumeCount >= 1)
            try files.expectGenerated(4_000_000)
            let requests = await resource.requests.values
            try #require(requests.count >= 2)
            let resumedAt = try #require(requests[1].rangeStart)
            #expect(resumedAt > 0 && resumedAt <= 1_000_000)
        }
    }

    @Test("maximumDuration bounds the whole run: a steady download past it fails with a timeout, its bytes kept for the next run")
    func theMaximumDurationBoundsTheRun() async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            // 12.8 s of body against a 5 s bound: long enough for some bytes to arrive first even
            // when the whole suite starts at once on a loaded machine (2 s once saw none).
            let size = 2 * Self.pacedSize
            _ = await PacedResource.serve(size: size, chunk: Self.pacedChunk, interval: Self.pacedInterval, on: server)
            let client = Client(configuration: Configuration(transport: TransportKind.platformDefault.make(), timeout: .seconds(10)))
            let call = client.enqueue(try server.endpoint("/paced"))
            do throws(CourierError) {
                _ = try await call.download(to: files.destination, options: DownloadOptions(maximumDuration: .seconds(5)))
                Issue.record("the download succeeded")
            } catch {
                guard case .transport(let failure) = error, failure.kind == .timedOut else {
                    Issue.record("expected a timeout, got \(error)")
                    return
                }
            }
            let saved = try #require(DownloadPaths(destination: files.destination).loadState())
            #expect(saved.receivedBytes > 0 && saved.receivedBytes < Int64(size))
            #expect(!FileManager.default.fileExists(atPath: files.destination.path))
        }
    }

    @Test("a server that never sends the head fails the download with a timeout", arguments: TransportKind.allCases)
    func aMissingHeadTimesOut(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            await server.route("GET /silent") { _ in
                try await Latch().wait()  // until the server stops
                return FlyingFox.HTTPResponse(statusCode: .ok)
            }
            let client = Client(configuration: Configuration(transport: kind.make(), timeout: .milliseconds(500)))
            let call = client.enqueue(try server.endpoint("/silent"))
            do throws(CourierError) {
                _ = try await call.download(to: files.destination, options: DownloadOptions(maximumResumeAttempts: 0))
                Issue.record("the download succeeded")
            } catch {
                guard case .transport(let failure) = error, failure.kind == .timedOut else {
                    Issue.record("expected a timeout, got \(error)")
                    return
                }
            }
            #expect(files.leftovers().isEmpty, "left behind: \(files.leftovers())")
        }
    }

    // MARK: - Encoded bodies

    @Test("a gzip body dropped halfway starts over from zero instead of asking for a range counted in decoded bytes", arguments: TransportKind.allCases)
    func anEncodedBodyIsNotContinuedByRange(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            let size = 300_000
            let encoded = StoredGzip.encode(Array(GeneratedBody.bytes(at: 0, count: size)))
            let requests = Recorder<String?>()
            let drops = LockedState([encoded.count / 2])
            await server.route("GET /encoded") { request in
                let range = request.headers[FlyingFox.HTTPHeader("Range")]
                await requests.record(range)
                let drop = drops.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                // A server that ignores `Accept-Encoding: identity` and serves ranges of the
                // encoded bytes.
                var start = 0
                if let range, let first = SeenRequest(range: range, answered: 0).rangeStart, first < encoded.count { start = Int(first) }
                var headers: FlyingFox.HTTPHeaders = [
                    FlyingFox.HTTPHeader("ETag"): "\"gz\"", FlyingFox.HTTPHeader("Content-Encoding"): "gzip",
                    .contentType: "application/octet-stream",
                ]
                if start > 0 { headers[FlyingFox.HTTPHeader("Content-Range")] = "bytes \(start)-\(encoded.count - 1)/\(encoded.count)" }
                let body = BytesSequence(bytes: encoded, position: start, dropAt: drop)
                return FlyingFox.HTTPResponse(
                    statusCode: start > 0 ? .partialContent : .ok, headers: headers,
                    body: HTTPBodySequence(from: body, count: encoded.count - start, suggestedBufferSize: 16 << 10))
            }
            let client = Client(configuration: Configuration(transport: kind.make(), timeout: generousTimeout))
            let file = try await client.enqueue(server.endpoint("/encoded")).download(to: files.destination)
            #expect(file.byteCount == Int64(size))
            try files.expectGenerated(size)
            #expect(await requests.values == [nil, nil], "the second request must ask for the whole body")
        }
    }
}

/// `GET /paced`: ``GeneratedBody`` bytes with an `ETag`, honouring `Range`, one `chunk` every
/// `interval` (a slow but steady server).
final class PacedResource: Sendable {
    let requests = Recorder<SeenRequest>()

    static func serve(size: Int, chunk: Int, interval: Duration, on server: TestServer) async -> PacedResource {
        let resource = PacedResource()
        await server.route("GET /paced") { request in
            let range = request.headers[FlyingFox.HTTPHeader("Range")]
            var start = 0
            if let range, let first = SeenRequest(range: range, answered: 0).rangeStart, first < size { start = Int(first) }
            var headers: FlyingFox.HTTPHeaders = [FlyingFox.HTTPHeader("ETag"): "\"paced\"", .contentType: "application/octet-stream"]
            if start > 0 { headers[FlyingFox.HTTPHeader("Content-Range")] = "bytes \(start)-\(size - 1)/\(size)" }
            await resource.requests.record(SeenRequest(range: range, ifRange: nil, answered: start > 0 ? 206 : 200))
            let body = PacedSequence(position: start, end: size, chunk: chunk, interval: interval)
            return FlyingFox.HTTPResponse(
                statusCode: start > 0 ? .partialContent : .ok, headers: headers,
                body: HTTPBodySequence(from: body, count: size - start, suggestedBufferSize: chunk))
        }
        return resource
    }
}

/// ``GeneratedBody`` bytes from `position` to `end`, `chunk` at a time, each after `interval`:
/// the server's pace, not a wait of the test's.
struct PacedSequence: AsyncBufferedSequence, AsyncBufferedIteratorProtocol {
    typealias Element = UInt8
    var position: Int
    let end: Int
    let chunk: Int
    let interval: Duration

    func makeAsyncIterator() -> PacedSequence { self }

    mutating func next() async throws -> UInt8? {
        try await nextBuffer(suggested: 1)?.first
    }

    mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
        guard position < end else { return nil }
        try await Task.sleep(for: interval)  // pacing the body (a slow server is what the test needs), not waiting for anything
        let limit = Swift.min(chunk, end - position)
        let bytes = Array(GeneratedBody.bytes(at: position, count: limit))
        position += limit
        return bytes
    }
}

/// Fixed bytes from `position`, the connection dropped at `dropAt`.
struct BytesSequence: AsyncBufferedSequence, AsyncBufferedIteratorProtocol {
    typealias Element = UInt8
    let bytes: [UInt8]
    var position: Int
    let dropAt: Int?

    func makeAsyncIterator() -> BytesSequence { self }

    mutating func next() async throws -> UInt8? {
        try await nextBuffer(suggested: 1)?.first
    }

    mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
        guard position < bytes.count else { return nil }
        if let dropAt, position >= dropAt { throw GeneratedSequence.Dropped() }
        var limit = Swift.min(Swift.max(count, 1), bytes.count - position, 16 << 10)
        if let dropAt { limit = Swift.min(limit, dropAt - position) }
        defer { position += limit }
        return Array(bytes[position..<(position + limit)])
    }
}

/// A gzip member (RFC 1952) whose deflate data is stored blocks (RFC 1951 §3.2.4): valid gzip
/// that any decoder inflates, made without a compressor.
enum StoredGzip {
    static func encode(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        var offset = 0
        repeat {
            let count = Swift.min(65_535, data.count - offset)
            let last: UInt8 = offset + count == data.count ? 1 : 0
            out.append(last)
            out += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        out += littleEndian(crc32(data)) + littleEndian(UInt32(truncatingIfNeeded: data.count))
        return out
    }

    static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var table = [UInt32](repeating: 0, count: 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            table[index] = value
        }
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
