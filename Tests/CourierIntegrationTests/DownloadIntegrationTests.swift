import CourierTesting
import FlyingFox
import FlyingSocks
import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// Downloads to disk against a real server on 127.0.0.1 that honours (or, on purpose, mangles)
/// `Range` and `If-Range`, drops connections mid-body, and records what it was asked for; and
/// progress for uploads and downloads, on both transports.
@Suite("Downloads to disk and progress on the wire", .loopback, .timeLimit(.minutes(5)))
struct DownloadIntegrationTests {
    /// Under a sanitizer (`COURIER_SANITIZER`, set by `.ci/sanitizers.sh`) every byte costs
    /// several times more: the sizes shrink, the shapes stay.
    static let sanitized = ProcessInfo.processInfo.environment["COURIER_SANITIZER"] != nil
    /// Whether the transfers have their full sizes (a 256 MiB download, a drop at 100 MB of
    /// 160 MB): only with `COURIER_LARGE_TRANSFERS` set, as `.ci/run` sets it for a run of this
    /// suite alone after `swift test`. In the parallel run of the whole suite they starve the
    /// concurrency suites of CPU (measured: timeouts in the contract, token-rotation and
    /// large-body suites), so there, and under a sanitizer, they are 16 MiB and 16 MB.
    static let fullSize = ProcessInfo.processInfo.environment["COURIER_LARGE_TRANSFERS"] != nil && !sanitized
    /// 256 MiB, or 16 MiB.
    static let largeSize = fullSize ? 256 << 20 : 16 << 20
    /// SHA-256 of the first `largeSize` bytes of ``GeneratedBody`` (computed once with Python's
    /// hashlib over the same SplitMix64 bytes, so the test does not check Courier against itself).
    static let largeDigest =
        fullSize
        ? "5f85c61af562e3e159c5c08250999bcd4982432b85da62f65e0f6f3ed742dca6"
        : "51131ab8f04c77cbe231ef3d54b6a3811d5de5e5e9a34c78f1740b4bfa1c2b9e"
    /// A body dropped by the server at 100 MB of 160 MB (10 of 16 MB).
    static let droppedSize = fullSize ? 160_000_000 : 16_000_000
    static let dropAt = fullSize ? 100_000_000 : 10_000_000
    /// For the tests of the range logic: 4 MB, dropped at 1.5 MB.
    static let smallSize = 4_000_000
    static let smallDrop = 1_500_000

    // MARK: - Whole downloads

