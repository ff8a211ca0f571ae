import Courier
import Foundation
import Testing

private struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

@Suite("Validating and decoding responses")
struct ResponseTests {
    @Test("2xx responses are accepted by default", arguments: [200, 201, 204, 299])
    func successCodes(status: Int) async throws {
        let response = try await makeClient(RecordingTransport(status: status)).enqueue(TestEndpoint()).resume()
        #expect(response.statusCode == status)
    }

    @Test("other status codes fail with the whole response kept", arguments: [199, 300, 304, 400, 401, 404, 500, 503])
    func failureCodes(status: Int) async {
        let body = Data(#"{"error":"nope"}"#.utf8)
        let transport = RecordingTransport(status: status, headers: HTTPFields(["Content-Type": "application/json", "X-Trace": "t1"]), body: body)
        await #expect {
            _ = try await makeClient(transport).enqueue(TestEndpoint(pathString: "/x")).resume()
        } throws: { error in
            guard case .response(let response) = error as? CourierError else { return false }
            return response.statusCode == status && response.body == body
                && response.headerValue(for: "x-trace") == "t1"
                && response.url.absoluteString == "https://api.example.com/x"
        }
    }

    @Test("an endpoint can accept other status codes")
    func customAcceptableCodes() async throws {
        let transport = RecordingTransport(status: 404)
        let response = try await makeClient(transport).enqueue(TestEndpoint(acceptableStatusCodes: [200, 404])).resume()
        #expect(response.statusCode == 404)
        await #expect(throws: CourierError.self) {
            _ = try await makeClient(RecordingTransport(status: 200)).enqueue(TestEndpoint(acceptableStatusCodes: [304])).resume()
        }
    }

    @Test("JSON is decoded with the client's decoder")
    func decodesJSON() async throws {
        let transport = RecordingTransport(body: Data(#"{"id":7,"user_name":"Ada"}"#.utf8))
        struct Named: Decodable, Sendable { let id: Int; let userName: String }
        let client = makeClient(transport) { $0.decoder.keyDecodingStrategy = .convertFromSnakeCase }
        let named = try await client.enqueue(TestEndpoint()).resume(expecting: Named.self)
        #expect(named.id == 7 && named.userName == "Ada")
    }

    @Test("JSON of the wrong shape fails with the DecodingError and the response kept")
    func wrongShape() async {
        let body = Data(#"{"id":"seven","name":"Ada"}"#.utf8)
        await #expect {
            _ = try await makeClient(RecordingTransport(body: body)).enqueue(TestEndpoint()).resume(expecting: User.self)
        } throws: { error in
            guard case .decoding(let failure) = error as? CourierError,
                case .typeMismatch? = failure.decodingError
            else { return false }
            return failure.response.body == body && failure.expectedType == "User"
                && failure.description.contains(".id")
        }
    }

    @Test("a truncated JSON body fails as a decoding error, not a crash")
    func truncatedJSON() async {
        let body = Data(#"{"id":7,"na"#.utf8)
        await #expect {
            _ = try await makeClient(RecordingTransport(body: body)).enqueue(TestEndpoint()).resume(expecting: User.self)
        } throws: { error in
            guard case .decoding(let failure) = error as? CourierError, case .dataCorrupted? = failure.decodingError else { return false }
            return true
        }
    }

    @Test("Data gives the raw bytes")
    func rawData() async throws {
        let bytes = Data((0..<256).map { UInt8($0) })
        let data = try await makeClient(RecordingTransport(body: bytes)).enqueue(TestEndpoint()).resume(expecting: Data.self)
        #expect(data == bytes)
    }

    @Test(
        "String decodes text in the response charset",
        arguments: [
            ("text/plain; charset=utf-8", Data("héllo ✓".utf8), "héllo ✓"),
            ("text/plain", Data("héllo ✓".utf8), "héllo ✓"),
            ("text/plain; charset=\"ISO-8859-1\"", Data([0x68, 0xE9, 0x6C, 0x6C, 0x6F]), "héllo"),
            ("text/plain;charset=windows-1252", Data([0x80]), "€"),
            ("text/plain; charset=utf-16be", Data([0x00, 0x68, 0x00, 0xE9]), "hé"),
            ("text/plain; charset=utf-8", Data([0xEF, 0xBB, 0xBF, 0x61]), "a"),
        ])
    func text(contentType: String, body: Data, expected: String) async throws {
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": contentType]), body: body)
        let text = try await makeClient(transport).enqueue(TestEndpoint()).resume(expecting: String.self)
        #expect(text == expected)
    }

    @Test("bytes that are not valid in the charset fail with invalidText")
    func invalidText() async {
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": "text/plain; charset=utf-8"]), body: Data([0x61, 0xFF, 0xFE]))
        await #expect {
            _ = try await makeClient(transport).enqueue(TestEndpoint()).resume(expecting: String.self)
        } throws: { error in
            guard case .decoding(let failure) = error as? CourierError,
                case .invalidText(charset: "utf-8") = failure.reason
            else { return false }
            return true
        }
    }

    @Test("an unknown charset fails with unsupportedCharset")
    func unknownCharset() async {
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": "text/plain; charset=klingon"]), body: Data("a".utf8))
        await #expect {
            _ = try await makeClient(transport).enqueue(TestEndpoint()).resume(expecting: String.self)
        } throws: { error in
            guard case .decoding(let failure) = error as? CourierError,
                case .unsupportedCharset("klingon") = failure.reason
            else { return false }
            return true
        }
    }

    @Test("EmptyResponse accepts a 204 and a HEAD response")
    func emptyResponse() async throws {
        let empty = try await makeClient(RecordingTransport(status: 204)).enqueue(TestEndpoint()).resume(expecting: EmptyResponse.self)
        #expect(empty == EmptyResponse())
        let head = try await makeClient(RecordingTransport(headers: HTTPFields(["Content-Length": "10"]))).enqueue(TestEndpoint(method: .head)).resume(
            expecting: EmptyResponse.self)
        #expect(head == EmptyResponse())
    }

    @Test("Response reads media type, charset and headers case-insensitively")
    func responseAccessors() throws {
        let url = try #require(URL(string: "https://api.example.com/"))
        let response = Response(statusCode: 200, headers: ["content-type": "Application/JSON; Charset=\"UTF-8\"", "ETag": "\"v1\""], url: url)
        #expect(response.mediaType == "application/json")
        #expect(response.charset == "utf-8")
        #expect(response.headerValue(for: "etag") == "\"v1\"")
        #expect(response.headerValue(for: "bad name") == nil)
        #expect(response.status == .ok)
        let bare = Response(statusCode: 204, url: url)
        #expect(bare.mediaType == nil && bare.charset == nil && bare.body.isEmpty)
    }

    @Test(
        "the media type is the Content-Type before its parameters, without blanks, lower-cased",
        arguments: [
            ("Application/JSON; charset=utf-8", "application/json"),
            ("  text/plain \t;x=y", "text/plain"),
            ("\tapplication/problem+json", "application/problem+json"),
            ("TEXT/HTML", "text/html"),
            ("text/csv;", "text/csv"),
            (";charset=utf-8", nil),
            ("   ", nil),
            ("", nil),
        ] as [(String, String?)])
    func mediaTypeParsing(contentType: String, expected: String?) throws {
        let url = try #require(URL(string: "https://api.example.com/"))
        #expect(Response(statusCode: 200, headers: ["Content-Type": contentType], url: url).mediaType == expected)
    }
}
