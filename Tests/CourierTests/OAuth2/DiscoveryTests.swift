import CourierTesting
import Foundation
import Testing

@testable import Courier
@testable import CourierOAuth

enum DiscoveryFixtures {
    static func document(issuer: String, extra: String = "") -> String {
        """
        {"issuer":"\(issuer)","authorization_endpoint":"https://auth.example.com/authorize",\
        "token_endpoint":"https://auth.example.com/oauth/token",\
        "device_authorization_endpoint":"https://auth.example.com/oauth/device",\
        "revocation_endpoint":"https://auth.example.com/oauth/revoke","jwks_uri":"https://auth.example.com/jwks",\
        "scopes_supported":["openid","profile"],"response_types_supported":["code"],\
        "grant_types_supported":["authorization_code","urn:ietf:params:oauth:grant-type:device_code"],\
        "code_challenge_methods_supported":["S256"],"token_endpoint_auth_methods_supported":["client_secret_basic","none"],\
        "authorization_response_iss_parameter_supported":true\(extra)}
        """
    }

    /// A transport that answers each path from `routes`, 404 otherwise.
    static func transport(_ routes: [String: (Int, String)]) -> RecordingTransport {
        RecordingTransport { request throws(CourierError) in
            let (status, body) = routes[request.url.path] ?? (404, "not found")
            return Response(statusCode: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8), url: request.url)
        }
    }
}

