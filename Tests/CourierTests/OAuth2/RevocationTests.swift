import CourierTesting
import Foundation
import Testing

@testable import Courier
@testable import CourierOAuth

enum RevocationFixtures {
    static func endpoint(
        _ transport: any Transport, authentication: OAuth2ClientAuthentication = .publicClient(clientID: "app")
    ) throws(CourierError) -> OAuth2RevocationEndpoint {
        try OAuth2RevocationEndpoint(
            url: URL(string: "https://auth.example.com/oauth/revoke")!, clientAuthentication: authentication, configuration: Configuration(transport: transport)
        )
    }

    static let credential = TokenCredential(
        accessToken: "SECRET-ACCESS", refreshToken: "SECRET-REFRESH", expiresAt: OAuth2Fixtures.now.addingTimeInterval(3600))

    static func error(_ body: () async throws(CourierError) -> Void) async -> CourierError? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }
}

@Suite("Token revocation (RFC 7009)")
struct RevocationTests {
    @Test("revoke POSTs token, token_type_hint, then the client's parameters, to the revocation URL", arguments: OAuth2AuthenticationCase.all)
    func body(mode: OAuth2AuthenticationCase) async throws {
        let transport = RecordingTransport(status: 200)
        try await RevocationFixtures.endpoint(transport, authentication: mode.authentication).revoke("rt 1+", hint: .refreshToken)
        let request = try #require(await transport.last)
        #expect(request.head.method == .post)
        #expect(request.url.absoluteString == "https://auth.example.com/oauth/revoke")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(request.bodyText == "token=rt%201%2B&token_type_hint=refresh_token" + mode.bodySuffix)
        #expect(request.basicCredentials == mode.basicCredentials)
    }

    @Test("without a hint, only the token is sent")
    func noHint() async throws {
        let transport = RecordingTransport(status: 200)
        try await RevocationFixtures.endpoint(transport).revoke("at")
        #expect(await transport.last?.bodyText == "token=at&client_id=app")
    }

    @Test("any 2xx is success, whatever the body")
    func success() async throws {
        for status in [200, 204] {
            try await RevocationFixtures.endpoint(RecordingTransport(status: status, body: Data("not json".utf8))).revoke("t")
        }
    }

    @Test("400 unsupported_token_type is a permanent rejection carrying the OAuth2 error")
    func unsupportedTokenType() async throws {
        let transport = RecordingTransport(status: 400, body: Data(#"{"error":"unsupported_token_type"}"#.utf8))
        let error = await RevocationFixtures.error { () async throws(CourierError) in
            try await RevocationFixtures.endpoint(transport).revoke("t", hint: .accessToken)
        }
        let failure = try #require(OAuth2Fixtures.revocationFailure(error))
        #expect(failure.reason == .rejected)
        #expect(failure.oauth2Error == OAuth2Error(code: "unsupported_token_type"))
        #expect(failure.statusCode == 400)
        #expect(failure.isPermanent)
        #expect(
            error?.description.contains("revocation failed: the revocation endpoint rejected the request, HTTP 400, unsupported_token_type")
                == true)
    }

    @Test("503 is transient, and no answer is a transient transport failure")
    func transient() async throws {
        let unavailable = await RevocationFixtures.error { () async throws(CourierError) in
            try await RevocationFixtures.endpoint(RecordingTransport(status: 503, headers: HTTPFields(["Retry-After": "3"]))).revoke("t")
        }
        let failure = try #require(OAuth2Fixtures.revocationFailure(unavailable))
        #expect(failure.reason == .unexpectedStatus && failure.statusCode == 503 && !failure.isPermanent)
        let lost = await RevocationFixtures.error { () async throws(CourierError) in
            try await RevocationFixtures.endpoint(OAuth2Fixtures.failing(with: .transport(TransportFailure(kind: .cannotConnect)))).revoke("t")
        }
        #expect(OAuth2Fixtures.revocationFailure(lost)?.reason == .transport(TransportFailure(kind: .cannotConnect)))
    }

    @Test("an empty token is an invalid request; nothing is sent")
    func emptyToken() async throws {
        let transport = RecordingTransport(status: 200)
        let error = await RevocationFixtures.error { () async throws(CourierError) in try await RevocationFixtures.endpoint(transport).revoke("") }
        guard case .invalidRequest? = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(await transport.count == 0)
    }

    @Test(
        "a URL with a query, a fragment or user-info cannot be an endpoint",
        arguments: ["https://a.example/r?x=1", "https://a.example/r#f", "https://u:p@a.example/r", "ftp://a.example/r"])
    func badURL(url: String) {
        #expect(throws: CourierError.self) {
            _ = try OAuth2RevocationEndpoint(url: URL(string: url)!, clientAuthentication: .publicClient(clientID: "app"))
        }
    }

