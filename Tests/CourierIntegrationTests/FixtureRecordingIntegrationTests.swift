import Courier
import CourierTesting
import FlyingFox
import Foundation
import Testing

/// `FixtureTransport` recording from a real server on 127.0.0.1 through each real transport, then
/// replaying after the server has stopped: the replays answer exactly as the recording run did,
/// and no secret reached a file.
@Suite("Fixture recording", .loopback, .timeLimit(.minutes(1)))
struct FixtureRecordingIntegrationTests {
    /// A body of text, gzip-compressed (`gzip.compress(b"a body the server compressed", mtime=0)`).
    static let gzipBody = Data(base64Encoded: "H4sIAAAAAAACA0tUSMpPqVQoyUhVKE4tKkstUkjOzy0oSi0uTk0BAGpX8hQcAAAA")!

    /// The calls each test makes, recorded and then replayed.
    static func endpoints(_ base: BaseURL) throws -> [TestEndpoint] {
        [
            TestEndpoint(baseURL: base, path: try URLPath("/users/42")),
            TestEndpoint(baseURL: base, path: try URLPath("/search")).with { $0.queryItems = [QueryItem(name: "q", value: "swift & linux")] },
            TestEndpoint(baseURL: base, path: try URLPath("/session")).with {
                $0.method = .post
                $0.body = .json(["user": "ada"])
            },
            TestEndpoint(baseURL: base, path: try URLPath("/users/9")).with { $0.acceptableStatusCodes = [404] },
            TestEndpoint(baseURL: base, path: try URLPath("/compressed")),
        ]
    }

    /// A real transport of `kind` whose cookies stay its own: the server sets one, and
    /// `URLSessionTransport()` would keep it in the process-wide jar, where other tests' requests
    /// to 127.0.0.1 would pick it up.
    static func upstream(_ kind: TransportKind) -> any Transport {
        switch kind {
        case .urlSession: URLSessionTransport(configuration: .ephemeral)
        #if AsyncHTTPClientLinked
            case .asyncHTTPClient: AsyncHTTPClientTransport()
        #endif
        }
    }

