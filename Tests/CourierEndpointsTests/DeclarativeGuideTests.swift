import Courier
import CourierEndpoints
import CourierTesting
import Foundation
import Testing

/// The examples and outputs quoted in Documentation/DeclarativeEndpoints.md, checked as written.
@Suite("Declarative endpoints guide examples")
struct DeclarativeGuideTests {
    struct User: Codable, Sendable, Equatable { var login: String }
    struct Repository: Codable, Sendable, Equatable { var name: String }
    struct NewGist: Codable, Sendable { var description: String }
    struct Gist: Codable, Sendable, Equatable { var id: String }

    enum GitHub {
        static let api = API(string: "https://api.github.example", headers: [.accept("application/vnd.github+json")])

        static func user(_ login: String) -> Endpoint<BodyForbidden, User> {
            api.get("users", login).returning(User.self)
        }

        static func repositories(of login: String, page: Int) -> Endpoint<BodyForbidden, [Repository]> {
            api.get("users", login, "repos").query("sort", "updated").query("page", page).returning([Repository].self)
        }

        static func createGist(_ gist: NewGist) -> Endpoint<BodyAllowed, Gist> {
            api.post("gists").json(gist).returning(Gist.self)
        }
    }

    struct GetUser: ResponseDeclaring {
        typealias ResponseModel = User
        let id: Int
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
        func path() throws(CourierError) -> URLPath { try URLPath(segments: ["users", String(id)]) }
    }

    private let api = API(string: "https://api.example.com")

    private func sent(_ endpoint: some Requestable) async throws -> TransportRequest {
        try #require(await sendDeclared(endpoint).request)
    }

    @Test func theGitHubExampleSendsAndDecodes() async throws {
        let transport = RecordingTransport { request throws(CourierError) in
            let body: String =
                switch request.head.path {
                case "/users/octocat", "/users/42": #"{"login":"octocat"}"#
                case "/gists": #"{"id":"g1"}"#
                default: #"[{"name":"courier"}]"#
                }
            return Response(statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8), url: request.url)
        }
        let client = makeClient(transport)
        #expect(try await client.enqueue(GitHub.user("octocat")).model() == User(login: "octocat"))
        #expect(try await client.enqueue(GitHub.createGist(NewGist(description: "d"))).model() == Gist(id: "g1"))
        #expect(try await client.enqueue(GitHub.repositories(of: "octocat", page: 2)).model() == [Repository(name: "courier")])
        #expect(await transport.last?.head.path == "/users/octocat/repos?sort=updated&page=2")
        #expect(await transport.last?.header("Accept") == "application/vnd.github+json")
        let raw = try await client.enqueue(GitHub.api.get("rate_limit")).resume()
        #expect(raw.statusCode == 200)
        #expect(try await client.enqueue(GetUser(id: 42)).model() == User(login: "octocat"))
    }

    @Test func segmentsArePercentEncoded() async throws {
        let request = try await sent(api.get("users", "a/b c", "repos"))
        #expect(request.head.method == .get)
        #expect(request.head.path == "/users/a%2Fb%20c/repos")
    }

    @Test func theQueryExamples() async throws {
        let search = api.get("search").query("q", "swift & linux").query("tag", "a").query("tag", "b").query("page", 2).query("verbose")
        #expect(try await sent(search).head.path == "/search?q=swift%20%26%20linux&tag=a&tag=b&page=2&verbose")
        let issues = api.get("issues").query(["labels": ["bug", "ui"], "page": ["size": 20]])
        #expect(try await sent(issues).head.path == "/issues?labels%5B0%5D=bug&labels%5B1%5D=ui&page%5Bsize%5D=20")
    }

    @Test func thePrintedEndpoint() {
        let token = "t0k3n"
        #expect("\(api.get("search").query("q", "swift").query("access_token", token))" == "GET https://api.example.com/search?q=swift&access_token=<redacted>")
    }

    @Test func theCustomMethodExample() async throws {
        let purge = api.request(method: try HTTPMethod(validating: "PURGE"), "cache", "k 1")
        let request = try await sent(purge)
        #expect(request.head.method.rawValue == "PURGE")
        #expect(request.head.path == "/cache/k%201")
    }

    @Test func callOnlyMembersAreFoundOnATypedEnqueue() {
        let client = makeClient(RecordingTransport())
        // These compile because the compiler falls back to the `Call` overload of `enqueue`.
        let progress = client.enqueue(GitHub.user("octocat")).withProgress()
        let events = client.enqueue(GitHub.user("octocat")).events()
        _ = (progress, events)
        let call: Call = client.enqueue(GitHub.user("octocat"))
        _ = call
    }
}
