import Foundation
import HTTPTypes
import Testing

@testable import Courier

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issue 22 (download part): files planted in the destination's folder, a cancel that touched
/// another download's files, a short resume taken for the whole file, and the completed file's mode.
@Suite("Downloads to disk: planted files, cancels, short resumes, modes")
struct DownloadHardeningTests {
    static let url = URL(string: "https://api.example.com/file")!

    // MARK: - Planted files

    @Test("a symbolic link planted at the partial file is not followed: its target is untouched and the destination is a regular file")
    func aLinkAtThePartialFileIsNotFollowed() async throws {
        let files = try TemporaryFiles()
        let victim = files.directory.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        let paths = DownloadPaths(destination: files.destination)
        try FileManager.default.createSymbolicLink(atPath: paths.temporary.path, withDestinationPath: victim.path)
        let transport = ScriptedTransport { _ in (200, ["ETag": "\"v1\""], ResponseBody(Data("downloaded".utf8))) }
        _ = try await download(through: transport, to: files.destination).get()
        #expect(try Data(contentsOf: victim) == Data("precious".utf8), "the download wrote through the planted link")
        #expect(try Self.kind(of: files.destination) == mode_t(S_IFREG), "the destination is not a regular file")
        #expect(try Data(contentsOf: files.destination) == Data("downloaded".utf8))
        #expect(files.names() == ["out.bin", "victim.txt"])
    }

    @Test("a symbolic link planted at the state file is not followed: its target keeps its bytes")
    func aLinkAtTheStateFileIsNotFollowed() async throws {
        let files = try TemporaryFiles()
        let victim = files.directory.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        let paths = DownloadPaths(destination: files.destination)
        try FileManager.default.createSymbolicLink(atPath: paths.state.path, withDestinationPath: victim.path)
        // The body stops short of its length: the state is saved for a later run.
        let transport = ScriptedTransport { _ in
            (200, ["ETag": "\"v1\""], ResponseBody([Data(repeating: 1, count: 40)].async, expectedLength: 100))
        }
        let result = await download(through: transport, to: files.destination, attempts: 0)
        guard case .failure(.transport) = result else {
            Issue.record("expected a transport failure, got \(result)")
            return
        }
        #expect(try Data(contentsOf: victim) == Data("precious".utf8), "the resume state was written through the planted link")
        #expect(try Self.kind(of: paths.state) == mode_t(S_IFREG))
        #expect(paths.loadState()?.receivedBytes == 40)
    }

    @Test("a partial file with a second hard link is not continued: it is dropped, the other name keeps its bytes, the body starts from zero")
    func aHardLinkedPartialFileIsNotContinued() async throws {
        let files = try TemporaryFiles()
        let victim = files.directory.appendingPathComponent("victim.txt")
        try Data(repeating: 9, count: 100).write(to: victim)
        let paths = DownloadPaths(destination: files.destination)
        try FileManager.default.linkItem(at: victim, to: paths.temporary)
        try paths.save(DownloadResumeData(url: Self.url, validator: "\"v1\"", receivedBytes: 100, expectedBytes: 200, temporaryFile: paths.temporary))
        let ranges = LockedState<[String?]>([])
        let transport = ScriptedTransport { request in
            let range = request.head.headerFields[.range]
            ranges.withLock { $0.append(range) }
            if range != nil {
                return (206, ["ETag": "\"v1\"", "Content-Range": "bytes 100-199/200"], ResponseBody(Data(repeating: 2, count: 100)))
            }
            return (200, ["ETag": "\"v1\""], ResponseBody(Data(repeating: 3, count: 200)))
        }
        let file = try await download(through: transport, to: files.destination).get()
        #expect(ranges.withLock { $0 } == [nil], "the hard-linked file was continued")
        #expect(file.resumeCount == 0)
        #expect(try Data(contentsOf: victim) == Data(repeating: 9, count: 100), "bytes were appended to the other name")
        #expect(try Data(contentsOf: files.destination) == Data(repeating: 3, count: 200))
    }

    // MARK: - Cancel