    @Test(
        "a 256 MiB download (16 MiB without COURIER_LARGE_TRANSFERS) lands at the destination whole, with the right SHA-256", arguments: TransportKind.allCases)
    func aLargeDownloadMatchesItsDigest(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            let resource = await RangeResource.serve(size: Self.largeSize, on: server)
            let file = try await client(kind).enqueue(server.endpoint("/file")).download(to: files.destination)
            #expect(file.byteCount == Int64(Self.largeSize))
            #expect(file.resumeCount == 0)
            #expect(try files.sha256(of: files.destination) == Self.largeDigest)
            #expect(files.leftovers().isEmpty, "left behind: \(files.leftovers())")
            #expect(await resource.requests.values.count == 1)
        }
    }

    @Test(
        "a download the server drops at 100 MB (10 MB without COURIER_LARGE_TRANSFERS) continues with Range and If-Range and ends byte-identical",
        arguments: TransportKind.allCases)
    func aDroppedDownloadResumesWithARange(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            let resource = await RangeResource.serve(size: Self.droppedSize, on: server, dropAt: [Self.dropAt])
            let file = try await client(kind).enqueue(server.endpoint("/file")).download(to: files.destination)
            #expect(file.byteCount == Int64(Self.droppedSize))
            #expect(file.resumeCount == 1)
            #expect(file.status == .partialContent)
            try files.expectGenerated(Self.droppedSize)
            let requests = await resource.requests.values
            try #require(requests.count == 2)
            #expect(requests[0].range == nil)
            let resumedAt = try #require(requests[1].rangeStart)
            #expect(resumedAt > 0 && resumedAt <= Self.dropAt, "resumed at \(resumedAt)")
            #expect(requests[1].ifRange == RangeResource.firstETag)
            #expect(requests[1].answered == 206)
        }
    }

    // MARK: - Restarting from zero

    @Test("a changed ETag makes the resumed request a full 200 and the download restarts from zero", arguments: TransportKind.allCases)
    func aChangedETagRestarts(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            let resource = await RangeResource.serve(size: Self.smallSize, on: server, dropAt: [Self.smallDrop], changeETagOnDrop: true)
            let file = try await client(kind).enqueue(server.endpoint("/file")).download(to: files.destination)
            #expect(file.resumeCount == 0)
            #expect(file.headers[.eTag] == RangeResource.secondETag)
            try files.expectGenerated(Self.smallSize)
            let requests = await resource.requests.values
            try #require(requests.count == 2)
            #expect(requests[1].ifRange == RangeResource.firstETag)
            #expect(requests[1].answered == 200)
        }
    }

    @Test("a 206 whose Content-Range does not start where asked is dropped and the download restarts cleanly", arguments: TransportKind.allCases)
    func aWrongContentRangeRestarts(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            let resource = await RangeResource.serve(size: Self.smallSize, on: server, dropAt: [Self.smallDrop], misbehaviour: .shiftedContentRange)
            let file = try await client(kind).enqueue(server.endpoint("/file")).download(to: files.destination)
            try files.expectGenerated(Self.smallSize)
            #expect(file.status == .ok)
            let requests = await resource.requests.values
            try #require(requests.count == 3)
            #expect(requests[1].range != nil && requests[1].answered == 206)
            #expect(requests[2].range == nil, "the restart asks for the whole body")
        }
    }

    @Test("a 206 whose Content-Range stays wrong fails with a bad-response error after the attempts, leaving no file", arguments: TransportKind.allCases)
    func aPersistentlyWrongContentRangeFails(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            // Every response drops; every range answer is shifted.
            _ = await RangeResource.serve(
                size: Self.smallSize, on: server, dropAt: Array(repeating: Self.smallDrop, count: 10), misbehaviour: .shiftedContentRange)
            let result = await downloadResult(client(kind).enqueue(try server.endpoint("/file")), to: files.destination, attempts: 2)
            guard case .failure(.transport(let failure)) = result else {
                Issue.record("expected a transport failure, got \(result)")
                return
            }
            // The last error is the last drop: both transports report a connection closed
            // mid-body as `.other` (async-http-client: "stream ended at an unexpected time").
            #expect([.badResponse, .connectionLost, .other].contains(failure.kind))
            #expect(!FileManager.default.fileExists(atPath: files.destination.path))
        }
    }

    @Test("a 200 to a range request restarts from zero and the file is right", arguments: TransportKind.allCases)
    func aFullResponseToARangeRestarts(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            let resource = await RangeResource.serve(size: Self.smallSize, on: server, dropAt: [Self.smallDrop], misbehaviour: .ignoresRanges)
            let file = try await client(kind).enqueue(server.endpoint("/file")).download(to: files.destination)
            #expect(file.resumeCount == 0)
            try files.expectGenerated(Self.smallSize)
            let requests = await resource.requests.values
            try #require(requests.count == 2)
            #expect(requests[1].range != nil && requests[1].answered == 200)
        }
    }

    // MARK: - Failures leave nothing at the destination

    @Test(
        "a download that keeps failing leaves the file that was at the destination untouched, and the next run continues from disk",
        arguments: TransportKind.allCases)
    func aFailedDownloadLeavesNoPartialFile(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            let old = Data("the previous version".utf8)
            try old.write(to: files.destination)
            let resource = await RangeResource.serve(size: Self.smallSize, on: server, dropAt: [Self.smallDrop, Self.smallDrop + 500_000])
            let call = client(kind).enqueue(try server.endpoint("/file"))
            let result = await downloadResult(call, to: files.destination, attempts: 1)
            guard case .failure(.transport) = result else {
                Issue.record("expected a transport failure, got \(result)")
                return
            }
            #expect(try Data(contentsOf: files.destination) == old, "the destination changed after a failed download")
            let saved = try #require(DownloadPaths(destination: files.destination).loadState())
            #expect(saved.receivedBytes > 0 && saved.validator == RangeResource.firstETag)
            // The next run (a new process would do the same) continues from the bytes on disk.
            let file = try await call.download(to: files.destination)
            #expect(file.resumeCount == 1)
            try files.expectGenerated(Self.smallSize)
            #expect(files.leftovers().isEmpty)
            #expect(await resource.requests.values.last?.rangeStart == saved.receivedBytes)
        }
    }

    // MARK: - Pause and resume

    @Test("pausing returns resume data for the bytes on disk, and resuming continues from exactly there", arguments: TransportKind.allCases)
    func pauseThenResumeContinuesFromDisk(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            // The first response stops sending at 2 MB (without ending) until the test is over.
            let resource = await RangeResource.serve(size: Self.smallSize, on: server, holdAt: 2_000_000)
            let download = client(kind).enqueue(try server.endpoint("/file")).makeDownload(to: files.destination)
            let started = Latch()
            let seen = Recorder<TransferProgress>()
            let watcher = Task {
                for await progress in download.progress {
                    await seen.record(progress)
                    if progress.completedBytes > 0 { started.open() }
                }
            }
            await download.start()
            try await awaitCondition("bytes reached the disk") { try await started.wait() }
            let resumeData = try #require(await download.pause())
            #expect(resumeData.receivedBytes > 0 && resumeData.receivedBytes <= 2_000_000)
            #expect(resumeData.validator == RangeResource.firstETag)
            #expect(DownloadPaths(destination: files.destination).temporarySize() == resumeData.receivedBytes)
            #expect(!FileManager.default.fileExists(atPath: files.destination.path))
            guard case .paused = await download.state else {
                Issue.record("expected paused, got \(await download.state)")
                return
            }

            await download.start()
            let file = try await download.finished()
            #expect(file.resumeCount == 1)
            try files.expectGenerated(Self.smallSize)
            let requests = await resource.requests.values
            #expect(requests.last?.rangeStart == resumeData.receivedBytes)
            #expect(requests.last?.ifRange == RangeResource.firstETag)
            await watcher.value  // the progress ends with the download
            let values = await seen.values
            #expect(values.last?.completedBytes == Int64(Self.smallSize))
            #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
        }
    }

    // MARK: - Progress

    @Test(
        "download progress read from withProgress() is monotonic, throttled to one value per 50 ms of transfer, and ends at the body's size",
        arguments: TransportKind.allCases)
    func downloadProgressIsThrottledAndEndsAtTheTotal(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            let size = Self.sanitized ? 8 << 20 : 16 << 20
            _ = await RangeResource.serve(size: size, on: server)
            let call = client(kind).enqueue(try server.endpoint("/file")).withProgress()
            let reader = Task {
                var values: [TransferProgress] = []
                for await progress in call.downloadProgress { values.append(progress) }
                return values
            }
            let clock = ContinuousClock()
            let start = clock.now
            let file = try await call.download(to: files.destination)
            let elapsed = clock.now - start
            #expect(file.byteCount == Int64(size))
            expectThrottledAndComplete(await reader.value, total: Int64(size), elapsed: elapsed, chunkSize: 16 << 10)
        }
    }

    @Test(
        "upload progress of data, file and multipart bodies starts at 0 (seen by a reader that starts late), is monotonic and ends at the body's size",
        arguments: TransportKind.allCases, UploadKind.allCases)
    func uploadProgressCountsWhatTheTransportReads(_ kind: TransportKind, _ upload: UploadKind) async throws {
        try await TestServer.run { server in
            let files = try ScratchDirectory()
            let size = Self.sanitized ? 4 << 20 : 8 << 20
            await server.route("POST /upload") { request in
                var count = 0
                for try await chunk in request.bodySequence { count += chunk.count }
                return FlyingFox.HTTPResponse(statusCode: .ok, body: Data("\(count)".utf8))
            }
            let body = try upload.body(size: size, in: files)
            let expected = try #require(body.count)
            let call = client(kind).enqueue(
                try server.endpoint("/upload").with {
                    $0.method = .post; $0.body = body.body
                }
            ).withProgress()
            let clock = ContinuousClock()
            let start = clock.now
            let response = try await call.resume()
            let elapsed = clock.now - start
            #expect(String(decoding: response.body, as: UTF8.self) == "\(expected)")
            // Read only now: every value was kept, from the first.
            var values: [TransferProgress] = []
            for await progress in call.uploadProgress { values.append(progress) }
            #expect(values.first?.completedBytes == 0, "the first value, sent before any byte, was missed")
            #expect(values.last?.completedBytes == expected)
            #expect(values.last?.expectedBytes == expected)
            #expect(zip(values, values.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes })
            // Throttled: the first and the last, and at most one per 50 ms in between.
            #expect(values.count <= Int(elapsed / ProgressMeter.interval) + 3, "\(values.count) values in \(elapsed)")
            var downloads: [TransferProgress] = []
            for await progress in call.downloadProgress { downloads.append(progress) }
            #expect(downloads.last?.completedBytes == Int64(response.body.count))
        }
    }

    // MARK: - Helpers

    func client(_ kind: TransportKind) -> Client {
        Client(configuration: Configuration(transport: kind.make(), timeout: .seconds(120)))
    }

    func downloadResult(_ call: Call, to destination: URL, attempts: Int) async -> Result<DownloadedFile, CourierError> {
        do {
            return .success(try await call.download(to: destination, options: DownloadOptions(maximumResumeAttempts: attempts)))
        } catch {
            return .failure(error)
        }
    }
}

