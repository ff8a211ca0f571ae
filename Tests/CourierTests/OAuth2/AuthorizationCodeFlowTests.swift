import CourierTesting
import Foundation
import Testing

@testable import Courier
@testable import CourierOAuth

/// Fixtures for the authorization code suites.
enum AuthorizationCodeFixtures {
    /// RFC 7636 Appendix B.
    static let rfcVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let rfcChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let state = "af0ifjsldkj-STATE"
    static let authorize = URL(string: "https://auth.example.com/authorize")!
    static let redirectURI = URL(string: "http://127.0.0.1:53682/callback")!

    /// A flow with the RFC verifier and a fixed state, over `transport`.
    static func flow(
        _ transport: any Transport = OAuth2Fixtures.answering(),
        authorizationEndpoint: URL = authorize,
        redirectURI: URL = redirectURI,
        scope: String? = nil,
        additionalParameters: [QueryItem] = [],
        issuer: String? = nil,
        requiresIssuer: Bool = false
    ) throws(CourierError) -> AuthorizationCodeFlow {
        try AuthorizationCodeFlow(
            authorizationEndpoint: authorizationEndpoint, tokenEndpoint: OAuth2Fixtures.endpoint(transport),
            redirectURI: redirectURI, scope: scope, additionalParameters: additionalParameters,
            issuer: issuer, requiresIssuer: requiresIssuer, codeVerifier: rfcVerifier, state: state)
    }

    /// The authorization failure inside `error`, if it is `.authentication(.authorizationFailed(_))`.
    static func failure(_ error: CourierError?) -> AuthorizationFailure? {
        if case .authentication(.authorizationFailed(let failure))? = error { return failure }
        return nil
    }

    /// The error `body` throws, or `nil`.
    static func error<T>(_ body: () throws(CourierError) -> T) -> CourierError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    /// The query items of `url`, in order.
    static func query(_ url: URL) -> [QueryItem] {
        (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { QueryItem(name: $0.name, value: $0.value) }
    }
}

@Suite("Authorization code flow: PKCE, state and the authorization request")
struct AuthorizationCodeFlowTests {
    @Test("the S256 challenge of RFC 7636 Appendix B's verifier is the RFC's challenge")
    func rfc7636AppendixB() throws {
        #expect(PKCE.challenge(for: AuthorizationCodeFixtures.rfcVerifier) == AuthorizationCodeFixtures.rfcChallenge)
        let flow = try AuthorizationCodeFixtures.flow()
        #expect(flow.codeVerifier == AuthorizationCodeFixtures.rfcVerifier)
        #expect(flow.codeChallenge == AuthorizationCodeFixtures.rfcChallenge)
        #expect(flow.codeChallengeMethod == "S256")
    }

    @Test("SHA-256 and base64url agree with independent implementations (Python's hashlib and base64)")
    func digestVectors() {
        // python3 -c "import hashlib,base64; print(base64.urlsafe_b64encode(hashlib.sha256(b'...').digest()).rstrip(b'='))"
        #expect(PKCE.challenge(for: "") == "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU")
        #expect(PKCE.challenge(for: "abc") == "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0")
        #expect(PKCE.challenge(for: String(repeating: "~", count: 128)) == "zNhOm5Jyonenca7bQzzpjUpwFDVrfhrbbOGCqgWA6HU")
        #expect(PKCE.base64URL([0xFB, 0xFF]) == "-_8")
        #expect(PKCE.base64URL([0xFB]) == "-w")
    }

