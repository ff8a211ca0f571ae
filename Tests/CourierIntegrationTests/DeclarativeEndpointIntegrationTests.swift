import Courier
import CourierEndpoints
import CourierTesting
import FlyingFox
import Foundation
import Testing

/// Endpoints declared with `API` and modifiers, sent to a real server on 127.0.0.1 by each
/// transport: what arrives is what the chain said, and a typed call decodes the answer.
@Suite("Declarative endpoints on the wire", .loopback, .timeLimit(.minutes(1)))
struct DeclarativeEndpointIntegrationTests {
    struct Repository: Codable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    struct NewRepository: Codable, Sendable {
        var name: String
        var topics: [String]
    }

    /// Answers every request with `body` as JSON, recording what arrived.
    private static func answering(_ body: String, status: FlyingFox.HTTPStatusCode = .ok, on server: TestServer) async -> Recorder<ReceivedRequest> {
        let recorder = Recorder<ReceivedRequest>()
        await server.route(HTTPRoute(methods: FlyingFox.HTTPMethod.allMethods, path: "*")) { request in
            await recorder.record(try await ReceivedRequest(request))
            return FlyingFox.HTTPResponse(statusCode: status, headers: [.contentType: "application/json"], body: Data(body.utf8))
        }
        return recorder
    }

    private static func api(_ server: TestServer) -> API {
        API(base: server.baseURL, path: (try? URLPath("/v1")) ?? .root, headers: [HeaderItem(name: "X-Client", value: "declarative")])
    }

    @Test(arguments: TransportKind.allCases)
    func aTypedGetSendsItsPathQueryAndHeadersAndDecodesTheAnswer(transport: TransportKind) async throws {
        try await TestServer.run { server in
            let recorder = await Self.answering(#"[{"id":1,"name":"courier"},{"id":2,"name":"a b"}]"#, on: server)
            let endpoint = Self.api(server).get("users", "ada lovelace/x", "repos")
                .query("sort", "updated").query("tag", "a&b").query("tag", "c").query(["page": ["size": 2]])
                .header("Accept-Language", "fr")
                .authorized(false)
                .returning([Repository].self)

            let repositories = try await server.client(transport: transport).enqueue(endpoint).model()

            #expect(repositories == [Repository(id: 1, name: "courier"), Repository(id: 2, name: "a b")])
            let received = await recorder.values
            try #require(received.count == 1)
            #expect(received[0].method == "GET")
            #expect(received[0].rawPath == "/v1/users/ada%20lovelace%2Fx/repos")
            #expect(received[0].rawQuery == "sort=updated&tag=a%26b&tag=c&page%5Bsize%5D=2")
            #expect(received[0].header("X-Client") == "declarative")
            #expect(received[0].header("Accept-Language") == "fr")
            #expect(received[0].header("Accept") == "application/json")
            #expect(received[0].body.isEmpty)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aPostSendsItsJSONBodyByteForByteAndDecodesTheCreatedModel(transport: TransportKind) async throws {
        try await TestServer.run { server in
            let recorder = await Self.answering(#"{"id":3,"name":"new"}"#, status: .created, on: server)
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let endpoint = Self.api(server).post("repos").json(NewRepository(name: "new", topics: ["swift", "http"]), encoder: encoder)
                .authorized(false).returning(Repository.self)

            let created = try await server.client(transport: transport).enqueue(endpoint).model()

            #expect(created == Repository(id: 3, name: "new"))
            let received = await recorder.values
            try #require(received.count == 1)
            #expect(received[0].method == "POST")
            #expect(received[0].rawPath == "/v1/repos")
            #expect(received[0].header("Content-Type") == "application/json")
            #expect(received[0].body == Data(#"{"name":"new","topics":["swift","http"]}"#.utf8))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aFormPatchAndAnUntypedDeleteArriveAsDeclared(transport: TransportKind) async throws {
        try await TestServer.run { server in
            let recorder = await Self.answering("{}", on: server)
            let client = server.client(transport: transport)
            let api = Self.api(server)

            _ = try await client.enqueue(api.patch("repos", "3").form([QueryItem(name: "name", value: "a b&c")]).authorized(false)).resume()
            let response = try await client.enqueue(api.delete("repos", "3").authorized(false)).resume()

            #expect(response.statusCode == 200)
            let received = await recorder.values
            try #require(received.count == 2)
            #expect(received[0].method == "PATCH")
            #expect(received[0].header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
            #expect(received[0].body == Data("name=a%20b%26c".utf8))
            #expect(received[1].method == "DELETE")
            #expect(received[1].rawPath == "/v1/repos/3")
            #expect(received[1].body.isEmpty)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aRefusedStatusFailsTheTypedCallWithTheResponse(transport: TransportKind) async throws {
        try await TestServer.run { server in
            _ = await Self.answering(#"{"message":"Not Found"}"#, status: .notFound, on: server)
            let endpoint = Self.api(server).get("repos", "missing").authorized(false).returning(Repository.self)
            do throws(CourierError) {
                _ = try await server.client(transport: transport).enqueue(endpoint).resume()
                Issue.record("a 404 must fail the call")
            } catch {
                guard case .response(let response) = error else {
                    Issue.record("expected .response, got \(error)")
                    return
                }
                #expect(response.statusCode == 404)
                #expect(response.body == Data(#"{"message":"Not Found"}"#.utf8))
            }
        }
    }
}
