import Courier
import CourierDemoAPI
import CourierOpenAPI
import CourierTesting
import FlyingFox
import Foundation
import HTTPTypes
import InMemoryTracing
import MetricsTestKit
import OpenAPIRuntime
import Testing

/// A hostile review of CourierOpenAPI: a hostile server, a careless caller and a careless
/// `ClientMiddleware` against `CourierClientTransport`. Each test fails when the defect it names
/// is there; the others guard what already holds.
@Suite("OpenAPIHostile: CourierClientTransport under attack", .loopback, .timeLimit(.minutes(10)))
struct OpenAPIHostileReviewTests {
    // MARK: - Helpers

    /// A transport over a `RecordingTransport` (no network).
    static func recorded(
        _ recording: RecordingTransport, authentication: Authentication = .none, authorizedHosts: Set<String> = [],
        unauthenticated: Set<String> = ["op"], metrics: TestMetrics? = nil
    ) -> CourierClientTransport {
        var configuration = Courier.Configuration(transport: recording, authentication: authentication, authorizedHosts: authorizedHosts)
        configuration.metricsFactory = metrics
        return CourierClientTransport(Courier.Client(configuration: configuration), unauthenticatedOperations: unauthenticated)
    }

    static func request(
        _ path: String, method: HTTPTypes.HTTPRequest.Method = .get, accept: String? = "application/json"
    ) -> HTTPTypes.HTTPRequest {
        var request = HTTPTypes.HTTPRequest(method: method, scheme: nil, authority: nil, path: path)
        if let accept { request.headerFields[.accept] = accept }
        return request
    }

    /// `transport.send`, its outcome as a `Result`.
    static func send(
        _ transport: CourierClientTransport, _ request: HTTPTypes.HTTPRequest, body: HTTPBody? = nil, baseURL: String,
        operation: String = "op"
    ) async throws -> Result<(HTTPTypes.HTTPResponse, HTTPBody?), any Error> {
        let url = try #require(URL(string: baseURL), "Foundation reads no URL in \(baseURL)")
        do {
            return .success(try await transport.send(request, body: body, baseURL: url, operationID: operation))
        } catch {
            return .failure(error)
        }
    }

    static func invalidRequest(_ result: Result<(HTTPTypes.HTTPResponse, HTTPBody?), any Error>) -> InvalidRequest? {
        if case .failure(let error) = result, case .invalidRequest(let reason)? = error as? CourierError { return reason }
        return nil
    }

    /// The `CourierError` under a failure, through a generated client's `ClientError` too.
    static func courierError(_ error: any Error) -> CourierError? {
        if let error = error as? CourierError { return error }
        if let error = error as? ClientError { return error.underlyingError as? CourierError }
        return nil
    }

    static func isTooLarge(_ error: (any Error)?) -> Bool {
        guard let error, case .transport(let failure)? = courierError(error) else { return false }
        return failure.kind == .responseTooLarge
    }

    // MARK: - 1. Server URLs

    @Test(
        "a bad server URL sends nothing and fails with invalidRequest",
        arguments: [
            "http://user:s3cr3tpw@127.0.0.1:1/api", "http://127.0.0.1:1/api?x=1", "http://127.0.0.1:1/api#frag",
            "http://127.0.0.1:1/api/../admin", "http://127.0.0.1:1/api/%2e%2e/admin", "http://127.0.0.1:1/api/%2E%2E",
            "http://127.0.0.1:1/api/.", "ftp://example.com/api", "file:///etc/passwd", "http:///api", "http://:80/api",
            "http://127.0.0.1:1//evil.example.com", "http://127.0.0.1:1/api//", "http://127.0.0.1:99999/api",
            "http://127.0.0.1:1?", "http://127.0.0.1:1#", "mailto:a@example.com", "http://exa_mple.invalid/api",
            "http://user@127.0.0.1:1",
        ])
    func badServerURLs(_ baseURL: String) async throws {
        guard URL(string: baseURL) != nil else { return }  // Foundation refuses it already
        let recording = RecordingTransport(status: 200)
        let result = try await Self.send(Self.recorded(recording), Self.request("/v1/users"), baseURL: baseURL)
        #expect(Self.invalidRequest(result) != nil, "\(baseURL): \(result)")
        #expect(await recording.count == 0)
        if case .failure(let error) = result {
            #expect(!String(describing: error).contains("s3cr3tpw"), "the password is in the error: \(error)")
        }
    }

    @Test(
        "a good server URL sends exactly prefix + path",
        arguments: [
            ("http://[::1]:8080/api", "[::1]:8080", "/api/v1/users"),
            ("http://127.0.0.1:1/api/", "127.0.0.1:1", "/api/v1/users"),
            ("HTTP://EXAMPLE.com/API", "example.com", "/API/v1/users"),
            ("http://127.0.0.1:1", "127.0.0.1:1", "/v1/users"),
            ("http://127.0.0.1:1/", "127.0.0.1:1", "/v1/users"),
            ("https://api.example.com/a%20b/c;v=1", "api.example.com", "/a%20b/c;v=1/v1/users"),
        ])
    func goodServerURLs(_ expected: (String, String, String)) async throws {
        let (baseURL, authority, path) = expected
        let recording = RecordingTransport(status: 200)
        let result = try await Self.send(Self.recorded(recording), Self.request("/v1/users"), baseURL: baseURL)
        if case .failure(let error) = result { Issue.record("\(baseURL) failed: \(error)") }
        let sent = try #require(await recording.last)
        #expect(sent.head.scheme == (baseURL.lowercased().hasPrefix("https") ? "https" : "http"))
        #expect(sent.head.authority == authority)
        #expect(sent.head.path == path)
    }

