import Courier
import CourierOAuth
import CourierTesting
import Foundation
import HTTPTypes
import MetricsTestKit
import PropertyBased
import Testing

// A hostile review of the one path OAuth2 requests take (token, revocation, device authorization,
// discovery through `OAuth2Exchange.client(_:postsForm:)`): what a hostile authorization server,
// a careless caller and a careless middleware can make of it.

@Suite("OAuth2PathReview")
struct OAuth2PathReviewTests {
    static let clientSecret = "CLIENT-S3CR3T"
    static let refreshToken = "RT-S3CR3T"

    /// A form POST of each kind, sent through `configuration` with `authentication`.
    static func sendForm(
        _ kind: Int, configuration: Configuration,
        authentication: OAuth2ClientAuthentication = .basic(clientID: "app", clientSecret: clientSecret)
    ) async throws(CourierError) {
        let tokens = OAuth2TokenEndpoint(
            baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/token"),
            clientAuthentication: authentication, configuration: configuration)
        switch kind {
        case 0:
            _ = try await tokens.refresh(TokenCredential(accessToken: "AT", refreshToken: refreshToken))
        case 1:
            let revocation = OAuth2RevocationEndpoint(
                baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/revoke"),
                clientAuthentication: authentication, configuration: configuration)
            try await revocation.revoke(refreshToken, hint: .refreshToken)
        default:
            let flow = DeviceAuthorizationFlow(
                deviceAuthorizationEndpoint: URL(string: "https://auth.example.com/oauth/device")!, tokenEndpoint: tokens)
            _ = try await flow.start()
        }
    }

    /// Every transport failure that may come after the request reached the server.
    static let failuresAfterSending: [URLError.Code] = [
        .timedOut, .networkConnectionLost, .badServerResponse, .secureConnectionFailed, .dataLengthExceedsMaximum, .unknown,
    ]

    // MARK: The promise: a form POST is sent again only when it never reached the server