    @Test("the endpoint's description shows no client secret")
    func description() throws {
        let endpoint = try RevocationFixtures.endpoint(RecordingTransport(), authentication: .basic(clientID: "app", clientSecret: "SECRET-CLIENT"))
        var dumped = ""
        dump(endpoint, to: &dumped)
        #expect(!"\(endpoint) \(dumped)".contains("SECRET"))
        #expect("\(endpoint)" == #"OAuth2RevocationEndpoint(https://auth.example.com/oauth/revoke, basic(clientID: "app", clientSecret: <redacted>))"#)
    }
}

@Suite("Signing out with revocation")
struct SignOutRevocationTests {
    @Test("signOut(revokingAt:) signs out, then revokes the refresh token and the access token, and returns the outcome")
    func revokesBoth() async throws {
        let transport = RecordingTransport(status: 200)
        let refresher = TokenRefresher(store: InMemoryTokenStore(RevocationFixtures.credential), tokenEndpoint: try OAuth2Fixtures.endpoint(transport))
        _ = try await refresher.currentCredential()
        var events = await refresher.events().makeAsyncIterator()
        let outcome = try await refresher.signOut(revokingAt: try RevocationFixtures.endpoint(transport))
        #expect(await events.next() == .signedOut)
        #expect(outcome == RevocationOutcome(refreshToken: .revoked, accessToken: .revoked))
        #expect(outcome.isComplete)
        let bodies = await transport.requests.map(\.bodyText)
        #expect(
            bodies == ["token=SECRET-REFRESH&token_type_hint=refresh_token&client_id=app", "token=SECRET-ACCESS&token_type_hint=access_token&client_id=app"])
        #expect(await courierError(from: refresher.validCredential)?.isMissingCredential == true)
    }

    @Test("a credential never loaded is read from the store before it is removed, and revoked")
    func revokesUnloaded() async throws {
        let transport = RecordingTransport(status: 200)
        let store = InMemoryTokenStore(RevocationFixtures.credential)
        let refresher = TokenRefresher(store: store, tokenEndpoint: try OAuth2Fixtures.endpoint(transport))
        let outcome = try await refresher.signOut(revokingAt: try RevocationFixtures.endpoint(transport))
        #expect(outcome == RevocationOutcome(refreshToken: .revoked, accessToken: .revoked))
        #expect(await transport.count == 2)
        #expect(await store.load() == nil)
    }

    @Test("a failed revocation is returned, never thrown, the local sign-out happens all the same, and its text holds no token")
    func failureReturned() async throws {
        let transport = RecordingTransport(script: [.status(503), .status(400, body: Data(#"{"error":"unsupported_token_type"}"#.utf8))])
        let store = InMemoryTokenStore(RevocationFixtures.credential)
        let refresher = TokenRefresher(store: store, tokenEndpoint: try OAuth2Fixtures.endpoint(transport))
        _ = try await refresher.currentCredential()
        var events = await refresher.events().makeAsyncIterator()
        let outcome = try await refresher.signOut(revokingAt: try RevocationFixtures.endpoint(transport))
        #expect(await events.next() == .signedOut)
        #expect(await courierError(from: refresher.validCredential)?.isMissingCredential == true)
        #expect(await store.load() == nil)
        #expect(!outcome.isComplete)
        guard case .failed(let refreshWhy, let refreshError)? = outcome.refreshToken, case .failed(let accessWhy, _)? = outcome.accessToken else {
            Issue.record("unexpected \(outcome)")
            return
        }
        #expect(refreshWhy.contains("503"))
        #expect(accessWhy.contains("unsupported_token_type"))
        guard case .authentication(.revocationFailed)? = refreshError else {
            Issue.record("the failure itself was not kept: \(String(describing: refreshError))")
            return
        }
        var dumped = ""
        dump(outcome, to: &dumped)
        #expect(!"\(outcome) \(dumped)".contains("SECRET"))
    }

    @Test("a store that cannot remove the credential fails signOut(revokingAt:) with storeFailed after revoking all the same")
    func storeFailureThrownAfterRevoking() async throws {
        let transport = RecordingTransport(status: 200)
        let store = RevocationFailingRemovalStore(RevocationFixtures.credential)
        let refresher = TokenRefresher(store: store, tokenEndpoint: try OAuth2Fixtures.endpoint(transport))
        _ = try await refresher.currentCredential()
        let error = await RevocationFixtures.error { () async throws(CourierError) in
            try await refresher.signOut(revokingAt: try RevocationFixtures.endpoint(transport))
        }
        guard case .authentication(.storeFailed)? = error else {
            Issue.record("expected storeFailed, got \(String(describing: error))")
            return
        }
        #expect(await transport.count == 2)
        #expect(await courierError(from: refresher.validCredential)?.isMissingCredential == true)
    }

    @Test("a hanging revocation endpoint cannot hold signOut beyond its bound; the local sign-out is immediate")
    func boundedWhenHanging() async throws {
        let hanging = OAuth2HangingTransport()
        let refresher = TokenRefresher(store: InMemoryTokenStore(RevocationFixtures.credential), tokenEndpoint: try OAuth2Fixtures.endpoint(hanging))
        _ = try await refresher.currentCredential()
        var events = await refresher.events().makeAsyncIterator()
        let signOut = Task {
            try await refresher.signOut(revokingAt: try RevocationFixtures.endpoint(hanging), timeout: .milliseconds(200))
        }
        #expect(await events.next() == .signedOut)
        // Signed out while the revocation request is still hanging.
        #expect(await courierError(from: refresher.validCredential)?.isMissingCredential == true)
        #expect(try await signOut.value == RevocationOutcome(refreshToken: .timedOut, accessToken: .timedOut))
        #expect(await hanging.started == 1)
    }

    @Test("with no credential there is nothing to revoke and nothing is sent")
    func nothingToRevoke() async throws {
        let transport = RecordingTransport(status: 200)
        let refresher = TokenRefresher(store: InMemoryTokenStore(), tokenEndpoint: try OAuth2Fixtures.endpoint(transport))
        var events = await refresher.events().makeAsyncIterator()
        let outcome = try await refresher.signOut(revokingAt: try RevocationFixtures.endpoint(transport))
        #expect(await events.next() == .signedOut)
        #expect(outcome == RevocationOutcome(refreshToken: nil, accessToken: nil))
        #expect(outcome.description == "nothing to revoke")
        #expect(await transport.count == 0)
    }
}

/// A token store whose `remove()` always fails.
actor RevocationFailingRemovalStore: TokenStore {
    struct Failure: Error {}
    private var stored: TokenCredential?

    init(_ credential: TokenCredential?) { stored = credential }

    func load() async throws -> TokenCredential? { stored }
    func save(_ credential: TokenCredential) async throws { stored = credential }
    func remove() async throws { throw Failure() }
}