@Suite("Authorization server metadata discovery (RFC 8414, OpenID Connect)")
struct DiscoveryTests {
    @Test(
        "well-known URLs: RFC 8414 inserts before the issuer's path, OpenID appends to it",
        arguments: [
            ("https://auth.example.com", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"),
            ("https://auth.example.com/", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"),
            ("https://auth.example.com/tenant1", "/.well-known/oauth-authorization-server/tenant1", "/tenant1/.well-known/openid-configuration"),
            ("https://auth.example.com/a/b/", "/.well-known/oauth-authorization-server/a/b", "/a/b/.well-known/openid-configuration"),
            ("http://127.0.0.1:8080/realms/x", "/.well-known/oauth-authorization-server/realms/x", "/realms/x/.well-known/openid-configuration"),
        ])
    func wellKnownPaths(issuer: String, rfc8414: String, openID: String) throws {
        let (_, paths) = try AuthorizationServerMetadata.wellKnownPaths(for: URL(string: issuer)!)
        #expect(paths.map(\.rawValue) == [rfc8414, openID])
    }

    @Test(
        "an issuer that is plain http on a public host, or has a query or fragment, is refused before anything is sent",
        arguments: ["http://auth.example.com", "https://auth.example.com?x=1", "https://auth.example.com#f", "ftp://auth.example.com"])
    func badIssuer(issuer: String) async {
        let transport = DiscoveryFixtures.transport([:])
        await #expect(throws: CourierError.self) {
            _ = try await AuthorizationServerMetadata.discover(issuer: URL(string: issuer)!, configuration: Configuration(transport: transport))
        }
        #expect(await transport.count == 0)
    }

    @Test("RFC 8414 metadata is read, with every field")
    func rfc8414() async throws {
        let transport = DiscoveryFixtures.transport([
            "/.well-known/oauth-authorization-server/tenant": (200, DiscoveryFixtures.document(issuer: "https://auth.example.com/tenant"))
        ])
        let metadata = try await AuthorizationServerMetadata.discover(
            issuer: URL(string: "https://auth.example.com/tenant")!, configuration: Configuration(transport: transport))
        #expect(metadata.issuer == "https://auth.example.com/tenant")
        #expect(metadata.authorizationEndpoint?.absoluteString == "https://auth.example.com/authorize")
        #expect(metadata.tokenEndpoint?.absoluteString == "https://auth.example.com/oauth/token")
        #expect(metadata.deviceAuthorizationEndpoint?.absoluteString == "https://auth.example.com/oauth/device")
        #expect(metadata.revocationEndpoint?.absoluteString == "https://auth.example.com/oauth/revoke")
        #expect(metadata.jwksURI?.absoluteString == "https://auth.example.com/jwks")
        #expect(metadata.scopesSupported == ["openid", "profile"])
        #expect(metadata.codeChallengeMethodsSupported == ["S256"])
        #expect(metadata.tokenEndpointAuthMethodsSupported == ["client_secret_basic", "none"])
        #expect(metadata.authorizationResponseIssParameterSupported)
        #expect(await transport.count == 1)
        let request = try #require(await transport.last)
        #expect(request.head.method == .get)
        #expect(request.header("Accept") == "application/json")
    }

    @Test("a 404 at the RFC 8414 URL falls back to OpenID Connect's")
    func openIDFallback() async throws {
        let transport = DiscoveryFixtures.transport([
            "/tenant/.well-known/openid-configuration": (200, DiscoveryFixtures.document(issuer: "https://auth.example.com/tenant"))
        ])
        let metadata = try await AuthorizationServerMetadata.discover(
            issuer: URL(string: "https://auth.example.com/tenant")!, configuration: Configuration(transport: transport))
        #expect(metadata.issuer == "https://auth.example.com/tenant")
        #expect(await transport.requests.map(\.url.path) == ["/.well-known/oauth-authorization-server/tenant", "/tenant/.well-known/openid-configuration"])
    }

    @Test("404 on both URLs is the last response; a 500 stops discovery at once")
    func notFound() async throws {
        let transport = DiscoveryFixtures.transport([:])
        let notFound = await discoveryError(issuer: "https://auth.example.com", transport: transport)
        #expect(notFound?.response?.statusCode == 404)
        let failing = DiscoveryFixtures.transport(["/.well-known/oauth-authorization-server": (500, "")])
        let serverError = await discoveryError(issuer: "https://auth.example.com", transport: failing)
        #expect(serverError?.response?.statusCode == 500)
        #expect(await failing.count == 1)
    }

    @Test(
        "the document's issuer must be exactly the requested one",
        arguments: ["https://evil.example.com", "https://auth.example.com/", "https://AUTH.example.com", "https://auth.example.com/other"])
    func issuerMismatch(received: String) async throws {
        let transport = DiscoveryFixtures.transport(["/.well-known/oauth-authorization-server": (200, DiscoveryFixtures.document(issuer: received))])
        let error = await discoveryError(issuer: "https://auth.example.com", transport: transport)
        #expect(error?.authorizationFailure == .issuerMismatch(expected: "https://auth.example.com", received: received))
    }

    @Test(
        "endpoints must be https, or http on a loopback host",
        arguments: [
            (#""token_endpoint":"http://auth.example.com/token""#, "token_endpoint is not https (plain http is allowed only for loopback hosts)"),
            (#""revocation_endpoint":"https://u:p@auth.example.com/r""#, "revocation_endpoint has user-info"),
            (#""jwks_uri":"file:///etc/passwd""#, "jwks_uri is not an absolute URL with a host"),
            (#""scopes_supported":"openid""#, "scopes_supported is not an array of strings"),
            (#""authorization_response_iss_parameter_supported":"yes""#, "authorization_response_iss_parameter_supported is not a Boolean"),
            (#""issuer":7"#, "issuer is not a string"),
        ])
    func invalidFields(field: String, reason: String) {
        guard case .failure(let problem) = AuthorizationServerMetadata.parse(Data("{\(field),\"issuer\":\"https://a.example\"}".utf8)) else {
            Issue.record("parsed")
            return
        }
        #expect(problem.reason == reason)
        #expect(AuthorizationServerMetadata.reasons.contains(problem.reason))
    }

    @Test("loopback http endpoints are allowed", arguments: ["http://127.0.0.1:9000/token", "http://localhost/token", "http://[::1]:8080/token"])
    func loopback(url: String) throws {
        let metadata = try AuthorizationServerMetadata.parse(Data(#"{"issuer":"http://127.0.0.1","token_endpoint":"\#(url)"}"#.utf8)).get()
        #expect(metadata.tokenEndpoint?.absoluteString == url)
        #expect(!metadata.authorizationResponseIssParameterSupported)
    }

    @Test("a malformed document and one over 256 KiB are malformedResponse")
    func malformedAndOversized() async throws {
        let issuer = URL(string: "https://auth.example.com")!
        let malformed = DiscoveryFixtures.transport(["/.well-known/oauth-authorization-server": (200, "<html>")])
        let error = await discoveryError(issuer: issuer.absoluteString, transport: malformed)
        #expect(error?.authorizationFailure == .malformedResponse("authorization server metadata: the body is not valid JSON (or is truncated)"))
        let huge = DiscoveryFixtures.document(issuer: issuer.absoluteString) + String(repeating: " ", count: 256 << 10)
        let oversized = DiscoveryFixtures.transport(["/.well-known/oauth-authorization-server": (200, huge)])
        let tooLarge = await discoveryError(issuer: issuer.absoluteString, transport: oversized)
        #expect(tooLarge?.authorizationFailure == .malformedResponse("the metadata document is larger than 256 KiB"))
    }

    @Test("the endpoint builders use the metadata's URLs and the given client authentication")
    func builders() async throws {
        let metadata = try AuthorizationServerMetadata.parse(Data(DiscoveryFixtures.document(issuer: "https://auth.example.com").utf8)).get()
        let transport = RecordingTransport()
        let tokens = try metadata.tokenEndpoint(clientAuthentication: .publicClient(clientID: "cli"), configuration: Configuration(transport: transport))
        #expect(tokens.url.absoluteString == "https://auth.example.com/oauth/token")
        #expect(tokens.clientAuthentication == .publicClient(clientID: "cli"))
        let revocation = try metadata.revocationEndpoint(
            clientAuthentication: .publicClient(clientID: "cli"), configuration: Configuration(transport: transport))
        #expect(revocation.url.absoluteString == "https://auth.example.com/oauth/revoke")
        let flow = try metadata.deviceAuthorizationFlow(tokenEndpoint: tokens, scope: "profile", clock: TestClock())
        #expect(flow.deviceAuthorizationEndpoint.absoluteString == "https://auth.example.com/oauth/device")
        let bare = try AuthorizationServerMetadata.parse(Data(#"{"issuer":"https://a.example"}"#.utf8)).get()
        let missing = await courierError { try bare.revocationEndpoint(clientAuthentication: .publicClient(clientID: "cli")) }
        #expect(missing?.authorizationFailure == .malformedResponse("the authorization server metadata has no revocation_endpoint"))
    }
}

/// What discovering `issuer` over `transport` threw, or `nil` if it succeeded.
func discoveryError(issuer: String, transport: any Transport) async -> CourierError? {
    await courierError { try await AuthorizationServerMetadata.discover(issuer: URL(string: issuer)!, configuration: Configuration(transport: transport)) }
}
