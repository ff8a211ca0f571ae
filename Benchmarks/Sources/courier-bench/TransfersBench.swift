import Courier
import Foundation
import HTTPTypes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--transfers-gib N`: one N GiB multipart upload and one N GiB download through Courier's
/// ``AsyncHTTPClientTransport`` (then, for comparison, the same two over ``URLSessionTransport``),
/// each with the peak RSS of this process during that transfer alone. async-http-client goes
/// first, so its figures owe nothing to URLSession's threads and buffers.
///
/// - The file: N GiB of pseudo-random bytes in a fresh temporary directory, with a ``Checksum``.
/// - The server: the sink of `--multipart-gib` in a **child process** (its memory is not ours),
///   serving that file to `GET /download` with `sendfile(2)`, and counting upload bodies.
/// - The upload: `Client.enqueue(_:).resume()` of a `POST` whose body is `.multipart(form)` with
///   the file as a part (streamed from disk, never buffered); the byte count the sink answers
///   must equal the `Content-Length` Courier announced (learnt beforehand from a transport that
///   only looks at the request), so a truncated upload cannot pass.
/// - The download: `transport.send(_:)` with no response size limit, and the body read chunk by
///   chunk, counting bytes and checksumming them against the file's.
/// - Peak RSS: `VmHWM` from `/proc/self/status`, reset to the current RSS (`echo 5 >
///   /proc/self/clear_refs`) just before each transfer; also the RSS just before it, and the
///   growth between the two. Target: peak < 64 MiB (issue 11).
enum TransfersBench {
    static let target = 64 << 20

    /// The transports `--transfers-transports` may name, in the order they run.
    static let transportNames = ["ahc", "urlsession"]

