import Courier
import CourierOAuth
import Foundation
import Testing

/// One client-authentication mode with what it must put on the wire.
struct OAuth2AuthenticationCase: Sendable, CustomTestStringConvertible {
    var authentication: OAuth2ClientAuthentication
    /// What follows the grant's parameters in the body.
    var bodySuffix: String
    /// The decoded `id:secret` of the Basic header, or `nil` when there must be no Authorization.
    var basicCredentials: String?

    var testDescription: String { authentication.description }

    static let all = [
        OAuth2AuthenticationCase(
            authentication: .basic(clientID: "app", clientSecret: "pw"),
            bodySuffix: "", basicCredentials: "app:pw"),
        OAuth2AuthenticationCase(
            authentication: .requestBody(clientID: "app", clientSecret: "pw"),
            bodySuffix: "&client_id=app&client_secret=pw", basicCredentials: nil),
        OAuth2AuthenticationCase(
            authentication: .publicClient(clientID: "app"),
            bodySuffix: "&client_id=app", basicCredentials: nil),
    ]
}

@Suite("OAuth2 token requests: method, headers and form body")
struct OAuth2TokenRequestTests {
    @Test("a refresh sends grant_type, refresh_token, then the client's body parameters, byte for byte", arguments: OAuth2AuthenticationCase.all)
    func refreshBody(mode: OAuth2AuthenticationCase) async throws {
        let transport = OAuth2Fixtures.answering()
        let endpoint = try OAuth2Fixtures.endpoint(transport, authentication: mode.authentication)
        _ = try await endpoint.refresh(OAuth2Fixtures.expiredCredential())
        let request = try #require(await transport.last)
        #expect(request.bodyText == "grant_type=refresh_token&refresh_token=rt-1" + mode.bodySuffix)
        #expect(request.basicCredentials == mode.basicCredentials)
        if mode.basicCredentials == nil {
            #expect(request.header("Authorization") == nil)
        }
    }

    @Test("client_credentials sends grant_type, scope, then the client's body parameters, byte for byte", arguments: OAuth2AuthenticationCase.all)
    func clientCredentialsBody(mode: OAuth2AuthenticationCase) async throws {
        let transport = OAuth2Fixtures.answering()
        let endpoint = try OAuth2Fixtures.endpoint(transport, authentication: mode.authentication)
        _ = try await endpoint.clientCredentials(scope: "reports.read reports.write")
        let request = try #require(await transport.last)
        #expect(request.bodyText == "grant_type=client_credentials&scope=reports.read%20reports.write" + mode.bodySuffix)
        #expect(request.basicCredentials == mode.basicCredentials)
    }

    @Test("client_credentials without scope sends grant_type and the client's parameters only", arguments: OAuth2AuthenticationCase.all)
    func clientCredentialsWithoutScope(mode: OAuth2AuthenticationCase) async throws {
        let transport = OAuth2Fixtures.answering()
        _ = try await OAuth2Fixtures.endpoint(transport, authentication: mode.authentication).clientCredentials()
        #expect(await transport.last?.bodyText == "grant_type=client_credentials" + mode.bodySuffix)
    }

    @Test("the request is a POST to the token URL with exact Content-Type and Accept, Courier's User-Agent, and nothing else but client Basic auth")
    func methodURLAndHeaders() async throws {
        let transport = OAuth2Fixtures.answering()
        _ = try await OAuth2Fixtures.endpoint(transport).refresh(OAuth2Fixtures.expiredCredential())
        let request = try #require(await transport.last)
        #expect(request.head.method == .post)
        #expect(request.head.scheme == "https")
        #expect(request.head.authority == "auth.example.com")
        #expect(request.head.path == "/oauth/token")
        #expect(request.url.absoluteString == "https://auth.example.com/oauth/token")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(request.header("Accept") == "application/json")
        #expect(request.header("User-Agent")?.hasPrefix("Courier/") == true)  // built by RequestBuilder, like every request
        #expect(request.head.headerFields.count == 3)
    }

