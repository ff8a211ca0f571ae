import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Recording requests")
struct RecordingTests {
    @Test func aPOSTWithAJSONBodyIsRecordedByteForByte() async throws {
        let network = NetworkStub()
        network.stub(.post, "/users", with: .status(201))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let client = makeClient(network, encoder: encoder)

        _ = try await client.enqueue(TestEndpoint(.post, "/users", body: .json(NewUser(name: "Ada", age: 36)))).resume()

        let request = try #require(network.requests.first)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://api.example.com/users")
        #expect(request.body == Data(#"{"age":36,"name":"Ada"}"#.utf8))
        #expect(request.headerValue(for: "Content-Type") == "application/json")
        #expect(try request.decodeJSON(NewUser.self) == NewUser(name: "Ada", age: 36))
    }

    @Test(arguments: [1, 1_000, 70_000, 1_000_000])
    func aPUTWithADataBodyIsRecordedByteForByte(size: Int) async throws {
        let network = NetworkStub()
        network.stub(.put, "/users/42/avatar", with: .status(204))
        let client = makeClient(network)
        let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })

        _ = try await client.enqueue(TestEndpoint(.put, "/users/42/avatar", body: .data(bytes, contentType: "image/png"))).resume()

        let request = try #require(network.requests.first)
        #expect(request.body == bytes)
        #expect(request.headerValue(for: "content-type") == "image/png")
    }

    /// URLSession hands some bodies to a URLProtocol as `httpBodyStream` (always on Apple
    /// platforms, and on Linux when the request was made with a stream); the stub reads it whole.
    @Test func aBodyGivenAsAStreamIsReadToItsEnd() async throws {
        let network = NetworkStub()
        network.stub(.post, "/upload", with: .status(204))
        let session = URLSession(configuration: network.configuration)
        defer { session.finishTasksAndInvalidate() }
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/upload")))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: bytes)

        let (_, response) = try await session.data(for: request)

        #expect((response as? HTTPURLResponse)?.statusCode == 204)
        #expect(network.requests.first?.body == bytes)
    }

    @Test func aRequestWithoutBodyIsRecordedWithAnEmptyBody() async throws {
        let network = NetworkStub()
        network.stub(.get, "/", with: .status(200))
        let client = makeClient(network)

        _ = try await client.enqueue(TestEndpoint()).resume()

        #expect(network.requests.first?.body.isEmpty == true)
    }

    @Test(arguments: ["X-Trace-ID", "x-trace-id", "X-TRACE-ID"])
    func headerLookupIgnoresCase(name: String) async throws {
        let network = NetworkStub()
        network.stub(.get, "/", with: .status(200))
        let client = makeClient(network)

        _ = try await client.enqueue(TestEndpoint(headers: [HeaderItem(name: "X-Trace-Id", value: "t-1")])).resume()

        let request = try #require(network.requests.first)
        #expect(request.headerValue(for: name) == "t-1")
        #expect(request.headers[try #require(HTTPField.Name(name))] == "t-1")
    }

    @Test func recordedHeadersAreExactlyTheRequestsOwnWithoutAnIsolationHeader() async throws {
        let network = NetworkStub()
        network.stub(.get, "/", with: .status(200))
        let client = Client(
            configuration: Configuration(
                transport: network.makeTransport(),
                headers: [.accept("application/json"), HeaderItem(name: "User-Agent", value: "CourierTests/1.0")]
            ))

        _ = try await client.enqueue(TestEndpoint(headers: [HeaderItem(name: "X-Request-ID", value: "42")])).resume()

        let request = try #require(network.requests.first)
        #expect(request.headerValue(for: "X-Courier-Stub-ID") == nil)
        #expect(!request.headers.contains { $0.name.canonicalName.hasPrefix("x-courier") })
        let requestID = try #require(HTTPField.Name("X-Request-ID"))
        // Accept-Encoding is Courier's default: the stubbed URLSession transport decodes gzip.
        let expected: HTTPFields = [.accept: "application/json", .acceptEncoding: "gzip", .userAgent: "CourierTests/1.0", requestID: "42"]
        #expect(request.headers == expected)
    }

    @Test func pathAndQueryItemsAreReadFromTheURL() async throws {
        let network = NetworkStub()
        network.stub(.get, "/users/a%2Fb", ignoringQuery: true, with: .status(200))
        let client = makeClient(network)
        let endpoint = TestEndpoint(.get, "/users/a%2Fb", query: [QueryItem(name: "q", value: "swift & linux"), QueryItem(name: "verbose")])

        _ = try await client.enqueue(endpoint).resume()

        let request = try #require(network.requests.first)
        #expect(request.path == "/users/a%2Fb")
        #expect(request.queryItems == [QueryItem(name: "q", value: "swift & linux"), QueryItem(name: "verbose")])
        #expect(request.url.absoluteString == "https://api.example.com/users/a%2Fb?q=swift%20%26%20linux&verbose")
    }

    @Test func requestsAreRecordedInOrderOfArrival() async throws {
        let network = NetworkStub()
        network.stub(.get, "/a", with: .status(200))
        network.stub(.post, "/b", with: .status(200))
        let client = makeClient(network)

        _ = try await client.enqueue(TestEndpoint(.get, "/a")).resume()
        _ = try await client.enqueue(TestEndpoint(.post, "/b", body: .data(Data([1])))).resume()
        _ = await outcome(of: client.enqueue(TestEndpoint(.get, "/c")))

        #expect(network.requests.map { "\($0.method) \($0.path)" } == ["GET /a", "POST /b", "GET /c"])
    }
}

