import Courier
import CourierTesting
import FlyingFox
import Foundation
import Testing

/// `resume(expecting:)` against real responses: JSON models, bodiless responses, text charsets.
@Suite("Decoding real responses", .loopback, .timeLimit(.minutes(1)))
struct DecodingIntegrationTests {
    struct User: Codable, Equatable, Sendable {
        var id: Int
        var name: String
        var email: String
        var roles: [String]
        var active: Bool
    }

    // MARK: JSON

    @Test func aJSONBodyDecodesIntoTheExpectedModel() async throws {
        try await TestServer.run { server in
            let json = #"{"id":42,"name":"Ada Lovelace","email":"ada@example.com","roles":["admin","author"],"active":true}"#
            await server.route("GET /users/42") { _ in
                FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: Data(json.utf8))
            }

            let user = try await server.client().enqueue(server.endpoint("/users/42")).resume(expecting: User.self)

            #expect(user == User(id: 42, name: "Ada Lovelace", email: "ada@example.com", roles: ["admin", "author"], active: true))
        }
    }

    @Test func aJSONBodyThatDoesNotFitTheModelEndsAsDecodingKeepingTheResponse() async throws {
        try await TestServer.run { server in
            let json = Data(#"{"id":"forty-two"}"#.utf8)
            await server.route("GET /users/42") { _ in
                FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: json)
            }

            let result = try await server.client().enqueue(server.endpoint("/users/42")).result(expecting: User.self)

            guard case .failure(.decoding(let failure)) = result else {
                Issue.record("expected .decoding, got \(result)")
                return
            }
            #expect(failure.decodingError != nil)
            #expect(failure.expectedType == "User")
            #expect(failure.response.statusCode == 200)
            #expect(failure.response.body == json)
        }
    }

    // MARK: Bodiless responses

    @Test func a204DecodesAsEmptyResponse() async throws {
        try await TestServer.run { server in
            await server.route("DELETE /users/42") { _ in
                FlyingFox.HTTPResponse(statusCode: .noContent)
            }
            let client = server.client()
            let endpoint = try server.endpoint("/users/42").with { $0.method = .delete }

            let empty = try await client.enqueue(endpoint).resume(expecting: EmptyResponse.self)
            let response = try await client.enqueue(endpoint).resume()

            #expect(empty == EmptyResponse())
            #expect(response.statusCode == 204)
            #expect(response.body.isEmpty)
        }
    }

    @Test func aHEADRequestReturnsTheHeadersWithAnEmptyBody() async throws {
        try await TestServer.run { server in
            let methods = Recorder<String>()
            // The headers describe the representation a GET would return, Content-Length
            // included; the body stays empty, as RFC 9110 §9.3.2 requires for HEAD.
            await server.route("HEAD /reports/7") { request in
                await methods.record(request.method.rawValue)
                return FlyingFox.HTTPResponse(
                    statusCode: .ok,
                    headers: [.contentType: "application/pdf", .contentLength: "123456", .eTag: "\"v7\""],
                    body: Data()
                )
            }
            let client = server.client()
            let endpoint = try server.endpoint("/reports/7").with { $0.method = .head }

            let response = try await client.enqueue(endpoint).resume()
            let empty = try await client.enqueue(endpoint).resume(expecting: EmptyResponse.self)

            #expect(response.statusCode == 200)
            #expect(response.body.isEmpty)
            #expect(response.headerValue(for: "ETag") == "\"v7\"")
            #expect(response.headerValue(for: "Content-Length") == "123456")
            #expect(response.mediaType == "application/pdf")
            #expect(empty == EmptyResponse())
            #expect(await methods.values == ["HEAD", "HEAD"])
        }
    }

    // MARK: Text

    struct CharsetCase: Sendable, CustomTestStringConvertible {
        var contentType: String
        var body: [UInt8]
        var text: String
        var testDescription: String { contentType }
    }

    @Test(arguments: [
        CharsetCase(contentType: "text/plain; charset=iso-8859-1", body: [0x63, 0x61, 0x66, 0xE9, 0x20, 0xA3, 0x35], text: "café £5"),
        CharsetCase(contentType: "text/plain; charset=\"ISO-8859-1\"", body: [0x63, 0x61, 0x66, 0xE9], text: "café"),
        CharsetCase(contentType: "text/plain; charset=windows-1252", body: [0x80, 0x31, 0x30], text: "€10"),
        CharsetCase(contentType: "text/plain; charset=utf-8", body: Array("café €10".utf8), text: "café €10"),
        CharsetCase(contentType: "text/plain", body: Array("naïve".utf8), text: "naïve"),
    ])
    func stringDecodingHonoursTheResponseCharset(_ charsetCase: CharsetCase) async throws {
        try await TestServer.run { server in
            await server.route("GET /text") { _ in
                FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: charsetCase.contentType], body: Data(charsetCase.body))
            }

            let text = try await server.client().enqueue(server.endpoint("/text")).resume(expecting: String.self)

            #expect(text == charsetCase.text)
        }
    }

    @Test func aBodyThatIsNotValidUTF8EndsAsDecodingWithInvalidText() async throws {
        try await TestServer.run { server in
            let latin1 = Data([0x63, 0x61, 0x66, 0xE9])  // "café" in ISO-8859-1: 0xE9 alone is not UTF-8
            await server.route("GET /text") { _ in
                FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: latin1)
            }

            let result = try await server.client().enqueue(server.endpoint("/text")).result(expecting: String.self)

            guard case .failure(.decoding(let failure)) = result else {
                Issue.record("expected .decoding, got \(result)")
                return
            }
            guard case .invalidText(let charset) = failure.reason else {
                Issue.record("expected reason .invalidText, got \(failure.reason)")
                return
            }
            #expect(charset == "utf-8")
            #expect(failure.expectedType == "String")
            #expect(failure.response.body == latin1)
        }
    }
}
