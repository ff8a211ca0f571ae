import Foundation
import Testing

@testable import Courier

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: - An independent multipart/form-data parser

/// A `multipart/form-data` parser written for these tests from RFC 2046 §5.1.1 and RFC 7578,
/// sharing no code with Courier's encoder: it splits on `CRLF--boundary` (found with
/// `memchr` + `memcmp`, not Courier's Horspool search), reads each part's header lines and the
/// `Content-Disposition` parameters, and insists on the exact framing Courier promises: no
/// preamble, CRLF after every delimiter, `--boundary--` CRLF at the very end and no epilogue.
enum MultipartTestParser {
    struct Part: Equatable {
        var headers: [(name: String, value: String)]
        var name: String?
        var filename: String?
        var body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        static func == (lhs: Part, rhs: Part) -> Bool {
            lhs.headers.map { "\($0.name): \($0.value)" } == rhs.headers.map { "\($0.name): \($0.value)" }
                && lhs.name == rhs.name && lhs.filename == rhs.filename && lhs.body == rhs.body
        }
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// The boundary parameter of a `multipart/form-data` media type, unquoted.
    static func boundary(fromContentType contentType: String) throws -> String {
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard pieces.first?.lowercased() == "multipart/form-data" else { throw Malformed(description: "not multipart/form-data: \(contentType)") }
        for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("boundary=") {
            var value = String(piece.dropFirst("boundary=".count))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            return value
        }
        throw Malformed(description: "no boundary in \(contentType)")
    }

    static func parse(_ body: Data, boundary: String) throws -> [Part] {
        let bytes = [UInt8](body)
        let dashBoundary = Array("--\(boundary)".utf8)
        let delimiter = Array("\r\n--\(boundary)".utf8)
        guard bytes.starts(with: dashBoundary) else { throw Malformed(description: "the body does not start with --boundary") }
        var position = dashBoundary.count
        var parts: [Part] = []
        while true {
            // After a boundary: "--" CRLF and the end, or CRLF and a part.
            if bytes[position...].starts(with: Array("--\r\n".utf8)) {
                guard position + 4 == bytes.count else { throw Malformed(description: "bytes after the closing delimiter") }
                return parts
            }
            guard bytes[position...].starts(with: [13, 10]) else { throw Malformed(description: "no CRLF after a boundary at \(position)") }
            position += 2
            guard let end = find(delimiter, in: bytes, from: position) else { throw Malformed(description: "no closing delimiter") }
            parts.append(try parsePart(Array(bytes[position..<end])))
            position = end + delimiter.count
        }
    }

    private static func parsePart(_ bytes: [UInt8]) throws -> Part {
        guard let blank = find(Array("\r\n\r\n".utf8), in: bytes, from: 0) else {
            throw Malformed(description: "a part without the empty line after its headers")
        }
        let headerText = String(decoding: bytes[0..<blank], as: UTF8.self)
        var headers: [(name: String, value: String)] = []
        for line in headerText.components(separatedBy: "\r\n") where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw Malformed(description: "a header line without a colon: \(line)") }
            let value = line[line.index(after: colon)...]
            guard value.hasPrefix(" ") else { throw Malformed(description: "no space after the colon: \(line)") }
            headers.append((String(line[..<colon]), String(value.dropFirst())))
        }
        var part = Part(headers: headers, body: Data(bytes[(blank + 4)...]))
        guard let disposition = part.header("Content-Disposition") else { throw Malformed(description: "no Content-Disposition") }
        let parameters = try dispositionParameters(disposition)
        part.name = parameters["name"]
        part.filename = parameters["filename"]
        return part
    }

    /// `form-data; name="a"; filename="b"` → `["name": "a", "filename": "b"]`, with `%22` read as `"`.
    static func dispositionParameters(_ value: String) throws -> [String: String] {
        var scalars = Substring(value)
        guard scalars.hasPrefix("form-data") else { throw Malformed(description: "not form-data: \(value)") }
        scalars = scalars.dropFirst("form-data".count)
        var parameters: [String: String] = [:]
        while !scalars.isEmpty {
            guard scalars.hasPrefix("; ") else { throw Malformed(description: "expected '; ' in \(value)") }
            scalars = scalars.dropFirst(2)
            guard let equals = scalars.firstIndex(of: "=") else { throw Malformed(description: "a parameter without '='") }
            let key = String(scalars[..<equals])
            scalars = scalars[scalars.index(after: equals)...]
            guard scalars.first == "\"" else { throw Malformed(description: "an unquoted parameter") }
            scalars = scalars.dropFirst()
            guard let close = scalars.firstIndex(of: "\"") else { throw Malformed(description: "an unterminated quoted string") }
            parameters[key] = scalars[..<close].replacingOccurrences(of: "%22", with: "\"")
            scalars = scalars[scalars.index(after: close)...]
        }
        return parameters
    }

    /// The first index at or after `start` where `needle` begins.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard needle.count > 0, haystack.count - start >= needle.count else { return nil }
        return haystack.withUnsafeBytes { hay -> Int? in
            needle.withUnsafeBytes { pattern -> Int? in
                guard let base = hay.baseAddress, let patternBase = pattern.baseAddress else { return nil }
                var position = start
                let last = haystack.count - needle.count
                while position <= last {
                    guard let hit = memchr(base + position, Int32(needle[0]), last - position + 1) else { return nil }
                    let offset = UnsafeRawPointer(hit) - base
                    if memcmp(UnsafeRawPointer(hit), patternBase, needle.count) == 0 { return offset }
                    position = offset + 1
                }
                return nil
            }
        }
    }
}

