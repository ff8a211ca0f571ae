import Courier
import CourierOAuth
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryTracing
import Logging
import MetricsTestKit
import Testing
import Tracing

// Issue 39, decision 3: token, revocation, device authorization and discovery requests go
// through the same path as every call (users' middleware, logs, spans, metrics, retries where
// safe, stubs), without the configuration's authentication or cache.

/// What one middleware saw.
private final class Seen: Sendable {
    let requests = LockedState<[(method: String, path: String, requiresAuthorization: Bool)]>([])
}

/// Records every request it sees, then passes it on.
private struct Recording: Middleware {
    let seen: Seen
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        seen.requests.withLock {
            $0.append((request.head.method.rawValue, request.head.path ?? "", context.requiresAuthorization))
        }
        return try await next(request)
    }
}

/// A refresher made after the middleware that asks it.
private final class RefresherBox: Sendable {
    let value = LockedState<TokenRefresher?>(nil)
}

/// Keeps every log line.
private final class Lines: Sendable {
    let all = LockedState<[String]>([])
}

private struct LineHandler: LogHandler {
    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { lines.all.withLock { $0.append("\(event.message)") } }
}

/// The four kinds of OAuth2 request Courier sends on its own.
enum OAuth2RequestKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case token, revocation, deviceAuthorization, discovery
    var testDescription: String { rawValue }

    var method: String { self == .discovery ? "GET" : "POST" }
    var path: String {
        switch self {
        case .token: "/oauth/token"
        case .revocation: "/oauth/revoke"
        case .deviceAuthorization: "/oauth/device"
        case .discovery: "/.well-known/oauth-authorization-server"
        }
    }
}

@Suite("OAuth2 requests take the one path")
struct OAuth2OnePathTests {
    static let clientSecret = "CLIENT-S3CR3T"
    static let refreshToken = "RT-S3CR3T"
    static let authentication = OAuth2ClientAuthentication.basic(clientID: "app", clientSecret: clientSecret)

    /// A transport that answers each OAuth2 path as a server would.
    static func server() -> RecordingTransport {
        RecordingTransport { request throws(CourierError) in
            let json: HTTPFields = [.contentType: "application/json"]
            let body: String
            switch request.head.path ?? "" {
            case OAuth2RequestKind.token.path: body = OAuth2Fixtures.tokenJSON
            case OAuth2RequestKind.deviceAuthorization.path: body = DeviceFixtures.deviceJSON()
            case OAuth2RequestKind.discovery.path: body = DiscoveryFixtures.document(issuer: "https://auth.example.com")
            default: body = ""
            }
            return Response(status: .ok, headers: json, body: Data(body.utf8), url: request.url)
        }
    }

    /// Sends one request of `kind` through `configuration`.
    static func send(_ kind: OAuth2RequestKind, configuration: Configuration) async throws(CourierError) {
        let tokens = OAuth2TokenEndpoint(
            baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/token"),
            clientAuthentication: authentication, configuration: configuration)
        switch kind {
        case .token:
            _ = try await tokens.refresh(TokenCredential(accessToken: "AT", refreshToken: refreshToken))
        case .revocation:
            let revocation = OAuth2RevocationEndpoint(
                baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/revoke"),
                clientAuthentication: authentication, configuration: configuration)
            try await revocation.revoke(refreshToken, hint: .refreshToken)
        case .deviceAuthorization:
            let flow = DeviceAuthorizationFlow(
                deviceAuthorizationEndpoint: URL(string: "https://auth.example.com/oauth/device")!, tokenEndpoint: tokens)
            _ = try await flow.start()
        case .discovery:
            _ = try await AuthorizationServerMetadata.discover(
                issuer: URL(string: "https://auth.example.com")!, configuration: configuration)
        }
    }

