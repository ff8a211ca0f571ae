import Courier
import CourierTesting
import FlyingFox
import Foundation
import Testing

/// Bodies big enough to arrive in many reads and writes must arrive byte for byte.
@Suite("Large bodies", .loopback, .timeLimit(.minutes(1)))
struct LargeBodyIntegrationTests {
    static let oneMebibyte = 1_048_576

    /// What the upload handler answers: what it received, judged on the server.
    struct UploadReceipt: Decodable, Sendable {
        var byteCount: Int
        var digest: String
        var matchesExpected: Bool
    }

    @Test(arguments: TransportKind.allCases, [1, 65_537, oneMebibyte])
    func aResponseBodyArrivesByteIdentical(kind: TransportKind, byteCount: Int) async throws {
        try await TestServer.run { server in
            let payload = pseudoRandomBytes(count: byteCount, seed: 0xC0FFEE)
            await server.route("GET /blob") { _ in
                FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "application/octet-stream"], body: payload)
            }

            let data = try await server.client(transport: kind).enqueue(server.endpoint("/blob")).resume(expecting: Data.self)

            #expect(data.count == byteCount)
            #expect(fnv1a(data) == fnv1a(payload))
            #expect(data == payload)
        }
    }

    @Test(arguments: TransportKind.allCases, [1, 65_537, oneMebibyte])
    func aRequestBodyArrivesAtTheServerByteIdentical(kind: TransportKind, byteCount: Int) async throws {
        try await TestServer.run { server in
            let payload = pseudoRandomBytes(count: byteCount, seed: 0xBADC0DE)
            let contentTypes = Recorder<String?>()
            await server.route("POST /upload") { request in
                let received = try await request.bodyData
                await contentTypes.record(request.headers[.contentType])
                let receipt = #"{"byteCount":\#(received.count),"digest":"\#(fnv1a(received))","matchesExpected":\#(received == payload)}"#
                return FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: Data(receipt.utf8))
            }
            let endpoint = try server.endpoint("/upload").with {
                $0.method = .post
                $0.body = .data(payload, contentType: "application/octet-stream")
            }

            let receipt = try await server.client(transport: kind).enqueue(endpoint).resume(expecting: UploadReceipt.self)

            #expect(receipt.byteCount == byteCount)
            #expect(receipt.digest == String(fnv1a(payload)))
            #expect(receipt.matchesExpected)
            #expect(await contentTypes.values == ["application/octet-stream"])
        }
    }
}