// MARK: - Building and reading bodies

/// The body `RequestBody.multipart(form)` builds, and its `Content-Type`.
func multipartBody(_ form: MultipartForm) throws(CourierError) -> (stream: BodyStream, contentType: String) {
    let body = RequestBody.multipart(form)
    guard case .stream(let stream) = try body.transportBody(configuration: Configuration()) else {
        Issue.record("a multipart body must be streamed")
        throw .invalidRequest(.encodingFailed("not a stream"))
    }
    return (stream, body.contentType)
}

/// Every chunk of one read of `stream`.
func readChunks(_ stream: BodyStream) async throws(CourierError) -> [Data] {
    var reader = try stream.makeReader()
    var chunks: [Data] = []
    while let chunk = try await reader.next() {
        chunks.append(chunk)
    }
    return chunks
}

/// The whole body of one read of `stream`.
func readAll(_ stream: BodyStream) async throws(CourierError) -> Data {
    try await readChunks(stream).reduce(into: Data()) { $0.append($1) }
}

/// The body and content type of `form`, read whole, with its announced length checked.
func encodedMultipart(_ form: MultipartForm) async throws -> (body: Data, contentType: String) {
    let (stream, contentType) = try multipartBody(form)
    let body = try await readAll(stream)
    #expect(stream.length == Int64(body.count))
    return (body, contentType)
}

/// The `CourierError` `operation` throws, or `nil` (another error is recorded as an issue).
func courierError(_ operation: () async throws -> Void) async -> CourierError? {
    do {
        try await operation()
        return nil
    } catch let error as CourierError {
        return error
    } catch {
        Issue.record("expected a CourierError, got \(error)")
        return nil
    }
}

/// The reason of a `.invalidRequest(.invalidMultipartForm)` error, or `nil` for any other outcome.
func multipartFormReason(_ error: CourierError?) -> String? {
    if case .invalidRequest(.invalidMultipartForm(let reason))? = error { return reason }
    return nil
}

/// The reason of a `.invalidRequest(.bodySourceFailed)` error, or `nil` for any other outcome.
func bodySourceReason(_ error: CourierError?) -> String? {
    if case .invalidRequest(.bodySourceFailed(let reason, _))? = error { return reason }
    return nil
}

// MARK: - Files and bytes

/// A fresh temporary directory, removed when `body` returns.
func withTemporaryDirectory<R>(_ body: (URL) async throws -> R) async throws -> R {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-multipart-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// Writes `data` to `name` in `directory`.
@discardableResult
func writeFile(_ data: Data, named name: String, in directory: URL) throws -> URL {
    let url = directory.appendingPathComponent(name)
    try data.write(to: url)
    return url
}

/// `count` pseudo-random bytes (SplitMix64 from `seed`), generated 8 bytes at a time so that
/// megabytes take milliseconds even in a debug build.
func splitMixBytes(count: Int, seed: UInt64) -> Data {
    var data = Data(count: (count + 7) / 8 * 8)
    var state = seed
    data.withUnsafeMutableBytes { raw in
        let words = raw.bindMemory(to: UInt64.self)
        for index in words.indices {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            words[index] = (z ^ (z >> 31)).littleEndian
        }
    }
    return data.prefix(count)
}

/// The chunks of `array` as a single-use `AsyncSequence`.
func multipartChunks(_ array: [Data]) -> AsyncStream<Data> {
    AsyncStream { continuation in
        for element in array { continuation.yield(element) }
        continuation.finish()
    }
}

/// Bytes this process has read through `read(2)` and friends so far (`rchar` in `/proc/self/io`),
/// or `nil` where that file does not exist.
func bytesReadByProcess() -> Int64? {
    guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("rchar:") {
        return Int64(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces))
    }
    return nil
}
