import Courier
import FlyingFox
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension QueueSensitiveTests {
    /// `multipart/form-data` uploads streamed through URLSession to a real server on 127.0.0.1.
    /// They run one after another, like every ``QueueSensitiveTests`` suite; the 50 MB upload takes
    /// about half a second (seen at 45 s under ThreadSanitizer with every suite running at once on
    /// 2 cores, a few seconds in a pass of its own).
    @Suite("Multipart uploads", .timeLimit(.minutes(1)))
    struct MultipartIntegrationTests {
        /// A fresh temporary directory, removed when `body` returns or throws.
        static func withTemporaryDirectory<R>(_ body: (URL) async throws -> R) async throws -> R {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-multipart-it-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            return try await body(directory)
        }

        @Test func aFiftyMegabyteFilePartArrivesByteIdenticalWithItsContentLength() async throws {
            try await Self.withTemporaryDirectory { directory in
                let payload = splitMix(count: 50_000_000, seed: 0x50_4D42)
                let file = directory.appendingPathComponent("video.mp4")
                try payload.write(to: file)
                var form = MultipartForm()
                form.append(text: "Holiday", name: "title")
                form.append(fileAt: file, name: "video")
                form.append(text: "ünïcödé", name: "tags")

                try await TestServer.run { server in
                    let received = Recorder<ReceivedRequest>()
                    await server.route("POST /upload") { request in
                        await received.record(try await ReceivedRequest(request))
                        return FlyingFox.HTTPResponse(statusCode: .ok)
                    }
                    let endpoint = try server.endpoint("/upload").with {
                        $0.method = .post
                        $0.body = .multipart(form)
                    }

                    _ = try await server.client().enqueue(endpoint).resume()

                    let request = try #require(await received.values.first)
                    #expect(request.header("Content-Length") == String(request.body.count))
                    #expect(request.header("Transfer-Encoding") == nil)
                    let contentType = try #require(request.header("Content-Type"))
                    #expect(contentType == "multipart/form-data; boundary=\(form.boundary)")
                    let parts = try ReceivedMultipart.parse(request.body, boundary: form.boundary)
                    #expect(
                        parts.map(\.disposition) == [
                            "form-data; name=\"title\"",
                            "form-data; name=\"video\"; filename=\"video.mp4\"",
                            "form-data; name=\"tags\"",
                        ])
                    #expect(parts.map(\.contentType) == [nil, "video/mp4", nil])
                    #expect(parts[0].body == Data("Holiday".utf8))
                    #expect(parts[1].body.count == payload.count)
                    #expect(parts[1].body == payload)
                    #expect(parts[2].body == Data("ünïcödé".utf8))
                }
            }
        }

        /// Part "a" sends 1 MiB (more than the body's 64 KiB batches and the server's read buffer,
        /// so the handler surely gets a first chunk), then holds the body until the handler has
        /// deleted B: B is gone before the client gets to it, and opening it then must fail the
        /// upload. (Part "a" used to be a 16 MiB file, on the bet that the socket buffers could not
        /// hold it before the handler ran; on a busy machine they could, and B was sent whole.)
        @Test func aPartFileThatDisappearsMidUploadFailsTheCallWithoutHanging() async throws {
            try await Self.withTemporaryDirectory { directory in
                let fileB = directory.appendingPathComponent("b.bin")
                try splitMix(count: 100_000, seed: 0xB).write(to: fileB)
                let deleted = Latch()
                let resume = Latch()
                var form = MultipartForm()
                form.append(text: "first", name: "t")
                form.append(
                    stream: TransportContractTests.StalledChunks(started: Latch(), release: resume, chunkSize: 1 << 20),
                    length: 2 << 20, name: "a", filename: "a.bin")
                form.append(fileAt: fileB, name: "b")

                try await TestServer.run { server in
                    let handlerEnded = Latch()
                    await server.route("POST /upload") { request in
                        defer { handlerEnded.open() }
                        var chunks = request.bodySequence.makeAsyncIterator()
                        _ = try await chunks.next()
                        try FileManager.default.removeItem(at: fileB)
                        deleted.open()
                        resume.open()
                        do {
                            while try await chunks.next() != nil {}  // drain until the client gives up
                        } catch {}
                        return FlyingFox.HTTPResponse(statusCode: .ok)
                    }
                    let endpoint = try server.endpoint("/upload").with {
                        $0.method = .post
                        $0.body = .multipart(form)
                    }

                    let result = await server.client().enqueue(endpoint).result()

                    try await awaitCondition("the handler deleted b.bin") { try await deleted.wait() }
                    guard case .failure(.invalidRequest(.bodySourceFailed(let reason, _))) = result else {
                        Issue.record("expected bodySourceFailed, got \(result)")
                        return
                    }
                    #expect(reason.contains("part 3 (\"b\")"))
                    #expect(reason.contains("b.bin"))
                    try await awaitCondition("the handler saw the upload end") { try await handlerEnded.wait() }
                }
            }
        }

        @Test func aStreamPartOfUnknownLengthGoesOutChunkedAndArrivesIntact() async throws {
            let pieces = (0..<30).map { splitMix(count: 7_000 + 1_111 * $0, seed: UInt64($0)) }
            let streamed = pieces.reduce(Data(), +)
            var form = MultipartForm()
            form.append(text: "sensor-7", name: "device")
            form.append(
                stream: AsyncStream(Data.self) { continuation in
                    for piece in pieces { continuation.yield(piece) }
                    continuation.finish()
                }, length: nil, name: "readings", filename: "readings.ndjson")
            form.append(data: Data("{\"done\":true}".utf8), name: "summary", contentType: "application/json")

            try await TestServer.run { server in
                let received = Recorder<ReceivedRequest>()
                await server.route("POST /ingest") { request in
                    await received.record(try await ReceivedRequest(request))
                    return FlyingFox.HTTPResponse(statusCode: .ok)
                }
                let endpoint = try server.endpoint("/ingest").with {
                    $0.method = .post
                    $0.body = .multipart(form)
                }

                _ = try await server.client().enqueue(endpoint).resume()

                let request = try #require(await received.values.first)
                #expect(request.header("Transfer-Encoding")?.lowercased() == "chunked")
                #expect(request.header("Content-Length") == nil)
                let parts = try ReceivedMultipart.parse(request.body, boundary: form.boundary)
                #expect(
                    parts.map(\.disposition) == [
                        "form-data; name=\"device\"",
                        "form-data; name=\"readings\"; filename=\"readings.ndjson\"",
                        "form-data; name=\"summary\"",
                    ])
                #expect(parts.map(\.contentType) == [nil, "application/x-ndjson", "application/json"])
                #expect(parts.map(\.body) == [Data("sensor-7".utf8), streamed, Data("{\"done\":true}".utf8)])
            }
        }
    }
}