    @Test("a token response over 1 MiB is a transient transport failure, not parsed")
    func oversizedTokenResponse() async throws {
        let padding = String(repeating: " ", count: 1 << 20)
        let transport = OAuth2Fixtures.answering(200, OAuth2Fixtures.tokenJSON + padding)
        let result: Result<TokenCredential, CourierError>
        do {
            result = .success(try await OAuth2Fixtures.endpoint(transport).refresh(OAuth2Fixtures.expiredCredential()))
        } catch {
            result = .failure(error)
        }
        guard case .failure(.authentication(.refreshFailed(let failure))) = result,
            case .transport(let transportFailure) = failure.reason, transportFailure.kind == .responseTooLarge
        else {
            Issue.record("expected a responseTooLarge refresh failure, got \(result)")
            return
        }
        #expect(!failure.isPermanent)
    }

    @Test("the endpoint's URL joins base URL and path, with a port when one is given")
    func endpointURL() throws {
        let endpoint = OAuth2TokenEndpoint(
            baseURL: try BaseURL(scheme: .http, host: "127.0.0.1", port: 8080),
            path: try URLPath("/realms/demo/token"),
            clientAuthentication: .publicClient(clientID: "app"),
            configuration: Configuration(transport: OAuth2Fixtures.answering()))
        #expect(endpoint.url.absoluteString == "http://127.0.0.1:8080/realms/demo/token")
    }

    @Test("the token request never carries the expired access token, in any header or in the body", arguments: OAuth2AuthenticationCase.all)
    func neverSendsTheAccessToken(mode: OAuth2AuthenticationCase) async throws {
        let transport = OAuth2Fixtures.answering()
        _ = try await OAuth2Fixtures.endpoint(transport, authentication: mode.authentication)
            .refresh(OAuth2Fixtures.expiredCredential())
        let request = try #require(await transport.last)
        #expect(request.header("Authorization").map { $0.hasPrefix("Basic ") } ?? true)
        #expect(!request.head.headerFields.contains { $0.value.localizedCaseInsensitiveContains("bearer") })
        #expect(!request.head.headerFields.contains { $0.value.contains("expired-access-token") })
        #expect(request.bodyText?.contains("expired-access-token") == false)
    }