    /// Issue 49: the generated code percent-encodes a string path parameter, so `../../../../small.json`
    /// arrived as `/api/v1/slow/arrivals/..%2F..%2F..%2F..%2Fsmall.json`, and was sent with the
    /// bearer token; nginx decodes `%2F` and climbed out of the server URL's `/api` prefix.
    @Test(
        "a path parameter that climbs through %2F, %5C or a ; parameter is refused before anything is sent, credential and all",
        arguments: [
            "/v1/slow/arrivals/..%2F..%2F..%2F..%2Fsmall.json", "/v1/items/..%5C..%5Cadmin", "/v1/items/..;/admin",
            "/v1/items/%2E%2E%2Fadmin",
        ])
    func aPathParameterThatClimbs(_ path: String) async throws {
        let recording = RecordingTransport(status: 200)
        let bearer = Authentication.basic(BasicCredential(username: "courier", password: "secret"))
        let result = try await Self.send(
            Self.recorded(recording, authentication: bearer, authorizedHosts: ["example.com"], unauthenticated: []),
            Self.request(path), baseURL: "https://example.com/api")
        guard case .invalidPath(_, let reason)? = Self.invalidRequest(result) else {
            Issue.record("expected invalidPath, got \(result)")
            return
        }
        #expect(reason.contains("dot segment"))
        #expect(await recording.count == 0)
    }

    @Test("an operation path without a leading slash is refused, not glued onto the server URL's prefix")
    func aPathWithoutLeadingSlash() async throws {
        let recording = RecordingTransport(status: 200)
        let result = try await Self.send(Self.recorded(recording), Self.request("v1/users"), baseURL: "http://127.0.0.1:1/api")
        let sent = await recording.last?.head.path
        #expect(Self.invalidRequest(result) != nil, "sent \(String(describing: sent))")
        #expect(await recording.count == 0)
    }

