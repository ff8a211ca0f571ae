import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// Downloads against a scripted transport: the answers a real server rarely gives on demand.
@Suite("Downloads to disk against scripted responses")
struct DownloadTests {
    @Test("a body longer than its announced length fails as a bad response and leaves no file, partial or final")
    func aBodyLongerThanAnnouncedFails() async throws {
        let files = try TemporaryFiles()
        let transport = ScriptedTransport { _ in
            let chunks = [Data(repeating: 1, count: 600), Data(repeating: 2, count: 600)]
            return (200, ["ETag": "\"v1\""], ResponseBody(chunks.async, expectedLength: 1000))
        }
        let result = await download(through: transport, to: files.destination)
        guard case .failure(.transport(let failure)) = result, failure.kind == .badResponse else {
            Issue.record("expected a bad response, got \(result)")
            return
        }
        #expect(failure.message?.contains("more than the 1000 bytes") == true)
        #expect(files.names() == [])
    }

    @Test("a destination in a directory that does not exist fails as a file-system error naming the file and the reason")
    func anUnwritableDestinationFailsClearly() async throws {
        let files = try TemporaryFiles()
        let destination = files.directory.appendingPathComponent("missing/out.bin")
        let transport = ScriptedTransport { _ in (200, [:], ResponseBody(Data("hello".utf8))) }
        let result = await download(through: transport, to: destination)
        guard case .failure(.transport(let failure)) = result, failure.kind == .fileSystem else {
            Issue.record("expected a file-system failure, got \(result)")
            return
        }
        #expect(failure.message?.contains("missing/.out.bin.courier-download") == true)
        #expect(failure.message?.contains("No such file or directory") == true)
        #expect(failure.urlError?.code == .cannotWriteToFile)
    }

    @Test("a 416 for a resource exactly as long as the bytes on disk completes the download without a body")
    func anUnsatisfiableRangeAtTheEndCompletes() async throws {
        let files = try TemporaryFiles()
        let paths = DownloadPaths(destination: files.destination)
        try Data(repeating: 7, count: 100).write(to: paths.temporary)
        let url = URL(string: "https://api.example.com/file")!
        try paths.save(DownloadResumeData(url: url, validator: "\"v1\"", receivedBytes: 100, expectedBytes: 100, temporaryFile: paths.temporary))
        let seen = LockedState<[String?]>([])
        let transport = ScriptedTransport { request in
            seen.withLock { $0.append(request.head.headerFields[.range]) }
            return (416, ["Content-Range": "bytes */100"], ResponseBody())
        }
        let file = try await download(through: transport, to: files.destination).get()
        #expect(file.byteCount == 100)
        #expect(seen.withLock { $0 } == ["bytes=100-"])
        #expect(try Data(contentsOf: files.destination) == Data(repeating: 7, count: 100))
        #expect(files.names() == ["out.bin"])
    }

    @Test("saved state for another URL is ignored: the download starts from zero and replaces the partial file")
    func stateForAnotherURLIsIgnored() async throws {
        let files = try TemporaryFiles()
        let paths = DownloadPaths(destination: files.destination)
        try Data(repeating: 7, count: 100).write(to: paths.temporary)
        let other = URL(string: "https://api.example.com/other")!
        try paths.save(DownloadResumeData(url: other, validator: "\"v1\"", receivedBytes: 100, expectedBytes: 200, temporaryFile: paths.temporary))
        let transport = ScriptedTransport { request in
            #expect(request.head.headerFields[.range] == nil)
            return (200, [:], ResponseBody(Data("fresh".utf8)))
        }
        _ = try await download(through: transport, to: files.destination).get()
        #expect(try Data(contentsOf: files.destination) == Data("fresh".utf8))
        #expect(files.names() == ["out.bin"])
    }

    @Test("a second download to the same destination while one runs fails at once; the first completes untouched")
    func aSecondDownloadToTheSameDestinationFails() async throws {
        let files = try TemporaryFiles()
        let (body, feed) = AsyncStream.makeStream(of: Data.self)
        let (started, startedFeed) = AsyncStream.makeStream(of: Void.self)
        let requests = LockedState(0)
        let transport = ScriptedTransport { _ in
            requests.withLock { $0 += 1 }
            startedFeed.yield()
            return (200, ["ETag": "\"v1\""], ResponseBody(body, expectedLength: 10))
        }
        let first = Task { await download(through: transport, to: files.destination) }
        var iterator = started.makeAsyncIterator()
        _ = await iterator.next()  // the first holds the lock and has its response

        let second = await download(through: transport, to: files.destination)
        guard case .failure(.transport(let failure)) = second, failure.kind == .fileSystem else {
            Issue.record("expected a file-system failure, got \(second)")
            return
        }
        #expect(failure.message?.contains("another download to \(files.destination.standardizedFileURL.path) is in progress") == true)
        #expect(requests.withLock { $0 } == 1)

        feed.yield(Data(repeating: 1, count: 10))
        feed.finish()
        _ = try await first.value.get()
        #expect(try Data(contentsOf: files.destination) == Data(repeating: 1, count: 10))
        #expect(files.names() == ["out.bin"])
        // The lock went with the first download: a third one runs.
        _ = try await download(through: ScriptedTransport { _ in (200, [:], ResponseBody(Data("again".utf8))) }, to: files.destination).get()
        #expect(try Data(contentsOf: files.destination) == Data("again".utf8))
    }