/// A small multipart/form-data parser for what the server received, independent of Courier: it
/// splits on `CRLF--boundary` (`memchr` + `memcmp`), and requires exact framing (no preamble,
/// `--boundary--` CRLF at the end, nothing after it).
private enum ReceivedMultipart {
    struct Part {
        var disposition: String?
        var contentType: String?
        var body: Data
    }

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ body: Data, boundary: String) throws -> [Part] {
        let bytes = [UInt8](body)
        let first = Array("--\(boundary)".utf8)
        let delimiter = Array("\r\n--\(boundary)".utf8)
        guard bytes.starts(with: first) else { throw Malformed(description: "no leading boundary") }
        var position = first.count
        var parts: [Part] = []
        while true {
            if bytes[position...].elementsEqual(Array("--\r\n".utf8)) { return parts }
            guard bytes[position...].starts(with: [13, 10]) else { throw Malformed(description: "no CRLF after a boundary") }
            position += 2
            guard let end = find(delimiter, in: bytes, from: position),
                let blank = find(Array("\r\n\r\n".utf8), in: bytes, from: position), blank < end
            else {
                throw Malformed(description: "a part without a head or an end")
            }
            var part = Part(body: Data(bytes[(blank + 4)..<end]))
            for line in String(decoding: bytes[position..<blank], as: UTF8.self).components(separatedBy: "\r\n") {
                let pieces = line.split(separator: ":", maxSplits: 1)
                guard pieces.count == 2, pieces[1].hasPrefix(" ") else { throw Malformed(description: "bad header line \(line)") }
                switch pieces[0].lowercased() {
                case "content-disposition": part.disposition = String(pieces[1].dropFirst())
                case "content-type": part.contentType = String(pieces[1].dropFirst())
                default: break
                }
            }
            parts.append(part)
            position = end + delimiter.count
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count - start >= needle.count else { return nil }
        return haystack.withUnsafeBytes { hay -> Int? in
            needle.withUnsafeBytes { pattern -> Int? in
                guard let base = hay.baseAddress, let patternBase = pattern.baseAddress else { return nil }
                var position = start
                let last = haystack.count - needle.count
                while position <= last {
                    guard let hit = memchr(base + position, Int32(needle[0]), last - position + 1) else { return nil }
                    if memcmp(UnsafeRawPointer(hit), patternBase, needle.count) == 0 { return UnsafeRawPointer(hit) - base }
                    position = UnsafeRawPointer(hit) - base + 1
                }
                return nil
            }
        }
    }
}

/// `count` pseudo-random bytes (SplitMix64), 8 at a time: 50 MB in well under a second in a
/// debug build.
private func splitMix(count: Int, seed: UInt64) -> Data {
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
