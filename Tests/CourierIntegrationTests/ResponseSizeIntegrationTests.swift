import Courier
import CourierTesting
import FlyingFox
import Foundation
import Testing

/// A response body is read up to the limit, counted after decompression, and no further.
/// Three minutes, as a guard against a hang: the decompressor test's four 32 MiB inflations took
/// more than one beside a busy suite and a build on this 2-core machine.
@Suite("Response size limit on the wire", .heavy, .timeLimit(.minutes(3)))
struct ResponseSizeIntegrationTests {
    /// A client whose transport is its own, with `limit` as the configuration's limit.
    static func client(limit: Int? = 32 << 20) -> Client {
        Client(configuration: Configuration(transport: TransportKind.platformDefault.make(), maximumResponseSize: limit))
    }

    static func expectTooLarge(
        _ result: Result<Response, CourierError>, limit: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .failure(.transport(let failure)) = result, failure.kind == .responseTooLarge else {
            Issue.record("expected responseTooLarge, got \(result)", sourceLocation: sourceLocation)
            return
        }
        #expect(failure.message?.contains("\(limit) bytes") == true, sourceLocation: sourceLocation)
    }

    @Test("a 260 KB gzip body that inflates to 42 MB fails at the default 32 MiB limit")
    func aGzipBombStopsAtTheLimit() async throws {
        let zeros = 1 + 258 * 162_600  // 41,950,801 bytes once inflated
        let bomb = GzipZeros.make(count: zeros)
        #expect(bomb.count < 300_000)
        try await TestServer.run { server in
            await server.route("GET /bomb") { _ in
                FlyingFox.HTTPResponse(
                    statusCode: .ok, headers: [.contentType: "application/json", HTTPHeader("Content-Encoding"): "gzip"],
                    body: bomb)
            }
            Self.expectTooLarge(await Self.client().enqueue(try server.endpoint("/bomb")).result(), limit: 32 << 20)
        }
    }

    @Test("a gzip body is counted after decompression: at the limit it passes, one byte under the limit it fails")
    func decompressedBytesAreCounted() async throws {
        let size = 1 + 258 * 4_064  // 1,048,513 bytes inflated from about 6.6 KB
        let body = GzipZeros.make(count: size)
        try await TestServer.run { server in
            await server.route("GET /zeros") { _ in
                FlyingFox.HTTPResponse(statusCode: .ok, headers: [HTTPHeader("Content-Encoding"): "gzip"], body: body)
            }
            let data = try await Self.client(limit: size).enqueue(server.endpoint("/zeros")).resume().body
            #expect(data == Data(count: size))
            Self.expectTooLarge(await Self.client(limit: size - 1).enqueue(try server.endpoint("/zeros")).result(), limit: size - 1)
        }
    }

    @Test("a plain body announced past the limit fails; the endpoint can raise the limit")
    func aPlainBodyPastTheLimitFails() async throws {
        let body = Data(repeating: 0x61, count: 2 << 20)
        try await TestServer.run { server in
            await server.route("GET /big") { _ in FlyingFox.HTTPResponse(statusCode: .ok, body: body) }
            Self.expectTooLarge(await Self.client(limit: 1 << 20).enqueue(try server.endpoint("/big")).result(), limit: 1 << 20)
            let raised = try server.endpoint("/big")
            let data = try await Self.client(limit: 1 << 20).enqueue(Raised(inner: raised)).resume().body
            #expect(data == body)
        }
    }