/// The request bodies upload progress is measured on.
enum UploadKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case data, file, multipart

    var testDescription: String { rawValue }

    func body(size: Int, in files: ScratchDirectory) throws -> (body: RequestBody, count: Int64?) {
        let bytes = Data(GeneratedBody.bytes(at: 0, count: Swift.min(size, 1 << 20)))
        var payload = Data()
        while payload.count < size { payload.append(bytes.prefix(size - payload.count)) }
        switch self {
        case .data:
            return (.data(payload), Int64(size))
        case .file:
            let url = files.directory.appendingPathComponent("upload.bin")
            try payload.write(to: url)
            return (.file(url), Int64(size))
        case .multipart:
            let url = files.directory.appendingPathComponent("part.bin")
            try payload.write(to: url)
            var form = MultipartForm()
            form.append(text: "progress", name: "title")
            form.append(fileAt: url, name: "file")
            let body = RequestBody.multipart(form)
            return (body, try body.transportBody(configuration: Configuration()).count)
        }
    }
}

/// Monotonic; the last counts `total`; at most the first, the last and one value per throttle
/// interval of `elapsed` (the time the transfer took, measured by the caller, so at least the
/// meter's); and far fewer values than the chunks of `chunkSize` the body had at least.
func expectThrottledAndComplete(
    _ progress: [TransferProgress], total: Int64, elapsed: Duration, chunkSize: Int, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(progress.last?.completedBytes == total, sourceLocation: sourceLocation)
    #expect(progress.last?.fraction == 1, sourceLocation: sourceLocation)
    #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.completedBytes < $1.completedBytes }, sourceLocation: sourceLocation)
    #expect(progress.count <= Int(elapsed / ProgressMeter.interval) + 3, "\(progress.count) values in \(elapsed)", sourceLocation: sourceLocation)
    // Far fewer values than chunks (at least total / chunkSize of them), as long as the
    // transfer took less than total / chunkSize / 4 × 50 ms (0.8 s for 16 MiB of 16 KiB chunks).
    if elapsed < ProgressMeter.interval * (Int(total) / chunkSize / 4) {
        #expect(progress.count < Int(total) / chunkSize / 4, "\(progress.count) values for \(total) bytes", sourceLocation: sourceLocation)
    }
}