    @Test("one transport used with six server URLs at once sends each operation to its own URL's host and prefix; a bad URL among them is refused alone")
    func serverURLsAlternate() async throws {
        let recording = RecordingTransport(status: 200)
        let transport = Self.recorded(recording)
        // More good URLs than the transport keeps split, so they also take turns in its cache.
        let servers = [
            "http://127.0.0.1:1/a", "http://api2.example:2/b/", "http://127.0.0.1:1/a/../x", "http://api3.example:3", "http://api4.example:4/c",
            "http://api5.example:5/d/e",
        ]
        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<2_400 {
                group.addTask {
                    let result = try await Self.send(transport, Self.request("/op/\(index)"), baseURL: servers[index % servers.count])
                    return (index, Self.invalidRequest(result) != nil)
                }
            }
            var refused: Set<Int> = []
            for try await (index, wasRefused) in group where wasRefused { refused.insert(index) }
            return refused
        }
        #expect(outcomes == Set(stride(from: 2, to: 2_400, by: 6)))
        let sent = await recording.requests.map(\.url.absoluteString)
        #expect(sent.count == 2_000)
        let expected = [
            "http://127.0.0.1:1/a/op/", "http://api2.example:2/b/op/", nil, "http://api3.example:3/op/", "http://api4.example:4/c/op/",
            "http://api5.example:5/d/e/op/",
        ]
        for url in sent {
            let index = try #require(Int(url.split(separator: "/").last ?? ""))
            #expect(expected[index % servers.count].map { url == $0 + String(index) } == true, "\(url)")
        }
    }

    // MARK: - 2. Query

    @Test(
        "a middleware's query that is not a valid URL query is refused",
        arguments: [
            "/v1/users?a b", "/v1/users?a#b", "/v1/users?q=\u{E9}", "/v1/users?a=%zz", "/v1/users?a=[1]", "/v1/users?a=1{CRLF}X-Evil: 1", "/v1/users?a=%",
            // Not here: NUL, TAB or DEL in the path, which HTTPTypes turns into a space and trims
            // when the middleware sets `path` (see `httpTypesLegalizesThePathBeforeTheTransport`).
        ])
    func badQueries(_ written: String) async throws {
        // Control characters are spelled out in the arguments, which the test log prints raw.
        let path = written.replacingOccurrences(of: "{NUL}", with: "\u{0}").replacingOccurrences(of: "{CRLF}", with: "\r\n")
            .replacingOccurrences(of: "{TAB}", with: "\t").replacingOccurrences(of: "{DEL}", with: "\u{7F}")
        let recording = RecordingTransport(status: 200)
        let result = try await Self.send(Self.recorded(recording), Self.request(path), baseURL: "http://127.0.0.1:1")
        let sent = await recording.last?.head.path
        #expect(
            Self.invalidRequest(result) != nil,
            "\(path.unicodeScalars.map { $0.escaped(asASCII: true) }.joined()) was sent as \(String(describing: sent?.unicodeScalars.map { $0.escaped(asASCII: true) }.joined()))"
        )
        #expect(await recording.count == 0)
    }

    @Test(
        "a valid query is sent byte for byte",
        arguments: ["/v1/users?a=1?b=2", "/v1/users?a=%41&b=%2F", "/v1/users?=&&", "/v1/users?a=1&a=2", "/v1/users?x=%E2%82%AC", "/v1/users?a=/b"])
    func goodQueries(_ path: String) async throws {
        let recording = RecordingTransport(status: 200)
        _ = try await Self.send(Self.recorded(recording), Self.request(path), baseURL: "http://127.0.0.1:1/api")
        #expect(await recording.last?.head.path == "/api" + path)
    }

    /// Outside Courier: what a middleware writes into `HTTPRequest.path` is legalized by
    /// swift-http-types (invalid bytes become spaces, then trimmed at the ends) before any
    /// transport sees it, so a trailing control character vanishes there.
    @Test("HTTPTypes legalizes a path before the transport sees it (NUL, TAB, DEL at the end are dropped)")
    func httpTypesLegalizesThePathBeforeTheTransport() {
        for control in ["\u{0}", "\t", "\u{7F}"] {
            #expect(HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/v1/users?a=" + control).path == "/v1/users?a=")
        }
    }

    @Test("an empty query (\"/x?\") is sent as it is or refused, not silently dropped")
    func anEmptyQuery() async throws {
        let recording = RecordingTransport(status: 200)
        let result = try await Self.send(Self.recorded(recording), Self.request("/v1/users?"), baseURL: "http://127.0.0.1:1")
        if Self.invalidRequest(result) == nil {
            #expect(await recording.last?.head.path == "/v1/users?")
        }
    }

    // MARK: - 3. Headers

    @Test(
        "framing and connection headers from a middleware are refused, nothing is sent",
        arguments: [
            ("Transfer-Encoding", "chunked"), ("Host", "evil.example.com"), ("Connection", "close"), ("TE", "trailers"),
            ("Upgrade", "h2c"), ("Keep-Alive", "5"), ("Proxy-Connection", "keep-alive"), ("Trailer", "X-A"),
        ])
    func reservedHeaders(_ header: (String, String)) async throws {
        let (name, value) = header
        let recording = RecordingTransport(status: 200)
        var request = Self.request("/v1/uploads", method: .post)
        request.headerFields[try #require(HTTPField.Name(name))] = value
        let result = try await Self.send(Self.recorded(recording), request, body: HTTPBody("hello"), baseURL: "http://127.0.0.1:1")
        guard case .reservedHeader? = Self.invalidRequest(result) else {
            Issue.record("\(name): expected reservedHeader, got \(result)")
            return
        }
        #expect(await recording.count == 0)
    }

    @Test("Content-Length: matching is dropped (Courier frames), any other value or a body of unknown length is refused")
    func contentLength() async throws {
        let recording = RecordingTransport(status: 200)
        let transport = Self.recorded(recording)
        var request = Self.request("/v1/uploads", method: .post)
        request.headerFields[.contentLength] = "5"
        _ = try await Self.send(transport, request, body: HTTPBody("hello"), baseURL: "http://127.0.0.1:1")
        let sent = try #require(await recording.last)
        #expect(sent.head.headerFields[values: .contentLength].count <= 1)
        #expect(sent.body?.count == 5)

        for (value, body) in [("5", nil), ("6", HTTPBody("hello")), ("05", HTTPBody("hello")), ("-1", HTTPBody("hello"))] as [(String, HTTPBody?)] {
            request.headerFields[.contentLength] = value
            let result = try await Self.send(transport, request, body: body, baseURL: "http://127.0.0.1:1")
            #expect(Self.invalidRequest(result) != nil, "Content-Length: \(value)")
        }
        let (stream, continuation) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
        continuation.yield(ArraySlice("hello".utf8))
        continuation.finish()
        request.headerFields[.contentLength] = "5"
        let unknown = try await Self.send(transport, request, body: HTTPBody(stream, length: .unknown), baseURL: "http://127.0.0.1:1")
        #expect(Self.invalidRequest(unknown) != nil)
        #expect(await recording.count == 1)
    }

    @Test("repeated headers are all sent, in order; CR/LF in a value never makes a header of its own")
    func duplicateAndCRLFHeaders() async throws {
        let recording = RecordingTransport(status: 200)
        var request = Self.request("/v1/users")
        let name = try #require(HTTPField.Name("X-Dup"))
        request.headerFields.append(HTTPField(name: name, value: "1"))
        request.headerFields.append(HTTPField(name: name, value: "2"))
        request.headerFields.append(HTTPField(name: try #require(HTTPField.Name("X-Inject")), value: "a\r\nX-Evil: 1"))
        _ = try await Self.send(Self.recorded(recording), request, baseURL: "http://127.0.0.1:1")
        let sent = try #require(await recording.last)
        #expect(sent.head.headerFields[values: name] == ["1", "2"])
        #expect(sent.head.headerFields[try #require(HTTPField.Name("X-Evil"))] == nil)
        #expect(sent.head.headerFields[try #require(HTTPField.Name("X-Inject"))]?.contains("\r") == false)
    }

    @Test("a header value that is not UTF-8 (obs-text, legal in HTTP) is sent byte for byte or refused, never rewritten")
    func aLatin1HeaderValue() async throws {
        let recording = RecordingTransport(status: 200)
        var request = Self.request("/v1/users")
        let name = try #require(HTTPField.Name("X-Latin"))
        request.headerFields.append(HTTPField(name: name, value: [0x63, 0x61, 0x66, 0xE9] as [UInt8]))  // "café" in Latin-1
        let result = try await Self.send(Self.recorded(recording), request, baseURL: "http://127.0.0.1:1")
        guard Self.invalidRequest(result) == nil else { return }  // refused: fine
        let sent = try #require(await recording.last)
        let field = try #require(sent.head.headerFields.first { $0.name == name })
        let bytes = field.withUnsafeBytesOfValue { Array($0) }
        #expect(bytes == [0x63, 0x61, 0x66, 0xE9], "sent \(bytes.map { String($0, radix: 16) })")
    }

    @Test("Courier's credential replaces a middleware's Authorization, and goes only to a listed host")
    func credentialsOnlyToListedHosts() async throws {
        let basic = Authentication.basic(BasicCredential(username: "courier", password: "pw"))
        var request = Self.request("/v1/me")
        request.headerFields[.authorization] = "Bearer from-middleware"

        let listed = RecordingTransport(status: 200)
        _ = try await Self.send(
            Self.recorded(listed, authentication: basic, authorizedHosts: ["example.com"], unauthenticated: []), request,
            baseURL: "https://example.com")
        let sent = try #require(await listed.last)
        #expect(sent.head.headerFields[values: .authorization] == ["Basic Y291cmllcjpwdw=="])

        let unlisted = RecordingTransport(status: 200)
        let result = try await Self.send(
            Self.recorded(unlisted, authentication: basic, authorizedHosts: ["example.com"], unauthenticated: []), request,
            baseURL: "https://other.example.com")
        guard case .failure(let error) = result, case .authentication(.hostNotAuthorized)? = error as? CourierError else {
            Issue.record("expected hostNotAuthorized, got \(result)")
            return
        }
        #expect(await unlisted.count == 0)
    }

    /// Issue 49: the transport's documentation and `Requestable.requiresAuthorization` now say the
    /// same: an operation that needs a credential fails with `missingCredential` when the
    /// configuration has an authentication but no credential yet, and nothing is sent; with
    /// `Authentication.none` it goes as it is, without one.
    @Test("an operation that needs a credential: missingCredential and nothing sent with an empty store; sent bare without authentication")
    func anOperationThatNeedsACredentialWhenThereIsNone() async throws {
        let empty = RecordingTransport(status: 200)
        let tokens = OAuth2TokenEndpoint(
            baseURL: try BaseURL(host: "example.com"), path: try URLPath("/oauth/token"),
            clientAuthentication: .basic(clientID: "demo", clientSecret: "demo-secret"), configuration: Courier.Configuration(transport: empty))
        let refresher = TokenRefresher(store: InMemoryTokenStore(), tokenEndpoint: tokens)
        let result = try await Self.send(
            Self.recorded(empty, authentication: .bearer(refresher), authorizedHosts: ["example.com"], unauthenticated: []),
            Self.request("/v1/me"), baseURL: "https://example.com")
        guard case .failure(let error) = result, case .authentication(.missingCredential)? = error as? CourierError else {
            Issue.record("expected missingCredential, got \(result)")
            return
        }
        #expect(await empty.count == 0)

        let bare = RecordingTransport(status: 200)
        _ = try await Self.send(Self.recorded(bare, unauthenticated: []), Self.request("/v1/me"), baseURL: "https://example.com")
        let sent = try #require(await bare.last)
        #expect(sent.head.headerFields[.authorization] == nil)
    }

    /// Not a defect (reported): a caller's own `Authorization` on a public operation is the
    /// caller's header, sent as a `Requestable`'s `headerItems` would be, wherever it goes.
    @Test("a caller's Authorization on a public operation goes to an unlisted host as it is, without Courier's credential")
    func aCallersAuthorizationToAnUnlistedHost() async throws {
        let basic = Authentication.basic(BasicCredential(username: "courier", password: "pw"))
        var request = Self.request("/v1/users")
        request.headerFields[.authorization] = "Bearer from-middleware"
        let recording = RecordingTransport(status: 200)
        _ = try await Self.send(
            Self.recorded(recording, authentication: basic, authorizedHosts: ["example.com"], unauthenticated: ["op"]), request,
            baseURL: "https://other.example.com")
        #expect(await recording.last?.head.headerFields[values: .authorization] == ["Bearer from-middleware"])
    }

    /// A middleware that sets `Authorization` itself.
    struct BearerMiddleware: ClientMiddleware {
        let token: String
        func intercept(
            _ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
            next: @Sendable (HTTPTypes.HTTPRequest, HTTPBody?, URL) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
            var request = request
            request.headerFields[.authorization] = "Bearer \(token)"
            return try await next(request, body, baseURL)
        }
    }

    @Test("a cacheable response to one middleware's Authorization is never served to another's")
    func theCacheKeepsMiddlewareCredentialsApart() async throws {
        try await TestServer.run { server in
            let hits = Recorder<String>()
            await server.route("GET /v1/users") { request in
                let who = request.headers[FlyingFox.HTTPHeader("Authorization")] ?? "nobody"
                await hits.record(who)
                return FlyingFox.HTTPResponse(
                    statusCode: .ok, headers: [.contentType: "application/json", FlyingFox.HTTPHeader("Cache-Control"): "max-age=60"],
                    body: Data(#"[{"id":1,"name":"\#(who)","email":"a@example.com"}]"#.utf8))
            }
            var configuration = Courier.Configuration(transport: TransportKind.platformDefault.make(), timeout: generousTimeout)
            configuration.cache = HTTPCache()
            let transport = CourierClientTransport(Courier.Client(configuration: configuration), unauthenticatedOperations: ["listUsers"])
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
            let alice = CourierDemoAPI.Client(serverURL: url, transport: transport, middlewares: [BearerMiddleware(token: "alice")])
            let bob = CourierDemoAPI.Client(serverURL: url, transport: transport, middlewares: [BearerMiddleware(token: "bob")])
            #expect(try await alice.listUsers().ok.body.json.first?.name == "Bearer alice")
            #expect(try await bob.listUsers().ok.body.json.first?.name == "Bearer bob")
            #expect(await hits.values == ["Bearer alice", "Bearer bob"])
        }
    }

    // MARK: - 4. Request bodies

    @Test("a replayable body that yields fewer bytes than its known length fails; nothing is sent")
    func aShortReplayableBody() async throws {
        let recording = RecordingTransport(status: 201)
        var request = Self.request("/v1/uploads", method: .post)
        request.headerFields[.contentLength] = "10"  // as the runtime sets it for a known length
        let result = try await Self.send(Self.recorded(recording), request, body: HTTPBody("hello", length: .known(10)), baseURL: "http://127.0.0.1:1")
        guard case .bodySourceFailed? = Self.invalidRequest(result) else {
            let sent = await recording.last?.body?.count
            Issue.record("expected bodySourceFailed, got \(result); sent \(String(describing: sent)) bytes")
            return
        }
        #expect(await recording.count == 0)
    }

    @Test("a replayable body that yields more bytes than its known length fails; nothing is sent")
    func aLongReplayableBody() async throws {
        let recording = RecordingTransport(status: 201)
        let result = try await Self.send(
            Self.recorded(recording), Self.request("/v1/uploads", method: .post), body: HTTPBody("hello", length: .known(3)), baseURL: "http://127.0.0.1:1")
        guard case .bodySourceFailed? = Self.invalidRequest(result) else {
            Issue.record("expected bodySourceFailed, got \(result)")
            return
        }
        #expect(await recording.count == 0)
    }

    @Test("a body with a negative known length is refused, nothing is sent")
    func aNegativeLength() async throws {
        let recording = RecordingTransport(status: 201)
        let transport = Self.recorded(recording)
        let (stream, continuation) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
        continuation.finish()
        for body in [HTTPBody("", length: .known(-1)), HTTPBody(stream, length: .known(-1))] {
            let result = try await Self.send(transport, Self.request("/v1/uploads", method: .post), body: body, baseURL: "http://127.0.0.1:1")
            #expect(Self.invalidRequest(result) != nil, "\(body.iterationBehavior): \(result)")
        }
        #expect(await recording.count == 0)
    }

    @Test("a single-use body with a negative known length fails with a typed error on the wire, no crash, no hang", arguments: TransportKind.allCases)
    func aNegativeLengthOnTheWire(transport: TransportKind) async throws {
        try await TestServer.run { server in
            let sizes = Recorder<Int>()
            await Self.uploadRoute(server, sizes: sizes)
            let courier = Courier.Client(configuration: Courier.Configuration(transport: transport.make(), timeout: generousTimeout))
            let (stream, continuation) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
            continuation.yield(ArraySlice("hello".utf8))
            continuation.finish()
            let result = try await Self.send(
                CourierClientTransport(courier, unauthenticatedOperations: ["op"]), Self.request("/v1/uploads", method: .post),
                body: HTTPBody(stream, length: .known(-1)), baseURL: "http://127.0.0.1:\(server.port)")
            let seen = await sizes.values
            #expect(Self.invalidRequest(result) != nil, "\(result); the server saw bodies of \(seen) bytes")
        }
    }

    /// A route that reads the whole request body and answers 201 with its size.
    static func uploadRoute(_ server: TestServer, sizes: Recorder<Int>, path: String = "/v1/uploads") async {
        await server.route(HTTPRoute("POST \(path)")) { request in
            var count = 0
            for try await chunk in request.bodySequence { count += chunk.count }
            await sizes.record(count)
            return FlyingFox.HTTPResponse(statusCode: .created, body: Data("\(count)".utf8))
        }
    }

    @Test(
        "a single-use stream that yields fewer or more bytes than its known length fails with a typed error, without hanging",
        arguments: TransportKind.allCases, [(5, 3), (3, 5)])
    func aLyingStream(transport: TransportKind, lengths: (announced: Int, actual: Int)) async throws {
        try await TestServer.run { server in
            await Self.uploadRoute(server, sizes: Recorder<Int>())
            let courier = Courier.Client(configuration: Courier.Configuration(transport: transport.make(), timeout: generousTimeout))
            let (stream, continuation) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
            continuation.yield(ArraySlice(repeating: 0x61, count: lengths.actual))
            continuation.finish()
            let result = try await Self.send(
                CourierClientTransport(courier, unauthenticatedOperations: ["op"]), Self.request("/v1/uploads", method: .post),
                body: HTTPBody(stream, length: .known(Int64(lengths.announced))), baseURL: "http://127.0.0.1:\(server.port)")
            guard case .failure(let error) = result, let courierError = Self.courierError(error) else {
                Issue.record("expected a CourierError, got \(result)")
                return
            }
            guard case .invalidRequest(.bodySourceFailed) = courierError else {
                // A transport failure for the cut-short body is acceptable; a success is not.
                guard case .transport = courierError else {
                    Issue.record("expected bodySourceFailed, got \(courierError)")
                    return
                }
                return
            }
        }
    }

    @Test("a body that throws midway fails the call with the body's error, typed", arguments: TransportKind.allCases)
    func aThrowingBody(transport: TransportKind) async throws {
        struct Broken: Error {}
        try await TestServer.run { server in
            await Self.uploadRoute(server, sizes: Recorder<Int>())
            let courier = Courier.Client(configuration: Courier.Configuration(transport: transport.make(), timeout: generousTimeout))
            let (stream, continuation) = AsyncThrowingStream.makeStream(of: HTTPBody.ByteChunk.self)
            continuation.yield(ArraySlice(repeating: 0x61, count: 128 << 10))
            continuation.finish(throwing: Broken())
            let result = try await Self.send(
                CourierClientTransport(courier, unauthenticatedOperations: ["op"]), Self.request("/v1/uploads", method: .post),
                body: HTTPBody(stream, length: .known(1 << 20)), baseURL: "http://127.0.0.1:\(server.port)")
            guard case .failure(let error) = result, case .invalidRequest(.bodySourceFailed(_, let underlying))? = Self.courierError(error) else {
                Issue.record("expected bodySourceFailed, got \(result)")
                return
            }
            #expect(underlying is Broken)
        }
    }

    @Test("cancelling the caller while its body streams ends the call and releases the body's producer", arguments: TransportKind.allCases)
    func cancellationWhileStreaming(transport: TransportKind) async throws {
        try await TestServer.run { server in
            let receiving = Latch()
            await server.route("POST /v1/uploads") { request in
                for try await chunk in request.bodySequence where !chunk.isEmpty { receiving.open() }
                return FlyingFox.HTTPResponse(statusCode: .created)
            }
            let courier = Courier.Client(configuration: Courier.Configuration(transport: transport.make(), timeout: generousTimeout))
            let api = CourierClientTransport(courier, unauthenticatedOperations: ["op"])
            let terminated = Latch()
            let (stream, continuation) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
            continuation.onTermination = { _ in terminated.open() }
            continuation.yield(ArraySlice(repeating: 0x61, count: 256 << 10))  // then nothing, for ever
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
            let call = Task {
                try await api.send(
                    Self.request("/v1/uploads", method: .post), body: HTTPBody(stream, length: .known(8 << 20)), baseURL: url, operationID: "op")
            }
            try await awaitCondition("the server receives the first bytes") { try await receiving.wait() }
            call.cancel()
            try await awaitCondition("the call ends once cancelled", within: .seconds(10)) { _ = await call.result }
            if case .success = await call.result { Issue.record("a cancelled upload succeeded") }
            try await awaitCondition("the body's stream is let go", within: .seconds(10)) { try await terminated.wait() }
            _ = continuation
        }
    }

    /// The token endpoint, `/v1/me`, and `POST /v1/guarded` (Bearer, records the size of each
    /// body it was sent, 401 to a token it does not accept).
    static func guardedServer(_ server: TestServer, transport: TransportKind) async throws -> (
        api: CourierClientTransport, accounts: OpenAPITransportIntegrationTests.Accounts, sizes: Recorder<Int>, url: URL
    ) {
        let accounts = OpenAPITransportIntegrationTests.Accounts()
        await OpenAPITransportIntegrationTests.serve(server, accounts: accounts, report: Data())
        let sizes = Recorder<Int>()
        await server.route("POST /v1/guarded") { request in
            var count = 0
            for try await chunk in request.bodySequence { count += chunk.count }
            await sizes.record(count)
            guard await accounts.me(authorization: request.headers[FlyingFox.HTTPHeader("Authorization")]) else {
                return FlyingFox.HTTPResponse(statusCode: .unauthorized, headers: [FlyingFox.HTTPHeader("WWW-Authenticate"): "Bearer"], body: Data())
            }
            return FlyingFox.HTTPResponse(statusCode: .created, body: Data("\(count)".utf8))
        }
        let clock = LockedState(Date(timeIntervalSince1970: 1_800_000_000))
        let (courier, refresher, tokenEndpoint) = try OpenAPITransportIntegrationTests.courier(server, transport: transport, clock: clock)
        try await refresher.reset(to: try await tokenEndpoint.password(username: "ada", password: "lovelace"))
        await accounts.revoke()  // the first attempt is answered 401
        return (CourierClientTransport(courier), accounts, sizes, try #require(URL(string: "http://127.0.0.1:\(server.port)")))
    }

    @Test("a 401 to a single-use body is handed back, never replayed with an empty body", arguments: TransportKind.allCases)
    func aSingleBodyIsNotReplayedEmpty(transport: TransportKind) async throws {
        try await TestServer.run { server in
            let (api, accounts, sizes, url) = try await Self.guardedServer(server, transport: transport)
            let size = 300 << 10
            let (stream, continuation) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
            continuation.yield(ArraySlice(repeating: 0x62, count: size))
            continuation.finish()
            let (response, _) = try await api.send(
                Self.request("/v1/guarded", method: .post), body: HTTPBody(stream, length: .known(Int64(size))), baseURL: url, operationID: "upload")
            #expect(response.status.code == 401)
            #expect(await sizes.values == [size])
            #expect(await accounts.tokenRequests == 1)
        }
    }

    @Test("a 401 to a replayable body of 2 MiB (streamed, not held whole) is replayed with the whole body", arguments: TransportKind.allCases)
    func aLargeReplayableBodyIsReplayedWhole(transport: TransportKind) async throws {
        try await TestServer.run { server in
            let (api, _, sizes, url) = try await Self.guardedServer(server, transport: transport)
            let payload = pseudoRandomBytes(count: 2 << 20, seed: 7)
            let (response, body) = try await api.send(
                Self.request("/v1/guarded", method: .post, accept: "text/plain"), body: HTTPBody(payload), baseURL: url, operationID: "upload")
            #expect(response.status.code == 201)
            #expect(try await String(collecting: try #require(body), upTo: 100) == "\(payload.count)")
            #expect(await sizes.values == [payload.count, payload.count])
        }
    }

    @Test("a retry of a PUT never sends a single-use body again (empty or short); a replayable one is sent whole", arguments: TransportKind.allCases)
    func retriesAndBodies(transport: TransportKind) async throws {
        try await TestServer.run { server in
            let sizes = Recorder<Int>()
            await server.route("PUT /v1/items") { request in
                var count = 0
                for try await chunk in request.bodySequence { count += chunk.count }
                await sizes.record(count)
                // The first two requests (the single-use body, the replayable body's first attempt) get 503.
                let fails = await sizes.values.count <= 2
                return FlyingFox.HTTPResponse(statusCode: fails ? .serviceUnavailable : .ok)
            }
            var configuration = Courier.Configuration(transport: transport.make(), timeout: generousTimeout, retryPolicy: .default)
            configuration.clock = TestClock(sleepsReturnImmediately: true)
            let api = CourierClientTransport(Courier.Client(configuration: configuration), unauthenticatedOperations: ["put"])
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
            let size = 200 << 10
            let (stream, continuation) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
            continuation.yield(ArraySlice(repeating: 0x63, count: size))
            continuation.finish()
            let (single, _) = try await api.send(
                Self.request("/v1/items", method: .put), body: HTTPBody(stream, length: .known(Int64(size))), baseURL: url, operationID: "put")
            #expect(single.status.code == 503)
            #expect(await sizes.values == [size])

            let (replayable, _) = try await api.send(
                Self.request("/v1/items", method: .put), body: HTTPBody(Data(repeating: 0x64, count: 3 << 20)), baseURL: url, operationID: "put")
            #expect(replayable.status.code == 200)
            #expect(await sizes.values == [size, 3 << 20, 3 << 20])
        }
    }

    // MARK: - 5. Responses

    /// `GET /v1/users` answering `body` as JSON.
    static func hostileUsers(_ server: TestServer, body: Data, headers: [FlyingFox.HTTPHeader: String] = [:]) async {
        await server.route("GET /v1/users") { _ in
            var all = headers
            all[.contentType] = "application/json"
            return FlyingFox.HTTPResponse(statusCode: .ok, headers: FlyingFox.HTTPHeaders(all), body: body)
        }
    }

    static func hugeJSON(_ count: Int) -> Data {
        var text = "["
        let user = #"{"id":1,"name":"Ada","email":"ada@example.com"}"#
        while text.utf8.count < count { text += user + "," }
        text += user + "]"
        return Data(text.utf8)
    }

    @Test("a huge JSON answer to a JSON operation fails at maximumResponseSize with responseTooLarge", arguments: TransportKind.allCases)
    func aHugeJSONBody(transport: TransportKind) async throws {
        try await TestServer.run { server in
            await Self.hostileUsers(server, body: Self.hugeJSON(2 << 20))
            let courier = Courier.Client(
                configuration: Courier.Configuration(transport: transport.make(), timeout: generousTimeout, maximumResponseSize: 256 << 10))
            let api = CourierDemoAPI.Client(
                serverURL: try #require(URL(string: "http://127.0.0.1:\(server.port)")),
                transport: CourierClientTransport(courier, unauthenticatedOperations: ["listUsers"]))
            let error = await #expect(throws: ClientError.self) { _ = try await api.listUsers() }
            #expect(Self.isTooLarge(error), "\(String(describing: error?.underlyingError))")
        }
    }

    @Test("a gzip bomb answering a JSON operation fails with responseTooLarge", arguments: TransportKind.allCases)
    func aGzipBomb(transport: TransportKind) async throws {
        try await TestServer.run { server in
            await Self.hostileUsers(server, body: GzipZeros.make(count: 1 + 258 * 40_000), headers: [FlyingFox.HTTPHeader("Content-Encoding"): "gzip"])
            let courier = Courier.Client(
                configuration: Courier.Configuration(transport: transport.make(), timeout: generousTimeout, maximumResponseSize: 1 << 20))
            let api = CourierDemoAPI.Client(
                serverURL: try #require(URL(string: "http://127.0.0.1:\(server.port)")),
                transport: CourierClientTransport(courier, unauthenticatedOperations: ["listUsers"]))
            let error = await #expect(throws: ClientError.self) { _ = try await api.listUsers() }
            #expect(Self.isTooLarge(error), "\(String(describing: error?.underlyingError))")
        }
    }

    /// The generated code decodes a JSON body with `Data(collecting: body, upTo: .max)`
    /// (OpenAPIRuntime's `getResponseBodyAsJSON`): when the transport streams it, nothing bounds it.
    @Test(
        "a huge JSON answer to an operation that also accepts octet-stream is still bounded by maximumResponseSize",
        arguments: TransportKind.allCases)
    func aHugeJSONBodyToAMixedAccept(transport: TransportKind) async throws {
        try await TestServer.run { server in
            await Self.hostileUsers(server, body: Self.hugeJSON(4 << 20))
            let courier = Courier.Client(
                configuration: Courier.Configuration(transport: transport.make(), timeout: generousTimeout, maximumResponseSize: 256 << 10))
            let result = try await Self.send(
                CourierClientTransport(courier, unauthenticatedOperations: ["op"]),
                Self.request("/v1/users", accept: "application/json, application/octet-stream"), baseURL: "http://127.0.0.1:\(server.port)")
            var failure: (any Error)?
            var collected = 0
            switch result {
            case .failure(let error): failure = error
            case .success(let (_, body)):
                do {
                    collected = try await Data(collecting: try #require(body), upTo: .max).count  // as generated code does for JSON
                } catch {
                    failure = error
                }
            }
            #expect(Self.isTooLarge(failure), "read \(collected) bytes of JSON past a 256 KiB limit; error: \(String(describing: failure))")
        }
    }

    /// Issue 49: the limit held only bodies labelled JSON, XML or text; with no `Content-Type`,
    /// `*/*` or `application/*` the runtime picks the operation's first type (JSON) and collects,
    /// and 4,194,385 bytes were read past a 256 KiB limit. A concrete streaming type (a file) is
    /// still handed over whole.
    @Test(
        "a huge answer without a Content-Type, or with a wildcard one, to a JSON-first operation is bounded; a file is not",
        arguments: TransportKind.allCases,
        [
            (nil, "application/json, application/octet-stream", true), ("*/*", "application/json, application/octet-stream", true),
            ("application/*", "application/json, application/octet-stream", true),
            ("application/octet-stream", "application/json, application/octet-stream", false),
            (nil, "application/octet-stream", false),
        ] as [(String?, String, Bool)])
    func theLimitDoesNotDependOnTheLabel(transport: TransportKind, answer: (contentType: String?, accept: String, bounded: Bool)) async throws {
        let contentType = answer.contentType
        try await TestServer.run { server in
            let huge = Self.hugeJSON(4 << 20)
            await server.route("GET /v1/users") { _ in
                var headers: [FlyingFox.HTTPHeader: String] = [:]
                if let contentType { headers[.contentType] = contentType }
                return FlyingFox.HTTPResponse(statusCode: .ok, headers: FlyingFox.HTTPHeaders(headers), body: huge)
            }
            let courier = Courier.Client(
                configuration: Courier.Configuration(transport: transport.make(), timeout: generousTimeout, maximumResponseSize: 256 << 10))
            let result = try await Self.send(
                CourierClientTransport(courier, unauthenticatedOperations: ["op"]),
                Self.request("/v1/users", accept: answer.accept), baseURL: "http://127.0.0.1:\(server.port)")
            var failure: (any Error)?
            var collected = 0
            switch result {
            case .failure(let error): failure = error
            case .success(let (_, body)):
                do {
                    collected = try await Data(collecting: try #require(body), upTo: .max).count
                } catch {
                    failure = error
                }
            }
            if !answer.bounded {
                #expect(failure == nil && collected == huge.count, "a file is streamed whole: \(collected) bytes, \(String(describing: failure))")
            } else {
                #expect(Self.isTooLarge(failure), "read \(collected) bytes past a 256 KiB limit; error: \(String(describing: failure))")
            }
        }
    }

    @Test("responses whose streamed bodies are dropped unread release their connection: 30 in a row on one connection", arguments: TransportKind.allCases)
    func droppedBodiesReleaseTheConnection(transport: TransportKind) async throws {
        try await TestServer.run { server in
            let report = Data(repeating: 0x5A, count: 1 << 20)
            await server.route("GET /v1/files/report.bin") { _ in
                FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "application/octet-stream"], body: report)
            }
            let courier = Courier.Client(
                configuration: Courier.Configuration(transport: try transport.make(connectionsPerHost: 1), timeout: generousTimeout))
            let api = CourierClientTransport(courier, unauthenticatedOperations: ["op"])
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)"))
            try await awaitCondition("30 operations that drop their bodies", within: .seconds(30)) {
                for index in 0..<30 {
                    let (response, body) = try await api.send(
                        Self.request("/v1/files/report.bin", accept: "application/octet-stream"), body: nil, baseURL: url, operationID: "op")
                    #expect(response.status.code == 200)
                    if index.isMultiple(of: 2), let body {
                        for try await _ in body { break }  // one chunk read, the rest dropped
                    }
                }
            }
            // and the client still works
            let (_, body) = try await api.send(
                Self.request("/v1/files/report.bin", accept: "application/octet-stream"), body: nil, baseURL: url, operationID: "op")
            #expect(try await Data(collecting: try #require(body), upTo: 2 << 20).count == report.count)
        }
    }

    @Test("HEAD, 204 and 304 hand back no body, whatever Content-Length says", arguments: [("HEAD", 200), ("GET", 204), ("GET", 304)])
    func bodilessResponses(_ exchange: (String, Int)) async throws {
        let (method, status) = exchange
        let recording = RecordingTransport(status: status, headers: [.contentLength: "100000000"])
        let request = Self.request("/v1/files/report.bin", method: try #require(HTTPTypes.HTTPRequest.Method(method)), accept: "application/octet-stream")
        let result = try await Self.send(Self.recorded(recording), request, baseURL: "http://127.0.0.1:1")
        guard case .success(let (response, body)) = result else {
            Issue.record("\(method) \(status): \(result)")
            return
        }
        #expect(response.status.code == status)
        #expect(body == nil)
    }

    // MARK: - 6. Observability

    @Test("600 invented operationIDs make at most 512 operation series; every call is still counted")
    func operationSeriesAreBounded() async throws {
        let metrics = TestMetrics()
        let recording = RecordingTransport(status: 200)
        let transport = Self.recorded(recording, metrics: metrics)
        for index in 0..<600 {
            _ = try await Self.send(transport, Self.request("/v1/users"), baseURL: "http://127.0.0.1:1", operation: "op-\(index)")
        }
        let requests = metrics.counters.filter { $0.label == "courier_requests_total" }
        let operations = Set(requests.compactMap { counter in counter.dimensions.first { $0.0 == "operation" }?.1 })
        #expect(operations.count <= 512)
        #expect(operations.count == 512, "operations got series of their own up to the bound")
        #expect(requests.reduce(0) { $0 + $1.totalValue } == 600)
    }

    // MARK: - 7. Concurrency

    @Test("2,000 concurrent operations with an expired token through one transport: exactly one token request")
    func oneRefreshForTwoThousand() async throws {
        try await TestServer.run { server in
            let accounts = OpenAPITransportIntegrationTests.Accounts()
            await OpenAPITransportIntegrationTests.serve(server, accounts: accounts, report: Data())
            let clock = LockedState(Date(timeIntervalSince1970: 1_800_000_000))
            let (courier, refresher, tokenEndpoint) = try OpenAPITransportIntegrationTests.courier(server, transport: .platformDefault, clock: clock)
            try await refresher.reset(to: try await tokenEndpoint.password(username: "ada", password: "lovelace"))
            let api = try OpenAPITransportIntegrationTests.api(courier, server: server)
            clock.withLock { $0 += 7200 }
            let names = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<2_000 { group.addTask { try await api.getMe().ok.body.json.name } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(names.count == 2_000 && names.allSatisfy { $0 == "Ada" })
            #expect(await accounts.tokenRequests == 2)  // the sign-in and one refresh
            #expect(await accounts.meRequests == 2_000)
        }
    }
}
