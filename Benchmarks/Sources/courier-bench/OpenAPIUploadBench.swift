import Courier
import CourierOpenAPI
import Foundation
import HTTPTypes
import NIOCore
@_spi(Generated) import OpenAPIRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--openapi-upload-gib N`: the same N GiB uploaded as a generated operation through
/// `CourierClientTransport`, and as Courier's own streamed upload, on each transport, **each
/// upload in a process of its own** (this binary relaunched with `--openapi-upload-child`), with
/// the peak RSS of that process during the upload.
///
/// - The file: N GiB of pseudo-random bytes in a fresh temporary directory, with its
///   ``Checksum``. It stays in the page cache.
/// - The server: the sink of `--transfers-gib` in a child process of its own. For `POST
///   /upload-checked` it answers the byte count and the ``Checksum`` of the body it read, which
///   must be the file's: a truncated or corrupted upload fails the run.
/// - The bytes: both measured uploads read the file through the same ``FileChunks``, a
///   pull-based `AsyncSequence` of 64 KiB `HTTPBody.ByteChunk`s (`ArraySlice<UInt8>`), each read
///   only when the body asks for it, as a single-pass stream from a file or a socket is.
/// - **courier**: `client.enqueue(_:).resume()` of a `Requestable` whose body is
///   `RequestBody.stream(chunks, length: N)`: the public way to stream an upload.
/// - **openapi**: the same chunks as `HTTPBody(chunks, length: .known(N), iterationBehavior:
///   .single)`, sent as generated code sends an `application/octet-stream` operation body:
///   `UniversalClient.send(input:forOperation:serializer:deserializer:)` over
///   `CourierClientTransport(client)`, the request built with the runtime's converter (which sets
///   `Content-Type` and `Content-Length`), the JSON answer decoded with it.
/// - `rounds` rounds of the two, the order alternating (courier, openapi | openapi, courier |
///   …); the verdict compares their medians.
/// - For comparison only, once per transport after the rounds: **courier-file**, Courier's own
///   `RequestBody.file` of the same file; **openapi-asyncstream**, an `AsyncStream` that a task
///   fills from `FileHandle.read(upToCount:)` as fast as it can (what `Documentation/OpenAPI.md`
///   warns against); and **openapi-unfolding**, the same reads in an
///   `AsyncThrowingStream(unfolding:)`, which reads a chunk only when asked (the guide's
///   example). The last two measure the producer, not the transport.
/// - Each child creates its client, uploads the file's first MiB the same way (a connection,
///   first-use allocations), then resets `VmHWM` (`/proc/self/clear_refs`) and uploads the N GiB.
///   *RSS before* is `VmRSS` after that reset, *peak* `VmHWM` after the upload. An `idle` child
///   (the binary started, nothing done) gives the floor.
/// - Target: the openapi upload's median peak RSS at most ``tolerance`` times courier's on the
///   same transport.
enum OpenAPIUploadBench {
    /// The hidden flag of the child processes; see ``runChild(_:)``.
    static let childFlag = "--openapi-upload-child"
    /// The two uploads compared, each round.
    static let measured = ["courier", "openapi"]
    /// Run once per transport after the rounds, for comparison only.
    static let comparisons = ["courier-file", "openapi-asyncstream", "openapi-unfolding"]
    /// The openapi upload passes when its median peak RSS is at most this many times courier's.
    static let tolerance = 1.05
    /// The operation's `operationId`.
    static let operationID = "uploadFile"

    // MARK: - The parent

