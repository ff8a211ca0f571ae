import Foundation
import Testing

@testable import Courier

private struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

/// A decoder for a made-up line format (`id;name`), to prove the choice by Content-Type.
private struct LineDecoder: ResponseBodyDecoder {
    struct NotALine: Error {}
    var mediaTypes: [String] { ["text/x-line", "application/x-line"] }

    func decode<T: Decodable>(_ type: T.Type, from response: Response) throws -> T {
        let fields = String(decoding: response.body, as: UTF8.self).split(separator: ";")
        guard fields.count == 2, let id = Int(fields[0]) else { throw NotALine() }
        let json = #"{"id":\#(id),"name":"\#(fields[1])"}"#
        return try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }
}

/// An endpoint with its own response decoder.
private struct DecodingEndpoint: Requestable {
    var responseDecoder: (any ResponseBodyDecoder)?
    var headerItems: [HeaderItem]?
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
}

private func client(_ transport: RecordingTransport, decoders: [any ResponseBodyDecoder] = []) -> Client {
    makeClient(transport) { $0.responseDecoders = decoders }
}

@Suite("Decoding by Content-Type")
struct ContentTypeDecodingTests {
    static let userJSON = Data(#"{"id":7,"name":"Ada"}"#.utf8)

    @Test(arguments: [
        "application/json", "application/json; charset=utf-8", "APPLICATION/JSON",
        "application/vnd.api+json", "application/problem+json", nil,
    ])
    func jsonAndEveryPlusJSONTypeAndAMissingContentTypeDecodeAsJSON(contentType: String?) async throws {
        let headers = contentType.map { ["Content-Type": $0] } ?? [:]
        let user = try await client(RecordingTransport(headers: HTTPFields(headers), body: Self.userJSON))
            .enqueue(TestEndpoint()).resume(expecting: User.self)
        #expect(user == User(id: 7, name: "Ada"))
    }

    @Test(arguments: ["text/x-line", "application/x-line; charset=utf-8"])
    func anotherMediaTypeUsesTheConfiguredDecoderThatReadsIt(contentType: String) async throws {
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": contentType]), body: Data("7;Ada".utf8))
        let user = try await client(transport, decoders: [LineDecoder()]).enqueue(TestEndpoint()).resume(expecting: User.self)
        #expect(user == User(id: 7, name: "Ada"))
    }

    @Test func aMediaTypeNoDecoderReadsFailsWithUnsupportedMediaType() async {
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": "text/html; charset=utf-8"]), body: Data("<html>oops</html>".utf8))
        await #expect {
            _ = try await client(transport).enqueue(TestEndpoint()).resume(expecting: User.self)
        } throws: { error in
            guard case .decoding(let failure) = error as? CourierError,
                case .unsupportedMediaType(let mediaType) = failure.reason
            else { return false }
            return mediaType == "text/html" && failure.response.body == Data("<html>oops</html>".utf8)
        }
    }

    @Test func anEndpointDecoderIsUsedWhateverTheContentType() async throws {
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": "application/json"]), body: Data("7;Ada".utf8))
        let user = try await client(transport).enqueue(DecodingEndpoint(responseDecoder: LineDecoder())).resume(expecting: User.self)
        #expect(user == User(id: 7, name: "Ada"))
    }

    @Test func anEndpointJSONDecoderReplacesTheClientsDecoder() async throws {
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        struct Profile: Decodable, Sendable { let displayName: String }
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": "application/json"]), body: Data(#"{"display_name":"Ada"}"#.utf8))
        let profile = try await client(transport).enqueue(DecodingEndpoint(responseDecoder: JSONBodyDecoder(snake))).resume(expecting: Profile.self)
        #expect(profile.displayName == "Ada")
    }

