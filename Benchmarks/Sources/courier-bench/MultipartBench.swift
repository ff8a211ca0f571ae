import Courier
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--multipart-gib N`: a file of N GiB uploaded as a `multipart/form-data` part, and as a plain
/// `RequestBody.file` body, to a sink on 127.0.0.1 that runs in a child process (this binary
/// relaunched with `--sink`) and discards what it reads; alternated `rounds` times. Prints the
/// bytes sent, time, throughput and CPU of each, their ratio, and the client process's peak RSS
/// against its baseline after one tiny request. A second pass reads both bodies with no network
/// at all (a transport that drains the stream) to isolate the cost of the framing and of the
/// boundary scan.
enum MultipartBench {
    static func run(gibibytes: Double, rounds: Int) async throws {
        #if canImport(Glibc)
            say(
                "courier-bench: multipart upload of \(format(gibibytes, 2)) GiB, \(rounds) rounds per body, "
                    + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
            #if DEBUG
                say("warning: a debug build; run with -c release for meaningful figures")
            #endif
            let sink = try SinkProcess.start()
            defer { sink.stop() }
            let base = try BaseURL(scheme: .http, host: "127.0.0.1", port: sink.port)
            let client = Client(configuration: Configuration(transport: URLSessionTransport(), timeout: .seconds(3_600)))

            // The baseline: this process after one tiny request through the same client.
            _ = try await upload(.data(Data("tiny".utf8), contentType: "text/plain"), to: base, with: client)
            let baseline = MemoryUsage.now()
            say("sink: child process \(sink.pid) on 127.0.0.1:\(sink.port) (raw sockets, 1 MiB reads, discards the body)")
            say("baseline after one tiny request: \(baseline)")

            let directory = try makeScratchDirectory("multipart")
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("payload.bin")
            let size = Int64(gibibytes * Double(1 << 30))
            let clock = ContinuousClock()
            let writeStart = clock.now
            try writePseudoRandomFile(file, size: size)
            say(
                "wrote \(size) pseudo-random bytes (SplitMix64, written 1 MiB at a time) to a temporary file in "
                    + "\(format((clock.now - writeStart).seconds, 2)) s; it stays in the page cache, so both bodies read it from memory")
            let afterFile = MemoryUsage.now()
            let peakReset = MemoryUsage.resetPeak()

            var form = MultipartForm()
            form.append(text: "Courier benchmark", name: "title")
            form.append(fileAt: file, name: "file")
            form.append(text: "end", name: "trailer")
            let bodies: [(label: String, body: RequestBody)] = [("multipart", .multipart(form)), ("file", .file(file))]

            // Over the network, alternating which body goes first.
            var network: [String: [Run]] = [:]
            for round in 0..<rounds {
                let order = round.isMultiple(of: 2) ? bodies : bodies.reversed()
                var line: [String] = []
                for (label, body) in order {
                    let run = try await measure { try await upload(body, to: base, with: client) }
                    network[label, default: []].append(run)
                    line.append("\(label) \(format(run.megabytesPerSecond, 0)) MB/s, \(format(run.cpu, 2)) s CPU")
                }
                say("  upload round \(round + 1)/\(rounds): " + line.joined(separator: ", "))
            }
            let afterUploads = MemoryUsage.now()

            // Without a network: what producing the bytes costs.
            let drain = Client(configuration: Configuration(transport: DrainingTransport(), timeout: .seconds(3_600)))
            var local: [String: [Run]] = [:]
            for round in 0..<rounds {
                let order = round.isMultiple(of: 2) ? bodies : bodies.reversed()
                for (label, body) in order {
                    local[label, default: []].append(try await measure { try await upload(body, to: base, with: drain) })
                }
            }
            let afterAll = MemoryUsage.now()

            say("")
            say(row("", "body", "bytes", "seconds", "MB/s", "CPU s", "CPU s/GiB"))
            for (title, runs) in [("upload", network), ("read only", local)] {
                for (label, _) in bodies {
                    guard let samples = runs[label] else { continue }
                    let bytes = samples[0].bytes
                    let seconds = median(samples.map(\.seconds))
                    let cpu = median(samples.map(\.cpu))
                    say(
                        row(
                            title, label, String(bytes), format(seconds, 3), format(Double(bytes) / seconds / 1e6, 0),
                            format(cpu, 2), format(cpu / (Double(bytes) / Double(1 << 30)), 2)))
                }
                if let multipart = runs["multipart"], let plain = runs["file"] {
                    let throughput = median(zip(multipart, plain).map { $0.megabytesPerSecond / $1.megabytesPerSecond })
                    let cpu = median(zip(multipart, plain).map { $0.cpu / $1.cpu })
                    say(
                        "    \(title): multipart/file throughput \(format(throughput, 3)), CPU \(format(cpu, 3)) "
                            + "(medians of per-round ratios); extra CPU for framing + boundary scan: "
                            + "\(format((median(multipart.map(\.cpu)) - median(plain.map(\.cpu))) / gibibytes, 3)) s per GiB")
                }
            }
            say("")
            say("memory of this (client) process, \(MemoryUsage.note):")
            say("  baseline (one tiny request):         \(baseline)")
            say("  after writing the file:              \(afterFile)")
            say("  peak during the uploads:             \(afterUploads)\(peakReset ? " (VmHWM reset after the file was written)" : "")")
            say("  after the read-only pass:            \(afterAll)")
            // VmHWM when there is one: ru_maxrss survives execve, so under `swift run` it starts at
            // SwiftPM's own peak (≈ 130 MiB), which says nothing about this process.
            let peak = afterUploads.highWaterMark ?? afterUploads.maxRSS
            let start = baseline.highWaterMark ?? baseline.maxRSS
            let growth = Double(peak - start) / 1_048_576
            say(
                "  peak RSS / baseline: \(format(Double(peak) / Double(start), 2)) "
                    + "(+\(format(growth, 1)) MiB for \(format(Double(size) / 1_048_576, 0)) MiB uploaded "
                    + "\(rounds * 2) times); target: peak RSS < 64 MiB: \(peak < 64 << 20 ? "met" : "NOT met")")
        #else
            throw BenchError("--multipart-gib runs on Linux only (the sink is spawned with posix_spawn and /proc is read)")
        #endif
    }

    /// One upload (or local read), with the bytes the other side counted.
    struct Run {
        var bytes: Int64
        var seconds: Double
        var cpu: Double
        var megabytesPerSecond: Double { Double(bytes) / seconds / 1e6 }
    }

    static func measure(_ body: () async throws -> Int64) async throws -> Run {
        let clock = ContinuousClock()
        let usage = processUsage()
        let start = clock.now
        let bytes = try await body()
        let seconds = (clock.now - start).seconds
        return Run(bytes: bytes, seconds: seconds, cpu: processUsage().cpu - usage.cpu)
    }

    /// POSTs `body` and returns the byte count the receiver reports.
    static func upload(_ body: RequestBody, to base: BaseURL, with client: Client) async throws -> Int64 {
        let response = try await client.enqueue(Upload(base: base, body: body)).resume()
        struct Receipt: Decodable { var bytes: Int64 }
        return try JSONDecoder().decode(Receipt.self, from: response.body).bytes
    }

    struct Upload: Requestable {
        let base: BaseURL
        let body: RequestBody?
        var method: HTTPMethod { .post }
        var requiresAuthorization: Bool { false }
        func baseURL() throws(CourierError) -> BaseURL { base }
        func path() throws(CourierError) -> URLPath { try URLPath("/upload") }
    }

    /// Writes `gibibytes` of pseudo-random bytes to `payload.bin` in `directory`, says how long it
    /// took, and returns the file, its size and its ``Checksum``.
    static func writePayload(gibibytes: Double, in directory: URL) throws -> (file: URL, size: Int64, checksum: Checksum) {
        let file = directory.appendingPathComponent("payload.bin")
        let size = Int64(gibibytes * Double(1 << 30))
        let clock = ContinuousClock()
        let writeStart = clock.now
        let checksum = try writePseudoRandomFile(file, size: size)
        CourierBench.say(
            "wrote \(size) pseudo-random bytes to a temporary file in \(CourierBench.format((clock.now - writeStart).seconds, 2)) s "
                + "(checksum \(checksum)); it stays in the page cache")
        return (file, size, checksum)
    }

    /// Writes `size` pseudo-random bytes, 1 MiB at a time (never the whole file in memory), and
    /// returns their ``Checksum``.
    @discardableResult
    static func writePseudoRandomFile(_ url: URL, size: Int64) throws -> Checksum {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw BenchError("cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var state: UInt64 = 0xC0FF_EE00_D15C_0BA1
        var block = Data(count: 1 << 20)
        var written: Int64 = 0
        var checksum = Checksum()
        while written < size {
            block.withUnsafeMutableBytes { raw in
                for index in raw.bindMemory(to: UInt64.self).indices {
                    state &+= 0x9E37_79B9_7F4A_7C15
                    var z = state
                    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                    raw.storeBytes(of: z ^ (z >> 31), toByteOffset: index * 8, as: UInt64.self)
                }
            }
            let count = Int(min(Int64(block.count), size - written))
            let bytes = count == block.count ? block : block.prefix(count)
            try handle.write(contentsOf: bytes)
            checksum.update(bytes)
            written += Int64(count)
        }
        return checksum
    }

    static func say(_ line: String) { CourierBench.say(line) }
    static func format(_ value: Double, _ digits: Int) -> String { CourierBench.format(value, digits) }

    static func row(_ columns: String...) -> String {
        tableRow(columns, widths: [10, 10, 12, 9, 7, 7, 10])
    }
}

/// A transport that reads a streamed body to its end and answers with the byte count: the cost
/// of producing the body, without a network.
struct DrainingTransport: Transport {
    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        var count: Int64 = 0
        switch request.body {
        case .data(let data)?:
            count = Int64(data.count)
        case .stream(let stream)?:
            var reader = try stream.makeReader()
            while let chunk = try await reader.next() {
                count += Int64(chunk.count)
            }
        case nil:
            break
        }
        return StreamedResponse(
            status: .ok, headers: [.contentType: "application/json"],
            body: ResponseBody(Data(#"{"bytes":\#(count)}"#.utf8)), url: request.url)
    }
}

/// This process's memory: peak RSS from `getrusage` (`ru_maxrss`), and `VmHWM` (peak) and
/// `VmRSS` (now) from `/proc/self/status`.
struct MemoryUsage: CustomStringConvertible {
    var maxRSS: Int
    var highWaterMark: Int?
    var resident: Int?

    static let note = "ru_maxrss = peak since the process started; VmHWM = peak since the last reset"

    static func now() -> MemoryUsage {
        var usage = rusage()
        #if canImport(Glibc)
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let maxRSS = usage.ru_maxrss * 1024  // KiB on Linux
        #else
            getrusage(RUSAGE_SELF, &usage)
            let maxRSS = usage.ru_maxrss  // bytes on Darwin
        #endif
        var memory = MemoryUsage(maxRSS: maxRSS)
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
            for line in status.split(separator: "\n") {
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard fields.count >= 2, let kib = Int(fields[1]) else { continue }
                if fields[0] == "VmHWM:" { memory.highWaterMark = kib * 1024 }
                if fields[0] == "VmRSS:" { memory.resident = kib * 1024 }
            }
        }
        return memory
    }

    /// Resets `VmHWM` to the current RSS (Linux: `echo 5 > /proc/self/clear_refs`).
    static func resetPeak() -> Bool {
        (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    var description: String {
        func mib(_ bytes: Int?) -> String { bytes.map { CourierBench.format(Double($0) / 1_048_576, 1) + " MiB" } ?? "–" }
        return "ru_maxrss \(mib(maxRSS)), VmHWM \(mib(highWaterMark)), VmRSS \(mib(resident))"
    }
}

#if canImport(Glibc)

    /// The sink: this binary relaunched with `--sink`, in its own process so that the client's
    /// memory is measured alone. It prints `PORT <n>` on stdout and exits when its stdin (a pipe from
    /// this process) closes, so it never outlives the benchmark, even one killed with SIGKILL.
    final class SinkProcess: @unchecked Sendable {
        // @unchecked: `stopped` is only touched under `lock`; the rest is immutable.
        let pid: pid_t
        let port: Int
        private let stdinWriteEnd: Int32
        private let lock = NSLock()
        private var stopped = false

        private init(pid: pid_t, port: Int, stdinWriteEnd: Int32) {
            self.pid = pid
            self.port = port
            self.stdinWriteEnd = stdinWriteEnd
        }

        /// - Parameter file: served to `GET /download` (see ``Sink``), when given.
        static func start(serving file: URL? = nil) throws -> SinkProcess {
            try start(arguments: ["--sink"] + (file.map { ["--sink-file", $0.path] } ?? []))
        }

        /// This binary relaunched with `arguments`, a server that prints `PORT <n>` first and
        /// exits when its stdin closes (`--sink`, `--websocket-echo-server`).
        static func start(arguments: [String]) throws -> SinkProcess {
            let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            let input = try closeOnExecPipe()
            let output = try closeOnExecPipe()
            let pid: pid_t
            do {
                pid = try spawn(executable, arguments, stdin: input[0], output: output[1])
            } catch {
                input.forEach { close($0) }
                output.forEach { close($0) }
                throw error
            }
            close(input[0])
            close(output[1])
            defer { close(output[0]) }
            var line = [UInt8]()
            var byte: UInt8 = 0
            while read(output[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") {
                line.append(byte)
            }
            let text = String(decoding: line, as: UTF8.self)
            guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
                close(input[1])
                waitpid(pid, nil, 0)
                throw BenchError("\(arguments[0]) did not start: \(text)")
            }
            return SinkProcess(pid: pid, port: port, stdinWriteEnd: input[1])
        }

        func stop() {
            lock.lock()
            let first = !stopped
            stopped = true
            lock.unlock()
            guard first else { return }
            close(stdinWriteEnd)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
    }

    /// `courier-bench --sink`: a minimal HTTP/1.1 server on 127.0.0.1 that reads request bodies
    /// (Content-Length only) in 1 MiB reads, discards them and answers `{"bytes":N}`. Blocking
    /// sockets and one thread per connection: nothing between the socket and the counter. For
    /// `POST /upload-checked` the answer also has the body's ``Checksum`` digest in hexadecimal,
    /// `{"bytes":N,"checksum":"…"}`.
    ///
    /// With `--sink-file PATH` it also answers `GET /download` with that file (`GET
    /// /download?bytes=N`: its first N bytes), `Content-Length` and `sendfile(2)`: the kernel
    /// copies from the page cache to the socket, and this process holds none of the body.
    enum Sink {
        static func run(serving file: String?) -> Never {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var yes: Int32 = 1
            setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(listener, 16) == 0 else { fail("bind/listen: errno \(errno)") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
            }
            CourierBench.say("PORT \(UInt16(bigEndian: address.sin_port))")

            // Exit when the parent closes our stdin (or dies).
            Thread.detachNewThread {
                var byte: UInt8 = 0
                while read(0, &byte, 1) > 0 {}
                exit(0)
            }
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                Thread.detachNewThread { serve(connection, file: file) }
            }
        }

        private static func serve(_ fd: Int32, file: String?) {
            defer { close(fd) }
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            let capacity = 1 << 20
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            defer { buffer.deallocate() }
            var pending = [UInt8]()  // bytes read past the current request's head
            while true {
                // The head.
                var head = pending
                pending = []
                var headEnd: Int?
                while headEnd == nil {
                    if let end = find([13, 10, 13, 10], in: head) {
                        headEnd = end
                        break
                    }
                    let count = read(fd, buffer, capacity)
                    guard count > 0 else { return }
                    head.append(contentsOf: UnsafeBufferPointer(start: buffer, count: count))
                }
                guard let headEnd else { return }
                let text = String(decoding: head[..<headEnd], as: UTF8.self).lowercased()
                if text.hasPrefix("get ") {
                    // No body: whatever follows the head is the next request.
                    pending = Array(head[(headEnd + 4)...])
                    let target = text.dropFirst(4).prefix { $0 != " " }
                    guard let file, target == "/download" || target.hasPrefix("/download?bytes=") else {
                        write(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                        continue
                    }
                    let limit = target.split(separator: "=").last.flatMap { Int64($0) } ?? .max
                    guard send(file, upTo: limit, to: fd) else { return }
                    continue
                }
                // POST /upload-checked: also the body's ``Checksum`` in the answer
                // (`--openapi-upload-gib`); other uploads are only counted.
                let checks = text.split(separator: " ", maxSplits: 2).dropFirst().first == "/upload-checked"
                var checksum = Checksum()
                var contentLength: Int64?
                var chunked = false
                for line in text.split(separator: "\r\n") {
                    if line.hasPrefix("content-length:") { contentLength = Int64(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) }
                    if line.hasPrefix("transfer-encoding:"), line.contains("chunked") { chunked = true }
                    if line.hasPrefix("expect:"), line.contains("100-continue") { write(fd, "HTTP/1.1 100 Continue\r\n\r\n") }
                }
                guard let contentLength, !chunked else {
                    write(fd, "HTTP/1.1 411 Length Required\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                }
                // The body, discarded.
                var received = Int64(head.count - headEnd - 4)
                if received > contentLength {
                    pending = Array(head[(headEnd + 4 + Int(contentLength))...])
                    received = contentLength
                }
                if checks { head[(headEnd + 4)..<(headEnd + 4 + Int(received))].withUnsafeBytes { checksum.update($0) } }
                while received < contentLength {
                    let count = read(fd, buffer, Int(min(Int64(capacity), contentLength - received)))
                    guard count > 0 else { return }
                    if checks { checksum.update(UnsafeRawBufferPointer(start: buffer, count: count)) }
                    received += Int64(count)
                }
                let body =
                    checks
                    ? #"{"bytes":\#(received),"checksum":"\#(String(checksum.digest, radix: 16))"}"#
                    : #"{"bytes":\#(received)}"#
                write(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            }
        }

        /// Answers with the first `limit` bytes of `path` (all of it when shorter) through
        /// `sendfile(2)`. `false` when the connection or the file failed.
        private static func send(_ path: String, upTo limit: Int64, to fd: Int32) -> Bool {
            let file = open(path, O_RDONLY)
            guard file >= 0 else {
                write(fd, "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return false
            }
            defer { close(file) }
            var status = stat()
            guard fstat(file, &status) == 0 else { return false }
            let length = min(Int64(status.st_size), limit)
            write(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(length)\r\n\r\n")
            var offset = off_t(0)
            while Int64(offset) < length {
                let sent = sendfile(fd, file, &offset, Int(min(length - Int64(offset), 1 << 30)))
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return false }
            }
            return true
        }

        private static func write(_ fd: Int32, _ text: String) {
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
                guard count > 0 else { return }
                offset += count
            }
        }

        private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
            guard haystack.count >= needle.count else { return nil }
            for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
                return start
            }
            return nil
        }

        private static func fail(_ message: String) -> Never {
            CourierBench.say("sink: \(message)")
            exit(1)
        }
    }

#endif

/// One line of a table: the first two columns left-aligned (names), the rest right-aligned
/// (figures), each padded to its width.
func tableRow(_ columns: [String], widths: [Int]) -> String {
    zip(columns, widths).enumerated().map { index, pair in
        let (text, width) = pair
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return index < 2 ? text + padding : padding + text
    }.joined(separator: " ")
}

/// A new, empty directory under the temporary directory, `courier-bench-<purpose>-<UUID>`; the
/// caller removes it.
func makeScratchDirectory(_ purpose: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-\(purpose)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}