    private func addRoutes(to server: TestServer, hits: Recorder<String>) async {
        await server.route("GET /users/42") { request in
            await hits.record(request.path)
            return FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: Data(#"{"id": 42, "name": "Ada"}"#.utf8))
        }
        await server.route("GET /search") { request in
            await hits.record(request.path)
            return FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: Data(#"[{"id": 1, "name": "Swift"}]"#.utf8))
        }
        await server.route("POST /session") { request in
            await hits.record(request.path)
            return FlyingFox.HTTPResponse(
                statusCode: .created,
                headers: [.contentType: "application/json", .setCookie: "sid=COOKIE-SECRET; Path=/; HttpOnly", .location: "/session/1?token=URL-SECRET"],
                body: Data(#"{"access_token": "TOKEN-SECRET", "refresh_token": "REFRESH-SECRET", "expires_in": 3600}"#.utf8))
        }
        await server.route("GET /users/9") { request in
            await hits.record(request.path)
            return FlyingFox.HTTPResponse(
                statusCode: .notFound, headers: [.contentType: "application/problem+json"], body: Data(#"{"title": "No such user"}"#.utf8))
        }
        await server.route("GET /compressed") { request in
            await hits.record(request.path)
            return FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "text/plain", .contentEncoding: "gzip"], body: Self.gzipBody)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func recordedOnceThenReplayedIdenticallyWithoutTheServer(kind: TransportKind) async throws {
        let folder = try TemporaryFolder()
        let directory = FixtureDirectory(folder.url)
        let hits = Recorder<String>()
        let server = try await TestServer.start()
        let endpoints: [TestEndpoint]
        let recorded: [Response]
        let recorder = FixtureTransport(directory: directory, mode: .recordMissing(through: Self.upstream(kind)))
        do {
            await addRoutes(to: server, hits: hits)
            endpoints = try Self.endpoints(server.baseURL)
            let client = Client(configuration: Configuration(transport: recorder, timeout: generousTimeout))
            var responses: [Response] = []
            for endpoint in endpoints + endpoints {  // the second round replays what the first recorded
                responses.append(try await client.enqueue(endpoint).resume())
            }
            recorded = Array(responses.prefix(endpoints.count))
            #expect(responses.suffix(endpoints.count).map(\.body) == recorded.map(\.body))
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }

        #expect(await hits.values == ["/users/42", "/search", "/session", "/users/9", "/compressed"])
        #expect(recorder.recordedFiles.count == endpoints.count)
        #expect(
            folder.files() == [
                "compressed/GET.response", "search/GET?q=swift%20%26%20linux.response", "session/POST.response", "users/42/GET.response",
                "users/9/GET.response",
            ])

        // The server is gone: a request without a fixture cannot reach anything.
        let replayer = FixtureTransport(directory: directory)
        let client = Client(configuration: Configuration(transport: replayer, timeout: generousTimeout))
        for (endpoint, original) in zip(endpoints, recorded) {
            let replayed = try await client.enqueue(endpoint).resume()
            #expect(replayed.status == original.status)
            #expect(replayed.headers == original.headers)
            #expect(replayed.body == original.body)
        }
        let unrecorded = await client.enqueue(try server.endpoint("/users/43")).result()
        guard case .failure(.response(let missing)) = unrecorded else {
            Issue.record("expected the 501 of a missing fixture, got \(unrecorded)")
            return
        }
        #expect(missing.statusCode == 501)
        #expect(replayer.missingFixtures == [directory.fileURL(for: .get, "/users/43")])

        #expect(recorded[0].body == Data(#"{"id": 42, "name": "Ada"}"#.utf8))
        #expect(recorded[3].statusCode == 404)
        #expect(recorded[4].body == Data("a body the server compressed".utf8))
        #expect(recorded[4].headerValue(for: "Content-Encoding") == nil)
    }

    @Test(arguments: TransportKind.allCases)
    func noSecretAServerSentReachesAFile(kind: TransportKind) async throws {
        let folder = try TemporaryFolder()
        let directory = FixtureDirectory(folder.url)
        try await TestServer.run { server in
            await addRoutes(to: server, hits: Recorder<String>())
            let transport = FixtureTransport(directory: directory, mode: .recordMissing(through: Self.upstream(kind)))
            let client = Client(configuration: Configuration(transport: transport, timeout: generousTimeout))

            let response = try await client.enqueue(try Self.endpoints(server.baseURL)[2]).resume()

            let file = String(decoding: try Data(contentsOf: directory.fileURL(for: .post, "/session")), as: UTF8.self)
            for secret in ["COOKIE-SECRET", "URL-SECRET", "TOKEN-SECRET", "REFRESH-SECRET"] {
                #expect(!file.contains(secret), "\(secret) was written")
                #expect(!String(decoding: response.body, as: UTF8.self).contains(secret))
            }
            #expect(file.hasPrefix("HTTP/1.1 201 Created\n"))
            #expect(file.contains("\nSet-Cookie: <redacted>\n"))
            #expect(file.contains("\nLocation: /session/1?token=<redacted>\n"))
            #expect(file.contains(#""expires_in":3600"#))
        }
    }

    @Test func aRecordingAlsoReplaysThroughANetworkStub() async throws {
        let folder = try TemporaryFolder()
        let directory = FixtureDirectory(folder.url)
        let recorded = try await TestServer.run { server in
            await addRoutes(to: server, hits: Recorder<String>())
            let transport = FixtureTransport(directory: directory, mode: .recordMissing(through: Self.upstream(.platformDefault)))
            let client = Client(configuration: Configuration(transport: transport, timeout: generousTimeout))
            return try await client.enqueue(try server.endpoint("/users/42")).resume()
        }

        let network = NetworkStub()
        network.stub(fixturesIn: directory)
        let client = Client(configuration: Configuration(transport: network.makeTransport()))
        let endpoint = TestEndpoint(baseURL: try BaseURL(host: "api.example.com"), path: try URLPath("/users/42"))
        let replayed = try await client.enqueue(endpoint).resume()

        #expect(replayed.statusCode == recorded.statusCode)
        #expect(replayed.body == recorded.body)
        #expect(replayed.mediaType == "application/json")
    }
}