    @Test(arguments: OAuth2RequestKind.allCases)
    func goesThroughTheMiddlewareLogsSpansAndMetrics(_ kind: OAuth2RequestKind) async throws {
        let seen = Seen()
        let lines = Lines()
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        let transport = Self.server()
        var configuration = Configuration(transport: transport, middleware: [Recording(seen: seen)])
        configuration.logger = Logger(label: "oauth2") { _ in LineHandler(lines: lines) }
        configuration.tracer = tracer
        configuration.metricsFactory = metrics

        try await Self.send(kind, configuration: configuration)

        let requests = seen.requests.withLock { $0 }
        #expect(requests.count == 1)
        #expect(requests.first?.method == kind.method)
        #expect(requests.first?.path == kind.path)
        #expect(requests.first?.requiresAuthorization == false)
        #expect(await transport.count == 1)
        let logged = lines.all.withLock { $0 }
        #expect(logged.count == 1)
        #expect(logged.first?.hasPrefix("\(kind.method) https://auth.example.com\(kind.path) 200") == true)
        #expect(tracer.finishedSpans.filter { $0.kind == .client }.count == 1)
        let total = try metrics.expectCounter("courier_requests_total", [("method", kind.method), ("status_class", "2xx")])
        #expect(total.totalValue == 1)
        // Nothing secret reached a log line or a span.
        let texts = logged + tracer.finishedSpans.map { "\($0.operationName) \($0.attributes)" }
        let basic = Data("app:\(Self.clientSecret)".utf8).base64EncodedString()
        for text in texts {
            #expect(!text.contains(Self.clientSecret) && !text.contains(Self.refreshToken) && !text.contains(basic))
        }
    }

    @Test(arguments: OAuth2RequestKind.allCases)
    func theConfigurationsAuthenticationIsNeverAttached(_ kind: OAuth2RequestKind) async throws {
        let transport = Self.server()
        var configuration = Configuration(transport: transport)
        configuration.authentication = .basic(BasicCredential(username: "user", password: "USER-PASSWORD"))
        configuration.authorizedHosts = ["auth.example.com"]

        try await Self.send(kind, configuration: configuration)

        let request = try #require(await transport.last)
        let user = "Basic " + Data("user:USER-PASSWORD".utf8).base64EncodedString()
        #expect(request.head.headerFields[.authorization] != user)
        // Discovery carries no credential at all; the others carry the client's own Basic header.
        let client = "Basic " + Data("app:\(Self.clientSecret)".utf8).base64EncodedString()
        #expect(request.head.headerFields[.authorization] == (kind == .discovery ? nil : client))
    }

    @Test(arguments: OAuth2RequestKind.allCases)
    func theConfigurationsDefaultHeadersGoAlongButNotItsCredentials(_ kind: OAuth2RequestKind) async throws {
        let transport = Self.server()
        var configuration = Configuration(transport: transport)
        configuration.headers = [
            HeaderItem(name: "X-App-Version", value: "7"), HeaderItem(name: "X-Api-Key", value: "API-KEY-S3CR3T"),
            HeaderItem(name: "X-Tenant-Secret-Id", value: "TENANT-S3CR3T"),
        ]
        configuration.redaction.headers.insert("X-Tenant-Secret-Id")
        try await Self.send(kind, configuration: configuration)
        let fields = try #require(await transport.last?.head.headerFields)
        #expect(fields[HTTPField.Name("X-App-Version")!] == "7")
        #expect(fields[HTTPField.Name("X-Api-Key")!] == nil)
        #expect(fields[HTTPField.Name("X-Tenant-Secret-Id")!] == nil)
    }