    @Test func anErrorADecoderThrowsIsKeptInTheDecodingFailure() async {
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": "text/x-line"]), body: Data("not a line".utf8))
        await #expect {
            _ = try await client(transport, decoders: [LineDecoder()]).enqueue(TestEndpoint()).resume(expecting: User.self)
        } throws: { error in
            guard case .decoding(let failure) = error as? CourierError,
                case .decoderError(let underlying) = failure.reason
            else { return false }
            return underlying is LineDecoder.NotALine
        }
    }

    @Test func jsonOfTheWrongShapeKeepsTheDecodingErrorAndTheResponse() async {
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": "application/json"]), body: Data(#"{"id":"seven"}"#.utf8))
        await #expect {
            _ = try await client(transport).enqueue(TestEndpoint()).resume(expecting: User.self)
        } throws: { error in
            guard case .decoding(let failure) = error as? CourierError, failure.decodingError != nil else { return false }
            return failure.expectedType == "User" && failure.response.statusCode == 200
        }
    }

    @Test func textThatIsNotValidInItsCharsetFailsWithInvalidText() async {
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": "text/plain; charset=utf-8"]), body: Data([0x48, 0xFF, 0xFE, 0x49]))
        await #expect {
            _ = try await client(transport).enqueue(TestEndpoint()).resume(expecting: String.self)
        } throws: { error in
            guard case .decoding(let failure) = error as? CourierError,
                case .invalidText(let charset) = failure.reason
            else { return false }
            return charset == "utf-8"
        }
    }

    @Test(arguments: [204, 205])
    func noContentDecodesAsEmptyResponse(status: Int) async throws {
        let value = try await client(RecordingTransport(status: status)).enqueue(TestEndpoint()).resume(expecting: EmptyResponse.self)
        #expect(value == EmptyResponse())
    }

    @Test func headResponsesDecodeAsEmptyResponse() async throws {
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": "application/json", "Content-Length": "120"]))
        let value = try await client(transport).enqueue(TestEndpoint(method: .head)).resume(expecting: EmptyResponse.self)
        #expect(value == EmptyResponse())
    }
}

@Suite("Default headers")
struct DefaultHeaderTests {
    private static func sentHeaders(
        expecting type: (some Decodable & Sendable).Type = Data.self,
        endpoint: some Requestable = TestEndpoint(),
        decoders: [any ResponseBodyDecoder] = [],
        configure: @escaping (inout Configuration) -> Void = { _ in }
    ) async throws -> TransportRequest {
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": "application/json"]), body: ContentTypeDecodingTests.userJSON)
        let client = makeClient(transport) {
            $0.responseDecoders = decoders
            configure(&$0)
        }
        _ = try await client.enqueue(endpoint).resume(expecting: type)
        return try #require(await transport.last)
    }

    @Test func aModelAsksForJSON() async throws {
        let request = try await Self.sentHeaders(expecting: User.self)
        #expect(request.header("Accept") == "application/json")
    }

    @Test func configuredDecodersAreListedAfterJSONWithALowerWeight() async throws {
        let request = try await Self.sentHeaders(expecting: User.self, decoders: [LineDecoder()])
        #expect(request.header("Accept") == "application/json, text/x-line;q=0.9, application/x-line;q=0.9")
    }

    @Test func anEndpointDecoderAsksForItsOwnMediaTypes() async throws {
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": "text/x-line"]), body: Data("7;Ada".utf8))
        _ = try await makeClient(transport).enqueue(DecodingEndpoint(responseDecoder: LineDecoder())).resume(expecting: User.self)
        #expect(await transport.last?.header("Accept") == "text/x-line, application/x-line")
    }

    @Test func textAsksForPlainTextAndRawDataAsksForNothing() async throws {
        let text = try await Self.sentHeaders(expecting: String.self)
        #expect(text.header("Accept") == "text/plain, */*;q=0.8")
        let data = try await Self.sentHeaders(expecting: Data.self)
        #expect(data.header("Accept") == nil)
        let transport = RecordingTransport()
        _ = try await makeClient(transport).enqueue(TestEndpoint()).resume()
        #expect(await transport.last?.header("Accept") == nil)
    }

