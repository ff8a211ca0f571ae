import Courier
import CourierTesting
import FlyingFox
import Foundation
import Testing

/// What the server receives is exactly what the endpoint declared: query, path, headers, body.
@Suite("Request encoding on the wire", .loopback, .timeLimit(.minutes(1)))
struct RequestEncodingIntegrationTests {
    /// Registers a handler on every path, for the standard methods and `PURGE`, that records
    /// what arrived and answers 200.
    static func recordEverything(on server: TestServer) async -> Recorder<ReceivedRequest> {
        let recorder = Recorder<ReceivedRequest>()
        let methods = FlyingFox.HTTPMethod.allMethods.union([FlyingFox.HTTPMethod("PURGE")])
        await server.route(HTTPRoute(methods: methods, path: "*")) { request in
            await recorder.record(try await ReceivedRequest(request))
            return FlyingFox.HTTPResponse(statusCode: .ok)
        }
        return recorder
    }

    struct QueryCase: Sendable, CustomTestStringConvertible {
        var items: [QueryItem]
        var rawQuery: String
        var testDescription: String { rawQuery }
    }

    @Test(arguments: [
        // Reserved characters cannot change the query's structure.
        QueryCase(items: [QueryItem(name: "q", value: "a b&c=d+e")], rawQuery: "q=a%20b%26c%3Dd%2Be"),
        // A nil value is a bare name, an empty value keeps its "=".
        QueryCase(items: [QueryItem(name: "flag")], rawQuery: "flag"),
        QueryCase(items: [QueryItem(name: "empty", value: "")], rawQuery: "empty="),
        QueryCase(items: [QueryItem(name: "q", value: "a b&c=d+e"), QueryItem(name: "flag")], rawQuery: "q=a%20b%26c%3Dd%2Be&flag"),
        // Order and repeated names are kept.
        QueryCase(items: [QueryItem(name: "a", value: "1"), QueryItem(name: "b", value: "2"), QueryItem(name: "a", value: "3")], rawQuery: "a=1&b=2&a=3"),
        // Names are encoded too; non-ASCII goes as UTF-8; "#" and "%" are encoded, while the
        // reserved "/" and "?" are legal in a query and left as they are by default.
        QueryCase(items: [QueryItem(name: "a b", value: "Zoë/日本?#%")], rawQuery: "a%20b=Zo%C3%AB/%E6%97%A5%E6%9C%AC?%23%25"),
    ])
    func queryItemsArriveAtTheServerPercentEncodedAsSent(_ queryCase: QueryCase) async throws {
        try await TestServer.run { server in
            let recorder = await Self.recordEverything(on: server)
            let endpoint = try server.endpoint("/search").with { $0.queryItems = queryCase.items }

            _ = try await server.client().enqueue(endpoint).resume()

            let received = await recorder.values
            try #require(received.count == 1)
            #expect(received[0].rawQuery == queryCase.rawQuery)
            #expect(received[0].rawPath == "/search")
        }
    }

    /// FlyingFox splits the request target at the first `?` and cannot tell `/search?` from
    /// `/search`, so the absence of a trailing `?` is checked on the URL Courier sent (which is
    /// the URL URLSession put on the request line); the server confirms the query was empty.
    @Test(arguments: [nil, []] as [[QueryItem]?])
    func noQueryItemsSendNoQueryAndNoTrailingQuestionMark(items: [QueryItem]?) async throws {
        try await TestServer.run { server in
            let recorder = await Self.recordEverything(on: server)
            let endpoint = try server.endpoint("/search").with { $0.queryItems = items }

            let response = try await server.client().enqueue(endpoint).resume()

            #expect(response.url.absoluteString == "\(server.baseURL)/search")
            #expect(response.url.query == nil)
            let received = await recorder.values
            try #require(received.count == 1)
            #expect(received[0].rawQuery == "")
            #expect(received[0].rawPath == "/search")
        }
    }

    @Test func pathSegmentsArrivePercentEncoded() async throws {
        try await TestServer.run { server in
            let recorder = await Self.recordEverything(on: server)
            let path = try URLPath(segments: ["files", "a b/c?d#e%f", "Zoë"])
            let endpoint = TestEndpoint(baseURL: server.baseURL, path: path)

            _ = try await server.client().enqueue(endpoint).resume()

            let received = await recorder.values
            try #require(received.count == 1)
            #expect(received[0].rawPath == "/files/a%20b%2Fc%3Fd%23e%25f/Zo%C3%AB")
            #expect(received[0].rawQuery == "")
        }
    }

    @Test func headersArriveAsSentAndEndpointHeadersReplaceClientHeaders() async throws {
        try await TestServer.run { server in
            let recorder = await Self.recordEverything(on: server)
            let client = server.client(headers: [
                HeaderItem(name: "X-Client-Name", value: "courier-integration"),
                .accept("text/plain"),
            ])
            let endpoint = try server.endpoint("/headers").with {
                $0.headerItems = [
                    .accept("application/json"),
                    HeaderItem(name: "X-Trace-Id", value: "4bf92f3577b34da6a3ce929d0e0e4736"),
                    HeaderItem(name: "X-Quoted", value: #""a, b"; c=d; e=Zoe"#),
                ]
            }

            _ = try await client.enqueue(endpoint).resume()

            let received = await recorder.values
            try #require(received.count == 1)
            let request = received[0]
            #expect(request.method == "GET")
            #expect(request.header("Accept") == "application/json")
            #expect(request.header("X-Client-Name") == "courier-integration")
            #expect(request.header("X-Trace-Id") == "4bf92f3577b34da6a3ce929d0e0e4736")
            #expect(request.header("X-Quoted") == #""a, b"; c=d; e=Zoe"#)
            #expect(request.header("Host") == "127.0.0.1:\(server.port)")
            #expect(request.body.isEmpty)
        }
    }

    struct NewUser: Codable, Equatable, Sendable {
        var name: String
        var tags: [String]
    }

    @Test func aJSONBodyArrivesWithItsContentType() async throws {
        try await TestServer.run { server in
            let recorder = await Self.recordEverything(on: server)
            let user = NewUser(name: "Zoë", tags: ["a&b", "c d"])
            let endpoint = try server.endpoint("/users").with {
                $0.method = .post
                $0.body = .json(user)
            }

            _ = try await server.client().enqueue(endpoint).resume()

            let received = await recorder.values
            try #require(received.count == 1)
            #expect(received[0].method == "POST")
            #expect(received[0].header("Content-Type") == "application/json")
            #expect(received[0].header("Content-Length") == String(received[0].body.count))
            #expect(try JSONDecoder().decode(NewUser.self, from: received[0].body) == user)
        }
    }

    @Test(arguments: ["PUT", "PATCH", "DELETE", "OPTIONS", "PURGE"])
    func theMethodArrivesAsSent(method: String) async throws {
        try await TestServer.run { server in
            let recorder = await Self.recordEverything(on: server)
            let httpMethod = try Courier.HTTPMethod(validating: method)
            let endpoint = try server.endpoint("/resource").with { $0.method = httpMethod }

            _ = try await server.client().enqueue(endpoint).resume()

            let received = await recorder.values
            try #require(received.count == 1)
            #expect(received[0].method == method)
        }
    }
}
