import Courier
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--downloads-gib N`: an N GiB download to disk through `Call.download(to:)` on each transport
/// (async-http-client first, then URLSession), with this process's peak RSS during each, against
/// `curl -o` fetching the same file from the same loopback server, in one run.
///
/// - The server: the sink of `--transfers-gib` in a child process, serving an N GiB
///   pseudo-random file at `GET /download` with `sendfile(2)` (no ETag: nothing to resume).
/// - Courier: `client.enqueue(GET /download).download(to: file)`: temporary file, `fsync`, rename.
///   The file's size and ``Checksum`` are checked after the clock stopped.
/// - curl: `curl -s -o file URL`, which does not `fsync`; also shown with a `sync -f` of the file
///   after it, the closer comparison. Each destination file is removed before the next run.
/// - Peak RSS: `VmHWM`, reset before each transfer (see ``TransfersBench``). Target: < 64 MiB,
///   and ≥ 0.9× curl's throughput.
enum DownloadsBench {
    static func run(gibibytes: Double) async throws -> Bool {
        #if canImport(Glibc)
            say(
                "courier-bench: \(format(gibibytes, 2)) GiB download to disk with Call.download(to:) on each transport, "
                    + "against curl -o; \(ProcessInfo.processInfo.activeProcessorCount) cores")
            #if DEBUG
                say("warning: a debug build; run with -c release for meaningful figures")
            #endif
            let canReset = MemoryUsage.resetPeak()
            let directory = try makeScratchDirectory("downloads")
            defer { try? FileManager.default.removeItem(at: directory) }
            let source = directory.appendingPathComponent("payload.bin")
            let size = Int64(gibibytes * Double(1 << 30))
            let checksum = try MultipartBench.writePseudoRandomFile(source, size: size)
            let sink = try SinkProcess.start(serving: source)
            defer { sink.stop() }
            say("server: child process \(sink.pid) on 127.0.0.1:\(sink.port), GET /download: \(size) bytes (sendfile)")
            let destination = directory.appendingPathComponent("downloaded.bin")
            let endpoint = try DownloadEndpoint(port: sink.port)

            var rows: [(name: String, seconds: Double, peak: Int?)] = []
            // curl first and last: the page cache and the CPU governor treat everyone alike.
            let curl = try curlDownload(port: sink.port, to: destination, size: size)
            say("curl -o: \(format(curl.plain, 2)) s; with sync -f of the file: \(format(curl.synced, 2)) s")
            rows.append(("curl -o", curl.plain, nil))
            rows.append(("curl -o + sync -f", curl.synced, nil))

            let transports: [(String, any Transport)] = [("async-http-client", AsyncHTTPClientTransport()), ("URLSession", URLSessionTransport())]
            var met = true
            for (name, transport) in transports {
                let client = Client(configuration: Configuration(transport: transport, timeout: .seconds(3_600)))
                _ = try await client.enqueue(DownloadEndpoint(port: sink.port, bytes: 1 << 20)).download(to: destination)
                try FileManager.default.removeItem(at: destination)
                if canReset { _ = MemoryUsage.resetPeak() }
                let clock = ContinuousClock()
                let start = clock.now
                let file = try await client.enqueue(endpoint).download(to: destination)
                let seconds = (clock.now - start).seconds
                let memory = MemoryUsage.now()
                let peak = memory.highWaterMark ?? memory.maxRSS
                guard file.byteCount == size, try fileChecksum(destination) == checksum else {
                    throw BenchError("\(name): the downloaded file does not match the source")
                }
                try FileManager.default.removeItem(at: destination)
                rows.append((name + " download(to:)", seconds, peak))
                say("\(name): \(format(seconds, 2)) s, peak RSS \(TransfersBench.mib(peak)); the file matches")
                if name == "async-http-client" { met = met && peak < TransfersBench.target && curl.plain / seconds >= 0.9 }
            }
            let again = try curlDownload(port: sink.port, to: destination, size: size)
            say("curl -o again: \(format(again.plain, 2)) s; with sync -f: \(format(again.synced, 2)) s")
            let curlPlain = min(curl.plain, again.plain)
            let curlSynced = min(curl.synced, again.synced)

            say("")
            say(tableRow(["client", "seconds", "MB/s", "peak RSS", "× curl -o", "× curl+sync"], widths: [34, 8, 7, 10, 10, 12]))
            for row in rows {
                say(
                    tableRow(
                        [
                            row.name, format(row.seconds, 2), format(Double(size) / row.seconds / 1e6, 0),
                            row.peak.map(TransfersBench.mib) ?? "–", format(curlPlain / row.seconds, 2), format(curlSynced / row.seconds, 2),
                        ], widths: [34, 8, 7, 10, 10, 12]))
            }
            say("")
            say(
                "× curl = curl's best time / this time (higher is faster; ≥ 0.90 is the target). download(to:) fsyncs the file "
                    + "before renaming it into place; curl -o does not, hence the second column. Peak RSS target: < "
                    + "\(TransfersBench.mib(TransfersBench.target)).")
            return met
        #else
            throw BenchError("--downloads-gib runs on Linux only (the server is spawned with posix_spawn and /proc is read)")
        #endif
    }

    #if canImport(Glibc)
        /// `curl -s -o destination`, timed; then the same with `sync -f destination` after it.
        static func curlDownload(port: Int, to destination: URL, size: Int64) throws -> (plain: Double, synced: Double) {
            func once(sync: Bool) throws -> Double {
                try? FileManager.default.removeItem(at: destination)
                let clock = ContinuousClock()
                let start = clock.now
                try runProcess("/usr/bin/env", ["curl", "-s", "-f", "-o", destination.path, "http://127.0.0.1:\(port)/download"])
                if sync { try runProcess("/usr/bin/env", ["sync", "-f", destination.path]) }
                let seconds = (clock.now - start).seconds
                let written = (try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber)?.int64Value
                guard written == size else { throw BenchError("curl wrote \(written ?? -1) bytes of \(size)") }
                try FileManager.default.removeItem(at: destination)
                return seconds
            }
            return (try once(sync: false), try once(sync: true))
        }

        static func runProcess(_ path: String, _ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw BenchError("\(arguments.joined(separator: " ")): exit \(process.terminationStatus)") }
        }

        /// The ``Checksum`` of a file, read 4 MiB at a time.
        static func fileChecksum(_ url: URL) throws -> Checksum {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            var checksum = Checksum()
            while let chunk = try handle.read(upToCount: 4 << 20), !chunk.isEmpty { checksum.update(chunk) }
            return checksum
        }
    #endif

    /// `GET http://127.0.0.1:<port>/download` (or its first `bytes`).
    struct DownloadEndpoint: Requestable {
        let base: BaseURL
        let query: [QueryItem]?

        init(port: Int, bytes: Int? = nil) throws {
            base = try BaseURL(scheme: .http, host: "127.0.0.1", port: port)
            query = bytes.map { [QueryItem(name: "bytes", value: String($0))] }
        }

        func baseURL() throws(CourierError) -> BaseURL { base }
        func path() throws(CourierError) -> URLPath { try URLPath("/download") }
        var queryItems: [QueryItem]? { query }
        var requiresAuthorization: Bool { false }
    }

    static func say(_ line: String) { CourierBench.say(line) }
    static func format(_ value: Double, _ digits: Int) -> String { CourierBench.format(value, digits) }
}
