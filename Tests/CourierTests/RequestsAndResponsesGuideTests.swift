import Courier
import Foundation
import Testing

/// The outputs quoted in Documentation/RequestsAndResponses.md, checked byte for byte.
@Suite("Requests and responses guide examples")
struct RequestsAndResponsesGuideTests {
    private struct Endpoint: Requestable {
        var queryItems: [QueryItem]?
        var queryParameters: QueryParameters?
        var queryStringOptions: QueryStringFormattingOptions?
        var method: HTTPMethod = .get
        var body: RequestBody?
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    }

    private func sent(_ endpoint: Endpoint) async throws -> TransportRequest {
        let transport = RecordingTransport()
        _ = try await makeClient(transport).enqueue(endpoint).resume()
        return try #require(await transport.last)
    }

    @Test func flatItems() async throws {
        let request = try await sent(Endpoint(queryItems: [QueryItem(name: "q", value: "swift & linux"), QueryItem(name: "verbose")]))
        #expect(request.head.path == "/?q=swift%20%26%20linux&verbose")
    }

    @Test func nestedParameters() async throws {
        let parameters: QueryParameters = ["filter": ["tags": ["a", "b"], "owner": "ada"], "limit": 20, "archived": false, "cursor": nil]
        let request = try await sent(Endpoint(queryParameters: parameters))
        #expect(request.head.path == "/?archived=false&cursor&filter%5Bowner%5D=ada&filter%5Btags%5D%5B0%5D=a&filter%5Btags%5D%5B1%5D=b&limit=20")
    }

    @Test func encodableParameters() async throws {
        struct Filter: Encodable { var tags: [String]; var since: Date? }
        let request = try await sent(Endpoint(queryParameters: try QueryParameters(encoding: Filter(tags: ["a"], since: nil))))
        #expect(request.head.path == "/?tags%5B0%5D=a")
    }

    @Test(arguments: [
        (QueryStringFormattingOptions(arrayFormat: .indexed), "foo%5B0%5D=a&foo%5B1%5D=b"),
        (QueryStringFormattingOptions(arrayFormat: .bracketed), "foo%5B%5D=a&foo%5B%5D=b"),
        (QueryStringFormattingOptions(arrayFormat: .duplicatedKeys), "foo=a&foo=b"),
        (QueryStringFormattingOptions(arrayFormat: .commaSeparated), "foo=a,b"),
    ])
    func arrayFormatsInTheTable(options: QueryStringFormattingOptions, expected: String) async throws {
        let request = try await sent(Endpoint(queryParameters: ["foo": ["a", "b"]], queryStringOptions: options))
        #expect(request.head.path == "/?" + expected)
    }

    @Test func dictionaryAndSpaceAndPlusRulesInTheTable() async throws {
        #expect(try await sent(Endpoint(queryParameters: ["a": ["b": "c"]])).head.path == "/?a%5Bb%5D=c")
        #expect(try await sent(Endpoint(queryParameters: ["a": ["b": "c"]], queryStringOptions: .init(dictionaryFormat: .dotNotated))).head.path == "/?a.b=c")
        let rules: [(QueryStringFormattingOptions, String)] = [
            (.init(), "x%20y%2Bz"),
            (.init(spaceEncodingRule: .replacedWithDecodedPlus), "x+y%2Bz"),
            (.init(plusSymbolEncodingRule: .replacedWithEncodedSpace), "x%20y%20z"),
            (.init(plusSymbolEncodingRule: .decoded), "x%20y+z"),
        ]
        for (options, expected) in rules {
            #expect(try await sent(Endpoint(queryParameters: ["v": "x y+z"], queryStringOptions: options)).head.path == "/?v=" + expected)
        }
    }

    @Test func commaSeparatedConduitExample() async throws {
        let request = try await sent(
            Endpoint(
                queryParameters: ["foo": ["foo", "bar", 1234, 1.234]],
                queryStringOptions: QueryStringFormattingOptions(arrayFormat: .commaSeparated)))
        #expect(request.head.path == "/?foo=foo,bar,1234,1.234")
    }

    @Test func formExample() async throws {
        let request = try await sent(
            Endpoint(
                method: .post,
                body: .form([
                    QueryItem(name: "grant_type", value: "password"),
                    QueryItem(name: "username", value: "ada@example.com"),
                ])))
        #expect(request.bodyData == Data("grant_type=password&username=ada@example.com".utf8))
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
    }
}
