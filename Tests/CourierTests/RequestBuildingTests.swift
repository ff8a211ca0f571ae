import Courier
import Foundation
import HTTPTypes
import Testing

@Suite("Building requests from endpoints")
struct RequestBuildingTests {
    @Test("the URL joins scheme, authority and path, with no '?' when there is no query", arguments: [nil, [] as [QueryItem]])
    func noTrailingQuestionMark(items: [QueryItem]?) async throws {
        let transport = RecordingTransport()
        _ = try await makeClient(transport).enqueue(TestEndpoint(pathString: "/v1/users", queryItems: items)).resume()
        let request = try #require(await transport.last)
        #expect(request.url.absoluteString == "https://api.example.com/v1/users")
        #expect(request.head.path == "/v1/users")
        #expect(request.head.authority == "api.example.com")
        #expect(request.head.scheme == "https")
    }

    @Test("query items are percent-encoded and a nil value gives a bare name")
    func queryEncoding() async throws {
        let transport = RecordingTransport()
        let items = [
            QueryItem(name: "q", value: "a b&c=d+e#f"),
            QueryItem(name: "flag"),
            QueryItem(name: "empty", value: ""),
            QueryItem(name: "ü name", value: "✓"),
            QueryItem(name: "q", value: "second"),
        ]
        _ = try await makeClient(transport).enqueue(TestEndpoint(pathString: "/search", queryItems: items)).resume()
        let request = try #require(await transport.last)
        #expect(request.head.path == "/search?q=a%20b%26c%3Dd%2Be%23f&flag&empty=&%C3%BC%20name=%E2%9C%93&q=second")
        #expect(request.url.query == "q=a%20b%26c%3Dd%2Be%23f&flag&empty=&%C3%BC%20name=%E2%9C%93&q=second")
    }

    @Test("client headers are sent, and an endpoint header replaces one of the same name in any case")
    func headerMerging() async throws {
        let transport = RecordingTransport()
        let client = makeClient(transport) {
            $0.headers = [.accept("text/plain"), HeaderItem(name: "X-Client", value: "1")]
            $0.userAgent = nil
        }
        let endpoint = TestEndpoint(headerItems: [
            HeaderItem(name: "accept", value: "application/json"),
            HeaderItem(name: "X-Tag", value: "a"), HeaderItem(name: "X-Tag", value: "b"),
        ])
        _ = try await client.enqueue(endpoint).resume()
        let request = try #require(await transport.last)
        #expect(request.header("Accept") == "application/json")
        #expect(request.header("X-Client") == "1")
        #expect(request.head.headerFields.count == 4)
        #expect(request.header("x-tag") == "a, b")
    }