/// A temporary directory for one test, removed when it is released.
final class ScratchDirectory: Sendable {
    let directory: URL
    var destination: URL { directory.appendingPathComponent("download.bin") }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-downloads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Files in the directory other than the destination and the test's own inputs.
    func leftovers() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(".") }
    }

    /// The SHA-256 of the file at `url`, read 1 MiB at a time, in lowercase hex.
    func sha256(of url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256.Hasher()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Expects the destination to hold exactly the first `size` bytes of ``GeneratedBody``.
    func expectGenerated(_ size: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let handle = try FileHandle(forReadingFrom: destination)
        defer { try? handle.close() }
        var offset = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            var piece = chunk[...]
            while !piece.isEmpty {
                let count = Swift.min(piece.count, 1 << 16)
                guard piece.prefix(count).elementsEqual(GeneratedBody.bytes(at: offset, count: count)) else {
                    Issue.record("the file differs from the body in the 64 KiB at \(offset)", sourceLocation: sourceLocation)
                    return
                }
                piece = piece.dropFirst(count)
                offset += count
            }
        }
        #expect(offset == size, "the file has \(offset) bytes, the body \(size)", sourceLocation: sourceLocation)
        #expect(leftovers().isEmpty, "left behind: \(leftovers())", sourceLocation: sourceLocation)
    }
}