    @Test func anAcceptTheEndpointSetsIsNeverOverridden() async throws {
        let endpoint = DecodingEndpoint(headerItems: [HeaderItem(name: "accept", value: "application/vnd.example.v2+json")])
        let request = try await Self.sentHeaders(expecting: User.self, endpoint: endpoint)
        #expect(request.head.headerFields[values: .accept] == ["application/vnd.example.v2+json"])
    }

    @Test func anAcceptTheConfigurationSetsIsNeverOverridden() async throws {
        let request = try await Self.sentHeaders(expecting: User.self) {
            $0.headers = [HeaderItem(name: "Accept", value: "application/hal+json")]
        }
        #expect(request.head.headerFields[values: .accept] == ["application/hal+json"])
    }

    @Test func theUserAgentNamesCourierItsVersionAndTheSystem() async throws {
        let request = try await Self.sentHeaders()
        let userAgent = try #require(request.header("User-Agent"))
        #expect(userAgent.wholeMatch(of: /Courier\/\d+\.\d+\.\d+ \(.+\)/) != nil)
        #if os(Linux)
            #expect(userAgent.contains("(Linux "))
        #endif
        #expect(userAgent == Configuration.defaultUserAgent)
    }

    @Test func theUserAgentCanBeReplacedOrLeftToTheTransport() async throws {
        let replaced = try await Self.sentHeaders { $0.userAgent = "MyApp/2.1 Courier" }
        #expect(replaced.header("User-Agent") == "MyApp/2.1 Courier")
        let none = try await Self.sentHeaders { $0.userAgent = nil }
        #expect(none.header("User-Agent") == nil)
        let endpoint = DecodingEndpoint(headerItems: [HeaderItem(name: "User-Agent", value: "Endpoint/1")])
        let fromEndpoint = try await Self.sentHeaders(endpoint: endpoint)
        #expect(fromEndpoint.head.headerFields[values: .userAgent] == ["Endpoint/1"])
    }

    @Test func aUserAgentWithALineBreakIsRefused() async {
        let transport = RecordingTransport()
        let client = makeClient(transport) { $0.userAgent = "App\r\nX-Injected: 1" }
        let error = await #expect(throws: CourierError.self) {
            _ = try await client.enqueue(TestEndpoint()).resume()
        }
        #expect(error?.invalidRequestReason == .invalidHeaderValue(name: "User-Agent"))
        #expect(await transport.count == 0)
    }

    @Test func gzipIsAskedForOnlyWhenTheTransportDecodesIt() async throws {
        // RecordingTransport does not decode gzip.
        let plain = try await Self.sentHeaders()
        #expect(plain.header("Accept-Encoding") == nil)
        #expect(URLSessionTransport.shared.decodesGzip)
        let decoding = GzipDecodingTransport()
        _ = try await Client(configuration: Configuration(transport: decoding)).enqueue(TestEndpoint()).resume()
        #expect(await decoding.recorded.last?.header("Accept-Encoding") == "gzip")
        let own = DecodingEndpoint(headerItems: [HeaderItem(name: "Accept-Encoding", value: "identity")])
        _ = try await Client(configuration: Configuration(transport: decoding)).enqueue(own).resume()
        #expect(await decoding.recorded.last?.head.headerFields[values: .acceptEncoding] == ["identity"])
    }

    @Test func aBodysContentTypeAndExtraHeadersGoOutUnlessTheEndpointSetsThem() async throws {
        let body = RequestBody.custom(contentType: "text/csv", headers: [HeaderItem(name: "X-Format-Version", value: "3")]) { Data("a,b\n".utf8) }
        let transport = RecordingTransport()
        _ = try await makeClient(transport).enqueue(TestEndpoint(method: .post, body: body)).resume()
        let request = try #require(await transport.last)
        #expect(request.header("Content-Type") == "text/csv")
        #expect(request.header("X-Format-Version") == "3")
        #expect(request.bodyData == Data("a,b\n".utf8))

        let overriding = TestEndpoint(
            method: .post,
            headerItems: [
                HeaderItem(name: "x-format-version", value: "4"),
                HeaderItem(name: "content-type", value: "text/csv; header=present"),
            ], body: body)
        _ = try await makeClient(transport).enqueue(overriding).resume()
        let second = try #require(await transport.last)
        #expect(second.head.headerFields[values: .contentType] == ["text/csv; header=present"])
        #expect(second.head.headerFields[values: try #require(.init("X-Format-Version"))] == ["4"])
    }

    @Test func aCustomBodyWhoseEncoderThrowsFailsWithEncodingFailed() async {
        struct Broken: Error, CustomStringConvertible { var description: String { "row 3 has 2 columns" } }
        let body = RequestBody.custom(contentType: "text/csv") { throw Broken() }
        let transport = RecordingTransport()
        let error = await #expect(throws: CourierError.self) {
            _ = try await makeClient(transport).enqueue(TestEndpoint(method: .post, body: body)).resume()
        }
        #expect(error?.invalidRequestReason == .encodingFailed("row 3 has 2 columns"))
        #expect(await transport.count == 0)
    }
}