    /// - Parameter transports: some of ``TransfersBench/transportNames``.
    /// - Returns: whether every openapi upload stayed within ``tolerance`` of courier's peak RSS
    ///   (medians).
    static func run(gibibytes: Double, rounds: Int, transports: [String]) async throws -> Bool {
        #if canImport(Glibc)
            say(
                "courier-bench: \(format(gibibytes, 2)) GiB upload through CourierClientTransport (a generated operation, "
                    + "HTTPBody .single of known length) against Courier's own RequestBody.stream, \(rounds) rounds, each upload in a "
                    + "process of its own, over \(transports.map(transportTitle).joined(separator: ", then ")); "
                    + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
            #if DEBUG
                say("warning: a debug build; run with -c release for meaningful figures")
            #endif
            let directory = try makeScratchDirectory("openapi-upload")
            defer { try? FileManager.default.removeItem(at: directory) }
            let (file, size, checksum) = try MultipartBench.writePayload(gibibytes: gibibytes, in: directory)
            let sink = try SinkProcess.start()
            defer { sink.stop() }
            say("server: child process \(sink.pid) on 127.0.0.1:\(sink.port) (POST /upload-checked: answers the body's byte count and checksum)")

            let idle = try Child.run(["idle"])
            say("idle process (this binary started, nothing done): VmRSS \(mib(idle.int("rss"))), VmHWM \(mib(idle.int("hwm")))")

            func upload(_ variant: String, over transport: String, round: Int?) throws -> Result {
                let fields = try Child.run([
                    variant, transport, String(sink.port), file.path, String(size), String(checksum.digest, radix: 16),
                ])
                let result = Result(transport: transportTitle(transport), variant: variant, round: round, fields: fields)
                say("  \(result)")
                return result
            }
            var results: [Result] = []
            for transport in transports {
                for round in 0..<rounds {
                    for variant in round.isMultiple(of: 2) ? measured : measured.reversed() {
                        results.append(try upload(variant, over: transport, round: round + 1))
                    }
                }
                for variant in comparisons {
                    results.append(try upload(variant, over: transport, round: nil))
                }
            }

            say("")
            say(row("transport", "upload", "round", "bytes", "seconds", "MB/s", "CPU s", "RSS before", "peak RSS", "growth"))
            for result in results {
                say(
                    row(
                        result.transport, result.variant, result.round.map(String.init) ?? "–", String(result.bytes),
                        format(result.seconds, 2), format(result.megabytesPerSecond, 0), format(result.cpu, 2),
                        mib(result.before), mib(result.peak), "+" + mib(result.growth)))
            }
            say("")
            say(
                "each row is a process of its own (this binary relaunched); RSS before = VmRSS after a 1 MiB upload the same way "
                    + "and the VmHWM reset; peak RSS = VmHWM after the upload; growth = peak − RSS before. An idle process: "
                    + "VmRSS \(mib(idle.int("rss"))).")
            say("medians over \(rounds) round\(rounds == 1 ? "" : "s"):")
            say(row("transport", "upload", "", "", "seconds", "MB/s", "CPU s", "RSS before", "peak RSS", "growth"))
            var met = true
            for transport in transports.map(transportTitle) {
                let runs = { (variant: String) in results.filter { $0.transport == transport && $0.variant == variant } }
                let courier = runs("courier")
                let openapi = runs("openapi")
                guard !courier.isEmpty, courier.count == openapi.count else { continue }
                func medianOf(_ runs: [Result], _ value: (Result) -> Double) -> Double { median(runs.map(value)) }
                for (variant, runs) in [("courier", courier), ("openapi", openapi)] {
                    say(
                        row(
                            transport, variant, "", "", format(medianOf(runs, \.seconds), 2), format(medianOf(runs, \.megabytesPerSecond), 0),
                            format(medianOf(runs, \.cpu), 2), mib(Int(medianOf(runs) { Double($0.before) })),
                            mib(Int(medianOf(runs) { Double($0.peak) })), "+" + mib(Int(medianOf(runs) { Double($0.growth) }))))
                }
                let courierPeak = medianOf(courier) { Double($0.peak) }
                let openapiPeak = medianOf(openapi) { Double($0.peak) }
                let ratio = openapiPeak / courierPeak
                let perRound = zip(openapi, courier).map { Double($0.peak) / Double($1.peak) }
                let passes = ratio <= tolerance
                met = met && passes
                say(
                    "\(passes ? "PASS" : "FAIL")  \(transport): openapi median peak RSS \(mib(Int(openapiPeak))) = \(format(ratio, 3))× "
                        + "courier's \(mib(Int(courierPeak))) (target ≤ \(format(tolerance, 2))×; per round "
                        + "\(format(perRound.min() ?? .nan, 3))–\(format(perRound.max() ?? .nan, 3))×); median growth "
                        + "+\(mib(Int(medianOf(openapi) { Double($0.growth) }))) against +\(mib(Int(medianOf(courier) { Double($0.growth) }))); "
                        + "throughput \(format(medianOf(openapi, \.megabytesPerSecond) / medianOf(courier, \.megabytesPerSecond), 3))×, "
                        + "CPU \(format(medianOf(openapi, \.cpu) / medianOf(courier, \.cpu), 3))×")
                for variant in comparisons {
                    guard let run = runs(variant).first else { continue }
                    say(
                        "      \(transport): \(variant) peaked at \(mib(run.peak)) (\(format(Double(run.peak) / courierPeak, 2))× "
                            + "courier's median) [comparison only]")
                }
            }
            return met
        #else
            throw BenchError("--openapi-upload-gib runs on Linux only (the processes are spawned with posix_spawn and /proc is read)")
        #endif
    }

    /// What one child reported about its upload.
    struct Result: CustomStringConvertible {
        var transport: String
        var variant: String
        /// `nil` for a comparison run.
        var round: Int?
        var fields: Child.Fields

        var bytes: Int64 { Int64(fields.int("bytes")) }
        var seconds: Double { fields.double("seconds") }
        var megabytesPerSecond: Double { Double(bytes) / seconds / 1e6 }
        var cpu: Double { fields.double("cpu") }
        var before: Int { fields.int("before") }
        var peak: Int { fields.int("peak") }
        var growth: Int { peak - before }

        var description: String {
            "\(variant) over \(transport)\(round.map { ", round \($0)" } ?? ""): \(bytes) bytes in \(format(seconds, 2)) s "
                + "(\(format(megabytesPerSecond, 0)) MB/s, \(format(cpu, 2)) s CPU); RSS before \(mib(before)), "
                + "peak \(mib(peak)), growth +\(mib(growth)); checksum matches; pid \(fields.int("pid"))"
        }
    }

    static func transportTitle(_ name: String) -> String {
        name == "ahc" ? "async-http-client" : "URLSession"
    }

    #if canImport(Glibc)
        /// Runs this binary with ``childFlag`` and `arguments`, shows its progress lines, and
        /// returns the fields of its `RESULT` line.
        enum Child {
            struct Fields {
                var values: [String: String]
                func int(_ key: String) -> Int { values[key].flatMap { Int($0) } ?? 0 }
                func double(_ key: String) -> Double { values[key].flatMap { Double($0) } ?? .nan }
            }

            /// - Parameter flag: the hidden flag that selects the child's mode.
            static func run(_ arguments: [String], flag: String = childFlag) throws -> Fields {
                let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
                let output = try closeOnExecPipe()
                let pid: pid_t
                do {
                    pid = try spawn(executable, [flag] + arguments, stdin: nil, output: output[1])
                } catch {
                    output.forEach { close($0) }
                    throw error
                }
                close(output[1])
                var text = [UInt8]()
                var buffer = [UInt8](repeating: 0, count: 4096)
                var fields: [String: String]?
                var lines: [String] = []
                func take(_ line: String) {
                    if line.hasPrefix("RESULT ") {
                        fields = Dictionary(
                            line.dropFirst(7).split(separator: " ").map { pair in
                                let parts = pair.split(separator: "=", maxSplits: 1)
                                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
                            }, uniquingKeysWith: { $1 })
                    } else {
                        lines.append(line)
                        say("    [\(arguments.prefix(2).joined(separator: " "))] \(line)")
                    }
                }
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(output[0], $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { break }
                    text.append(contentsOf: buffer[..<count])
                    while let newline = text.firstIndex(of: UInt8(ascii: "\n")) {
                        take(String(decoding: text[..<newline], as: UTF8.self))
                        text.removeSubrange(...newline)
                    }
                }
                if !text.isEmpty { take(String(decoding: text, as: UTF8.self)) }
                close(output[0])
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                guard status == 0, let fields else {
                    throw BenchError(
                        "the child \(arguments.prefix(2).joined(separator: " ")) (pid \(pid)) failed (wait status \(status))"
                            + (lines.isEmpty ? "" : ": " + lines.joined(separator: " | ")))
                }
                return Fields(values: fields.merging(["pid": String(pid)]) { $1 })
            }
        }
    #endif

    // MARK: - A child

    /// `courier-bench --openapi-upload-child VARIANT [TRANSPORT PORT FILE BYTES DIGEST]`: one
    /// upload of the first `BYTES` of `FILE` to the sink on `PORT`, whose answer must match
    /// `BYTES` and `DIGEST` (the ``Checksum``'s, hexadecimal). Writes progress lines and one
    /// `RESULT key=value …` line to stdout; exits 0, or 1 on any error. `idle` only reports this
    /// process's memory.
    static func runChild(_ arguments: [String]) async -> Never {
        do {
            try await child(arguments)
            exit(0)
        } catch {
            say("error: \(error)")
            exit(1)
        }
    }

    static func child(_ arguments: [String]) async throws {
        if arguments == ["idle"] {
            let memory = MemoryUsage.now()
            say("RESULT rss=\(memory.resident ?? 0) hwm=\(memory.highWaterMark ?? 0)")
            return
        }
        guard arguments.count == 6, (measured + comparisons).contains(arguments[0]), let port = Int(arguments[2]), let size = Int64(arguments[4]),
            let digest = UInt64(arguments[5], radix: 16)
        else { throw BenchError("\(childFlag): expected VARIANT TRANSPORT PORT FILE BYTES DIGEST, got \(arguments)") }
        let variant = arguments[0]
        let file = arguments[3]
        let transport: any Transport
        switch arguments[1] {
        case "ahc": transport = AsyncHTTPClientTransport()
        case "urlsession": transport = URLSessionTransport()
        default: throw BenchError("\(childFlag): unknown transport \(arguments[1])")
        }
        let client = Client(configuration: Courier.Configuration(transport: transport, timeout: .seconds(3_600)))
        let base = try BaseURL(scheme: .http, host: "127.0.0.1", port: port)
        let serverURL = URL(string: "http://127.0.0.1:\(port)")!
        let operations = UniversalClient(serverURL: serverURL, transport: CourierClientTransport(client, unauthenticatedOperations: [operationID]))

        func upload(_ bytes: Int64) async throws -> Receipt {
            switch variant {
            case "courier":
                let body = RequestBody.stream(FileChunks(path: file, limit: bytes), length: bytes)
                let response = try await client.enqueue(CheckedUpload(base: base, body: body)).resume()
                return try JSONDecoder().decode(Receipt.self, from: response.body)
            case "courier-file":
                // Courier's own file body (64 KiB reads); the warm-up sends a copy of the first MiB.
                var url = URL(fileURLWithPath: file)
                if bytes < size {
                    url = URL(fileURLWithPath: file + ".first-\(bytes)")
                    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
                    defer { try? handle.close() }
                    try handle.read(upToCount: Int(bytes))?.write(to: url)
                }
                defer { if bytes < size { try? FileManager.default.removeItem(at: url) } }
                let response = try await client.enqueue(CheckedUpload(base: base, body: .file(url))).resume()
                return try JSONDecoder().decode(Receipt.self, from: response.body)
            case "openapi":
                let body = HTTPBody(FileChunks(path: file, limit: bytes), length: .known(bytes), iterationBehavior: .single)
                return try await uploadOperation(body, with: operations)
            case "openapi-unfolding":
                // The same reads, one each time the body asks for a chunk.
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
                defer { try? handle.close() }
                let left = Counter(bytes)
                let chunks = AsyncThrowingStream<HTTPBody.ByteChunk, any Error> {
                    guard left.value > 0, let data = try handle.read(upToCount: Int(min(64 * 1024, left.value))), !data.isEmpty else {
                        return nil
                    }
                    left.value -= Int64(data.count)
                    return ArraySlice(data)
                }
                return try await uploadOperation(HTTPBody(chunks, length: .known(bytes)), with: operations)
            default:
                // openapi-asyncstream: a task reads as fast as it can into an unbounded stream.
                let (chunks, continuation) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
                let reader = Task {
                    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
                    defer { try? handle.close() }
                    var left = bytes
                    while left > 0, let data = try handle.read(upToCount: Int(min(64 * 1024, left))), !data.isEmpty {
                        continuation.yield(ArraySlice(data))
                        left -= Int64(data.count)
                    }
                    continuation.finish()
                }
                let receipt = try await uploadOperation(HTTPBody(chunks, length: .known(bytes)), with: operations)
                try await reader.value
                return receipt
            }
        }

        // A connection, and the client's, transport's and body path's first-use allocations.
        let warmUp = try await upload(1 << 20)
        guard warmUp.bytes == 1 << 20 else { throw BenchError("the 1 MiB warm-up: the server counted \(warmUp.bytes) bytes") }
        let startup = MemoryUsage.now()
        let reset = MemoryUsage.resetPeak()
        let before = MemoryUsage.now()
        say("RSS after a 1 MiB upload the same way: \(before)\(reset ? "; VmHWM reset" : "; VmHWM cannot be reset")")
        let clock = ContinuousClock()
        let usage = processUsage()
        let start = clock.now
        let receipt = try await upload(size)
        let seconds = (clock.now - start).seconds
        let cpu = processUsage().cpu - usage.cpu
        let after = MemoryUsage.now()
        guard receipt.bytes == size, receipt.checksum == String(digest, radix: 16) else {
            throw BenchError(
                "the server received \(receipt.bytes) bytes with checksum \(receipt.checksum); the file has \(size) bytes, "
                    + String(digest, radix: 16))
        }
        say(
            "RESULT bytes=\(receipt.bytes) seconds=\(seconds) cpu=\(cpu) before=\(before.resident ?? 0) "
                + "peak=\(after.highWaterMark ?? after.maxRSS) startupPeak=\(startup.highWaterMark ?? 0) reset=\(reset)")
    }

    /// The bytes an unfolding stream has left to read; touched by one read at a time.
    final class Counter: @unchecked Sendable {
        // @unchecked: the stream calls its closure for one chunk at a time, never concurrently.
        var value: Int64
        init(_ value: Int64) { self.value = value }
    }

    /// The sink's answer to `POST /upload-checked`.
    struct Receipt: Decodable, Sendable {
        var bytes: Int64
        var checksum: String
    }

    /// `body` sent as a generated client sends an operation whose request body is
    /// `application/octet-stream` and whose `200` answer is JSON: the same serializer and
    /// deserializer calls as the generated `Client.uploadFile(_:)`.
    static func uploadOperation(_ body: HTTPBody, with client: UniversalClient) async throws -> Receipt {
        try await client.send(
            input: body, forOperation: operationID,
            serializer: { input in
                let path = try client.converter.renderedPath(template: "/upload-checked", parameters: [])
                var request = HTTPRequest(soar_path: path, method: .post)
                // What `converter.setAcceptHeader(in:contentTypes:)` writes for the one JSON answer.
                request.headerFields[.accept] = "application/json"
                let body = try client.converter.setRequiredRequestBodyAsBinary(
                    input, headerFields: &request.headerFields, contentType: "application/octet-stream")
                return (request, body)
            },
            deserializer: { response, responseBody in
                guard response.status.code == 200 else { throw BenchError("\(operationID): status \(response.status.code)") }
                let contentType = client.converter.extractContentTypeIfPresent(in: response.headerFields)
                _ = try client.converter.bestContentType(received: contentType, options: ["application/json"])
                return try await client.converter.getResponseBodyAsJSON(Receipt.self, from: responseBody, transforming: { $0 })
            })
    }

    /// `POST /upload-checked` with a body, no credential.
    struct CheckedUpload: Requestable {
        let base: BaseURL
        let body: RequestBody?
        var method: HTTPMethod { .post }
        var requiresAuthorization: Bool { false }
        func baseURL() throws(CourierError) -> BaseURL { base }
        func path() throws(CourierError) -> URLPath { try URLPath("/upload-checked") }
    }

    /// The first `limit` bytes of the file at `path`, in chunks of 64 KiB, each read with
    /// `read(2)` into a new array when the consumer asks for it: a single-pass stream with
    /// backpressure, as a generated client's body from a file or a socket is.
    struct FileChunks: AsyncSequence, Sendable {
        typealias Element = HTTPBody.ByteChunk
        static let chunkSize = 64 * 1024
        let path: String
        let limit: Int64

        func makeAsyncIterator() -> Iterator { Iterator(path: path, remaining: limit) }

        final class Iterator: AsyncIteratorProtocol {
            private var descriptor: Int32 = -1
            private let path: String
            private var remaining: Int64

            init(path: String, remaining: Int64) {
                self.path = path
                self.remaining = remaining
            }

            deinit { if descriptor >= 0 { close(descriptor) } }

            func next() async throws -> HTTPBody.ByteChunk? {
                guard remaining > 0 else { return nil }
                if descriptor < 0 {
                    descriptor = open(path, O_RDONLY | O_CLOEXEC)
                    guard descriptor >= 0 else { throw BenchError("open \(path): errno \(errno)") }
                }
                let wanted = Int(Swift.min(Int64(FileChunks.chunkSize), remaining))
                let descriptor = self.descriptor
                let chunk = try [UInt8](unsafeUninitializedCapacity: wanted) { buffer, count in
                    count = 0
                    while count < wanted {
                        let got = read(descriptor, buffer.baseAddress! + count, wanted - count)
                        if got < 0, errno == EINTR { continue }
                        guard got > 0 else { throw BenchError("read \(path): \(got < 0 ? "errno \(errno)" : "end of file")") }
                        count += got
                    }
                }
                remaining -= Int64(chunk.count)
                return chunk[...]
            }
        }
    }

    static func say(_ line: String) { CourierBench.say(line) }
    static func format(_ value: Double, _ digits: Int) -> String { CourierBench.format(value, digits) }
    static func mib(_ bytes: Int) -> String { TransfersBench.mib(bytes) }

    static func row(_ columns: String...) -> String {
        tableRow(columns, widths: [18, 18, 5, 11, 8, 6, 6, 11, 10, 10])
    }
}
