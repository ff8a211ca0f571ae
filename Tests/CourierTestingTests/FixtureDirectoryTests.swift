import Courier
import CourierTesting
import Foundation
import Testing

/// `FixtureDirectory`: where a request's fixture lives, and answering a `NetworkStub` from the
/// fixtures checked in under `Fixtures/` (this target's resources, read through `Bundle.module`).
@Suite("Fixture directories")
struct FixtureDirectoryTests {
    static let root = URL(fileURLWithPath: "/fixtures", isDirectory: true)

    @Test(arguments: [
        (HTTPMethod.get, "/users/42", "users/42/GET.response"),
        (.get, "/", "GET.response"),
        (.post, "/users", "users/POST.response"),
        (.delete, "/users/42", "users/42/DELETE.response"),
        (.get, "/search?q=swift&page=2", "search/GET?q=swift&page=2.response"),
        (.get, "/search?", "search/GET?.response"),
        (.get, "/api/items/", "api/items/%/GET.response"),
        (.get, "/a%2Fb/c", "a%2Fb/c/GET.response"),
        (.get, "/files/report.pdf", "files/report.pdf/GET.response"),
        (.get, "/v1:batch", "v1%3Abatch/GET.response"),
        (.get, "/find?path=/a/b&t=10:30", "find/GET?path=%2Fa%2Fb&t=10%3A30.response"),
        (.get, "/a/./b/../c", "a/%2E/b/%2E%2E/c/GET.response"),
        (.get, "/old/GET.response", "old/GET%2Eresponse/GET.response"),
        (.get, "/.well-known/openid-configuration", ".well-known/openid-configuration/GET.response"),
        (.get, "/p;jsessionid=abc/x", "p%3Bjsessionid=%3Credacted%3E/x/GET.response"),
        (.get, "/callback?code=abc&state=s1", "callback/GET?code=%3Credacted%3E&state=s1.response"),
        (.head, "/dav", "dav/HEAD.response"),
        // A "/" or "?" that a combining mark follows still separates (split by scalars, not characters).
        (.get, "/a/\u{301}b?\u{301}x=1", "a/%CC%81b/GET?%CC%81x=1.response"),
    ])
    func aRequestsFixtureIsNamedAfterItsMethodPathAndQuery(method: HTTPMethod, target: String, expected: String) {
        let directory = FixtureDirectory(Self.root)

        #expect(relativePath(directory.fileURL(for: method, target)) == expected)
    }

    @Test func requestsThatDifferOnlyInASecretShareAFixture() {
        let directory = FixtureDirectory(Self.root)

        let first = directory.fileURL(for: .get, "/me?access_token=first-token&fields=name")
        let second = directory.fileURL(for: .get, "/me?access_token=second-token&fields=name")

        #expect(first == second)
        #expect(first.lastPathComponent == "GET?access_token=%3Credacted%3E&fields=name.response")
    }

    @Test func theRedactionDecidesWhatIsSecretInNames() {
        var redaction = Redaction.default
        redaction.exposed = ["code"]
        let directory = FixtureDirectory(Self.root, redaction: redaction)

        #expect(relativePath(directory.fileURL(for: .get, "/callback?code=abc")) == "callback/GET?code=abc.response")
    }

    @Test func longNamesAreCutAndKeptApartByAHash() {
        let directory = FixtureDirectory(Self.root)
        let query = (0..<60).map { "field\($0)=value\($0)" }.joined(separator: "&")
        let segment = String(repeating: "s", count: 300)

        let first = directory.fileURL(for: .get, "/search?\(query)")
        let second = directory.fileURL(for: .get, "/search?\(query)x")
        let long = directory.fileURL(for: .get, "/\(segment)/x")

        #expect(first != second)
        #expect(first.lastPathComponent.utf8.count == 200)
        #expect(first.lastPathComponent.hasPrefix("GET?field0=value0&field1=value1"))
        #expect(first.lastPathComponent.hasSuffix(".response"))
        #expect(first == directory.fileURL(for: .get, "/search?\(query)"))
        let folder = long.deletingLastPathComponent().deletingLastPathComponent().lastPathComponent
        #expect(folder.utf8.count == 200)
        #expect(folder.hasPrefix(String(repeating: "s", count: 183) + "~"))
    }

    @Test(arguments: ["/../../etc/passwd", "/a/%2E%2E/%2e%2e/b", "/..", "/a/..%2F..%2Fetc", "/a/\u{301}../../x", "/a\\..\\..\\x"])
    func noTargetLeadsOutOfTheFolder(target: String) {
        let directory = FixtureDirectory(Self.root)

        let file = directory.fileURL(for: .get, target)

        #expect(file.standardizedFileURL.path.hasPrefix(Self.root.path + "/"))
        #expect(!file.pathComponents.dropFirst(2).contains(".."))
    }

    // MARK: Answering a NetworkStub