@Suite("RecordedRequest and StubResponse values")
struct ValueTests {
    @Test func decodeJSONThrowsTheDecodingErrorForABodyOfAnotherShape() throws {
        let request = RecordedRequest(method: "POST", url: try #require(URL(string: "https://api.example.com/users")), body: Data(#"{"name": 1}"#.utf8))

        #expect(throws: DecodingError.self) {
            _ = try request.decodeJSON(NewUser.self)
        }
    }

    @Test func aRecordedRequestDescribesItselfByMethodURLAndSize() throws {
        let request = RecordedRequest(method: "PUT", url: try #require(URL(string: "https://api.example.com/x")), body: Data(count: 3))

        #expect(request.description == "PUT https://api.example.com/x (3 bytes)")
        #expect(request.path == "/x")
        #expect(request.queryItems.isEmpty)
    }

    @Test(
        arguments: [
            (StubResponse.text("hi"), "text/plain; charset=utf-8"),
            (StubResponse.json("{}"), "application/json"),
            (StubResponse.json("{}", headers: HTTPFields(["content-type": "application/problem+json"])), "application/problem+json"),
            (StubResponse.data(Data([1])), nil),
        ] as [(StubResponse, String?)])
    func factoriesSetAContentTypeUnlessOneIsGiven(response: StubResponse, contentType: String?) {
        let given = response.headers.first { $0.name == .contentType }
        #expect(given?.value == contentType)
        #expect(response.headers.count == (contentType == nil ? 0 : 1))
    }

    @Test func jsonEncodesWithTheGivenEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys

        let response = try StubResponse.json(NewUser(name: "Ada", age: 36), status: 201, encoder: encoder)

        #expect(response.statusCode == 201)
        #expect(response.body == Data(#"{"age":36,"name":"Ada"}"#.utf8))
    }

    @Test func aValueThatCannotBeEncodedThrowsTheEncodingError() {
        #expect(throws: EncodingError.self) {
            _ = try StubResponse.json(Double.nan)
        }
    }

    @Test func delayedKeepsTheResponseAndAddsTheDelay() {
        let response = StubResponse.status(204).delayed(by: .milliseconds(250))

        #expect(response == StubResponse(statusCode: 204, delay: .milliseconds(250)))
    }
}
