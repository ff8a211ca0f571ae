import Courier
import CourierDemoAPI
import CourierOpenAPI
import CourierTesting
import FlyingFox
import Foundation
import HTTPTypes
import InMemoryTracing
import Logging
import MetricsTestKit
import OpenAPIRuntime
import Testing
import Tracing

/// The demo API's generated client (Example/DemoAPIClient) sent through `CourierClientTransport`
/// against a real server on 127.0.0.1, on both transports: sign-in, refresh, the one 401
/// replay, credentials only to the authorized hosts, the cache, streaming both ways, stubs.
@Suite("OpenAPI: generated operations through a Courier client", .loopback, .timeLimit(.minutes(10)))
struct OpenAPITransportIntegrationTests {
    /// The server's side: the tokens it issued, the one it accepts, and what it was asked.
    actor Accounts {
        private var issued = 0
        private(set) var current: String?
        private(set) var tokenRequests = 0
        private(set) var meRequests = 0
        private(set) var listRequests = 0
        private(set) var authorizations: [String?] = []

        /// A new access token (which replaces the one accepted so far) and its refresh token.
        func issue() -> (access: String, refresh: String) {
            issued += 1
            tokenRequests += 1
            current = "at-\(issued)"
            return ("at-\(issued)", "rt-\(issued)")
        }

        func me(authorization: String?) -> Bool {
            meRequests += 1
            authorizations.append(authorization)
            return current != nil && authorization == "Bearer \(current!)"
        }

        func listed() { listRequests += 1 }
        private(set) var uploadHashes: [UInt64] = []
        func uploaded(_ hash: UInt64) { uploadHashes.append(hash) }
        /// Makes the accepted token one no client holds (a revocation on the server's side).
        func revoke() { current = "revoked" }
    }

    static let user = #"{"id":1,"name":"Ada","email":"ada@example.com"}"#

    /// The routes the tests call: the token endpoint (password and refresh grants), `/v1/me`
    /// (Bearer), `/v1/users` (cacheable), `/v1/uploads` (counts a streamed body),
    /// `/v1/files/report.bin` (a large body).
    static func serve(_ server: TestServer, accounts: Accounts, report: Data) async {
        await server.route("POST /oauth/token") { _ in
            let (access, refresh) = await accounts.issue()
            let body = #"{"access_token":"\#(access)","token_type":"Bearer","expires_in":3600,"refresh_token":"\#(refresh)"}"#
            return FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: Data(body.utf8))
        }
        await server.route("GET /v1/me") { request in
            guard await accounts.me(authorization: request.headers[FlyingFox.HTTPHeader("Authorization")]) else {
                return FlyingFox.HTTPResponse(
                    statusCode: .unauthorized,
                    headers: [.contentType: "application/json", FlyingFox.HTTPHeader("WWW-Authenticate"): "Bearer"],
                    body: Data(#"{"error":"unauthorized","message":"sign in"}"#.utf8))
            }
            return FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: Data(Self.user.utf8))
        }
        await server.route("GET /v1/users") { _ in
            await accounts.listed()
            return FlyingFox.HTTPResponse(
                statusCode: .ok, headers: [.contentType: "application/json", FlyingFox.HTTPHeader("Cache-Control"): "max-age=60"],
                body: Data("[\(Self.user)]".utf8))
        }
        await server.route("POST /v1/uploads") { request in
            var bytes = 0
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for try await chunk in request.bodySequence {
                bytes += chunk.count
                for byte in chunk {
                    hash ^= UInt64(byte)
                    hash &*= 0x0000_0100_0000_01B3
                }
            }
            await accounts.uploaded(hash)
            let length = request.headers[FlyingFox.HTTPHeader("Content-Length")].flatMap(Int.init)
            let receipt =
                #"{"bytes":\#(bytes),"contentLength":\#(length.map(String.init) ?? "null"),"chunked":false,"contentType":"application/octet-stream","hash":"\#(hash)"}"#
            return FlyingFox.HTTPResponse(statusCode: .created, headers: [.contentType: "application/json"], body: Data(receipt.utf8))
        }
        await server.route("GET /v1/files/report.bin") { _ in
            FlyingFox.HTTPResponse(
                statusCode: .ok,
                headers: [
                    .contentType: "application/octet-stream", FlyingFox.HTTPHeader("ETag"): #""r1""#, FlyingFox.HTTPHeader("Accept-Ranges"): "bytes",
                ], body: report)
        }
    }