    /// Asks a refresher for a credential from inside every request it sees.
    private struct AskingTheRefresher: Middleware {
        let refresher: RefresherBox
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            if let refresher = refresher.value.withLock({ $0 }) { _ = try await refresher.validCredential() }
            return try await next(request)
        }
    }

    // Without the check the refresh waits for itself: the time limit ends the test (a cancelled
    // waiter leaves at once) and records the failure, rather than a sleep racing it.
    @Test(.timeLimit(.minutes(1)))
    func aMiddlewareAskingTheRefresherFromItsOwnTokenRequestFailsInsteadOfWaitingForever() async throws {
        let box = RefresherBox()
        let transport = RecordingTransport { request throws(CourierError) in
            let body = request.head.path == "/oauth/token" ? OAuth2Fixtures.tokenJSON : "{}"
            return Response(status: .ok, headers: [.contentType: "application/json"], body: Data(body.utf8), url: request.url)
        }
        let shared = Configuration(transport: transport, middleware: [AskingTheRefresher(refresher: box)])
        let tokens = OAuth2TokenEndpoint(
            baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/token"),
            clientAuthentication: Self.authentication, configuration: shared)
        let expired = TokenCredential(accessToken: "AT-old", refreshToken: Self.refreshToken, expiresAt: Date(timeIntervalSinceNow: -60))
        let refresher = TokenRefresher(store: InMemoryTokenStore(expired), tokenEndpoint: tokens)
        box.value.withLock { $0 = refresher }

        let ended: Result<TokenCredential, CourierError>
        do throws(CourierError) { ended = .success(try await refresher.validCredential()) } catch { ended = .failure(error) }
        #expect(!Task.isCancelled, "the refresh waited for itself")
        let failure = try #require(OAuth2Fixtures.refreshFailure(ended.failure))
        #expect(failure.isPermanent == false)
        #expect(await transport.count == 0)
        // The refresher is not stuck: without the question, a refresh goes through.
        box.value.withLock { $0 = nil }
        try await refresher.reset(to: expired)
        #expect(try await refresher.validCredential().accessToken == "at-new")
    }

    /// A policy that would retry anything, at once.
    static var eager: RetryPolicy {
        RetryPolicy(maxAttempts: 3, baseDelay: .zero, maxDelay: .zero, generatesIdempotencyKey: true)
    }

    @Test(arguments: [OAuth2RequestKind.token, .revocation, .deviceAuthorization])
    func aFormPostIsNotSentAgainOnceItMayHaveReachedTheServer(_ kind: OAuth2RequestKind) async throws {
        for answer in [
            RecordingTransport.Answer.status(503, headers: [.retryAfter: "0"]),
            .failure(.transport(TransportFailure(URLError(.timedOut), url: nil))),
            .failure(.transport(TransportFailure(URLError(.networkConnectionLost), url: nil))),
        ] {
            let transport = RecordingTransport(script: [answer])
            var configuration = Configuration(transport: transport)
            configuration.retryPolicy = Self.eager
            _ = try? await Self.send(kind, configuration: configuration)
            #expect(await transport.count == 1, "\(answer)")
            // No idempotency key was made up for it either.
            #expect(await transport.last?.head.headerFields[HTTPField.Name("Idempotency-Key")!] == nil)
        }
    }

    @Test(arguments: OAuth2RequestKind.allCases)
    func aRequestThatNeverReachedTheServerIsSentAgain(_ kind: OAuth2RequestKind) async throws {
        let refused = Lines()
        let transport = RecordingTransport { request throws(CourierError) in
            if refused.all.withLock({ lines in
                defer { lines.append("refused") }; return lines.isEmpty
            }) {
                throw .transport(TransportFailure(URLError(.cannotConnectToHost), url: request.url))
            }
            return try Self.answer(request, from: kind)
        }
        var configuration = Configuration(transport: transport)
        configuration.retryPolicy = Self.eager
        try await Self.send(kind, configuration: configuration)
        #expect(await transport.count == 2)
    }

    /// What ``server()`` answers, synchronously.
    static func answer(_ request: TransportRequest, from kind: OAuth2RequestKind) throws(CourierError) -> Response {
        let body: String =
            switch kind {
            case .token: OAuth2Fixtures.tokenJSON
            case .deviceAuthorization: DeviceFixtures.deviceJSON()
            case .discovery: DiscoveryFixtures.document(issuer: "https://auth.example.com")
            case .revocation: ""
            }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: Data(body.utf8), url: request.url)
    }

    @Test func discoveryIsRetriedUnderThePolicyLikeAnyGET() async throws {
        let document = Data(DiscoveryFixtures.document(issuer: "https://auth.example.com").utf8)
        let transport = RecordingTransport(script: [
            .status(503), .status(200, headers: [.contentType: "application/json"], body: document),
        ])
        var configuration = Configuration(transport: transport)
        configuration.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .zero, maxDelay: .zero)
        _ = try await AuthorizationServerMetadata.discover(issuer: URL(string: "https://auth.example.com")!, configuration: configuration)
        #expect(await transport.count == 2)
    }

    @Test func discoveryIsNeverServedFromTheConfigurationsCache() async throws {
        let document = Data(DiscoveryFixtures.document(issuer: "https://auth.example.com").utf8)
        let transport = RecordingTransport(
            status: 200, headers: [.contentType: "application/json", .cacheControl: "max-age=3600"], body: document)
        var configuration = Configuration(transport: transport)
        configuration.cache = HTTPCache()
        for _ in 0..<2 {
            _ = try await AuthorizationServerMetadata.discover(issuer: URL(string: "https://auth.example.com")!, configuration: configuration)
        }
        #expect(await transport.count == 2)
    }

    @Test func aRefresherSharingItsConfigurationRefreshesOnceForTwoThousandCalls() async throws {
        let seen = Seen()
        let transport = RecordingTransport { request throws(CourierError) in
            if request.head.path == "/oauth/token" {
                return Response(
                    status: .ok, headers: [.contentType: "application/json"], body: Data(OAuth2Fixtures.tokenJSON.utf8), url: request.url)
            }
            return Response(status: .ok, body: Data("{}".utf8), url: request.url)
        }
        let shared = Configuration(transport: transport, middleware: [Recording(seen: seen)])
        let tokens = OAuth2TokenEndpoint(
            baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/token"),
            clientAuthentication: Self.authentication, configuration: shared)
        let expired = TokenCredential(
            accessToken: "AT-old", refreshToken: Self.refreshToken, expiresAt: Date(timeIntervalSinceNow: -60))
        let refresher = TokenRefresher(store: InMemoryTokenStore(expired), tokenEndpoint: tokens)
        var api = shared
        api.authentication = .bearer(refresher)
        api.authorizedHosts = ["api.example.com"]
        let client = Client(configuration: api)

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2_000 {
                group.addTask { _ = try await client.enqueue(TestEndpoint(pathString: "/items")).resume() }
            }
            try await group.waitForAll()
        }

        let paths = seen.requests.withLock { $0.map(\.path) }
        #expect(paths.filter { $0 == "/oauth/token" }.count == 1)
        #expect(paths.filter { $0 == "/items" }.count == 2_000)
        let token = try #require(await transport.requests.first { $0.head.path == "/oauth/token" })
        #expect(token.head.headerFields[.authorization]?.hasPrefix("Basic ") == true)
    }
    /// Each secret-bearing token request, as `(name, secret, send)`.
    static let grants: [(String, String, @Sendable (OAuth2TokenEndpoint) async throws -> TokenCredential)] = [
        ("refresh_token", refreshToken, { try await $0.refresh(TokenCredential(accessToken: "AT", refreshToken: refreshToken)) }),
        ("password", "PASSWORD-S3CR3T", { try await $0.password(username: "ada", password: "PASSWORD-S3CR3T") }),
        ("jwt-bearer", "ASSERTION-S3CR3T", { try await $0.jwtBearer(assertion: "ASSERTION-S3CR3T") }),
        (
            "authorization_code", "CODE-S3CR3T",
            { try await $0.authorizationCode("CODE-S3CR3T", redirectURI: URL(string: "https://app.example.com/cb")!, codeVerifier: "VERIFIER") }
        ),
        (
            "device_code", "DEVICE-S3CR3T",
            {
                try await $0.requestToken(
                    grantType: "urn:ietf:params:oauth:grant-type:device_code",
                    parameters: [QueryItem(name: "device_code", value: "DEVICE-S3CR3T")])
            }
        ),
    ]

    /// Prints what it sees, as a careless logging middleware would.
    private struct Printing: Middleware {
        let printed: Lines
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            var dumped = ""
            dump(request, to: &dumped)
            printed.all.withLock { $0 += [request.description, "\(request)", request.curlCommand(), String(reflecting: request), dumped] }
            return try await next(request)
        }
    }

    @Test(arguments: 0..<5)
    func aMiddlewareThatPrintsATokenRequestShowsNoSecret(_ index: Int) async throws {
        let (name, secret, send) = Self.grants[index]
        let printed = Lines()
        let tokens = OAuth2TokenEndpoint(
            baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/token"),
            clientAuthentication: Self.authentication,
            configuration: Configuration(transport: Self.server(), middleware: [Printing(printed: printed)]))
        _ = try await send(tokens)
        let texts = printed.all.withLock { $0 }
        #expect(texts.count == 5, "\(name)")
        let basic = Data("app:\(Self.clientSecret)".utf8).base64EncodedString()
        for text in texts {
            #expect(!text.contains(secret) && !text.contains(Self.clientSecret) && !text.contains(basic), "\(name): \(text)")
        }
        // The curl command shows the form, with the secret's place marked: the check is not vacuous.
        #expect(texts[2].contains("grant_type=") && texts[2].contains("<redacted>"), "\(name): \(texts[2])")
    }
}