    @Test("a client secret and id with reserved characters are percent-encoded exactly in the body")
    func reservedCharactersInBody() async throws {
        let transport = OAuth2Fixtures.answering()
        let endpoint = try OAuth2Fixtures.endpoint(
            transport, authentication: .requestBody(clientID: "my client", clientSecret: "s3cr=t&+ %/x"))
        _ = try await endpoint.refresh(OAuth2Fixtures.expiredCredential())
        #expect(
            await transport.last?.bodyText
                == "grant_type=refresh_token&refresh_token=rt-1&client_id=my%20client&client_secret=s3cr%3Dt%26%2B%20%25%2Fx")
    }

    @Test("Basic form-urlencodes id and secret before base64 (RFC 6749 §2.3.1), and both decode back exactly")
    func reservedCharactersInBasic() async throws {
        let transport = OAuth2Fixtures.answering()
        let endpoint = try OAuth2Fixtures.endpoint(
            transport, authentication: .basic(clientID: "my client", clientSecret: "s3cr=t&+ %/x"))
        _ = try await endpoint.refresh(OAuth2Fixtures.expiredCredential())
        let request = try #require(await transport.last)
        let pair = try #require(request.basicCredentials)
        #expect(pair == "my%20client:s3cr%3Dt%26%2B%20%25%2Fx")
        let parts = pair.split(separator: ":", omittingEmptySubsequences: false)
        #expect(parts.count == 2)
        #expect(parts.first.flatMap { String($0).removingPercentEncoding } == "my client")
        #expect(parts.last.flatMap { String($0).removingPercentEncoding } == "s3cr=t&+ %/x")
        // Form decoding (`+` means space) gives the same result, because a space was sent as %20.
        #expect(parts.last.flatMap { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding } == "s3cr=t&+ %/x")
        #expect(request.bodyText == "grant_type=refresh_token&refresh_token=rt-1")
    }

    @Test(
        "Basic with a non-ASCII id and secret encodes their UTF-8 bytes",
        arguments: [
            ("clïent", "pässwörd€", "cl%C3%AFent:p%C3%A4ssw%C3%B6rd%E2%82%AC"),
            ("应用", "密码:🔑", "%E5%BA%94%E7%94%A8:%E5%AF%86%E7%A0%81%3A%F0%9F%94%91"),
        ])
    func nonASCIIBasic(id: String, secret: String, expected: String) async throws {
        let transport = OAuth2Fixtures.answering()
        _ = try await OAuth2Fixtures.endpoint(transport, authentication: .basic(clientID: id, clientSecret: secret))
            .clientCredentials()
        let pair = try #require(await transport.last?.basicCredentials)
        #expect(pair == expected)
        #expect(pair.utf8.allSatisfy { $0 < 0x80 })
    }

    @Test("a refresh token with reserved and non-ASCII characters is percent-encoded in the body")
    func refreshTokenEncoding() async throws {
        let transport = OAuth2Fixtures.answering()
        _ = try await OAuth2Fixtures.endpoint(transport).refresh(OAuth2Fixtures.expiredCredential(refreshToken: "rt+/=&% x~é"))
        #expect(
            await transport.last?.bodyText
                == "grant_type=refresh_token&refresh_token=rt%2B%2F%3D%26%25%20x~%C3%A9&client_id=app")
    }

    @Test("scope then additional parameters come after the grant's parameters and before client_id/client_secret")
    func scopeAndAdditionalParameters() async throws {
        let transport = OAuth2Fixtures.answering()
        let endpoint = try OAuth2Fixtures.endpoint(transport, authentication: .requestBody(clientID: "app", clientSecret: "pw"))
        _ = try await endpoint.refresh(
            OAuth2Fixtures.expiredCredential(), scope: "read write",
            additionalParameters: [
                QueryItem(name: "resource", value: "https://api.example.com/v1"),
                QueryItem(name: "audience", value: "a b+c"),
                QueryItem(name: "resource", value: "https://files.example.com/"),
                QueryItem(name: "flag"),
            ])
        #expect(
            await transport.last?.bodyText == "grant_type=refresh_token&refresh_token=rt-1&scope=read%20write"
                + "&resource=https%3A%2F%2Fapi.example.com%2Fv1&audience=a%20b%2Bc&resource=https%3A%2F%2Ffiles.example.com%2F"
                + "&flag=&client_id=app&client_secret=pw")
    }

    @Test("client_credentials passes additional parameters after scope")
    func clientCredentialsAdditionalParameters() async throws {
        let transport = OAuth2Fixtures.answering()
        _ = try await OAuth2Fixtures.endpoint(transport, authentication: .basic(clientID: "app", clientSecret: "pw"))
            .clientCredentials(scope: "s", additionalParameters: [QueryItem(name: "audience", value: "https://api.example.com")])
        #expect(await transport.last?.bodyText == "grant_type=client_credentials&scope=s&audience=https%3A%2F%2Fapi.example.com")
    }

    @Test("requestToken sends any grant: password, with client_id last for a public client")
    func passwordGrant() async throws {
        let transport = OAuth2Fixtures.answering()
        _ = try await OAuth2Fixtures.endpoint(transport).requestToken(
            grantType: "password",
            parameters: [
                QueryItem(name: "username", value: "ada@example.com"),
                QueryItem(name: "password", value: "p@ss w+rd&="),
                QueryItem(name: "scope", value: "profile"),
            ])
        #expect(
            await transport.last?.bodyText
                == "grant_type=password&username=ada%40example.com&password=p%40ss%20w%2Brd%26%3D&scope=profile&client_id=app")
    }

    @Test("requestToken sends authorization_code with a PKCE code_verifier and an extension grant URI")
    func authorizationCodeAndExtensionGrants() async throws {
        let transport = OAuth2Fixtures.answering()
        let endpoint = try OAuth2Fixtures.endpoint(transport, authentication: .basic(clientID: "app", clientSecret: "pw"))
        _ = try await endpoint.requestToken(
            grantType: "authorization_code",
            parameters: [
                QueryItem(name: "code", value: "c0de"),
                QueryItem(name: "redirect_uri", value: "com.example.app:/callback"),
                QueryItem(name: "code_verifier", value: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            ])
        #expect(
            await transport.last?.bodyText == "grant_type=authorization_code&code=c0de"
                + "&redirect_uri=com.example.app%3A%2Fcallback&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        _ = try await endpoint.requestToken(
            grantType: "urn:ietf:params:oauth:grant-type:jwt-bearer",
            parameters: [QueryItem(name: "assertion", value: "a.b.c")])
        #expect(await transport.last?.bodyText == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=a.b.c")
    }

    @Test("with Basic client authentication the caller may still send client_id in the body")
    func clientIDAlongsideBasic() async throws {
        let transport = OAuth2Fixtures.answering()
        _ = try await OAuth2Fixtures.endpoint(transport, authentication: .basic(clientID: "app", clientSecret: "pw"))
            .requestToken(
                grantType: "authorization_code",
                parameters: [
                    QueryItem(name: "code", value: "c"),
                    QueryItem(name: "client_id", value: "app"),
                ])
        #expect(await transport.last?.bodyText == "grant_type=authorization_code&code=c&client_id=app")
    }

    @Test("the endpoint's timeout is the transport request's timeout", arguments: [Duration.milliseconds(1500), .seconds(7)])
    func timeoutIsPassed(timeout: Duration) async throws {
        let transport = OAuth2Fixtures.answering()
        _ = try await OAuth2Fixtures.endpoint(transport, timeout: timeout).clientCredentials()
        #expect(await transport.last?.timeout == timeout)
    }

    @Test("a zero or negative timeout is an invalid request and nothing is sent", arguments: [Duration.zero, .seconds(-1)])
    func nonPositiveTimeout(timeout: Duration) async throws {
        let transport = OAuth2Fixtures.answering()
        let endpoint = try OAuth2Fixtures.endpoint(transport, timeout: timeout)
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in try await endpoint.clientCredentials() }
        guard case .invalidRequest(.invalidTimeout(timeout))? = error else {
            Issue.record("expected invalidTimeout, got \(String(describing: error))")
            return
        }
        #expect(await transport.count == 0)
    }

    @Test("refreshing a credential without a refresh token fails with missingCredential and sends nothing", arguments: [nil, ""] as [String?])
    func refreshWithoutRefreshToken(refreshToken: String?) async throws {
        let transport = OAuth2Fixtures.answering()
        let endpoint = try OAuth2Fixtures.endpoint(transport)
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in
            try await endpoint.refresh(OAuth2Fixtures.expiredCredential(refreshToken: refreshToken))
        }
        guard case .authentication(.missingCredential)? = error else {
            Issue.record("expected missingCredential, got \(String(describing: error))")
            return
        }
        #expect(await transport.count == 0)
    }

    @Test(
        "a parameter that repeats one the grant or client authentication sets is refused, naming it but not its value",
        arguments: [
            ("refresh", "grant_type"), ("refresh", "refresh_token"), ("refreshWithScope", "scope"),
            ("body", "client_secret"), ("body", "client_id"), ("public", "client_id"),
            ("requestToken", "grant_type"), ("clientCredentialsWithScope", "scope"), ("refresh", ""),
        ])
    func reservedParameterIsRefused(call: String, name: String) async throws {
        let transport = OAuth2Fixtures.answering()
        let item = [QueryItem(name: name, value: "VALUE-MUST-NOT-LEAK")]
        let credential = OAuth2Fixtures.expiredCredential()
        let error: CourierError?
        switch call {
        case "body":
            let endpoint = try OAuth2Fixtures.endpoint(transport, authentication: .requestBody(clientID: "app", clientSecret: "pw"))
            error = await OAuth2Fixtures.error { () async throws(CourierError) in try await endpoint.clientCredentials(additionalParameters: item) }
        case "public":
            let endpoint = try OAuth2Fixtures.endpoint(transport)
            error = await OAuth2Fixtures.error { () async throws(CourierError) in try await endpoint.refresh(credential, additionalParameters: item) }
        case "requestToken":
            let endpoint = try OAuth2Fixtures.endpoint(transport)
            error = await OAuth2Fixtures.error { () async throws(CourierError) in try await endpoint.requestToken(grantType: "password", parameters: item) }
        case "refreshWithScope":
            let endpoint = try OAuth2Fixtures.endpoint(transport)
            error = await OAuth2Fixtures.error { () async throws(CourierError) in
                try await endpoint.refresh(credential, scope: "a", additionalParameters: item)
            }
        case "clientCredentialsWithScope":
            let endpoint = try OAuth2Fixtures.endpoint(transport)
            error = await OAuth2Fixtures.error { () async throws(CourierError) in
                try await endpoint.clientCredentials(scope: "a", additionalParameters: item)
            }
        default:
            let endpoint = try OAuth2Fixtures.endpoint(transport, authentication: .basic(clientID: "app", clientSecret: "pw"))
            error = await OAuth2Fixtures.error { () async throws(CourierError) in try await endpoint.refresh(credential, additionalParameters: item) }
        }
        guard case .invalidRequest(.encodingFailed(let reason, _))? = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(name.isEmpty ? reason.contains("empty name") : reason.contains("\"\(name)\""))
        #expect(!reason.contains("VALUE-MUST-NOT-LEAK"))
        #expect(await transport.count == 0)
    }

    @Test("scope in additional parameters is allowed when the scope argument is not used")
    func scopeAsAdditionalParameter() async throws {
        let transport = OAuth2Fixtures.answering()
        _ = try await OAuth2Fixtures.endpoint(transport).clientCredentials(additionalParameters: [QueryItem(name: "scope", value: "x")])
        #expect(await transport.last?.bodyText == "grant_type=client_credentials&scope=x&client_id=app")
    }

    @Test("an empty grant type is an invalid request and nothing is sent")
    func emptyGrantType() async throws {
        let transport = OAuth2Fixtures.answering()
        let endpoint = try OAuth2Fixtures.endpoint(transport)
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in try await endpoint.requestToken(grantType: "", parameters: []) }
        guard case .invalidRequest(.encodingFailed)? = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(await transport.count == 0)
    }

    @Test(
        "descriptions and dumps of the client authentication and the endpoint never show the secret",
        arguments: [
            OAuth2ClientAuthentication.basic(clientID: "app", clientSecret: "s3cr=t&+ %/x"),
            .requestBody(clientID: "app", clientSecret: "s3cr=t&+ %/x"),
        ])
    func secretIsNeverPrinted(authentication: OAuth2ClientAuthentication) throws {
        let endpoint = try OAuth2Fixtures.endpoint(OAuth2Fixtures.answering(), authentication: authentication)
        var dumped = ""
        dump(authentication, to: &dumped)
        dump(endpoint, to: &dumped)
        let texts = [
            authentication.description, String(reflecting: authentication),
            "\(authentication)", endpoint.description, String(reflecting: endpoint), dumped,
        ]
        for text in texts {
            #expect(!text.contains("s3cr"))
            #expect(text.contains("app"))
        }
        #expect(endpoint.description.contains("https://auth.example.com/oauth/token"))
        #expect(authentication.clientID == "app")
    }
}