    @Test("a generated verifier is 64 unreserved characters, its challenge 43 base64url characters, and no two are alike")
    func generatedVerifiers() throws {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let base64URL = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var seen: Set<String> = []
        for _ in 0..<200 {
            let flow = try AuthorizationCodeFlow(
                authorizationEndpoint: AuthorizationCodeFixtures.authorize, tokenEndpoint: OAuth2Fixtures.endpoint(OAuth2Fixtures.answering()),
                redirectURI: AuthorizationCodeFixtures.redirectURI)
            #expect(flow.codeVerifier.count == 64)
            #expect(flow.codeVerifier.allSatisfy(unreserved.contains))
            #expect(flow.codeChallenge.count == 43)
            #expect(flow.codeChallenge.allSatisfy(base64URL.contains))
            #expect(flow.codeChallenge == PKCE.challenge(for: flow.codeVerifier))
            #expect(flow.state.count == 43, "32 random bytes as unpadded base64url")
            #expect(flow.state.allSatisfy(base64URL.contains))
            #expect(seen.insert(flow.codeVerifier).inserted)
            #expect(seen.insert(flow.state).inserted)
        }
    }

    @Test("verifiers use the whole alphabet, roughly uniformly")
    func verifierAlphabetCoverage() {
        var counts: [Character: Int] = [:]
        for _ in 0..<400 {
            for character in PKCE.makeVerifier() { counts[character, default: 0] += 1 }
        }
        #expect(counts.count == 66)
        // 25,600 draws over 66 characters: about 388 each; a bias as bad as modulo 256 would be
        // far outside these bounds.
        #expect(counts.values.allSatisfy { (250...530).contains($0) }, "\(counts.values.sorted())")
    }

    @Test("verifier lengths are clamped to RFC 7636's 43...128", arguments: [(0, 43), (42, 43), (43, 43), (64, 64), (128, 128), (500, 128)])
    func verifierLengths(requested: Int, expected: Int) {
        let verifier = PKCE.makeVerifier(length: requested)
        #expect(verifier.count == expected)
        #expect(PKCE.isValidVerifier(verifier))
    }

    @Test(
        "an injected verifier that RFC 7636 does not allow is refused",
        arguments: ["short", String(repeating: "a", count: 129), String(repeating: "a", count: 42) + "+", String(repeating: "é", count: 43)])
    func invalidInjectedVerifier(verifier: String) throws {
        let error = AuthorizationCodeFixtures.error { () throws(CourierError) in
            try AuthorizationCodeFlow(
                authorizationEndpoint: AuthorizationCodeFixtures.authorize, tokenEndpoint: OAuth2Fixtures.endpoint(OAuth2Fixtures.answering()),
                redirectURI: AuthorizationCodeFixtures.redirectURI, scope: nil, additionalParameters: [], issuer: nil,
                requiresIssuer: false, codeVerifier: verifier, state: "s")
        }
        guard case .invalidRequest(.encodingFailed)? = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
    }

    @Test("the authorization URL holds Courier's parameters in order, then the additional ones, all percent-encoded")
    func authorizationURL() throws {
        let flow = try AuthorizationCodeFixtures.flow(
            scope: "openid profile",
            additionalParameters: [QueryItem(name: "prompt", value: "consent"), QueryItem(name: "login_hint", value: "a+b@example.com")])
        let url = flow.authorizationURL
        #expect(
            url.absoluteString
                == "https://auth.example.com/authorize?response_type=code&client_id=app"
                + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A53682%2Fcallback&scope=openid%20profile&state=af0ifjsldkj-STATE"
                + "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256"
                + "&prompt=consent&login_hint=a%2Bb%40example.com")
        let items = AuthorizationCodeFixtures.query(url)
        #expect(items.first { $0.name == "redirect_uri" }?.value == "http://127.0.0.1:53682/callback")
        #expect(items.first { $0.name == "login_hint" }?.value == "a+b@example.com")
        #expect(!url.absoluteString.contains(AuthorizationCodeFixtures.rfcVerifier), "the verifier never leaves the client before the exchange")
    }

    @Test("the authorization endpoint's own query comes first and is kept as it was")
    func existingQueryKept() throws {
        let flow = try AuthorizationCodeFixtures.flow(
            authorizationEndpoint: URL(string: "https://auth.example.com/oauth2/v2/authorize?tenant=a%20b&p=B2C_1_signin")!)
        #expect(flow.authorizationURL.absoluteString.hasPrefix("https://auth.example.com/oauth2/v2/authorize?tenant=a%20b&p=B2C_1_signin&response_type=code&"))
    }

