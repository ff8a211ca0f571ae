import Courier
import CourierEndpoints
import CourierTesting
import Foundation
import Testing

/// `client.enqueue(endpoint)` for an endpoint that declares its response type returns a
/// `TypedCall` whose `model()` decodes, while `resume()` gives the `Response` as on every `Call`.
@Suite("Declarative endpoints: typed calls")
struct TypedCallTests {
    private static let userJSON = Data(#"{"login":"octocat","id":583231}"#.utf8)

    private enum GitHub {
        static let api = API(string: "https://api.github.example")

        static func user(_ login: String) -> Endpoint<BodyForbidden, DeclaredUser> {
            api.get("users", login).returning(DeclaredUser.self)
        }
    }

    /// An endpoint type of one's own that declares its response.
    private struct GetUser: ResponseDeclaring {
        typealias ResponseModel = DeclaredUser
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    }

    private func client(_ transport: RecordingTransport) -> Client {
        makeClient(transport) { $0.authorizedHosts = ["api.github.example", "api.example.com"] }
    }

    private func jsonTransport(status: Int = 200, body: Data = userJSON) -> RecordingTransport {
        RecordingTransport(status: status, headers: HTTPFields(["Content-Type": "application/json"]), body: body)
    }

    @Test func modelOfADeclaredEndpointReturnsTheDecodedModel() async throws {
        let transport = jsonTransport()
        let user = try await client(transport).enqueue(GitHub.user("octocat")).model()
        #expect(user == DeclaredUser(login: "octocat", id: 583231))
        let request = try #require(await transport.last)
        #expect(request.url.absoluteString == "https://api.github.example/users/octocat")
        #expect(request.header("Accept") == "application/json")
    }

    @Test func theOverloadsArePickedByTheEndpointsType() {
        let client = client(jsonTransport())
        let typed = client.enqueue(GitHub.user("octocat"))
        let untyped = client.enqueue(declaredAPI.get("users"))
        let own = client.enqueue(GetUser())
        let plain = client.enqueue(TestEndpoint())
        let asked: Call = client.enqueue(GitHub.user("octocat"))
        #expect(type(of: typed) == TypedCall<DeclaredUser>.self)
        #expect(type(of: untyped) == Call.self)
        #expect(type(of: own) == TypedCall<DeclaredUser>.self)
        #expect(type(of: plain) == Call.self)
        #expect(type(of: asked) == Call.self)
    }

    @Test func anUntypedEndpointResumesToTheRawResponse() async throws {
        let response = try await client(jsonTransport()).enqueue(declaredAPI.get("users")).resume()
        #expect(response.statusCode == 200)
        #expect(response.body == Self.userJSON)
    }

    @Test func returningResponseGoesBackToTheRawResponse() async throws {
        let endpoint = GitHub.user("octocat").returning(Response.self)
        let response = try await client(jsonTransport()).enqueue(endpoint).resume()
        #expect(response.body == Self.userJSON)
    }

    @Test func theTypedCallsUntypedCallGivesTheResponseAndExpecting() async throws {
        let call = client(jsonTransport()).enqueue(GitHub.user("octocat"))
        #expect(try await call.call.resume().statusCode == 200)
        // One name, one result: resume() on a typed endpoint gives the Response too.
        let response: Response = try await client(jsonTransport()).enqueue(GitHub.user("octocat")).resume()
        #expect(response.body == Self.userJSON)
        #expect(try await call.call.resume(expecting: [String: AnyCodableValue].self)["login"] == .string("octocat"))
        // Members only `Call` has are found on the typed call's expression too.
        #expect(try await client(jsonTransport()).enqueue(GitHub.user("octocat")).resume(expecting: Data.self) == Self.userJSON)
        let streamed = try await client(jsonTransport()).enqueue(GitHub.user("octocat")).stream()
        #expect(streamed.statusCode == 200)
    }

    @Test func anEndpointTypeOfOnesOwnCanDeclareItsModel() async throws {
        #expect(try await client(jsonTransport()).enqueue(GetUser()).model() == DeclaredUser(login: "octocat", id: 583231))
    }

    @Test func dataStringAndEmptyResponseModelsWorkAsWithExpecting() async throws {
        let transport = RecordingTransport(status: 200, headers: HTTPFields(["Content-Type": "text/plain; charset=utf-8"]), body: Data("hello".utf8))
        #expect(try await client(transport).enqueue(declaredAPI.get("a").returning(String.self)).model() == "hello")
        #expect(try await client(transport).enqueue(declaredAPI.get("a").returning(Data.self)).model() == Data("hello".utf8))
        #expect(try await client(RecordingTransport(status: 204)).enqueue(declaredAPI.delete("a").returning(EmptyResponse.self)).model() == EmptyResponse())
    }

    @Test func aBodyThatDoesNotDecodeFailsWithDecoding() async throws {
        let call = client(jsonTransport(body: Data(#"{"login":1}"#.utf8))).enqueue(GitHub.user("octocat"))
        await #expect {
            _ = try await call.model()
        } throws: { error in
            guard case .decoding = error as? CourierError else { return false }
            return true
        }
    }

    @Test func aRefusedStatusFailsWithTheResponse() async throws {
        let call = client(jsonTransport(status: 404, body: Data(#"{"message":"Not Found"}"#.utf8))).enqueue(GitHub.user("nobody"))
        await #expect {
            _ = try await call.model()
        } throws: { error in
            guard case .response(let response) = error as? CourierError else { return false }
            return response.statusCode == 404
        }
    }

    @Test func theCompletionFormReceivesTheDecodedModel() async throws {
        let call = client(jsonTransport()).enqueue(GitHub.user("octocat"))
        let result = await withCheckedContinuation { continuation in
            call.model { continuation.resume(returning: $0) }
        }
        #expect(try result.get() == DeclaredUser(login: "octocat", id: 583231))
    }

    @Test func aPostDeclaringItsModelSendsItsBodyAndDecodesTheAnswer() async throws {
        let transport = jsonTransport(status: 201)
        let endpoint = declaredAPI.post("users").json(["login": "octocat"]).returning(DeclaredUser.self)
        let user = try await client(transport).enqueue(endpoint).model()
        #expect(user.login == "octocat")
        #expect(await transport.last?.bodyData == Data(#"{"login":"octocat"}"#.utf8))
    }

    @Test func thousandsOfConcurrentTypedCallsEachDecodeOnce() async throws {
        let transport = jsonTransport()
        let client = client(transport)
        let count = 2_000
        let decoded = try await withThrowingTaskGroup(of: DeclaredUser.self) { group in
            for index in 0..<count {
                group.addTask { try await client.enqueue(GitHub.user("user\(index)")).model() }
            }
            return try await group.reduce(into: 0) { total, user in if user.id == 583231 { total += 1 } }
        }
        #expect(decoded == count)
        #expect(await transport.count == count)
        let paths = Set(await transport.requests.compactMap(\.head.path))
        #expect(paths.count == count)
    }
}

/// A JSON scalar, for decoding a body without a model.
private enum AnyCodableValue: Decodable, Equatable, Sendable {
    case string(String)
    case number(Double)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            self = .string(string)
        } else {
            self = .number(try container.decode(Double.self))
        }
    }
}
