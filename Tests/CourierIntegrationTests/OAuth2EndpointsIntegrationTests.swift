import Courier
import CourierOAuth
import CourierTesting
import FlyingFox
import Foundation
import Testing

@Suite("Revocation and discovery against a real server", .loopback)
struct OAuth2EndpointsIntegrationTests {
    private static let credential = TokenCredential(
        accessToken: "AT-SECRET", refreshToken: "RT-SECRET", expiresAt: Date().addingTimeInterval(3600))

    @Test("signOut(revokingAt:) revokes the refresh token, then the access token; the server sees both")
    func revocationObserved() async throws {
        let server = DeviceAuthorizationServer(script: [], clock: TestClock())
        try await server.serve { test in
            let transport = TransportKind.platformDefault.make()
            let tokens = OAuth2TokenEndpoint(
                baseURL: test.baseURL, path: try URLPath("/token"), clientAuthentication: .publicClient(clientID: "app"),
                configuration: Configuration(transport: transport))
            let refresher = TokenRefresher(store: InMemoryTokenStore(Self.credential), tokenEndpoint: tokens)
            let revocation = OAuth2RevocationEndpoint(
                baseURL: test.baseURL, path: try URLPath("/revoke"), clientAuthentication: .publicClient(clientID: "app"),
                configuration: Configuration(transport: transport))
            var events = await refresher.events().makeAsyncIterator()
            let outcome = try await refresher.signOut(revokingAt: revocation, timeout: generousTimeout)
            #expect(await events.next() == .signedOut)
            #expect(outcome == RevocationOutcome(refreshToken: .revoked, accessToken: .revoked))
        }
        #expect(
            await server.revocations == [
                ["token": "RT-SECRET", "token_type_hint": "refresh_token", "client_id": "app"],
                ["token": "AT-SECRET", "token_type_hint": "access_token", "client_id": "app"],
            ])
    }

    @Test("signOut completes when the revocation endpoint hangs: bounded, reported as timed out, signed out at once")
    func hangingRevocation() async throws {
        let arrived = Latch()
        try await TestServer.run { server in
            await server.route("POST /revoke") { _ in
                arrived.open()
                try await suspendUntilCancelled()  // never answers; the server's stop cancels it
                return FlyingFox.HTTPResponse(statusCode: .ok)
            }
            let refresher = TokenRefresher(
                store: InMemoryTokenStore(Self.credential),
                tokenEndpoint: OAuth2TokenEndpoint(
                    baseURL: server.baseURL, path: try URLPath("/token"), clientAuthentication: .publicClient(clientID: "app")))
            let revocation = OAuth2RevocationEndpoint(
                baseURL: server.baseURL, path: try URLPath("/revoke"), clientAuthentication: .publicClient(clientID: "app"),
                configuration: Configuration(transport: TransportKind.platformDefault.make()))
            var events = await refresher.events().makeAsyncIterator()
            let signOut = Task { try await refresher.signOut(revokingAt: revocation, timeout: .milliseconds(500)) }
            try await awaitCondition("signOut returns despite the hanging endpoint") { _ = try await signOut.value }
            let outcome = try await signOut.value
            try await arrived.wait()
            #expect(await events.next() == .signedOut)
            #expect(outcome == RevocationOutcome(refreshToken: .timedOut, accessToken: .timedOut))
        }
    }

    private static func metadata(issuer: String, base: BaseURL) -> String {
        #"{"issuer":"\#(issuer)","token_endpoint":"\#(base)/token","device_authorization_endpoint":"\#(base)/device","revocation_endpoint":"\#(base)/revoke"}"#
    }

    @Test("an issuer with a path is discovered at RFC 8414's URL, and its endpoints drive a device flow")
    func pathIssuer() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        let server = DeviceAuthorizationServer(script: [approved2], clock: clock)
        try await server.serve { test in
            let issuer = "\(test.baseURL)/tenant"
            let document = Self.metadata(issuer: issuer, base: test.baseURL)
            await test.route("GET /.well-known/oauth-authorization-server/tenant") { _ in DeviceAuthorizationServer.json(200, document) }
            let transport = TransportKind.platformDefault.make()
            let metadata = try await AuthorizationServerMetadata.discover(issuer: URL(string: issuer)!, configuration: Configuration(transport: transport))
            #expect(metadata.issuer == issuer)
            let tokens = try metadata.tokenEndpoint(clientAuthentication: .publicClient(clientID: "app"), configuration: Configuration(transport: transport))
            let flow = try metadata.deviceAuthorizationFlow(tokenEndpoint: tokens, clock: clock)
            let credential = try await flow.run { _ in }
            #expect(credential.accessToken == "AT-2")
        }
    }

    @Test("without RFC 8414 metadata, the OpenID Connect document is used")
    func openIDFallback() async throws {
        let paths = Recorder<String>()
        try await TestServer.run { server in
            let issuer = "\(server.baseURL)/realms/main"
            let document = Self.metadata(issuer: issuer, base: server.baseURL)
            await server.route("GET /realms/main/.well-known/openid-configuration") { request in
                await paths.record(request.path)
                return DeviceAuthorizationServer.json(200, document)
            }
            let metadata = try await AuthorizationServerMetadata.discover(
                issuer: URL(string: issuer)!, configuration: Configuration(transport: TransportKind.platformDefault.make()))
            #expect(metadata.revocationEndpoint?.absoluteString == "\(server.baseURL)/revoke")
        }
        #expect(await paths.values == ["/realms/main/.well-known/openid-configuration"])
    }

    @Test("a document naming another issuer is an issuer mismatch")
    func issuerMismatch() async throws {
        try await TestServer.run { server in
            let document = Self.metadata(issuer: "https://evil.example", base: server.baseURL)
            await server.route("GET /.well-known/oauth-authorization-server") { _ in DeviceAuthorizationServer.json(200, document) }
            do {
                _ = try await AuthorizationServerMetadata.discover(
                    issuer: server.baseURL.url, configuration: Configuration(transport: TransportKind.platformDefault.make()))
                Issue.record("discovered")
            } catch let error as CourierError {
                guard case .authentication(.authorizationFailed(.issuerMismatch(let expected, let received))) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(expected == server.baseURL.url.absoluteString)
                #expect(received == "https://evil.example")
            }
        }
    }
}

private let approved2 = (200, #"{"access_token":"AT-2","token_type":"Bearer"}"#)