    /// - Parameter transports: some of ``transportNames``.
    /// - Returns: whether every transfer over async-http-client met the target.
    static func run(gibibytes: Double, transports names: [String]) async throws -> Bool {
        let urlSession = names.contains("urlsession")
        #if canImport(Glibc)
            say(
                "courier-bench: \(format(gibibytes, 2)) GiB multipart upload and download through "
                    + names.map { $0 == "ahc" ? "AsyncHTTPClientTransport" : "URLSessionTransport" }.joined(separator: ", then ")
                    + ", peak RSS of each; "
                    + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
            #if DEBUG
                say("warning: a debug build; run with -c release for meaningful figures")
            #endif
            let canReset = MemoryUsage.resetPeak()
            say(
                canReset
                    ? "VmHWM is reset with /proc/self/clear_refs before each transfer: peak = VmHWM after it"
                    : "/proc/self/clear_refs cannot be written here: peak = VmHWM since the process started (an upper bound)")

            let directory = try makeScratchDirectory("transfers")
            defer { try? FileManager.default.removeItem(at: directory) }
            let (file, size, checksum) = try MultipartBench.writePayload(gibibytes: gibibytes, in: directory)

            let sink = try SinkProcess.start(serving: file)
            defer { sink.stop() }
            say("server: child process \(sink.pid) on 127.0.0.1:\(sink.port) (counts upload bodies; GET /download: the file, sendfile)")
            let base = try BaseURL(scheme: .http, host: "127.0.0.1", port: sink.port)

            var form = MultipartForm()
            form.append(text: "Courier benchmark", name: "title")
            form.append(fileAt: file, name: "file")
            form.append(text: "end", name: "trailer")
            let body = RequestBody.multipart(form)
            // The Content-Length Courier announces for that body, read off the request alone.
            let probe = Client(configuration: Configuration(transport: LengthProbeTransport()))
            let announced = try await MultipartBench.upload(body, to: base, with: probe)
            guard announced > size else { throw BenchError("the multipart body announces \(announced) bytes for a \(size)-byte file") }

            var transports: [(name: String, transport: any Transport)] = []
            if names.contains("ahc") { transports.append(("async-http-client", AsyncHTTPClientTransport())) }
            if urlSession { transports.append(("URLSession", URLSessionTransport())) }

            var transfers: [Transfer] = []
            for (name, transport) in transports {
                let client = Client(configuration: Configuration(transport: transport, timeout: .seconds(3_600)))
                // Warm-up: a connection, the client's and the transport's first-use allocations.
                _ = try await MultipartBench.upload(.data(Data("tiny".utf8), contentType: "text/plain"), to: base, with: client)
                _ = try await download(through: transport, port: sink.port, path: "/download?bytes=1048576")
                say("\(name): RSS after a tiny upload and a 1 MiB download: \(MemoryUsage.now())")

                transfers.append(
                    try await measure("upload", name, canReset: canReset) {
                        let received = try await MultipartBench.upload(body, to: base, with: client)
                        guard received == announced else {
                            throw BenchError("\(name) upload: the server counted \(received) bytes, Courier announced \(announced)")
                        }
                        return (received, "\(received) bytes counted by the server = Content-Length")
                    })
                say("  \(transfers.last!)")
                transfers.append(
                    try await measure("download", name, canReset: canReset) {
                        let (received, chunks) = try await download(through: transport, port: sink.port, path: "/download")
                        guard received == checksum else {
                            throw BenchError("\(name) download: received \(received), the file has \(checksum)")
                        }
                        return (received.count, "\(chunks.count) chunks of at most \(chunks.largest) bytes, checksum matches")
                    })
                say("  \(transfers.last!)")
            }

            say("")
            say(row("transport", "transfer", "bytes", "seconds", "MB/s", "CPU s", "RSS before", "peak RSS", "growth"))
            for transfer in transfers {
                say(
                    row(
                        transfer.transport, transfer.direction, String(transfer.bytes), format(transfer.seconds, 2),
                        format(Double(transfer.bytes) / transfer.seconds / 1e6, 0), format(transfer.cpu, 2),
                        mib(transfer.before), mib(transfer.peak), "+" + mib(transfer.growth)))
            }
            say("")
            say(
                "peak RSS = VmHWM of this process during the transfer"
                    + (canReset ? " (reset just before it)" : " (never reset: since the process started)")
                    + "; RSS before = VmRSS just before it; growth = peak − RSS before. Target: peak < \(mib(target)).")
            var met = true
            for transfer in transfers {
                let passes = transfer.peak < target
                if transfer.transport == "async-http-client" { met = met && passes }
                say(
                    "\(passes ? "PASS" : "FAIL")  \(transfer.direction) over \(transfer.transport): peak RSS \(mib(transfer.peak)) "
                        + "\(passes ? "<" : "≥") \(mib(target)) (growth +\(mib(transfer.growth)), "
                        + "\(transfer.growth < target ? "<" : "≥") \(mib(target)))"
                        + (transfer.transport == "async-http-client" ? "" : " [comparison only]"))
            }
            if urlSession {
                say(
                    "(URLSession on Linux: corelibs cannot pause a transfer, so past 1 MiB unread Courier spills the "
                        + "backlog to an unlinked temporary file; corelibs itself hands every 16 KiB chunk to the "
                        + "delegate without backpressure: a plain URLSession delegate download grew by 16-29 MiB too)")
            }
            return met
        #else
            throw BenchError("--transfers-gib runs on Linux only (the server is spawned with posix_spawn and /proc is read)")
        #endif
    }

    /// One transfer and the memory it took.
    struct Transfer: CustomStringConvertible {
        var direction: String
        var transport: String
        var bytes: Int64
        var seconds: Double
        var cpu: Double
        /// Right after `VmHWM` was reset, before the transfer started.
        var before: MemoryUsage
        var after: MemoryUsage
        var note: String

        var peak: Int { after.highWaterMark ?? after.maxRSS }
        var growth: Int { peak - (before.resident ?? before.maxRSS) }

        var description: String {
            "\(direction) over \(transport): \(bytes) bytes in \(format(seconds, 2)) s "
                + "(\(format(Double(bytes) / seconds / 1e6, 0)) MB/s, \(format(cpu, 2)) s CPU); "
                + "RSS before \(mib(before)), peak \(mib(peak)), growth +\(mib(growth)); \(note)"
        }
    }

    static func measure(
        _ direction: String, _ transport: String, canReset: Bool, _ body: () async throws -> (Int64, String)
    ) async throws -> Transfer {
        if canReset { _ = MemoryUsage.resetPeak() }
        let before = MemoryUsage.now()
        let clock = ContinuousClock()
        let usage = processUsage()
        let start = clock.now
        let (bytes, note) = try await body()
        let seconds = (clock.now - start).seconds
        let cpu = processUsage().cpu - usage.cpu
        return Transfer(
            direction: direction, transport: transport, bytes: bytes, seconds: seconds, cpu: cpu, before: before,
            after: MemoryUsage.now(), note: note)
    }

    /// `GET path` through `transport` with no size limit, read chunk by chunk: the checksum of
    /// what arrived, and how it was chunked.
    static func download(
        through transport: any Transport, port: Int, path: String
    ) async throws -> (Checksum, chunks: (count: Int, largest: Int)) {
        let request = TransportRequest(
            head: HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: path),
            timeout: .seconds(3_600), maximumResponseSize: nil)
        let response = try await transport.send(request)
        guard response.statusCode == 200 else { throw BenchError("GET \(path): status \(response.statusCode)") }
        var checksum = Checksum()
        var count = 0
        var largest = 0
        for try await chunk in response.body {
            checksum.update(chunk)
            count += 1
            largest = max(largest, chunk.count)
        }
        return (checksum, (count, largest))
    }

