import Courier
import CourierTesting
import FlyingFox
import Foundation
import Testing

#if AsyncHTTPClientLinked
    /// Streamed bodies have no size limit, so async-http-client's decompression (whose limits end
    /// a body) is off for them and Courier inflates them itself, a bounded piece at a time: what
    /// the caller reads is the same, and a bomb no longer inflates a whole read at once.
    @Suite("Streamed gzip and deflate bodies on async-http-client", .loopback, .timeLimit(.minutes(2)))
    struct StreamedDecompressionIntegrationTests {
        static func stream(_ body: Data, encoding: String, from server: TestServer) async throws -> StreamedResponse {
            await server.route("GET /encoded") { _ in
                FlyingFox.HTTPResponse(statusCode: .ok, headers: [HTTPHeader("Content-Encoding"): encoding], body: body)
            }
            let client = Client(configuration: Configuration(transport: AsyncHTTPClientTransport(), timeout: generousTimeout))
            return try await client.enqueue(server.endpoint("/encoded")).stream()
        }

        @Test("a 1.7 MB gzip of 268 MB of zeros streams whole, in pieces of at most 64 KiB")
        func aBombStreamsInBoundedPieces() async throws {
            let size = 1 + 258 * 1_040_000
            try await TestServer.run { server in
                let response = try await Self.stream(GzipZeros.make(count: size), encoding: "gzip", from: server)
                var total = 0
                var largest = 0
                var nonZero = false
                for try await chunk in response.body {
                    total += chunk.count
                    largest = max(largest, chunk.count)
                    if !nonZero, chunk.contains(where: { $0 != 0 }) { nonZero = true }
                }
                #expect(total == size && !nonZero)
                #expect(largest <= 64 << 10)
            }
        }

        @Test("a gzip body cut short fails as a transport failure once its bytes are read")
        func aTruncatedBodyFails() async throws {
            let body = GzipZeros.make(count: 1 + 258 * 4_064)
            try await TestServer.run { server in
                let response = try await Self.stream(body.dropLast(8), encoding: "gzip", from: server)
                do throws(CourierError) {
                    _ = try await response.body.collect(upTo: nil)
                    Issue.record("a truncated gzip body was accepted")
                } catch {
                    guard case .transport = error else {
                        Issue.record("expected a transport failure, got \(error)")
                        return
                    }
                }
            }
        }

        @Test("an empty body is empty whatever its Content-Encoding; br passes as it came", arguments: ["gzip", "deflate", "br"])
        func emptyAndUnknownEncodings(encoding: String) async throws {
            try await TestServer.run { server in
                let empty = try await Self.stream(Data(), encoding: encoding, from: server).body.collect(upTo: nil)
                #expect(empty.isEmpty)
            }
            guard encoding == "br" else { return }
            try await TestServer.run { server in
                let raw = Data("not inflated".utf8)
                let passed = try await Self.stream(raw, encoding: encoding, from: server).body.collect(upTo: nil)
                #expect(passed == raw)
            }
        }
    }
#endif