/// A deterministic body of any length: 1,000,003 SplitMix64 bytes (a prime period, so chunk
/// boundaries never line up with it) repeated.
enum GeneratedBody {
    static let period = 1_000_003
    /// One period and 1 MiB more, so that any slice of up to 1 MiB is contiguous.
    static let block: [UInt8] = {
        let bytes = [UInt8](pseudoRandomBytes(count: period, seed: 0xC0FFEE))
        return bytes + bytes.prefix(1 << 20)
    }()

    /// `count` (at most 1 MiB) bytes from `offset`.
    static func bytes(at offset: Int, count: Int) -> ArraySlice<UInt8> {
        let start = offset % period
        return block[start..<(start + count)]
    }
}

/// What the server saw of one request and how it answered.
struct SeenRequest: Sendable {
    var range: String?
    var ifRange: String?
    var answered: Int

    /// The `N` of `Range: bytes=N-`.
    var rangeStart: Int64? {
        guard let range, range.hasPrefix("bytes="), range.hasSuffix("-") else { return nil }
        return Int64(range.dropFirst(6).dropLast())
    }
}

/// A resource at `/file` with an `ETag`, served with ranges (RFC 9110 §14), and faults on demand.
final class RangeResource: Sendable {
    static let firstETag = "\"v1\""
    static let secondETag = "\"v2\""

    enum Misbehaviour: Sendable {
        case none
        /// Answers a range request with a `Content-Range` one byte later than asked.
        case shiftedContentRange
        /// Answers every request with the whole body (200).
        case ignoresRanges
    }

    let size: Int
    let requests = Recorder<SeenRequest>()
    private let faults: LockedState<(drops: [Int], holdAt: Int?, eTag: String, changeETagOnDrop: Bool)>
    private let misbehaviour: Misbehaviour

    private init(size: Int, dropAt: [Int], holdAt: Int?, changeETagOnDrop: Bool, misbehaviour: Misbehaviour) {
        self.size = size
        self.misbehaviour = misbehaviour
        faults = LockedState((dropAt, holdAt, RangeResource.firstETag, changeETagOnDrop))
    }