    static func say(_ line: String) { CourierBench.say(line) }
    static func format(_ value: Double, _ digits: Int) -> String { CourierBench.format(value, digits) }
    static func mib(_ bytes: Int) -> String { format(Double(bytes) / 1_048_576, 1) + " MiB" }
    static func mib(_ memory: MemoryUsage) -> String { mib(memory.resident ?? memory.maxRSS) }

    static func row(_ columns: String...) -> String {
        tableRow(columns, widths: [18, 9, 11, 8, 6, 6, 11, 10, 10])
    }
}

/// A transport that reads nothing: it answers `{"bytes":N}` with the length the request's body
/// announces (its `Content-Length`).
struct LengthProbeTransport: Transport {
    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        StreamedResponse(
            status: .ok, headers: [.contentType: "application/json"],
            body: ResponseBody(Data(#"{"bytes":\#(request.body?.count ?? -1)}"#.utf8)), url: request.url)
    }
}

/// An order-sensitive 64-bit checksum of a byte stream and its length, the same however the
/// stream is chunked: the bytes as little-endian 64-bit words (the last one zero-padded), each
/// folded in with an xor, a multiplication by an odd constant and a rotation (all bijective, so
/// one changed word always changes the result). Runs at several GB/s.
struct Checksum: Equatable, CustomStringConvertible {
    private(set) var count: Int64 = 0
    private var value: UInt64 = 0
    private var partial: UInt64 = 0
    private var partialBytes = 0

    mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        count += Int64(bytes.count)
        var index = 0
        // Complete the word a previous chunk started.
        while partialBytes > 0, index < bytes.count {
            partial |= UInt64(bytes[index]) << (8 * partialBytes)
            partialBytes += 1
            index += 1
            if partialBytes == 8 {
                fold(partial)
                partial = 0
                partialBytes = 0
            }
        }
        while index + 8 <= bytes.count {
            fold(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
            index += 8
        }
        while index < bytes.count {
            partial |= UInt64(bytes[index]) << (8 * partialBytes)
            partialBytes += 1
            index += 1
        }
    }

    private mutating func fold(_ word: UInt64) {
        let mixed = (value ^ word) &* 0x9E37_79B9_7F4A_7C15
        value = mixed << 29 | mixed >> 35
    }

    var digest: UInt64 {
        var copy = self
        if copy.partialBytes > 0 { copy.fold(copy.partial) }
        return copy.value
    }

    static func == (lhs: Checksum, rhs: Checksum) -> Bool {
        lhs.count == rhs.count && lhs.digest == rhs.digest
    }

    var description: String {
        "\(count) bytes, " + String(digest, radix: 16)
    }
}
