import Courier
import Foundation
import HTTPTypes
import Testing

@testable import CourierTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Hostile review of CourierTesting's `HTTPFields` stubs: repeated fields, names in another
/// case, values that are not valid, and fixtures, through both ways a stub answers: the URL
/// protocol (`NetworkStub.makeTransport()`, URLSession) and the stubbed network
/// (`withStubbedNetwork`, the default transport).
@Suite("Hostile review (shape II): stubs with HTTPFields", .timeLimit(.minutes(1)))
struct StubFieldsHostileTests {
    struct Endpoint: Requestable {
        var pathString = "/x"
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
        func path() throws(CourierError) -> URLPath { try URLPath(pathString) }
    }

    enum Route: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case urlProtocol, stubbedNetwork
        var testDescription: String { rawValue }

        /// The response `stub` gives to `GET /x` this way.
        func response(to stub: StubResponse) async throws -> Response {
            let network = NetworkStub()
            network.stub(.get, "/x", with: stub)
            switch self {
            case .urlProtocol:
                let client = Client(configuration: Configuration(transport: network.makeTransport()))
                return try await client.enqueue(Endpoint()).resume()
            case .stubbedNetwork:
                return try await withStubbedNetwork(network) { _ in try await Client().enqueue(Endpoint()).resume() }
            }
        }
    }

    static let lowerSetCookie = HTTPField.Name("set-cookie")!
    static let lowerContentType = HTTPField.Name("content-type")!

    /// Every value of `name` in `headers`, split where Foundation joined repeated fields.
    static func values(_ name: HTTPField.Name, in headers: HTTPFields) -> [String] {
        headers[fields: name].flatMap { $0.value.components(separatedBy: ", ") }
    }

    @Test("two Set-Cookie fields both arrive", arguments: Route.allCases)
    func twoSetCookies(_ route: Route) async throws {
        var headers = HTTPFields()
        headers.append(HTTPField(name: .setCookie, value: "a=1"))
        headers.append(HTTPField(name: .setCookie, value: "b=2"))
        let response = try await route.response(to: .status(200, headers: headers))
        #expect(Self.values(.setCookie, in: response.headers) == ["a=1", "b=2"])
    }

    /// `foundationHeaders` keyed its dictionary by the name as written: `Set-Cookie` and
    /// `set-cookie` became two keys of `HTTPURLResponse`'s case-insensitive header dictionary.
    @Test("repeated fields whose names differ in case are joined, not one dropped", arguments: Route.allCases)
    func repeatedFieldsInAnotherCase(_ route: Route) async throws {
        var headers = HTTPFields()
        headers.append(HTTPField(name: .setCookie, value: "a=1"))
        headers.append(HTTPField(name: Self.lowerSetCookie, value: "b=2"))
        headers.append(HTTPField(name: HTTPField.Name("X-Trace")!, value: "1"))
        headers.append(HTTPField(name: HTTPField.Name("x-TRACE")!, value: "2"))
        let response = try await route.response(to: .status(200, headers: headers))
        #expect(Self.values(.setCookie, in: response.headers).sorted() == ["a=1", "b=2"])
        #expect(Self.values(HTTPField.Name("x-trace")!, in: response.headers).sorted() == ["1", "2"])
    }

    @Test("the foundation dictionary of fields differing in case has one key per field name")
    func foundationDictionaryIsCaseInsensitive() throws {
        var headers = HTTPFields()
        headers.append(HTTPField(name: .setCookie, value: "a=1"))
        headers.append(HTTPField(name: Self.lowerSetCookie, value: "b=2"))
        #expect(headers.foundationHeaders == ["Set-Cookie": "a=1, b=2"])
        let response = try #require(
            HTTPURLResponse(
                url: URL(string: "https://api.example.com/x")!, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: headers.foundationHeaders))
        let setCookies = response.allHeaderFields.filter { ($0.key as? String)?.lowercased() == "set-cookie" }
        #expect(setCookies.count == 1)
        #expect(response.value(forHTTPHeaderField: "Set-Cookie") == "a=1, b=2")
    }

    @Test("a Content-Type given in lower case is the one used, and not added twice", arguments: Route.allCases)
    func contentTypeInLowerCase(_ route: Route) async throws {
        let latin1 = try await route.response(to: .data(Data([0xE9]), headers: [Self.lowerContentType: "text/plain; charset=ISO-8859-1"]))
        #expect(try latin1.decode(String.self) == "é")
        let problem = try await route.response(to: .json(#"{"title":"x"}"#, headers: [Self.lowerContentType: "application/problem+json"]))
        #expect(problem.headers[fields: .contentType].map(\.value) == ["application/problem+json"])
        let text = try await route.response(to: .text("hi", headers: [Self.lowerContentType: "text/markdown"]))
        #expect(text.headers[fields: .contentType].map(\.value) == ["text/markdown"])
    }

    @Test("a field value with a line break or NUL does not inject a field nor crash", arguments: Route.allCases)
    func invalidFieldValue(_ route: Route) async throws {
        var headers = HTTPFields()
        headers.append(HTTPField(name: HTTPField.Name("X-Bad")!, value: "a\r\nX-Injected: yes"))
        headers.append(HTTPField(name: HTTPField.Name("X-Nul")!, value: "b\u{0}c"))
        let response = try await route.response(to: .status(200, headers: headers))
        #expect(response.headers[HTTPField.Name("X-Injected")!] == nil)
        #expect(response.headers[HTTPField.Name("X-Bad")!] != nil)
    }

    @Test("a fixture with repeated fields keeps them all, and they arrive", arguments: Route.allCases)
    func fixtureWithRepeatedFields(_ route: Route) async throws {
        let fixture = try StubResponse(
            fixture: Data(
                """
                HTTP/1.1 200 OK
                Set-Cookie: a=1
                set-cookie: b=2
                Content-Type: text/plain; charset=utf-8
                Content-Length: 2

                ok
                """.utf8))
        #expect(fixture.headers[fields: .setCookie].map(\.value) == ["a=1", "b=2"])
        let response = try await route.response(to: fixture)
        #expect(Self.values(.setCookie, in: response.headers).sorted() == ["a=1", "b=2"])
        #expect(try response.decode(String.self) == "ok")
    }
}