    @Test("cancelling a download that never started leaves the files of another download to the same destination alone")
    func cancellingAnUnstartedDownloadLeavesARunningOneAlone() async throws {
        let files = try TemporaryFiles()
        let (body, feed) = AsyncStream.makeStream(of: Data.self)
        let transport = ScriptedTransport { _ in (200, ["ETag": "\"v1\""], ResponseBody(body, expectedLength: 20)) }
        let client = Client(configuration: Configuration(transport: transport))
        let running = client.enqueue(FileEndpoint()).makeDownload(to: files.destination)
        let idle = client.enqueue(FileEndpoint()).makeDownload(to: files.destination)
        var progress = running.progress.makeAsyncIterator()
        await running.start()
        feed.yield(Data(repeating: 1, count: 10))
        // The first value is reported once the partial file exists.
        _ = await progress.next()
        let paths = DownloadPaths(destination: files.destination)
        #expect(FileManager.default.fileExists(atPath: paths.temporary.path))

        await idle.cancel()
        #expect(FileManager.default.fileExists(atPath: paths.temporary.path), "the idle download's cancel removed the running one's file")
        #expect(FileManager.default.fileExists(atPath: paths.state.path))

        feed.yield(Data(repeating: 2, count: 10))
        feed.finish()
        let file = try await running.finished()
        #expect(file.byteCount == 20)
        #expect(try Data(contentsOf: files.destination) == Data(repeating: 1, count: 10) + Data(repeating: 2, count: 10))
    }

    // MARK: - Short resumes

    @Test(
        "a resume that ends before the length the first response announced is not committed: the download starts over",
        arguments: ["bytes 500000-500099/*", "bytes 500000-500099/500100"])
    func aShortResumeStartsOver(_ contentRange: String) async throws {
        let files = try TemporaryFiles()
        let ranges = LockedState<[String?]>([])
        let transport = ScriptedTransport { request in
            let range = request.head.headerFields[.range]
            let count = ranges.withLock { ranges in
                ranges.append(range)
                return ranges.count
            }
            if range != nil {
                return (206, ["ETag": "\"v1\"", "Content-Range": contentRange], ResponseBody(Data(repeating: 2, count: 100)))
            }
            if count == 1 {
                // 1,000,000 bytes announced, the connection drops after 500,000.
                return (200, ["ETag": "\"v1\""], ResponseBody([Data(repeating: 1, count: 500_000)].async, expectedLength: 1_000_000))
            }
            return (200, ["ETag": "\"v1\""], ResponseBody(Data(repeating: 3, count: 1_000_000)))
        }
        let result = await download(through: transport, to: files.destination)
        let file = try result.get()
        #expect(file.byteCount == 1_000_000)
        #expect(ranges.withLock { $0 } == [nil, "bytes=500000-", nil])
        #expect(try Data(contentsOf: files.destination) == Data(repeating: 3, count: 1_000_000))
        #expect(files.names() == ["out.bin"])
    }

    // MARK: - Modes

    @Test("a new file gets the usual mode (0666 less the umask), like curl -o, not 0600")
    func aNewFileGetsTheUmaskMode() async throws {
        let files = try TemporaryFiles()
        let transport = ScriptedTransport { _ in (200, [:], ResponseBody(Data("hello".utf8))) }
        _ = try await download(through: transport, to: files.destination).get()
        #expect(try Self.permissions(of: files.destination) == 0o666 & ~Self.umaskValue())
    }

    @Test("a file that replaces another keeps the replaced file's mode")
    func aReplacingFileKeepsTheMode() async throws {
        let files = try TemporaryFiles()
        try Data("old".utf8).write(to: files.destination)
        #expect(chmod(files.destination.path, 0o640) == 0)
        let transport = ScriptedTransport { _ in (200, [:], ResponseBody(Data("new".utf8))) }
        _ = try await download(through: transport, to: files.destination).get()
        #expect(try Self.permissions(of: files.destination) == 0o640)
        #expect(try Data(contentsOf: files.destination) == Data("new".utf8))
    }

    // MARK: - Helpers

    func download(through transport: ScriptedTransport, to destination: URL, attempts: Int = 3) async -> Result<DownloadedFile, CourierError> {
        let client = Client(configuration: Configuration(transport: transport))
        do {
            return .success(
                try await client.enqueue(FileEndpoint()).download(to: destination, options: DownloadOptions(maximumResumeAttempts: attempts)))
        } catch {
            return .failure(error)
        }
    }

    /// The file type bits of what is at `url`, not following a link.
    static func kind(of url: URL) throws -> mode_t {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return info.st_mode & mode_t(S_IFMT)
    }

    /// The permission bits of the file at `url`.
    static func permissions(of url: URL) throws -> mode_t {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return info.st_mode & 0o7777
    }

    /// The process's umask, read without changing it where the system says it (Linux), else
    /// set and restored.
    static func umaskValue() -> mode_t {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
            let value = mode_t(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8)
        {
            return value
        }
        let value = umask(0o077)
        umask(value)
        return value
    }
}