    /// Issue 22, item 4: async-http-client inflated with no limit of its own, a whole socket read
    /// at a time (a 64 KiB read of zeros is 64 MiB), and Courier counted the bytes only after; 8
    /// such calls at once took the process from 67 MB to 821 MB. Its decompressor now stops at
    /// the limit (rounded up to a power of two) and says so, before the bytes reach Courier.
    @Test("a 1.7 MB gzip of 268 MB of zeros fails as too large inside async-http-client's decompressor", arguments: [32 << 20, 3 << 20])
    func aGzipBombStopsInTheDecompressor(limit: Int) async throws {
        let bomb = GzipZeros.make(count: 1 + 258 * 1_040_000)
        try await TestServer.run { server in
            await server.route("GET /bomb") { _ in
                FlyingFox.HTTPResponse(statusCode: .ok, headers: [HTTPHeader("Content-Encoding"): "gzip"], body: bomb)
            }
            let client = Client(configuration: Configuration(transport: TransportKind.asyncHTTPClient.make(), maximumResponseSize: limit))
            let results = await withTaskGroup(of: Result<Response, CourierError>.self) { group in
                for _ in 0..<4 { group.addTask { await client.enqueue(try! server.endpoint("/bomb")).result() } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for result in results {
                Self.expectTooLarge(result, limit: limit)
                if limit == 32 << 20, case .failure(.transport(let failure)) = result {
                    // At a power-of-two limit the decompressor's bound is the limit itself, so it
                    // is always the one that stops the body.
                    #expect(failure.message?.contains("while it was decompressed") == true, "\(failure)")
                }
            }
        }
    }

    /// Issue 22, item 9: `Content-Length` was checked against the limit for responses that have
    /// no body, so HEAD of a 100 MB resource failed with `responseTooLarge`.
    @Test("HEAD, 204 and 304 announcing 100 MB pass a 1 MiB limit: they carry no body", arguments: TransportKind.allCases, ["HEAD", "204", "304"])
    func bodilessResponsesIgnoreContentLength(_ kind: TransportKind, what: String) async throws {
        try await TestServer.run { server in
            let status: HTTPStatusCode = what == "204" ? .noContent : what == "304" ? .notModified : .ok
            let route: HTTPRoute = what == "HEAD" ? "HEAD /big" : "GET /big"
            await server.route(route) { _ in
                FlyingFox.HTTPResponse(statusCode: status, headers: [.contentLength: "104857600", .contentType: "application/octet-stream"])
            }
            let endpoint = try server.endpoint("/big").with {
                $0.method = what == "HEAD" ? .head : .get
                $0.acceptableStatusCodes = [200, 204, 304]
            }
            let client = Client(configuration: Configuration(transport: kind.make(), maximumResponseSize: 1 << 20))
            let response = try await client.enqueue(endpoint).resume()
            #expect(response.statusCode == Int(status.code))
            #expect(response.body.isEmpty)
        }
    }

    /// `inner` with a limit of its own.
    struct Raised: Requestable {
        var inner: TestEndpoint
        var maximumResponseSize: Int? { 4 << 20 }
        var requiresAuthorization: Bool { false }
        func baseURL() throws(CourierError) -> BaseURL { try inner.baseURL() }
        func path() throws(CourierError) -> URLPath { try inner.path() }
    }
}

/// A gzip member (RFC 1952) of `count` zero bytes, compressed with fixed-Huffman deflate
/// (RFC 1951 §3.2.6): one literal 0, then matches of length 258 at distance 1, 13 bits each, so
/// 258 bytes cost under 2 bytes on the wire. What a hostile server sends to exhaust memory.
enum GzipZeros {
    static func make(count: Int) -> Data {
        precondition(count >= 1 && (count - 1) % 258 == 0, "count must be 1 + 258·n")
        var writer = BitWriter()
        writer.write(1, bits: 1)  // BFINAL
        writer.write(1, bits: 2)  // BTYPE 01: fixed Huffman codes
        writer.writeCode(0x30, length: 8)  // literal 0
        for _ in 0..<((count - 1) / 258) {
            writer.writeCode(0xC5, length: 8)  // length symbol 285: 258 bytes
            writer.writeCode(0, length: 5)  // distance code 0: distance 1
        }
        writer.writeCode(0, length: 7)  // end of block (256)
        var gzip = Data([0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0xFF])
        gzip.append(writer.bytesFlushed)
        gzip.append(littleEndian: crc32OfZeros(count))
        gzip.append(littleEndian: UInt32(truncatingIfNeeded: count))
        return gzip
    }

    /// CRC-32 (IEEE, reflected) of `count` zero bytes.
    static func crc32OfZeros(_ count: Int) -> UInt32 {
        var table = [UInt32](repeating: 0, count: 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            table[index] = value
        }
        var crc: UInt32 = 0xFFFF_FFFF
        for _ in 0..<count { crc = table[Int(crc & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    /// Packs bits least-significant first, as deflate does.
    struct BitWriter {
        var bytes = Data()
        private var current: UInt8 = 0
        private var used = 0

        mutating func write(_ value: UInt32, bits: Int) {
            for index in 0..<bits { push((value >> index) & 1 == 1) }
        }

        /// A Huffman code goes most-significant bit first.
        mutating func writeCode(_ code: UInt32, length: Int) {
            for index in stride(from: length - 1, through: 0, by: -1) { push((code >> index) & 1 == 1) }
        }

        private mutating func push(_ bit: Bool) {
            if bit { current |= 1 << used }
            used += 1
            if used == 8 {
                bytes.append(current)
                current = 0
                used = 0
            }
        }

        var bytesFlushed: Data { used == 0 ? bytes : bytes + [current] }
    }
}

private extension Data {
    mutating func append(littleEndian value: UInt32) {
        append(contentsOf: [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)])
    }
}
