import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// `FixtureTransport`: replaying fixture files, and recording the missing ones through another
/// transport (here a `RecordingTransport` standing in for the network; the integration suite
/// records from a real server).
@Suite("Fixture transport", .heavy)
struct FixtureTransportTests {
    let folder: TemporaryFolder
    var directory: FixtureDirectory { FixtureDirectory(folder.url) }

    init() throws {
        folder = try TemporaryFolder()
    }

    private func client(_ transport: FixtureTransport) -> Client {
        Client(configuration: Configuration(transport: transport))
    }

    private func text(of file: String) throws -> String {
        String(decoding: try Data(contentsOf: folder.url.appendingPathComponent(file)), as: UTF8.self)
    }

    // MARK: Recording

    @Test func aMissingFixtureIsRecordedOnceAndThenReplayed() async throws {
        let upstream = RecordingTransport(
            status: 200, headers: HTTPFields(["Content-Type": "application/json"]), body: Data(#"{"id": 42, "name": "Ada"}"#.utf8))
        let transport = FixtureTransport(directory: directory, mode: .recordMissing(through: upstream))
        let client = client(transport)

        let first = try await client.enqueue(TestEndpoint(.get, "/users/42")).resume(expecting: User.self)
        let second = try await client.enqueue(TestEndpoint(.get, "/users/42")).resume(expecting: User.self)

        #expect(first == User(id: 42, name: "Ada"))
        #expect(second == first)
        #expect(await upstream.count == 1)
        #expect(transport.recordedFiles == [directory.fileURL(for: .get, "/users/42")])
        #expect(transport.requests.count == 2)
        #expect(try text(of: "users/42/GET.response") == "HTTP/1.1 200 OK\nContent-Type: application/json\n\n{\"id\": 42, \"name\": \"Ada\"}")
        #expect(folder.files() == ["users/42/GET.response"])
    }

    @Test func aReplayAnswersExactlyAsTheRecordingRunDid() async throws {
        let upstream = RecordingTransport(
            status: 404, headers: HTTPFields(["Content-Type": "application/problem+json", "X-Trace": "t-1", "Set-Cookie": "sid=s3cr3t; HttpOnly"]),
            body: Data(#"{"title": "No such user"}"#.utf8))
        let recorder = FixtureTransport(directory: directory, mode: .recordMissing(through: upstream))
        let recorded = await outcome(of: client(recorder).enqueue(TestEndpoint(.get, "/users/9")))

        let replayer = FixtureTransport(directory: directory)
        let replayed = await outcome(of: client(replayer).enqueue(TestEndpoint(.get, "/users/9")))

        let recordedResponse = try #require(recorded.rejectedResponse)
        let replayedResponse = try #require(replayed.rejectedResponse)
        #expect(recordedResponse.statusCode == 404)
        #expect(replayedResponse.status == recordedResponse.status)
        #expect(replayedResponse.headers == recordedResponse.headers)
        #expect(replayedResponse.body == recordedResponse.body)
        #expect(recordedResponse.headerValue(for: "Set-Cookie") == Redaction.placeholder)
        #expect(replayer.recordedFiles.isEmpty)
    }

    @Test func secretsNeverReachTheFile() async throws {
        let body = #"{"access_token": "AT-SECRET", "refresh_token": "RT-SECRET", "nested": {"password": "PW-SECRET"}, "user": "ada"}"#
        let upstream = RecordingTransport(
            status: 200,
            headers: HTTPFields([
                "Content-Type": "application/json",
                "Set-Cookie": "session=COOKIE-SECRET; Path=/",
                "X-Api-Key": "KEY-SECRET",
                "Private-Token": "PRIVATE-SECRET",
                "Authorization": "Bearer AUTH-SECRET",
                "Location": "https://api.example.com/cb?code=CODE-SECRET&state=s1",
            ]),
            body: Data(body.utf8))
        let transport = FixtureTransport(directory: directory, mode: .recordMissing(through: upstream))

        let response = try await client(transport).enqueue(TestEndpoint(.post, "/oauth/token")).resume()

        let written = try text(of: "oauth/token/POST.response")
        for secret in ["AT-SECRET", "RT-SECRET", "PW-SECRET", "COOKIE-SECRET", "KEY-SECRET", "PRIVATE-SECRET", "AUTH-SECRET", "CODE-SECRET"] {
            #expect(!written.contains(secret), "\(secret) was written")
            #expect(!String(decoding: response.body, as: UTF8.self).contains(secret))
        }
        #expect(written.contains("Set-Cookie: <redacted>"))
        #expect(written.contains("Authorization: Bearer <redacted>"))
        #expect(written.contains("Location: https://api.example.com/cb?code=<redacted>&state=s1"))
        #expect(written.hasSuffix(#"{"access_token":"<redacted>","nested":{"password":"<redacted>"},"refresh_token":"<redacted>","user":"ada"}"#))
        #expect(response.headerValue(for: "X-Api-Key") == Redaction.placeholder)
    }

    @Test func aBodyWithoutSecretsIsWrittenByteForByte() async throws {
        let body = Data("{\n  \"id\" : 1,\n  \"big\" : 12345678901234567890,\n  \"ratio\" : 1.0\n}\n".utf8)
        let upstream = RecordingTransport(status: 200, headers: HTTPFields(["Content-Type": "application/json"]), body: body)
        let transport = FixtureTransport(directory: directory, mode: .recordMissing(through: upstream))

        let response = try await client(transport).enqueue(TestEndpoint(.get, "/numbers")).resume()

        #expect(response.body == body)
        #expect(try Data(contentsOf: directory.fileURL(for: .get, "/numbers")).suffix(body.count) == body)
    }

    @Test func secretFieldsOfAFormBodyAreHidden() async throws {
        let upstream = RecordingTransport(
            status: 200, headers: HTTPFields(["Content-Type": "application/x-www-form-urlencoded"]),
            body: Data("access_token=AT-SECRET&token_type=bearer&expires_in=3600".utf8))
        var redaction = Redaction.default
        redaction.exposed = ["token_type"]
        let transport = FixtureTransport(directory: FixtureDirectory(folder.url, redaction: redaction), mode: .recordMissing(through: upstream))

        let response = try await client(transport).enqueue(TestEndpoint(.post, "/token")).resume()

        #expect(String(decoding: response.body, as: UTF8.self) == "access_token=<redacted>&token_type=bearer&expires_in=3600")
    }

    @Test func framingIsLeftOutAndAStaleLengthCorrected() async throws {
        let upstream = RecordingTransport(
            status: 200,
            headers: HTTPFields([
                "Content-Type": "text/plain", "Transfer-Encoding": "chunked", "Connection": "keep-alive", "Keep-Alive": "timeout=5", "Content-Length": "3",
            ]),
            body: Data("hello".utf8))
        let transport = FixtureTransport(directory: directory, mode: .recordMissing(through: upstream))

        let response = try await client(transport).enqueue(TestEndpoint(.get, "/text")).resume()

        let written = try text(of: "text/GET.response")
        #expect(written.hasPrefix("HTTP/1.1 200 OK\n"))
        #expect(written.hasSuffix("\n\nhello"))
        #expect(written.split(separator: "\n").count == 4)  // status, two fields, body
        #expect(written.contains("\nContent-Length: 5\n"))
        #expect(written.contains("\nContent-Type: text/plain\n"))
        #expect(response.headerValue(for: "Transfer-Encoding") == nil)
        #expect(response.headerValue(for: "Content-Length") == "5")
    }

    @Test(arguments: [true, false])
    func contentEncodingIsLeftOutOnlyWhenTheTransportDecodedTheBody(decoded: Bool) async throws {
        let inner = RecordingTransport(
            status: 200, headers: HTTPFields(["Content-Type": "text/plain", "Content-Encoding": "gzip", "Content-Length": "31"]), body: Data("plain text".utf8))
        let upstream = Upstream(inner: inner, decodesGzip: decoded)
        let transport = FixtureTransport(directory: directory, mode: .recordMissing(through: upstream))

        let response = try await client(transport).enqueue(TestEndpoint(.get, "/gz")).resume()

        #expect(response.headerValue(for: "Content-Encoding") == (decoded ? nil : "gzip"))
        #expect(response.headerValue(for: "Content-Length") == (decoded ? nil : "10"))
        #expect(transport.decodesGzip == decoded)
        let sent = try #require(await inner.last)
        #expect((sent.head.headerFields[.acceptEncoding] == "gzip") == decoded)
    }

    @Test func overwriteSendsEveryRequestAndKeepsTheLastResponse() async throws {
        let upstream = RecordingTransport(script: [.status(200, body: Data("one".utf8)), .status(200, body: Data("two".utf8))])
        let transport = FixtureTransport(directory: directory, mode: .overwrite(through: upstream))
        let client = client(transport)

        _ = try await client.enqueue(TestEndpoint(.get, "/n")).resume()
        let second = try await client.enqueue(TestEndpoint(.get, "/n")).resume()

        #expect(await upstream.count == 2)
        #expect(second.body == Data("two".utf8))
        #expect(try text(of: "n/GET.response").hasSuffix("\n\ntwo"))
        #expect(transport.recordedFiles.count == 2)
        #expect(folder.files() == ["n/GET.response"])
    }

    @Test func aFailureIsThrownAsItIsAndNothingIsWritten() async throws {
        let failure = TransportFailure(URLError(.cannotConnectToHost))
        let upstream = RecordingTransport(script: [.failure(.transport(failure))])
        let transport = FixtureTransport(directory: directory, mode: .recordMissing(through: upstream))
        var configuration = Configuration(transport: transport)
        configuration.retryPolicy = .none

        let result = await outcome(of: Client(configuration: configuration).enqueue(TestEndpoint(.get, "/down")))

        #expect(result.courierError?.urlError?.code == .cannotConnectToHost)
        #expect(folder.files().isEmpty)
        #expect(transport.recordedFiles.isEmpty)
    }

    @Test func requestsThatDifferOnlyInATokenShareTheirRecording() async throws {
        let upstream = RecordingTransport(status: 200, body: Data("me".utf8))
        let transport = FixtureTransport(directory: directory, mode: .recordMissing(through: upstream))
        let client = client(transport)

        _ = try await client.enqueue(TestEndpoint(.get, "/me", query: [QueryItem(name: "access_token", value: "first")])).resume()
        let second = try await client.enqueue(TestEndpoint(.get, "/me", query: [QueryItem(name: "access_token", value: "second")])).resume()

        #expect(second.body == Data("me".utf8))
        #expect(await upstream.count == 1)
        #expect(folder.files() == ["me/GET?access_token=%3Credacted%3E.response"])
    }

    @Test func aFolderThatCannotBeCreatedFailsTheCallAsAFileSystemFailure() async throws {
        let blocker = folder.url.appendingPathComponent("blocker")
        try Data("a file, not a folder".utf8).write(to: blocker)
        let upstream = RecordingTransport(status: 200)
        let transport = FixtureTransport(directory: FixtureDirectory(blocker), mode: .recordMissing(through: upstream))

        let result = await outcome(of: client(transport).enqueue(TestEndpoint(.get, "/x")))

        guard case .transport(let failure)? = result.courierError else {
            Issue.record("expected a transport failure, got \(result)")
            return
        }
        #expect(failure.kind == .fileSystem)
        #expect(failure.message?.contains("blocker/x/GET.response: cannot be written") == true)
    }

    @Test func aRecordingLargerThanTheFileLimitIsNotWritten() async throws {
        let upstream = RecordingTransport(status: 200, body: Data(repeating: 0x61, count: 2000))
        var directory = self.directory
        directory.maximumFileSize = 1000
        let transport = FixtureTransport(directory: directory, mode: .recordMissing(through: upstream))

        let result = await outcome(of: client(transport).enqueue(TestEndpoint(.get, "/big")))

        guard case .transport(let failure)? = result.courierError else {
            Issue.record("expected a transport failure, got \(result)")
            return
        }
        #expect(failure.kind == .badResponse)
        #expect(failure.message?.contains("larger than the limit of 1000 bytes") == true)
        #expect(folder.files().isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func manyConcurrentRecordingsEachWriteTheirOwnFile() async throws {
        let upstream = RecordingTransport { request throws(CourierError) in
            Response(statusCode: 200, headers: ["Content-Type": "text/plain"], body: Data((request.head.path ?? "").utf8), url: request.url)
        }
        let transport = FixtureTransport(directory: directory, mode: .recordMissing(through: upstream))
        let client = client(transport)

        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<200 {
                group.addTask { String(decoding: try await client.enqueue(TestEndpoint(.get, "/items/\(index)")).resume().body, as: UTF8.self) }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }

        #expect(bodies == Set((0..<200).map { "/items/\($0)" }))
        #expect(await upstream.count == 200)
        #expect(transport.recordedFiles.count == 200)
        #expect(folder.files().count == 200)
    }

    // MARK: Replaying

    @Test func aMissingFixtureIsAnswered501AndListed() async throws {
        let transport = FixtureTransport(directory: directory)

        let result = await outcome(of: client(transport).enqueue(TestEndpoint(.get, "/nothing", query: [QueryItem(name: "token", value: "T0K3N")])))

        let response = try #require(result.rejectedResponse)
        let file = directory.fileURL(for: .get, "/nothing?token=T0K3N")
        #expect(response.statusCode == 501)
        #expect(response.headerValue(for: "X-Courier-Stub") == "no-fixture")
        #expect(String(decoding: response.body, as: UTF8.self).contains(file.path))
        #expect(!String(decoding: response.body, as: UTF8.self).contains("T0K3N"))
        #expect(transport.missingFixtures == [file])
        #expect(transport.decodesGzip == false)
    }

    @Test func aMalformedFixtureFailsTheCallNamingTheFileAndLine() async throws {
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("bad"), withIntermediateDirectories: true)
        try Data("HTTP/1.1 200 OK\nno colon here\n\n".utf8).write(to: folder.url.appendingPathComponent("bad/GET.response"))
        let transport = FixtureTransport(directory: directory)

        let result = await outcome(of: client(transport).enqueue(TestEndpoint(.get, "/bad")))

        guard case .transport(let failure)? = result.courierError else {
            Issue.record("expected a transport failure, got \(result)")
            return
        }
        #expect(failure.kind == .badResponse)
        #expect(failure.message?.contains("bad/GET.response, line 2: a header line without a colon") == true)
    }

    @Test func aFixtureLargerThanTheResponseLimitFailsAsOverTheNetwork() async throws {
        try FixtureFileWriter.write("HTTP/1.1 200 OK\n\n" + String(repeating: "x", count: 100), to: directory.fileURL(for: .get, "/large"))
        var configuration = Configuration(transport: FixtureTransport(directory: directory))
        configuration.maximumResponseSize = 50

        let result = await outcome(of: Client(configuration: configuration).enqueue(TestEndpoint(.get, "/large")))

        guard case .transport(let failure)? = result.courierError else {
            Issue.record("expected a transport failure, got \(result)")
            return
        }
        #expect(failure.kind == .responseTooLarge)
    }

    @Test func theCheckedInFixturesReplayWithoutURLSession() async throws {
        let transport = FixtureTransport(directory: try FixtureDirectory(bundle: .module))
        let client = client(transport)

        let user = try await client.enqueue(TestEndpoint(.get, "/users/42")).resume(expecting: User.self)
        let swift = try await client.enqueue(TestEndpoint(.get, "/search", query: [QueryItem(name: "q", value: "swift")])).resume(expecting: [User].self)
        let root = try await client.enqueue(TestEndpoint(.get, "/")).resume()

        #expect(user == User(id: 42, name: "Ada"))
        #expect(swift == [User(id: 1, name: "Swift")])
        #expect(root.statusCode == 204)
        #expect(transport.missingFixtures.isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func thousandsOfConcurrentReplaysAllAnswer() async throws {
        let transport = FixtureTransport(directory: try FixtureDirectory(bundle: .module))
        let client = client(transport)

        let count = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<2000 {
                group.addTask { try await client.enqueue(TestEndpoint(.get, "/users/42")).resume(expecting: User.self) == User(id: 42, name: "Ada") }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }

        #expect(count == 2000)
        #expect(transport.requests.count == 2000)
        #expect(transport.missingFixtures.isEmpty)
    }

    @Test func aCancelledTaskIsNotAnswered() async throws {
        let transport = FixtureTransport(directory: try FixtureDirectory(bundle: .module))
        let request = TransportRequest(
            head: HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/users/42"), timeout: .seconds(5))

        let task = Task { () async throws(CourierError) -> StreamedResponse in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(request)
        }

        await #expect(throws: CourierError.self) { try await task.value }
        #expect(transport.requests.isEmpty)
    }
}

/// A transport in front of a `RecordingTransport` that says whether it decodes gzip.
private struct Upstream: Transport {
    let inner: RecordingTransport
    let decodesGzip: Bool

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        try await inner.send(request)
    }
}

/// Writes fixture text to a file, creating its folder.
enum FixtureFileWriter {
    static func write(_ text: String, to file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }
}