    /// Serves `size` bytes of ``GeneratedBody`` at `GET /file`.
    /// - Parameters:
    ///   - dropAt: for each response in turn, the body offset at which the server drops the connection.
    ///   - holdAt: the first response stops sending there, until the server stops.
    static func serve(
        size: Int, on server: TestServer, dropAt: [Int] = [], holdAt: Int? = nil, changeETagOnDrop: Bool = false,
        misbehaviour: Misbehaviour = .none
    ) async -> RangeResource {
        let resource = RangeResource(size: size, dropAt: dropAt, holdAt: holdAt, changeETagOnDrop: changeETagOnDrop, misbehaviour: misbehaviour)
        await server.route("GET /file") { request in await resource.respond(to: request) }
        return resource
    }

    func respond(to request: FlyingFox.HTTPRequest) async -> FlyingFox.HTTPResponse {
        let range = request.headers[FlyingFox.HTTPHeader("Range")]
        let ifRange = request.headers[FlyingFox.HTTPHeader("If-Range")]
        let (drop, hold, eTag) = faults.withLock { faults in
            let drop = faults.drops.isEmpty ? nil : faults.drops.removeFirst()
            let hold = faults.holdAt
            faults.holdAt = nil
            let eTag = faults.eTag
            if drop != nil, faults.changeETagOnDrop { faults.eTag = RangeResource.secondETag }
            return (drop, hold, eTag)
        }
        var start = 0
        if misbehaviour != .ignoresRanges, let range, ifRange == nil || ifRange == eTag,
            let first = SeenRequest(range: range, answered: 0).rangeStart, first < size
        {
            start = Int(first)
        }
        var headers: FlyingFox.HTTPHeaders = [
            FlyingFox.HTTPHeader("ETag"): eTag, FlyingFox.HTTPHeader("Accept-Ranges"): "bytes",
            .contentType: "application/octet-stream",
        ]
        let status: HTTPStatusCode = start > 0 ? .partialContent : .ok
        if start > 0 {
            let shown = misbehaviour == .shiftedContentRange ? start + 1 : start
            headers[FlyingFox.HTTPHeader("Content-Range")] = "bytes \(shown)-\(size - 1)/\(size)"
        }
        await requests.record(SeenRequest(range: range, ifRange: ifRange, answered: Int(status.code)))
        let body = GeneratedSequence(position: start, end: size, dropAt: drop, holdAt: hold)
        return FlyingFox.HTTPResponse(
            statusCode: status, headers: headers,
            body: HTTPBodySequence(from: body, count: size - start, suggestedBufferSize: 64 << 10))
    }
}

/// ``GeneratedBody`` bytes from `position` to `end`, failing (the server drops the connection)
/// at `dropAt`, or suspending at `holdAt` until the server stops.
struct GeneratedSequence: AsyncBufferedSequence {
    typealias Element = UInt8
    var position: Int
    let end: Int
    let dropAt: Int?
    let holdAt: Int?

    struct Dropped: Error {}

    func makeAsyncIterator() -> GeneratedSequence { self }
}

extension GeneratedSequence: AsyncBufferedIteratorProtocol {
    mutating func next() async throws -> UInt8? {
        try await nextBuffer(suggested: 1)?.first
    }

    mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
        guard position < end else { return nil }
        if let dropAt, position >= dropAt { throw Dropped() }
        if let holdAt, position >= holdAt {
            // Held until the server stops: the test pauses the download meanwhile.
            try await Latch().wait()
        }
        var limit = Swift.min(Swift.max(count, 1), end - position, 1 << 20)
        if let dropAt { limit = Swift.min(limit, dropAt - position) }
        if let holdAt, holdAt > position { limit = Swift.min(limit, holdAt - position) }
        let bytes = Array(GeneratedBody.bytes(at: position, count: limit))
        position += limit
        return bytes
    }
}