    @Test(
        "a header value with CR, LF, NUL or another control character is refused and nothing is sent",
        arguments: [
            "value\r\nX-Injected: 1", "value\nX-Injected: 1", "value\rX", "a\u{0}b", "a\u{7F}b", "a\u{1B}b",
        ])
    func headerInjection(value: String) async {
        let transport = RecordingTransport()
        let endpoint = TestEndpoint(headerItems: [HeaderItem(name: "X-Token", value: value)])
        await #expect {
            _ = try await makeClient(transport).enqueue(endpoint).resume()
        } throws: { error in
            guard case .invalidRequest(.invalidHeaderValue(name: "X-Token")) = error as? CourierError else { return false }
            return !String(describing: error).contains("X-Injected")
        }
        #expect(await transport.count == 0)
    }

    @Test("the same check covers client-wide headers")
    func clientHeaderInjection() async {
        let transport = RecordingTransport()
        let client = makeClient(transport) { $0.headers = [HeaderItem(name: "X-Token", value: "a\r\nb")] }
        await #expect(throws: CourierError.self) { _ = try await client.enqueue(TestEndpoint()).resume() }
        #expect(await transport.count == 0)
    }

    @Test("a tab inside a header value is allowed")
    func tabIsAllowed() async throws {
        let transport = RecordingTransport()
        _ = try await makeClient(transport).enqueue(TestEndpoint(headerItems: [HeaderItem(name: "X-A", value: "a\tb")])).resume()
        #expect(await transport.last?.header("X-A") == "a\tb")
    }

    @Test("a header name that is not a token is refused", arguments: ["", "X Token", "X-Token:", "X\r\nY", "Ünicode", "(x)"])
    func headerNames(name: String) async {
        let transport = RecordingTransport()
        await #expect {
            _ = try await makeClient(transport).enqueue(TestEndpoint(headerItems: [HeaderItem(name: name, value: "v")])).resume()
        } throws: { error in
            if case .invalidRequest(.invalidHeaderName(name)) = error as? CourierError { return true }
            return false
        }
        #expect(await transport.count == 0)
    }

    @Test("GET and HEAD with a body are refused and nothing is sent", arguments: [HTTPMethod.get, .head])
    func bodyOnGetOrHead(method: HTTPMethod) async {
        let transport = RecordingTransport()
        let endpoint = TestEndpoint(method: method, body: .data(Data("x".utf8)))
        await #expect {
            _ = try await makeClient(transport).enqueue(endpoint).resume()
        } throws: { error in
            if case .invalidRequest(.bodyNotAllowed(method: method.rawValue)) = error as? CourierError { return true }
            return false
        }
        #expect(await transport.count == 0)
    }

    @Test("a JSON body is encoded with the client's encoder and sent as application/json")
    func jsonBody() async throws {
        struct NewUser: Encodable, Sendable { let firstName: String }
        let transport = RecordingTransport()
        let client = makeClient(transport) { $0.encoder.keyEncodingStrategy = .convertToSnakeCase }
        _ = try await client.enqueue(TestEndpoint(method: .post, body: .json(NewUser(firstName: "Ada")))).resume()
        let request = try #require(await transport.last)
        #expect(request.head.method.rawValue == "POST")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.bodyData == Data(#"{"first_name":"Ada"}"#.utf8))
    }

    @Test("a body's own encoder wins over the client's")
    func jsonBodyWithOwnEncoder() async throws {
        struct NewUser: Encodable, Sendable { let firstName: String }
        let transport = RecordingTransport()
        let client = makeClient(transport) { $0.encoder.keyEncodingStrategy = .convertToSnakeCase }
        _ = try await client.enqueue(TestEndpoint(method: .put, body: .json(NewUser(firstName: "Ada"), encoder: JSONEncoder()))).resume()
        #expect(await transport.last?.bodyData == Data(#"{"firstName":"Ada"}"#.utf8))
    }

    @Test("an endpoint's Content-Type wins over the body's")
    func contentTypeOverride() async throws {
        let transport = RecordingTransport()
        let endpoint = TestEndpoint(method: .post, headerItems: [.contentType("application/vnd.api+json")], body: .json(["a": 1]))
        _ = try await makeClient(transport).enqueue(endpoint).resume()
        let request = try #require(await transport.last)
        #expect(request.head.headerFields[values: .contentType] == ["application/vnd.api+json"])
    }

    @Test("raw data is sent as it is, with its content type")
    func dataBody() async throws {
        let transport = RecordingTransport()
        let bytes = Data([0, 1, 2, 255])
        _ = try await makeClient(transport).enqueue(TestEndpoint(method: .patch, body: .data(bytes, contentType: "image/png"))).resume()
        let request = try #require(await transport.last)
        #expect(request.bodyData == bytes)
        #expect(request.body?.count == 4)
        #expect(request.header("Content-Type") == "image/png")
    }

    @Test("a body content type with CR/LF is refused")
    func bodyContentTypeInjection() async {
        let transport = RecordingTransport()
        let endpoint = TestEndpoint(method: .post, body: .data(Data(), contentType: "text/plain\r\nX-Evil: 1"))
        await #expect(throws: CourierError.self) { _ = try await makeClient(transport).enqueue(endpoint).resume() }
        #expect(await transport.count == 0)
    }

    @Test("an encoder that throws fails the call with encodingFailed, naming the path, not the value")
    func encodingFailure() async {
        struct Reading: Encodable, Sendable { let value: Double }
        let transport = RecordingTransport()
        await #expect {
            _ = try await makeClient(transport).enqueue(TestEndpoint(method: .post, body: .json(Reading(value: .nan)))).resume()
        } throws: { error in
            guard case .invalidRequest(.encodingFailed(let reason, _)) = error as? CourierError else { return false }
            return reason.contains("value")
        }
        #expect(await transport.count == 0)
    }

    @Test("the endpoint's timeout wins over the client's, which defaults to 60 s")
    func timeouts() async throws {
        let transport = RecordingTransport()
        _ = try await makeClient(transport).enqueue(TestEndpoint()).resume()
        #expect(await transport.last?.timeout == .seconds(60))
        _ = try await makeClient(transport) { $0.timeout = .seconds(5) }.enqueue(TestEndpoint()).resume()
        #expect(await transport.last?.timeout == .seconds(5))
        _ = try await makeClient(transport) { $0.timeout = .seconds(5) }.enqueue(TestEndpoint(timeout: .milliseconds(250))).resume()
        #expect(await transport.last?.timeout == .milliseconds(250))
    }

    @Test("a zero or negative timeout is refused", arguments: [Duration.zero, .seconds(-1)])
    func badTimeout(timeout: Duration) async {
        let transport = RecordingTransport()
        await #expect {
            _ = try await makeClient(transport).enqueue(TestEndpoint(timeout: timeout)).resume()
        } throws: { error in
            if case .invalidRequest(.invalidTimeout(timeout)) = error as? CourierError { return true }
            return false
        }
    }

    @Test("an invalid host in the endpoint fails the call before anything is sent")
    func invalidHostFailsTheCall() async {
        let transport = RecordingTransport()
        await #expect(throws: CourierError.self) {
            _ = try await makeClient(transport).enqueue(TestEndpoint(host: "bad host")).resume()
        }
        #expect(await transport.count == 0)
    }

    @Test("a custom method is sent as given")
    func customMethod() async throws {
        let transport = RecordingTransport()
        _ = try await makeClient(transport).enqueue(TestEndpoint(method: try HTTPMethod(validating: "PURGE"))).resume()
        #expect(await transport.last?.head.method.rawValue == "PURGE")
    }
}