    @Test("without a scope, no scope parameter is sent and an additional scope is allowed")
    func noScope() throws {
        let flow = try AuthorizationCodeFixtures.flow()
        #expect(!AuthorizationCodeFixtures.query(flow.authorizationURL).contains { $0.name == "scope" })
        let withExtra = try AuthorizationCodeFixtures.flow(additionalParameters: [QueryItem(name: "scope", value: "x")])
        #expect(AuthorizationCodeFixtures.query(withExtra.authorizationURL).filter { $0.name == "scope" }.count == 1)
    }

    @Test(
        "an additional parameter (or the endpoint's query) repeating one the flow sets is refused, naming it",
        arguments: ["response_type", "client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method", "scope", ""])
    func reservedParameters(name: String) throws {
        let viaParameters = AuthorizationCodeFixtures.error { () throws(CourierError) in
            try AuthorizationCodeFlow(
                authorizationEndpoint: AuthorizationCodeFixtures.authorize, tokenEndpoint: OAuth2Fixtures.endpoint(OAuth2Fixtures.answering()),
                redirectURI: AuthorizationCodeFixtures.redirectURI, scope: "read", additionalParameters: [QueryItem(name: name, value: "x")])
        }
        guard case .invalidRequest(.encodingFailed(let reason, _))? = viaParameters else {
            Issue.record("expected encodingFailed, got \(String(describing: viaParameters))")
            return
        }
        #expect(name.isEmpty ? reason.contains("empty name") : reason.contains(name.debugDescription))
        guard !name.isEmpty else { return }
        let viaEndpoint = AuthorizationCodeFixtures.error { () throws(CourierError) in
            try AuthorizationCodeFlow(
                authorizationEndpoint: URL(string: "https://auth.example.com/authorize?\(name)=x")!,
                tokenEndpoint: OAuth2Fixtures.endpoint(OAuth2Fixtures.answering()),
                redirectURI: AuthorizationCodeFixtures.redirectURI, scope: "read")
        }
        guard case .invalidRequest(.encodingFailed)? = viaEndpoint else {
            Issue.record("expected encodingFailed, got \(String(describing: viaEndpoint))")
            return
        }
    }

    @Test("an authorization endpoint with a fragment is refused (RFC 6749 §3.1)")
    func fragmentRefused() throws {
        let error = AuthorizationCodeFixtures.error { () throws(CourierError) in
            try AuthorizationCodeFixtures.flow(authorizationEndpoint: URL(string: "https://auth.example.com/authorize#x")!)
        }
        guard case .invalidRequest(.invalidURL)? = error else {
            Issue.record("expected invalidURL, got \(String(describing: error))")
            return
        }
    }

    @Test("requiresIssuer without an issuer is refused when the flow is made, not silently ignored")
    func requiresIssuerNeedsIssuer() {
        let error = AuthorizationCodeFixtures.error { () throws(CourierError) in try AuthorizationCodeFixtures.flow(requiresIssuer: true) }
        guard case .invalidRequest(.encodingFailed)? = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
    }

    @Test("description, String(reflecting:), dump and string interpolation never show the verifier, the challenge or the state")
    func descriptionsHideSecrets() throws {
        let flow = try AuthorizationCodeFixtures.flow(
            authorizationEndpoint: URL(string: "https://auth.example.com/authorize?tenant=t")!)
        var dumped = ""
        dump(flow, to: &dumped)
        let texts = [flow.description, dumped, "\(flow)", String(reflecting: flow)]
        for text in texts {
            #expect(!text.contains(AuthorizationCodeFixtures.rfcVerifier))
            #expect(!text.contains(AuthorizationCodeFixtures.rfcChallenge))
            #expect(!text.contains(AuthorizationCodeFixtures.state))
        }
        #expect(flow.description == #"AuthorizationCodeFlow(https://auth.example.com/authorize?…, clientID: "app")"#)
        #expect(dumped.contains("clientID"))
    }