    /// Whatever the retry policy (attempts, retryable statuses, idempotency keys), whatever the
    /// server answers (any status from 0 to 999, with `Retry-After: 0` and a `Location`) or however the attempt
    /// fails once it may have reached the server, a token, revocation or device authorization
    /// request is sent once; one that never reached the server (refused connection, failed name
    /// lookup) is sent again, up to the policy's attempts.
    @Test(.timeLimit(.minutes(2)))
    func aFormPostIsSentAgainOnlyWhenItNeverReachedTheServer() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            let kind = seed % 3
            let attempts = 1 + (seed / 3) % 5
            let keyed = (seed / 15) % 2 == 0
            let choice = (seed / 30) % 1_100
            var policy = RetryPolicy(
                maxAttempts: attempts, baseDelay: .zero, maxDelay: .zero,
                retryableStatusCodes: Set(0...999), generatesIdempotencyKey: keyed)
            policy.maxRetryAfter = .seconds(3600)
            let answer: RecordingTransport.Answer
            var unsent = false
            switch choice {
            case 0..<1_000:
                answer = .status(choice, headers: [.retryAfter: "0", .location: "https://evil.example.com/steal"])
            case 1_000..<1_050:
                let code = Self.failuresAfterSending[choice % Self.failuresAfterSending.count]
                answer = .failure(.transport(TransportFailure(URLError(code), url: nil)))
            default:
                unsent = true
                let code: URLError.Code = choice % 2 == 0 ? .cannotConnectToHost : .cannotFindHost
                answer = .failure(.transport(TransportFailure(URLError(code), url: nil)))
            }
            let transport = RecordingTransport(script: [answer])
            var configuration = Configuration(transport: transport)
            configuration.retryPolicy = policy
            _ = try? await Self.sendForm(kind, configuration: configuration)
            let sent = await transport.count
            #expect(sent == (unsent ? attempts : 1), "kind \(kind), \(answer), attempts \(attempts)")
            for request in await transport.requests {
                #expect(request.head.headerFields[HTTPField.Name("Idempotency-Key")!] == nil)
                #expect(request.redirectMode == .never)
            }
        }
    }

    // MARK: The refresher's classification

    /// Whatever status the token endpoint answers, with a policy that would retry it, the
    /// refresh fails with `refreshFailed` (never a bare `.response`), permanent only for 400
    /// and 401, after one request.
    @Test(.timeLimit(.minutes(2)))
    func everyStatusIsARefreshFailureAfterOneRequest() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...999)) { status in
            guard !(200...299).contains(status) else { return }
            let transport = RecordingTransport(script: [
                .status(status, headers: [.contentType: "application/json", .retryAfter: "0"], body: Data(#"{"error":"invalid_grant"}"#.utf8))
            ])
            var configuration = Configuration(transport: transport)
            configuration.retryPolicy = RetryPolicy(
                maxAttempts: 3, baseDelay: .zero, maxDelay: .zero, retryableStatusCodes: Set(0...999), generatesIdempotencyKey: true)
            let error = await OAuth2Fixtures.error {
                () async throws(CourierError) -> TokenCredential in
                try await Self.tokens(configuration).refresh(
                    TokenCredential(accessToken: "AT", refreshToken: Self.refreshToken))
            }
            let failure = OAuth2Fixtures.refreshFailure(error)
            #expect(failure != nil, "\(status): \(String(describing: error))")
            #expect(failure?.statusCode == status)
            #expect(failure?.isPermanent == (status == 400 || status == 401), "\(status)")
            #expect(await transport.count == 1, "\(status)")
        }
    }

    static func tokens(
        _ configuration: Configuration,
        authentication: OAuth2ClientAuthentication = .basic(clientID: "app", clientSecret: clientSecret)
    ) throws(CourierError) -> OAuth2TokenEndpoint {
        OAuth2TokenEndpoint(
            baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/token"),
            clientAuthentication: authentication, configuration: configuration)
    }

    /// A refresher whose token endpoint answers 503 under a retrying policy: one request, a
    /// transient failure, the credential kept.
    @Test func aRefresherSeesA503AsTransientAfterOneRequest() async throws {
        let transport = RecordingTransport(script: [.status(503, headers: [.retryAfter: "0"])])
        var configuration = Configuration(transport: transport)
        configuration.retryPolicy = RetryPolicy(maxAttempts: 5, baseDelay: .zero, maxDelay: .zero)
        let expired = TokenCredential(accessToken: "AT", refreshToken: Self.refreshToken, expiresAt: Date(timeIntervalSinceNow: -60))
        let refresher = TokenRefresher(store: InMemoryTokenStore(expired), tokenEndpoint: try Self.tokens(configuration))
        let error = await OAuth2Fixtures.error { () async throws(CourierError) -> TokenCredential in try await refresher.validCredential() }
        let failure = try #require(OAuth2Fixtures.refreshFailure(error))
        #expect(failure.isPermanent == false)
        #expect(failure.reason == .unexpectedStatus)
        #expect(await transport.count == 1)
        #expect(try await refresher.currentCredential()?.refreshToken == Self.refreshToken)
    }

    // MARK: A careless caller's configuration

    /// An API configuration whose default headers say `Content-Type: application/json` must not
    /// turn a token, revocation or device authorization request into a JSON-typed form (the
    /// server would answer 400 and a refresh would fail for good).
    @Test(arguments: 0..<3)
    func aDefaultContentTypeDoesNotReplaceTheForms(_ kind: Int) async throws {
        let transport = RecordingTransport(script: [.status(400)])
        var configuration = Configuration(transport: transport)
        configuration.headers = [HeaderItem(name: "Content-Type", value: "application/json")]
        _ = try? await Self.sendForm(kind, configuration: configuration)
        let request = try #require(await transport.last)
        #expect(request.head.headerFields[values: .contentType] == ["application/x-www-form-urlencoded; charset=utf-8"])
    }

    /// An API configuration that authenticates with a default `Authorization` header (an API
    /// key sent as a header, not as `authentication`) or a session `Cookie` must not hand that credential to the
    /// authorization server, as its `authentication` never is: not with a public client, not
    /// with a client authenticating in the body, not to discovery.
    @Test(arguments: 0..<4)
    func aDefaultAuthorizationHeaderNeverReachesTheAuthorizationServer(_ kind: Int) async throws {
        let transport = RecordingTransport(script: [.status(400)])
        var configuration = Configuration(transport: transport)
        configuration.headers = [
            HeaderItem(name: "authorization", value: "Bearer API-KEY-S3CR3T"), HeaderItem(name: "Cookie", value: "session=S3CR3T"),
        ]
        for authentication in [OAuth2ClientAuthentication.publicClient(clientID: "app"), .requestBody(clientID: "app", clientSecret: "s")] {
            if kind == 3 {
                _ = try? await AuthorizationServerMetadata.discover(
                    issuer: URL(string: "https://auth.example.com")!, configuration: configuration)
            } else {
                _ = try? await Self.sendForm(kind, configuration: configuration, authentication: authentication)
            }
            let request = try #require(await transport.last)
            #expect(request.head.headerFields[.authorization] == nil, "\(kind) \(authentication)")
            #expect(request.head.headerFields[.cookie] == nil, "\(kind) \(authentication)")
        }
    }

    /// `dump` of an endpoint (as a reflection-based logger or a debugger prints it) shows neither
    /// the client secret nor what the configuration it was given carries (default headers).
    @Test func dumpingAnEndpointShowsNoSecret() async throws {
        var configuration = Configuration(transport: RecordingTransport())
        configuration.headers = [HeaderItem(name: "X-Api-Key", value: "API-KEY-S3CR3T")]
        let authentication = OAuth2ClientAuthentication.basic(clientID: "app", clientSecret: Self.clientSecret)
        let tokens = try Self.tokens(configuration, authentication: authentication)
        let revocation = OAuth2RevocationEndpoint(
            baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/revoke"),
            clientAuthentication: authentication, configuration: configuration)
        let flow = DeviceAuthorizationFlow(
            deviceAuthorizationEndpoint: URL(string: "https://auth.example.com/oauth/device")!, tokenEndpoint: tokens)
        var texts: [String] = []
        for value in [tokens as Any, revocation, flow] {
            var text = ""
            dump(value, to: &text)
            texts += [text, String(reflecting: value), "\(value)"]
        }
        for text in texts {
            #expect(!text.contains(Self.clientSecret) && !text.contains("API-KEY-S3CR3T"), "\(text)")
        }
        // Not vacuous: the dump names the endpoint.
        #expect(texts[0].contains("auth.example.com"))
    }

    /// Keeps what a careless logging middleware prints of each request.
    private final class Printed: Sendable {
        let texts = LockedState<[String]>([])
    }

    private struct Printing: Middleware {
        let printed: Printed
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            printed.texts.withLock { $0 += [request.description, request.curlCommand()] }
            return try await next(request)
        }
    }

    /// An API configuration whose redaction exposes names its own API uses harmlessly (a
    /// `code` query item for a country, a `password` field of a sign-up form…), or lists its
    /// own form fields instead of the defaults, must not let a careless printing middleware show
    /// an OAuth2 secret: the token request's secrets are Courier's to hide, whatever the API's
    /// redaction.
    @Test(arguments: 0..<5, [false, true])
    func theAPIsRedactionDoesNotExposeAGrantsSecret(_ index: Int, replacesTheLists: Bool) async throws {
        let (name, secret, send) = OAuth2OnePathTests.grants[index]
        let printed = Printed()
        var configuration = Configuration(transport: OAuth2OnePathTests.server(), middleware: [Printing(printed: printed)])
        if replacesTheLists {
            configuration.redaction = Redaction(headers: ["X-Tenant"], queryItems: ["pin"], formFields: ["pin"])
        } else {
            configuration.redaction.exposed = [
                "code", "code_verifier", "device_code", "password", "assertion", "refresh_token", "client_secret", "Authorization",
                "client_assertion", "subject_token", "actor_token",
            ]
        }
        for authentication in [
            OAuth2ClientAuthentication.basic(clientID: "app", clientSecret: Self.clientSecret),
            .requestBody(clientID: "app", clientSecret: Self.clientSecret),
        ] {
            _ = try await send(try Self.tokens(configuration, authentication: authentication))
        }
        let texts = printed.texts.withLock { $0 }
        #expect(texts.count == 4, "\(name)")
        let basic = Data("app:\(Self.clientSecret)".utf8).base64EncodedString()
        for text in texts {
            #expect(!text.contains(secret) && !text.contains(Self.clientSecret) && !text.contains(basic), "\(name): \(text)")
        }
        // Not vacuous: the form is shown, with its secrets' places marked.
        #expect(texts[1].contains("grant_type=") && texts[1].contains("<redacted>"), "\(name): \(texts[1])")
    }

    // MARK: Size limits

    /// A token response of exactly 1 MiB is read; one byte more is a transient transport
    /// failure (`responseTooLarge`), whatever the configuration's own limit (none, or smaller).
    @Test(arguments: [nil, 100] as [Int?])
    func theTokenResponseCapIsOneMebibyteWhateverTheConfiguration(_ configured: Int?) async throws {
        let token = Data(OAuth2Fixtures.tokenJSON.utf8)
        let padding = (1 << 20) - token.count
        for extra in [0, 1] {
            let body = Data(repeating: UInt8(ascii: " "), count: padding + extra) + token
            let transport = RecordingTransport(script: [.status(200, headers: [.contentType: "application/json"], body: body)])
            var configuration = Configuration(transport: transport)
            configuration.maximumResponseSize = configured
            let error = await OAuth2Fixtures.error { () async throws(CourierError) -> TokenCredential in
                try await Self.tokens(configuration).refresh(TokenCredential(accessToken: "AT", refreshToken: Self.refreshToken))
            }
            if extra == 0 {
                #expect(error == nil, "\(String(describing: error))")
            } else {
                let failure = try #require(OAuth2Fixtures.refreshFailure(error))
                guard case .transport(let transportFailure) = failure.reason else {
                    Issue.record("\(failure)")
                    continue
                }
                #expect(transportFailure.kind == .responseTooLarge)
                #expect(failure.isPermanent == false)
            }
        }
    }

    /// Revocation and device authorization answers are capped at 64 KiB, discovery documents
    /// at 256 KiB, with the errors they had before, whatever the configuration's limit.
    @Test func theOtherCapsHoldWhateverTheConfiguration() async throws {
        let big = Data(repeating: UInt8(ascii: " "), count: (256 << 10) + 1)
        let small = Data(repeating: UInt8(ascii: " "), count: (64 << 10) + 1)
        func configuration(_ body: Data) -> Configuration {
            var configuration = Configuration(
                transport: RecordingTransport(script: [.status(200, headers: [.contentType: "application/json"], body: body)]))
            configuration.maximumResponseSize = nil
            return configuration
        }
        do {
            try await Self.sendForm(1, configuration: configuration(small))
            Issue.record("a 64 KiB + 1 revocation answer was accepted")
        } catch {
            let failure = OAuth2Fixtures.revocationFailure(error)
            if case .transport(let transport)? = failure?.reason {
                #expect(transport.kind == .responseTooLarge)
            } else {
                Issue.record("\(error)")
            }
        }
        do {
            try await Self.sendForm(2, configuration: configuration(small))
            Issue.record("a 64 KiB + 1 device authorization answer was accepted")
        } catch {
            guard case .authentication(.authorizationFailed(.malformedResponse(let why))) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(why == "the device authorization response is larger than 64 KiB")
        }
        do {
            _ = try await AuthorizationServerMetadata.discover(issuer: URL(string: "https://auth.example.com")!, configuration: configuration(big))
            Issue.record("a 256 KiB + 1 metadata document was accepted")
        } catch {
            guard case .authentication(.authorizationFailed(.malformedResponse(let why))) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(why == "the metadata document is larger than 256 KiB")
        }
    }

    // MARK: Metrics and exclusivity

    /// One token request is one call in the metrics, even under a retrying policy and with the
    /// refresh started by a call of an API client sharing the metrics backend.
    @Test func aRefreshIsCountedAsOneCall() async throws {
        let metrics = TestMetrics()
        let transport = RecordingTransport { request throws(CourierError) in
            if request.head.path == "/oauth/token" {
                return Response(
                    status: .ok, headers: [.contentType: "application/json"], body: Data(OAuth2Fixtures.tokenJSON.utf8), url: request.url)
            }
            return Response(status: .ok, body: Data("{}".utf8), url: request.url)
        }
        var shared = Configuration(transport: transport)
        shared.metricsFactory = metrics
        shared.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .zero, maxDelay: .zero)
        let expired = TokenCredential(accessToken: "AT", refreshToken: Self.refreshToken, expiresAt: Date(timeIntervalSinceNow: -60))
        let refresher = TokenRefresher(store: InMemoryTokenStore(expired), tokenEndpoint: try Self.tokens(shared))
        var api = shared
        api.authentication = .bearer(refresher)
        api.authorizedHosts = ["api.example.com"]
        let client = Client(configuration: api)
        _ = try await client.enqueue(TestEndpoint(pathString: "/items")).resume()
        let posts = try metrics.expectCounter("courier_requests_total", [("method", "POST"), ("status_class", "2xx")])
        let gets = try metrics.expectCounter("courier_requests_total", [("method", "GET"), ("status_class", "2xx")])
        #expect(posts.totalValue == 1)
        #expect(gets.totalValue == 1)
        #expect(await transport.count == 2)
    }

    /// A refresh forced from inside the API client's `runExclusively`, its token endpoint sharing
    /// the API client's configuration, goes through: the token request is not a call on the API
    /// client, so it neither waits for the exclusive action nor is refused as a deadlock.
    @Test(.timeLimit(.minutes(1)))
    func aRefreshFromInsideTheAPIClientsExclusiveActionGoesThrough() async throws {
        let transport = OAuth2Fixtures.answering()
        let shared = Configuration(transport: transport)
        let refresher = TokenRefresher(
            store: InMemoryTokenStore(TokenCredential(accessToken: "AT", refreshToken: Self.refreshToken)),
            tokenEndpoint: try Self.tokens(shared))
        var api = shared
        api.authentication = .bearer(refresher)
        api.authorizedHosts = ["api.example.com"]
        let client = Client(configuration: api)
        let renewed = try await client.runExclusively { try await refresher.forceRefresh() }
        #expect(renewed.accessToken == "at-new")
        #expect(await transport.count == 1)
    }
}