@Suite("RFC 9457 problem details")
struct ProblemDetailsTests {
    static let body = Data(
        #"""
        {"type":"https://example.com/probs/out-of-credit","title":"You do not have enough credit.",
         "status":403,"detail":"Your current balance is 30, but that costs 50.",
         "instance":"/account/12345/msgs/abc","balance":30,"accounts":["/account/12345","/account/67890"]}
        """#.utf8)

    @Test func aProblemResponseIsReadableFromTheResponseError() async throws {
        let transport = RecordingTransport(status: 403, headers: HTTPFields(["Content-Type": "application/problem+json"]), body: Self.body)
        let result: Result<Response, CourierError>
        do { result = .success(try await makeClient(transport).enqueue(TestEndpoint()).resume()) } catch { result = .failure(error) }
        guard case .failure(let error) = result else {
            Issue.record("a 403 must fail")
            return
        }
        let problem = try #require(error.response?.problemDetails)
        #expect(problem.type == "https://example.com/probs/out-of-credit")
        #expect(problem.title == "You do not have enough credit.")
        #expect(problem.status == 403)
        #expect(problem.detail == "Your current balance is 30, but that costs 50.")
        #expect(problem.instance == "/account/12345/msgs/abc")
        struct Credit: Decodable { let balance: Int; let accounts: [String] }
        let credit = try problem.extensions(as: Credit.self)
        #expect(credit.balance == 30 && credit.accounts.count == 2)
    }

    @Test func membersOfTheWrongTypeAreIgnoredAndTypeDefaultsToAboutBlank() throws {
        let problem = try #require(ProblemDetails(json: Data(#"{"title":404,"status":"403","detail":"gone","type":true}"#.utf8)))
        #expect(problem.type == "about:blank")
        #expect(problem.title == nil)
        #expect(problem.status == nil)
        #expect(problem.detail == "gone")
    }

    @Test(arguments: ["application/json", "text/plain", nil])
    func onlyProblemJSONResponsesHaveProblemDetails(contentType: String?) {
        let response = Response(
            statusCode: 400, headers: contentType.map { ["Content-Type": $0] } ?? [:], body: Self.body,
            url: URL(fileURLWithPath: "/"))
        #expect(response.problemDetails == nil)
    }

    @Test(arguments: ["not json", "[1,2]", "\"text\""])
    func aProblemBodyThatIsNotAnObjectGivesNoDetails(text: String) {
        let response = Response(
            statusCode: 400, headers: ["Content-Type": "application/problem+json"], body: Data(text.utf8),
            url: URL(fileURLWithPath: "/"))
        #expect(response.problemDetails == nil)
    }
}

/// A transport that says it decodes gzip, recording what it is sent.
private actor GzipDecodingTransport: Transport {
    private(set) var recorded: [TransportRequest] = []
    nonisolated var decodesGzip: Bool { true }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        recorded.append(request)
        return StreamedResponse(statusCode: 200, url: request.url)
    }
}

extension CourierError {
    /// The reason of an ``invalidRequest(_:)``, else `nil`.
    var invalidRequestReason: InvalidRequest? {
        if case .invalidRequest(let reason) = self { return reason }
        return nil
    }
}