    @Test(
        "complete(with:) exchanges the code: grant_type, code, redirect_uri, code_verifier, then the client's parameters",
        arguments: OAuth2AuthenticationCase.all)
    func completeSendsTheExchange(mode: OAuth2AuthenticationCase) async throws {
        let transport = OAuth2Fixtures.answering()
        let flow = try AuthorizationCodeFlow(
            authorizationEndpoint: AuthorizationCodeFixtures.authorize,
            tokenEndpoint: OAuth2Fixtures.endpoint(transport, authentication: mode.authentication),
            redirectURI: AuthorizationCodeFixtures.redirectURI, scope: "read", additionalParameters: [], issuer: nil, requiresIssuer: false,
            codeVerifier: AuthorizationCodeFixtures.rfcVerifier, state: AuthorizationCodeFixtures.state)
        let credential = try await flow.complete(
            with: URL(string: "http://127.0.0.1:53682/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkj-STATE")!)
        #expect(credential.accessToken == "at-new")
        #expect(credential.refreshToken == "rt-new")
        #expect(credential.scope == "read", "a response without scope granted the requested one (RFC 6749 §5.1)")
        let request = try #require(await transport.last)
        #expect(request.head.method == .post)
        #expect(
            request.bodyText
                == "grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA&redirect_uri=http%3A%2F%2F127.0.0.1%3A53682%2Fcallback"
                + "&code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk" + mode.bodySuffix)
        #expect(request.basicCredentials == mode.basicCredentials)
    }

    @Test(
        "a redirect that fails a check sends no token request",
        arguments: [
            "http://127.0.0.1:53682/callback?code=c&state=forged",
            "http://127.0.0.1:53682/callback?error=access_denied&state=af0ifjsldkj-STATE",
            "http://127.0.0.1:53682/callback?state=af0ifjsldkj-STATE",
            "http://127.0.0.1:53682/other?code=c&state=af0ifjsldkj-STATE",
        ])
    func failedCheckSendsNothing(redirect: String) async throws {
        let transport = OAuth2Fixtures.answering()
        let flow = try AuthorizationCodeFixtures.flow(transport)
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in try await flow.complete(with: URL(string: redirect)!) }
        #expect(AuthorizationCodeFixtures.failure(error) != nil)
        #expect(await transport.count == 0)
    }

    @Test("a rejected code (invalid_grant) is the token endpoint's permanent refreshFailed")
    func rejectedCode() async throws {
        let flow = try AuthorizationCodeFixtures.flow(OAuth2Fixtures.answering(400, #"{"error":"invalid_grant"}"#))
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in
            try await flow.complete(with: URL(string: "http://127.0.0.1:53682/callback?code=c&state=af0ifjsldkj-STATE")!)
        }
        let failure = try #require(OAuth2Fixtures.refreshFailure(error))
        #expect(failure.oauth2Error?.code == "invalid_grant")
        #expect(failure.isPermanent)
    }

    @Test("OAuth2TokenEndpoint.authorizationCode refuses an empty code without sending, and sends no code_verifier when given none")
    func tokenEndpointAuthorizationCode() async throws {
        let transport = OAuth2Fixtures.answering()
        let endpoint = try OAuth2Fixtures.endpoint(transport)
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in
            try await endpoint.authorizationCode("", redirectURI: AuthorizationCodeFixtures.redirectURI, codeVerifier: "v")
        }
        guard case .invalidRequest(.encodingFailed)? = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(await transport.count == 0)
        _ = try await endpoint.authorizationCode("c", redirectURI: URL(string: "com.example.app:/cb")!, codeVerifier: nil)
        #expect(await transport.last?.bodyText == "grant_type=authorization_code&code=c&redirect_uri=com.example.app%3A%2Fcb&client_id=app")
    }
}