    @Test func theCheckedInFixturesAnswerThroughURLSession() async throws {
        let network = NetworkStub()
        network.stub(fixturesIn: try FixtureDirectory(bundle: .module))
        let client = makeClient(network)

        let user = try await client.enqueue(TestEndpoint(.get, "/users/42")).resume(expecting: User.self)
        let response = try await client.enqueue(TestEndpoint(.get, "/users/42")).resume()

        #expect(user == User(id: 42, name: "Ada"))
        #expect(response.headerValue(for: "X-Request-Id") == "fixture-1")
        #expect(network.unmatchedRequests.isEmpty)
    }

    @Test func aFixtureWithTheQueryWinsOverOneWithout() async throws {
        let network = NetworkStub()
        network.stub(fixturesIn: try FixtureDirectory(bundle: .module))
        let client = makeClient(network)

        let swift = try await client.enqueue(TestEndpoint(.get, "/search", query: [QueryItem(name: "q", value: "swift")])).resume(expecting: [User].self)
        let other = try await client.enqueue(TestEndpoint(.get, "/search", query: [QueryItem(name: "q", value: "rust")])).resume(expecting: [User].self)
        let none = try await client.enqueue(TestEndpoint(.get, "/search")).resume(expecting: [User].self)

        #expect(swift == [User(id: 1, name: "Swift")])
        #expect(other.isEmpty)
        #expect(none.isEmpty)
    }

    @Test func theRootATrailingSlashAndABinaryBodyHaveTheirFixtures() async throws {
        let network = NetworkStub()
        network.stub(fixturesIn: try FixtureDirectory(bundle: .module))
        let client = makeClient(network)

        let root = try await client.enqueue(TestEndpoint(.get, "/")).resume()
        let index = try await client.enqueue(TestEndpoint(.get, "/items/")).resume()
        let avatar = try await client.enqueue(TestEndpoint(.get, "/avatar")).resume()

        #expect(root.statusCode == 204)
        #expect(root.headerValue(for: "X-Root") == "yes")
        #expect(index.body == Data("the item index\n".utf8))
        #expect(avatar.body == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF, 0x0A, 0x0D, 0x80, 0x7F, 0x00, 0x01]))
        #expect(avatar.mediaType == "image/png")
    }

    @Test func requestsWithoutAFixtureGoOnToLaterStubs() async throws {
        let network = NetworkStub()
        network.stub(fixturesIn: try FixtureDirectory(bundle: .module))
        network.stub(.post, "/users", with: .status(201))
        let client = makeClient(network)

        let created = try await client.enqueue(TestEndpoint(.post, "/users")).resume()
        let missing = await outcome(of: client.enqueue(TestEndpoint(.get, "/users/7")))

        #expect(created.statusCode == 201)
        #expect(missing.rejectedResponse?.statusCode == 501)
        #expect(missing.rejectedResponse?.headerValue(for: "X-Courier-Stub") == "unmatched")
        #expect(network.unmatchedRequests.map(\.path) == ["/users/7"])
    }

    @Test func aMalformedFixtureIsAnswered501NamingTheFileAndLine() async throws {
        let network = NetworkStub()
        network.stub(fixturesIn: try FixtureDirectory(bundle: .module))
        let client = makeClient(network)

        let result = await outcome(of: client.enqueue(TestEndpoint(.get, "/broken")))

        let response = try #require(result.rejectedResponse)
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(response.statusCode == 501)
        #expect(response.headerValue(for: "X-Courier-Stub") == "invalid-fixture")
        #expect(text.contains("broken/GET.response, line 2: a header line without a colon"))
    }

    @Test func aFixtureAlsoAnswersAnExplicitStub() async throws {
        let directory = try FixtureDirectory(bundle: .module)
        let network = NetworkStub()
        network.stub(.get, "/me", with: try StubResponse(contentsOf: directory.fileURL(for: .get, "/users/42")))
        let client = makeClient(network)

        let user = try await client.enqueue(TestEndpoint(.get, "/me")).resume(expecting: User.self)

        #expect(user == User(id: 42, name: "Ada"))
    }

    @Test func aBundleWithoutTheFolderIsATypedError() {
        let error = #expect(throws: FixtureError.self) { try FixtureDirectory(bundle: .module, folder: "NoSuchFolder") }

        #expect(error?.kind == .fileNotFound)
        #expect(error?.file?.lastPathComponent == "NoSuchFolder")
    }

    @Test func responseForARecordedRequestReadsTheFixture() throws {
        let directory = try FixtureDirectory(bundle: .module)
        let request = RecordedRequest(method: "GET", url: try #require(URL(string: "https://api.example.com/search?q=swift")))

        let response = try #require(try directory.response(for: request))

        #expect(response.body == Data(#"[{"id": 1, "name": "Swift"}]"#.utf8) + Data("\n".utf8))
        #expect(try directory.response(for: RecordedRequest(method: "PUT", url: request.url)) == nil)
    }

    private func relativePath(_ url: URL) -> String {
        String(url.path.dropFirst(Self.root.path.count + 1))
    }
}