    /// A Courier client with Bearer authentication through a refresher on the server's token
    /// endpoint, its clock at `clock`.
    static func courier(
        _ server: TestServer, transport: TransportKind, clock: LockedState<Date>, authorizedHosts: Set<String> = ["127.0.0.1"],
        cache: HTTPCache? = nil, tracer: (any Tracer)? = nil
    ) throws -> (Courier.Client, TokenRefresher, OAuth2TokenEndpoint) {
        let now: @Sendable () -> Date = { clock.withLock { $0 } }
        let tokenEndpoint = OAuth2TokenEndpoint(
            baseURL: server.baseURL, path: try URLPath("/oauth/token"),
            clientAuthentication: .basic(clientID: "demo", clientSecret: "demo-secret"),
            configuration: Configuration(transport: transport.make()), now: now)
        let refresher = TokenRefresher(store: InMemoryTokenStore(), tokenEndpoint: tokenEndpoint, now: now)
        var configuration = Configuration(
            transport: transport.make(), timeout: generousTimeout, authentication: .bearer(refresher), authorizedHosts: authorizedHosts)
        configuration.cache = cache
        configuration.tracer = tracer
        return (Courier.Client(configuration: configuration), refresher, tokenEndpoint)
    }

    /// The document's operations that need no sign-in.
    static let publicOperations: Set<String> = ["listUsers", "getUser", "uploadFile", "downloadReport"]

    static func api(_ courier: Courier.Client, server: TestServer) throws -> CourierDemoAPI.Client {
        CourierDemoAPI.Client(
            serverURL: try #require(URL(string: "http://127.0.0.1:\(server.port)")),
            transport: CourierClientTransport(courier, unauthenticatedOperations: publicOperations))
    }

