import Courier
import Foundation
import HTTPTypes
import Testing

/// Nested query parameters and form bodies through a whole `Client` call.
@Suite("QueryString requests and form bodies")
struct QueryStringRequestTests {
    typealias Options = QueryStringFormattingOptions

    @Test func anEndpointsNestedParametersAreSentInTheURLWithDefaultOptions() async throws {
        let transport = RecordingTransport()
        let endpoint = QueryEndpoint(queryParameters: ["filter": ["tags": ["a b", "c/d"]], "limit": 20])
        _ = try await makeClient(transport).enqueue(endpoint).resume()
        let request = try #require(await transport.last)
        #expect(request.head.path == "/search?filter%5Btags%5D%5B0%5D=a%20b&filter%5Btags%5D%5B1%5D=c/d&limit=20")
        #expect(
            request.url.absoluteString
                == "https://api.example.com/search?filter%5Btags%5D%5B0%5D=a%20b&filter%5Btags%5D%5B1%5D=c/d&limit=20")
    }

    @Test func flatItemsComeFirstThenNestedParameters() async throws {
        let transport = RecordingTransport()
        let endpoint = QueryEndpoint(
            queryItems: [QueryItem(name: "z", value: "1"), QueryItem(name: "debug")],
            queryParameters: ["a": ["b": "c"]])
        _ = try await makeClient(transport).enqueue(endpoint).resume()
        #expect(await transport.last?.head.path == "/search?z=1&debug&a%5Bb%5D=c")
    }

    @Test func theClientsOptionsFormatQueriesOfEndpointsWithoutTheirOwn() async throws {
        let transport = RecordingTransport()
        let client = makeClient(transport) {
            $0.queryStringOptions = Options(arrayFormat: .bracketed, spaceEncodingRule: .replacedWithDecodedPlus)
        }
        let endpoint = QueryEndpoint(queryItems: [QueryItem(name: "q", value: "x y")], queryParameters: ["ids": [1, 2]])
        _ = try await client.enqueue(endpoint).resume()
        #expect(await transport.last?.head.path == "/search?q=x+y&ids%5B%5D=1&ids%5B%5D=2")
    }

    @Test func anEndpointsOwnOptionsOverrideTheClientsDefault() async throws {
        let transport = RecordingTransport()
        let client = makeClient(transport) {
            $0.queryStringOptions = Options(arrayFormat: .bracketed, spaceEncodingRule: .replacedWithDecodedPlus)
        }
        let endpoint = QueryEndpoint(
            queryItems: [QueryItem(name: "q", value: "x y")], queryParameters: ["ids": [1, 2]],
            queryStringOptions: Options(arrayFormat: .commaSeparated))
        _ = try await client.enqueue(endpoint).resume()
        #expect(await transport.last?.head.path == "/search?q=x%20y&ids=1,2")
    }

    @Test func parametersThatWriteNothingAddNoQuestionMark() async throws {
        let transport = RecordingTransport()
        _ = try await makeClient(transport).enqueue(QueryEndpoint(queryParameters: ["empty": [], "also": [:]])).resume()
        let request = try #require(await transport.last)
        #expect(request.head.path == "/search")
        #expect(request.url.query == nil)
    }

    @Test func aNonFiniteQueryNumberFailsTheCallBeforeAnythingIsSent() async throws {
        let transport = RecordingTransport()
        await #expect {
            _ = try await makeClient(transport).enqueue(QueryEndpoint(queryParameters: ["x": .double(.nan)])).resume()
        } throws: { error in
            guard case .invalidRequest(.encodingFailed(let reason, _)) = error as? CourierError else { return false }
            return reason.contains("\"x\"")
        }
        #expect(await transport.count == 0)
    }

    @Test func parametersThatFailToEncodeInTheEndpointFailTheCallBeforeAnythingIsSent() async throws {
        struct Tags: Requestable {
            func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
            var queryParameters: QueryParameters? { get throws(CourierError) { try QueryParameters(encoding: ["a", "b"]) } }
        }
        let transport = RecordingTransport()
        await #expect {
            _ = try await makeClient(transport).enqueue(Tags()).resume()
        } throws: { error in
            guard case .invalidRequest(.encodingFailed(let reason, _)) = error as? CourierError else { return false }
            return reason.contains("keyed top level")
        }
        #expect(await transport.count == 0)
    }

    @Test func parametersEncodedFromAnEncodableAreSentAsNested() async throws {
        struct Page: Encodable { var size: Int; var after: String? }
        struct Search: Encodable { var term: String; var page: Page }
        let parameters = try QueryParameters(encoding: Search(term: "cats & dogs", page: Page(size: 10, after: nil)))
        let transport = RecordingTransport()
        _ = try await makeClient(transport).enqueue(QueryEndpoint(queryParameters: parameters)).resume()
        #expect(await transport.last?.head.path == "/search?page%5Bsize%5D=10&term=cats%20%26%20dogs")
    }

    // MARK: form bodies

    static let formContentType = "application/x-www-form-urlencoded; charset=utf-8"

    @Test func aFormOfFlatItemsIsSentInOrderWithTheFormContentType() async throws {
        let transport = RecordingTransport()
        let body = RequestBody.form([
            QueryItem(name: "name", value: "Ada Lovelace"), QueryItem(name: "remember"),
            QueryItem(name: "next", value: "/home?tab=1+2"),
        ])
        _ = try await makeClient(transport).enqueue(QueryEndpoint(method: .post, body: body)).resume()
        let request = try #require(await transport.last)
        #expect(request.header("Content-Type") == Self.formContentType)
        #expect(body.contentType == Self.formContentType)
        #expect(request.bodyData == Data("name=Ada%20Lovelace&remember&next=/home?tab%3D1%2B2".utf8))
        #expect(request.head.path == "/search")
    }

    @Test func aFormOfNestedParametersIsSentSortedAndNested() async throws {
        let transport = RecordingTransport()
        let body = RequestBody.form(["user": ["name": "Ada", "langs": ["en", "fr"]], "agree": true])
        _ = try await makeClient(transport).enqueue(QueryEndpoint(method: .put, body: body)).resume()
        let request = try #require(await transport.last)
        #expect(request.header("Content-Type") == Self.formContentType)
        #expect(request.bodyData == Data("agree=true&user%5Blangs%5D%5B0%5D=en&user%5Blangs%5D%5B1%5D=fr&user%5Bname%5D=Ada".utf8))
    }

    @Test func aFormWithoutOptionsUsesTheClientsOptions() async throws {
        let transport = RecordingTransport()
        let client = makeClient(transport) {
            $0.queryStringOptions = Options(arrayFormat: .duplicatedKeys, spaceEncodingRule: .replacedWithDecodedPlus)
        }
        _ = try await client.enqueue(QueryEndpoint(method: .post, body: .form(["q": "a b", "ids": [1, 2]]))).resume()
        #expect(await transport.last?.bodyData == Data("ids=1&ids=2&q=a+b".utf8))
        _ = try await client.enqueue(QueryEndpoint(method: .post, body: .form([QueryItem(name: "q", value: "a b")]))).resume()
        #expect(await transport.last?.bodyData == Data("q=a+b".utf8))
    }

    @Test func aFormsOwnOptionsOverrideTheClientsAndTheEndpointsQueryOptions() async throws {
        let transport = RecordingTransport()
        let client = makeClient(transport) { $0.queryStringOptions = Options(arrayFormat: .duplicatedKeys) }
        let endpoint = QueryEndpoint(
            method: .post, queryParameters: ["ids": [1, 2]],
            queryStringOptions: Options(arrayFormat: .bracketed),
            body: .form(["ids": [3, 4]], options: Options(arrayFormat: .commaSeparated)))
        _ = try await client.enqueue(endpoint).resume()
        let request = try #require(await transport.last)
        #expect(request.head.path == "/search?ids%5B%5D=1&ids%5B%5D=2")
        #expect(request.bodyData == Data("ids=3,4".utf8))
        _ = try await client.enqueue(
            QueryEndpoint(
                method: .post,
                body: .form(
                    [QueryItem(name: "a", value: "b c")],
                    options: Options(spaceEncodingRule: .replacedWithDecodedPlus)))
        ).resume()
        #expect(await transport.last?.bodyData == Data("a=b+c".utf8))
    }

    @Test func anEndpointsOwnContentTypeWinsOverTheFormsContentType() async throws {
        let transport = RecordingTransport()
        let endpoint = QueryEndpoint(
            method: .post, headerItems: [.contentType("application/x-www-form-urlencoded")],
            body: .form(["a": "1"]))
        _ = try await makeClient(transport).enqueue(endpoint).resume()
        let request = try #require(await transport.last)
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.head.headerFields.filter { $0.name == .contentType }.count == 1)
        #expect(request.bodyData == Data("a=1".utf8))
    }

    @Test func anEmptyFormIsAnEmptyBody() async throws {
        let transport = RecordingTransport()
        _ = try await makeClient(transport).enqueue(QueryEndpoint(method: .post, body: .form([QueryItem]()))).resume()
        let request = try #require(await transport.last)
        #expect(request.bodyData == Data())
        #expect(request.header("Content-Type") == Self.formContentType)
    }

    @Test func aFormWithANonFiniteNumberFailsTheCallBeforeAnythingIsSent() async throws {
        let transport = RecordingTransport()
        await #expect {
            _ = try await makeClient(transport).enqueue(QueryEndpoint(method: .post, body: .form(["t": [.double(.infinity)]]))).resume()
        } throws: { error in
            guard case .invalidRequest(.encodingFailed(let reason, _)) = error as? CourierError else { return false }
            return reason.contains("t[0]")
        }
        #expect(await transport.count == 0)
    }

    @Test func aFormOnAGetRequestIsRefused() async throws {
        let transport = RecordingTransport()
        await #expect {
            _ = try await makeClient(transport).enqueue(QueryEndpoint(method: .get, body: .form(["a": "1"]))).resume()
        } throws: { error in
            guard case .invalidRequest(.bodyNotAllowed) = error as? CourierError else { return false }
            return true
        }
        #expect(await transport.count == 0)
    }
}