    @Test("a lock file left behind by a crashed process does not block the next download, which removes it")
    func aStaleLockFileIsNoObstacle() async throws {
        let files = try TemporaryFiles()
        let paths = DownloadPaths(destination: files.destination)
        try Data().write(to: paths.lock)
        let transport = ScriptedTransport { _ in (200, [:], ResponseBody(Data("fresh".utf8))) }
        _ = try await download(through: transport, to: files.destination).get()
        #expect(files.names() == ["out.bin"])
    }

    @Test("resume data prints its URL redacted and round-trips through JSON")
    func resumeDataIsCodableAndRedacted() throws {
        let data = DownloadResumeData(
            url: URL(string: "https://api.example.com/file?access_token=s3cret")!, validator: "\"v1\"", receivedBytes: 5, expectedBytes: 10,
            temporaryFile: URL(fileURLWithPath: "/tmp/.x.courier-download"))
        #expect(!data.description.contains("s3cret"))
        #expect(try JSONDecoder().decode(DownloadResumeData.self, from: JSONEncoder().encode(data)) == data)
        #expect(data.canResume)
    }

    func download(through transport: ScriptedTransport, to destination: URL) async -> Result<DownloadedFile, CourierError> {
        let client = Client(configuration: Configuration(transport: transport))
        do {
            return .success(try await client.enqueue(FileEndpoint()).download(to: destination))
        } catch {
            return .failure(error)
        }
    }
}

/// `GET https://api.example.com/file`.
struct FileEndpoint: Requestable {
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath("/file") }
    var requiresAuthorization: Bool { false }
}

/// A transport answering each request with what `answer` returns.
struct ScriptedTransport: Transport {
    let answer: @Sendable (TransportRequest) -> (Int, [String: String], ResponseBody)

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let (status, headers, body) = answer(request)
        var fields = HTTPFields()
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        return StreamedResponse(status: .init(code: status), headers: fields, body: body, url: request.url)
    }
}

/// A temporary directory for one test, removed when released; `destination` is `out.bin` in it.
final class TemporaryFiles: Sendable {
    let directory: URL
    var destination: URL { directory.appendingPathComponent("out.bin") }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-transfers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The names in the directory, sorted (hidden ones included).
    func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }
}

extension Array where Element == Data {
    /// The chunks as an `AsyncSequence`.
    var async: AsyncStream<Data> {
        let (stream, continuation) = AsyncStream.makeStream(of: Data.self)
        for chunk in self { continuation.yield(chunk) }
        continuation.finish()
        return stream
    }
}

/// The partial file hands each completed window to the disk while the next one arrives, so the
/// final `fsync` does not pay for the whole file after the last byte.
@Suite("Download file write-back")
struct DownloadFileWriteBackTests {
    @Test("write-back starts once per completed 8 MiB window, counted from where writing began")
    func writeBackStartsPerWindow() throws {
        let files = try TemporaryFiles()
        let file = try DownloadFile.create(at: files.destination)
        let chunk = Data(repeating: 7, count: 3 << 20)
        for _ in 0..<6 { try file.write(chunk) }  // 18 MiB: windows end at 9 and 18 MiB
        #expect(file.writeBacks.map(\.offset) == [0, 9 << 20])
        #expect(file.writeBacks.map(\.count) == [9 << 20, 9 << 20])
        #if os(Linux)
            #expect(DownloadFile.canStartWriteBack, "sync_file_range(2) was not found in the C library")
        #endif
        try file.synchronize()
        let size = try FileManager.default.attributesOfItem(atPath: files.destination.path)[.size] as? NSNumber
        #expect(size?.int64Value == 18 << 20)
    }

    @Test("after a cut back to a resume offset, and when appending to an existing file, windows start at that offset")
    func windowsStartAtTheResumeOffset() throws {
        let files = try TemporaryFiles()
        try Data(repeating: 1, count: 5 << 20).write(to: files.destination)
        let appending = try opened(files.destination)
        try appending.write(Data(repeating: 2, count: 8 << 20))
        #expect(appending.writeBacks.map(\.offset) == [5 << 20])

        let cut = try opened(files.destination)
        try cut.truncate(to: 1 << 20)
        try cut.write(Data(repeating: 3, count: 7 << 20))
        #expect(cut.writeBacks.isEmpty)
        try cut.write(Data(repeating: 3, count: 1 << 20))
        #expect(cut.writeBacks.map(\.offset) == [1 << 20])
        #expect(cut.writeBacks.map(\.count) == [8 << 20])
        let size = try FileManager.default.attributesOfItem(atPath: files.destination.path)[.size] as? NSNumber
        #expect(size?.int64Value == 9 << 20)
    }

    /// The existing file at `url`, opened to continue it.
    func opened(_ url: URL) throws -> DownloadFile {
        guard case .opened(let file) = try DownloadFile.openOwn(at: url) else { throw CocoaError(.fileReadUnknown) }
        return file
    }
}