    @Test(
        "sign in with the password grant, then 1,000 concurrent operations with an expired token: one refresh, all succeed", arguments: TransportKind.allCases)
    func oneRefreshForAThousandOperations(transport: TransportKind) async throws {
        try await TestServer.run { server in
            let accounts = Accounts()
            await Self.serve(server, accounts: accounts, report: Data())
            let clock = LockedState(Date(timeIntervalSince1970: 1_800_000_000))
            let (courier, refresher, tokenEndpoint) = try Self.courier(server, transport: transport, clock: clock)
            try await refresher.reset(to: try await tokenEndpoint.password(username: "ada", password: "lovelace"))
            let api = try Self.api(courier, server: server)

            #expect(try await api.getMe().ok.body.json.name == "Ada")
            clock.withLock { $0 += 7200 }  // past expires_in: every call below needs a refresh
            let names = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<1_000 {
                    group.addTask { try await api.getMe().ok.body.json.name }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(names.count == 1_000 && names.allSatisfy { $0 == "Ada" })
            #expect(await accounts.tokenRequests == 2)  // the sign-in and one refresh
            #expect(await accounts.meRequests == 1_001)
        }
    }

    @Test("a 401 to a token the clock still trusts is refreshed and replayed once", arguments: TransportKind.allCases)
    func a401IsReplayedOnce(transport: TransportKind) async throws {
        try await TestServer.run { server in
            let accounts = Accounts()
            await Self.serve(server, accounts: accounts, report: Data())
            let clock = LockedState(Date(timeIntervalSince1970: 1_800_000_000))
            let (courier, refresher, tokenEndpoint) = try Self.courier(server, transport: transport, clock: clock)
            try await refresher.reset(to: try await tokenEndpoint.password(username: "ada", password: "lovelace"))
            await accounts.revoke()
            let api = try Self.api(courier, server: server)

            #expect(try await api.getMe().ok.body.json.id == 1)
            #expect(await accounts.meRequests == 2)
            #expect(await accounts.tokenRequests == 2)
            #expect(await accounts.authorizations == ["Bearer at-1", "Bearer at-2"])
        }
    }

    @Test("an operation that needs a credential, to a host the configuration does not authorize, fails and sends nothing", arguments: TransportKind.allCases)
    func anUnlistedHostGetsNoCredential(transport: TransportKind) async throws {
        try await TestServer.run { server in
            let accounts = Accounts()
            await Self.serve(server, accounts: accounts, report: Data())
            let clock = LockedState(Date(timeIntervalSince1970: 1_800_000_000))
            let (courier, refresher, tokenEndpoint) = try Self.courier(server, transport: transport, clock: clock, authorizedHosts: ["api.example.com"])
            try await refresher.reset(to: try await tokenEndpoint.password(username: "ada", password: "lovelace"))
            let api = try Self.api(courier, server: server)

            let error = await #expect(throws: ClientError.self) { _ = try await api.getMe() }
            guard case .authentication(.hostNotAuthorized)? = error?.underlyingError as? CourierError else {
                Issue.record("expected hostNotAuthorized, got \(String(describing: error?.underlyingError))")
                return
            }
            #expect(await accounts.meRequests == 0)
            // A public operation to the same host goes out, without a credential.
            #expect(try await api.listUsers().ok.body.json.count == 1)
        }
    }

    @Test("a cacheable GET is answered from Courier's HTTP cache the second time", arguments: TransportKind.allCases)
    func aCachedGet(transport: TransportKind) async throws {
        try await TestServer.run { server in
            let accounts = Accounts()
            await Self.serve(server, accounts: accounts, report: Data())
            let clock = LockedState(Date(timeIntervalSince1970: 1_800_000_000))
            let (courier, _, _) = try Self.courier(server, transport: transport, clock: clock, cache: HTTPCache())
            let api = try Self.api(courier, server: server)

            for _ in 0..<3 {
                #expect(try await api.listUsers().ok.body.json.map(\.name) == ["Ada"])
            }
            #expect(await accounts.listRequests == 1)
        }
    }

    @Test("a streamed upload of known length arrives whole with its Content-Length; a large response streams back", arguments: TransportKind.allCases)
    func streamingBothWays(transport: TransportKind) async throws {
        let size = 8 << 20
        let payload = pseudoRandomBytes(count: size, seed: 40)
        try await TestServer.run { server in
            let accounts = Accounts()
            await Self.serve(server, accounts: accounts, report: payload)
            let clock = LockedState(Date(timeIntervalSince1970: 1_800_000_000))
            let (courier, _, _) = try Self.courier(server, transport: transport, clock: clock)
            let api = try Self.api(courier, server: server)

            let (chunks, continuation) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
            let producer = Task {
                var offset = 0
                while offset < size {
                    let end = min(offset + 64 * 1024, size)
                    continuation.yield(ArraySlice(payload[offset..<end]))
                    offset = end
                }
                continuation.finish()
            }
            let receipt = try await api.uploadFile(body: .binary(HTTPBody(chunks, length: .known(Int64(size))))).created.body.json
            await producer.value
            #expect(receipt.bytes == size)
            #expect(receipt.contentLength == size)
            #expect(await accounts.uploadHashes == [fnv1a(payload)])

            let report = try await api.downloadReport().ok.body.binary
            var received = 0
            var chunkCount = 0
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for try await chunk in report {
                received += chunk.count
                chunkCount += 1
                for byte in chunk {
                    hash ^= UInt64(byte)
                    hash &*= 0x0000_0100_0000_01B3
                }
            }
            #expect(received == size)
            #expect(hash == fnv1a(payload))
            #expect(chunkCount > 1, "the body arrived in pieces, as it streamed")
        }
    }

    @Test("the operationId names the call's span", arguments: TransportKind.allCases)
    func theOperationNamesTheSpan(transport: TransportKind) async throws {
        try await TestServer.run { server in
            let accounts = Accounts()
            await Self.serve(server, accounts: accounts, report: Data())
            let tracer = InMemoryTracer()
            let clock = LockedState(Date(timeIntervalSince1970: 1_800_000_000))
            let (courier, _, _) = try Self.courier(server, transport: transport, clock: clock, tracer: tracer)
            let api = try Self.api(courier, server: server)

            _ = try await api.listUsers().ok
            let names = tracer.finishedSpans.map(\.operationName)
            #expect(names.contains("listUsers"))
            let call = try #require(tracer.finishedSpans.first { $0.operationName == "listUsers" })
            #expect(call.attributes["courier.operation"]?.toSpanAttribute() == "listUsers")
        }
    }

    @Test("the operationId is the operation dimension of the call metrics and the operation metadata of its log line")
    func theOperationIsInMetricsAndLogs() async throws {
        let metrics = TestMetrics()
        let lines = LockedState<[(message: String, operation: String?)]>([])
        let transport = RecordingTransport { request throws(CourierError) in
            Response(status: .ok, headers: [.contentType: "application/json"], body: Data("[]".utf8), url: request.url)
        }
        var configuration = Courier.Configuration(transport: transport)
        configuration.metricsFactory = metrics
        configuration.logger = Logger(label: "openapi-test") { _ in OperationLines(lines: lines) }
        let api = CourierDemoAPI.Client(
            serverURL: try #require(URL(string: "https://api.example.com")),
            transport: CourierClientTransport(Courier.Client(configuration: configuration)))
        _ = try await api.listUsers()

        let counter = try metrics.expectCounter("courier_requests_total", [("method", "GET"), ("status_class", "2xx"), ("operation", "listUsers")])
        #expect(counter.totalValue == 1)
        #expect(lines.withLock { $0.map(\.operation) } == ["listUsers"])
    }

    @Test("a failure reaches the generated code as ClientError, with the CourierError underneath", arguments: TransportKind.allCases)
    func aFailureKeepsTheCourierError(transport: TransportKind) async throws {
        var port = 0
        try await TestServer.run { server in port = server.port }  // stopped: nothing listens there now
        let courier = Courier.Client(configuration: Configuration(transport: transport.make(), timeout: .seconds(30)))
        let api = CourierDemoAPI.Client(serverURL: try #require(URL(string: "http://127.0.0.1:\(port)")), transport: CourierClientTransport(courier))
        do {
            _ = try await api.listUsers()
            Issue.record("a call to a closed port succeeded")
        } catch let error as ClientError {
            #expect(error.operationID == "listUsers")
            let courierError = try #require(error.underlyingError as? CourierError)
            guard case .transport = courierError else {
                Issue.record("expected a transport failure, got \(courierError)")
                return
            }
        }
    }

    @Test("a Content-Length that is not the body's length is refused before anything is sent")
    func aWrongContentLengthIsRefused() async throws {
        let recording = RecordingTransport(status: 200)
        let transport = CourierClientTransport(Courier.Client(configuration: Configuration(transport: recording)), unauthenticatedOperations: ["uploadFile"])
        var request = HTTPTypes.HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/v1/uploads")
        request.headerFields[.contentLength] = "3"
        let error = await #expect(throws: CourierError.self) {
            _ = try await transport.send(request, body: HTTPBody("hello"), baseURL: URL(string: "http://127.0.0.1:1")!, operationID: "uploadFile")
        }
        guard case .invalidRequest(.reservedHeader(let name))? = error else {
            Issue.record("expected reservedHeader, got \(String(describing: error))")
            return
        }
        #expect(name.lowercased() == "content-length")
        #expect(await recording.count == 0)
    }

    @Test("a path parameter that is a dot segment is refused before anything is sent")
    func aDotSegmentIsRefused() async throws {
        let recording = RecordingTransport(status: 200)
        let courier = Courier.Client(configuration: Configuration(transport: recording))
        let transport = CourierClientTransport(courier, unauthenticatedOperations: ["getUser"])
        var request = HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/v1/users/../admin/stats")
        request.headerFields[.accept] = "application/json"
        await #expect(throws: CourierError.self) {
            _ = try await transport.send(request, body: nil, baseURL: URL(string: "http://127.0.0.1:1")!, operationID: "getUser")
        }
        #expect(await recording.count == 0)
    }
}

/// A generated client's calls are answered by the test scope's stubs like any other call.
@Suite("OpenAPI: generated operations under stubs", .stubbedNetwork)
struct OpenAPIStubbedNetworkTests {
    @Test func aGeneratedOperationIsAnsweredByTheStub() async throws {
        let network = try #require(NetworkStub.current)
        network.stub(.get, "/v1/users/7", with: .json(#"{"id":7,"name":"Grace","email":"grace@example.com"}"#))
        let api = CourierDemoAPI.Client(
            serverURL: try #require(URL(string: "https://api.example.com")), transport: CourierClientTransport(Courier.Client()))
        #expect(try await api.getUser(path: .init(id: 7)).ok.body.json.name == "Grace")
        #expect(network.requests.map(\.path) == ["/v1/users/7"])
    }
}

/// Keeps each log line's message and `operation` metadata.
private struct OperationLines: LogHandler {
    let lines: LockedState<[(message: String, operation: String?)]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        lines.withLock { $0.append(("\(event.message)", event.metadata?["operation"].map { "\($0)" })) }
    }
}
