import CourierTesting
import FlyingFox
import Foundation
import Testing

@testable import Courier
@testable import CourierOAuth

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The authorization code flow end to end, on `127.0.0.1` only: a FlyingFox authorization
/// server (`/authorize` records the PKCE challenge and redirects with 302; `/token` checks the
/// verifier against it with SHA-256), Courier's ``LoopbackRedirectReceiver``, and the test as
/// the browser (raw HTTP/1.1 over sockets, following the one redirect by hand).
@Suite("Authorization code + PKCE end to end over a loopback redirect", .loopback, .timeLimit(.minutes(2)))
struct AuthorizationCodeIntegrationTests {
    static let issuer = "https://issuer.test"

    @Test("signIn: the server verifies PKCE (S256), the browser gets the success page, and the port is closed afterwards")
    func signInEndToEnd() async throws {
        try await AuthorizationServer.run { server in
            let browser = Browser()
            let credential = try await server.signIn(issuer: Self.issuer, requiresIssuer: true, browser: browser)
            #expect(credential.accessToken == "at-code-1")
            #expect(credential.refreshToken == "rt-code-1")
            #expect(credential.scope == "read write")
            let stats = await server.stats
            #expect(stats.tokenRequests == 1)
            #expect(stats.verifiedExchanges == 1)
            #expect(stats.challengeMethods == ["S256"])
            await browser.waitUntilDone()
            let page = try #require(await browser.lastPage)
            #expect(page.status == 200)
            #expect(page.body == LoopbackRedirectReceiver.defaultSuccessHTML)
            let port = try #require(await browser.redirectPort)
            #expect(RawHTTP.connect(port: port) == nil, "the receiver stopped listening")
        }
    }

    /// The sign-in goes on as soon as the redirect came, without waiting for (or cancelling) the
    /// browser closure: on Linux, cancelling a corelibs `URLSession.data(from:)` while it delivers
    /// its response deadlocks, and a closure waiting on a `Process` would hold the sign-in up.
    @Test("signIn returns once the redirect came, while the browser closure has not returned")
    func signInDoesNotWaitForTheBrowserClosure() async throws {
        try await AuthorizationServer.run { server in
            let browser = Browser()
            let hold = Latch()
            let credential = try await AuthorizationCodeFlow.signIn(
                authorizationEndpoint: server.authorizeURL, tokenEndpoint: server.tokenEndpoint, timeout: .seconds(30)
            ) { url in
                await browser.open(url)
                try await hold.wait()  // a browser that stays open, as long as the test wants
            }
            #expect(credential.accessToken == "at-code-1")
            hold.open()
        }
    }

    /// A redirect with another `state` is not this flow's: it gets the failure page and the wait
    /// goes on, with no token request. The flow is then cancelled: had the forged redirect ended
    /// it, it would have failed with `stateMismatch` instead. (No short timeout: on a loaded
    /// machine the browser's redirect once came after a 2 s timeout had closed the receiver.)
    @Test("a forged state gets the failure page, does not end the wait, and the token endpoint gets no request")
    func forgedState() async throws {
        try await AuthorizationServer.run { server in
            await server.configure { $0.forgedState = "attacker-state" }
            let browser = Browser()
            let signIn = Task {
                await Self.error { () async throws(CourierError) in
                    try await AuthorizationCodeFlow.signIn(
                        authorizationEndpoint: server.authorizeURL, tokenEndpoint: server.tokenEndpoint, timeout: .seconds(120)
                    ) { url in await browser.open(url) }
                }
            }
            await browser.waitUntilDone()
            #expect(await browser.lastPage?.status == 400)
            #expect(await browser.lastPage?.body == LoopbackRedirectReceiver.defaultFailureHTML)
            signIn.cancel()
            let error = await signIn.value
            guard case .cancelled? = error else {
                Issue.record("expected the wait to go on until cancelled, got \(String(describing: error))")
                return
            }
            #expect(await server.stats.tokenRequests == 0)
        }
    }

    /// Issue 22, item 5: a local process that requested the callback first (`code=x&state=forged`)
    /// ended the sign-in with `stateMismatch`, and the browser's real redirect that followed got
    /// "connection refused".
    @Test("forged callbacks from another local process get the failure page; the browser's redirect that follows signs in")
    func forgedCallbacksFirst() async throws {
        try await AuthorizationServer.run { server in
            let browser = Browser()
            let forged = Recorder<Int?>()
            let credential = try await AuthorizationCodeFlow.signIn(
                authorizationEndpoint: server.authorizeURL, tokenEndpoint: server.tokenEndpoint, timeout: .seconds(30)
            ) { url in
                let redirectURI = AuthorizationCodeFixtures.query(url).first { $0.name == "redirect_uri" }?.value
                let port = redirectURI.flatMap(URL.init(string:))?.port ?? 0
                for target in [
                    "/callback?code=x&state=forged", "/callback?error=access_denied&state=forged", "/callback?code=x",
                    "/callback?code=x&state=a&state=b", "/callback?%zz", "/callback",
                ] {
                    await forged.record(await RawHTTP.get(port: port, target: target)?.status)
                }
                await browser.open(url)
            }
            #expect(credential.accessToken == "at-code-1")
            #expect(await forged.values == Array(repeating: 400, count: 6))
            #expect(await server.stats.tokenRequests == 1)
            await browser.waitUntilDone()
            #expect(await browser.lastPage?.status == 200)
        }
    }

    @Test("waitForRedirect(state:) answers callbacks without that state with the failure page and returns the right one")
    func waitForRedirectWithState() async throws {
        let receiver = try LoopbackRedirectReceiver()
        defer { receiver.close() }
        async let redirect = receiver.waitForRedirect(timeout: .seconds(60), state: "s-1")
        let port = receiver.port
        #expect(await RawHTTP.get(port: port, target: "/callback?code=c&state=forged")?.status == 400)
        #expect(await RawHTTP.get(port: port, target: "/callback?state=s-1")?.status == 400)  // neither code nor error
        #expect(await RawHTTP.get(port: port, target: "/callback?code=c&state=s-1")?.status == 200)
        #expect(try await redirect.absoluteString == "http://127.0.0.1:\(port)/callback?code=c&state=s-1")
    }

    @Test("error=access_denied ends in denied with the server's description, and no token request")
    func accessDenied() async throws {
        try await AuthorizationServer.run { server in
            await server.configure { $0.error = "access_denied" }
            let error = await Self.error { () async throws(CourierError) in try await server.signIn(browser: Browser()) }
            #expect(Self.failure(error) == .denied(OAuth2Error(code: "access_denied", errorDescription: "The user declined")))
            #expect(await server.stats.tokenRequests == 0)
        }
    }

    @Test(
        "iss: a different one, or none when required, is issuerMismatch and no token request",
        arguments: [
            ("https://evil.test", AuthorizationFailure.issuerMismatch(expected: AuthorizationCodeIntegrationTests.issuer, received: "https://evil.test")),
            (nil, .issuerMismatch(expected: AuthorizationCodeIntegrationTests.issuer, received: nil)),
        ] as [(String?, AuthorizationFailure)])
    func issuerMismatch(sent: String?, expected: AuthorizationFailure) async throws {
        try await AuthorizationServer.run { server in
            await server.configure { $0.issuer = sent }
            let error = await Self.error { () async throws(CourierError) in
                try await server.signIn(issuer: Self.issuer, requiresIssuer: true, browser: Browser())
            }
            #expect(Self.failure(error) == expected)
            #expect(await server.stats.tokenRequests == 0)
        }
    }

    @Test("a verifier that does not match the challenge is refused by the server (invalid_grant)")
    func wrongVerifierRefused() async throws {
        try await AuthorizationServer.run { server in
            let receiver = try LoopbackRedirectReceiver()
            defer { receiver.close() }
            let flow = try AuthorizationCodeFlow(
                authorizationEndpoint: server.authorizeURL, tokenEndpoint: server.tokenEndpoint, redirectURI: receiver.redirectURI)
            async let redirect = receiver.waitForRedirect(timeout: .seconds(30))
            await Browser().open(flow.authorizationURL)
            let code = try flow.authorizationCode(from: try await redirect)
            let other = PKCE.makeVerifier()
            let error = await Self.error { () async throws(CourierError) in
                try await flow.tokenEndpoint.authorizationCode(code, redirectURI: flow.redirectURI, codeVerifier: other)
            }
            guard case .authentication(.refreshFailed(let failure))? = error else {
                Issue.record("expected refreshFailed, got \(String(describing: error))")
                return
            }
            #expect(failure.oauth2Error?.code == "invalid_grant")
            #expect(await server.stats.verifiedExchanges == 0)
            // The right verifier still works (the server did not spend the code on a failed check).
            let credential = try await flow.tokenEndpoint.authorizationCode(code, redirectURI: flow.redirectURI, codeVerifier: flow.codeVerifier)
            #expect(credential.accessToken == "at-code-1")
        }
    }

    @Test("the flow by hand: receiver, flow, browser, complete(with:)")
    func manualFlow() async throws {
        try await AuthorizationServer.run { server in
            let receiver = try LoopbackRedirectReceiver(callbackPath: "/oauth/done", successHTML: "<p>ok</p>", failureHTML: "<p>no</p>")
            defer { receiver.close() }
            let flow = try AuthorizationCodeFlow(
                authorizationEndpoint: server.authorizeURL, tokenEndpoint: server.tokenEndpoint, redirectURI: receiver.redirectURI,
                scope: "read")
            let browser = Browser()
            async let redirect = receiver.waitForRedirect(timeout: .seconds(30))
            await browser.open(flow.authorizationURL)
            let credential = try await flow.complete(with: try await redirect)
            #expect(credential.accessToken == "at-code-1")
            #expect(await browser.lastPage?.body == "<p>ok</p>")
        }
    }

    @Test("signIn times out with timedOut when no redirect comes, and stops listening")
    func timeout() async throws {
        try await AuthorizationServer.run { server in
            let opened = Recorder<URL>()
            let error = await Self.error { () async throws(CourierError) in
                try await AuthorizationCodeFlow.signIn(
                    authorizationEndpoint: server.authorizeURL, tokenEndpoint: server.tokenEndpoint, timeout: .milliseconds(300)
                ) { url in await opened.record(url) }
            }
            #expect(Self.failure(error) == .timedOut)
            let url = try #require(await opened.values.first)
            let redirectURI = try #require(AuthorizationCodeFixtures.query(url).first { $0.name == "redirect_uri" }?.value.flatMap(URL.init(string:)))
            #expect(RawHTTP.connect(port: try #require(redirectURI.port)) == nil)
        }
    }

    @Test("a browser that cannot be opened ends signIn with unavailable, and the receiver stops listening")
    func browserFails() async throws {
        struct NoBrowser: Error {}
        let opened = Recorder<URL>()
        let error = await Self.error { () async throws(CourierError) in
            try await AuthorizationCodeFlow.signIn(
                authorizationEndpoint: URL(string: "http://127.0.0.1:9/authorize")!,
                tokenEndpoint: OAuth2TokenEndpoint(
                    baseURL: try BaseURL(scheme: .http, host: "127.0.0.1", port: 9), path: try URLPath("/token"),
                    clientAuthentication: .publicClient(clientID: "cli"))
            ) { url in
                await opened.record(url)
                throw NoBrowser()
            }
        }
        guard case .unavailable? = Self.failure(error) else {
            Issue.record("expected unavailable, got \(String(describing: error))")
            return
        }
        let url = try #require(await opened.values.first)
        let redirectURI = try #require(AuthorizationCodeFixtures.query(url).first { $0.name == "redirect_uri" }?.value.flatMap(URL.init(string:)))
        #expect(RawHTTP.connect(port: try #require(redirectURI.port)) == nil)
    }

    @Test("cancelling signIn ends it with cancelled and closes the port at once")
    func cancellation() async throws {
        try await AuthorizationServer.run { server in
            let opened = Recorder<URL>()
            let browserOpened = Latch()
            let signIn = Task { () async -> CourierError? in
                await Self.error { () async throws(CourierError) in
                    try await AuthorizationCodeFlow.signIn(authorizationEndpoint: server.authorizeURL, tokenEndpoint: server.tokenEndpoint) { url in
                        await opened.record(url)
                        browserOpened.open()
                    }
                }
            }
            try await browserOpened.wait()
            let url = try #require(await opened.values.first)
            let port = try #require(
                AuthorizationCodeFixtures.query(url).first { $0.name == "redirect_uri" }?.value.flatMap(URL.init(string:))?.port)
            let probe = try #require(RawHTTP.connect(port: port), "listening while the flow runs")
            RawHTTP.close(probe)
            signIn.cancel()
            let error = await signIn.value
            guard case .cancelled? = error else {
                Issue.record("expected cancelled, got \(String(describing: error))")
                return
            }
            #expect(RawHTTP.connect(port: port) == nil, "connecting after cancellation is refused")
            #expect(await server.stats.tokenRequests == 0)
        }
    }

    @Test("a receiver closed during a wait ends it with cancelled; before one, its port is closed at once")
    func closing() async throws {
        let idle = try LoopbackRedirectReceiver()
        idle.close()
        #expect(RawHTTP.connect(port: idle.port) == nil)

        let receiver = try LoopbackRedirectReceiver()
        async let waited = Self.error { () async throws(CourierError) in try await receiver.waitForRedirect(timeout: .seconds(60)) }
        // Answered 404 only once the loop runs: proof that the wait has started.
        #expect(await RawHTTP.get(port: receiver.port, target: "/nothing")?.status == 404)
        receiver.close()
        guard case .cancelled? = await waited else {
            Issue.record("expected cancelled")
            return
        }
        #expect(RawHTTP.connect(port: receiver.port) == nil)
    }

    @Test("wrong paths get 404, other methods 405, bad heads 400 and 431, and the redirect after them still succeeds")
    func strayRequests() async throws {
        let receiver = try LoopbackRedirectReceiver()
        defer { receiver.close() }
        async let redirect = receiver.waitForRedirect(timeout: .seconds(60))
        let port = receiver.port
        #expect(await RawHTTP.get(port: port, target: "/favicon.ico")?.status == 404)
        #expect(await RawHTTP.get(port: port, target: "/callback/x?code=c&state=s")?.status == 404)
        #expect(await RawHTTP.request(port: port, "POST /callback?code=c HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")?.status == 405)
        #expect(await RawHTTP.request(port: port, "GARBAGE\r\n\r\n")?.status == 400)
        #expect(await RawHTTP.request(port: port, "GET http://127.0.0.1/callback HTTP/1.1\r\n\r\n")?.status == 400)
        let huge = "GET /callback?code=c HTTP/1.1\r\nX-Pad: " + String(repeating: "a", count: 9000) + "\r\n\r\n"
        #expect(await RawHTTP.request(port: port, huge)?.status == 431)
        let reply = await RawHTTP.get(port: port, target: "/callback?code=c&state=s")
        #expect(reply?.status == 200)
        #expect(reply?.headers["referrer-policy"] == "no-referrer")
        #expect(reply?.headers["cache-control"] == "no-store")
        #expect(try await redirect.absoluteString == "http://127.0.0.1:\(port)/callback?code=c&state=s")
    }

    /// The stalled connections get an hour-long head deadline here, far past the suite's time
    /// limit: a redirect that had to wait for them (or for their deadline) fails the time limit.
    /// No bound on wall time, which a loaded machine could break.
    @Test("stalled connections (slowloris) do not keep the browser's request from being read")
    func slowloris() async throws {
        let receiver = try LoopbackRedirectReceiver(
            callbackPath: "/callback", successHTML: LoopbackRedirectReceiver.defaultSuccessHTML,
            failureHTML: LoopbackRedirectReceiver.defaultFailureHTML, connectionReadTimeout: .seconds(3_600))
        defer { receiver.close() }
        async let redirect = receiver.waitForRedirect(timeout: .seconds(3_600))
        // Several connections that send half a head and then nothing; they stay open throughout.
        var stalled: [Int32] = []
        defer { stalled.forEach(RawHTTP.close) }
        for _ in 0..<5 {
            let descriptor = try #require(RawHTTP.connect(port: receiver.port))
            RawHTTP.write(descriptor, "GET /callback?code=slow&state=s HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            stalled.append(descriptor)
        }
        let silent = try #require(RawHTTP.connect(port: receiver.port))
        stalled.append(silent)
        let reply = await RawHTTP.get(port: receiver.port, target: "/callback?code=fast&state=s")
        #expect(reply?.status == 200)
        #expect(try await redirect.absoluteString.hasSuffix("code=fast&state=s"))
    }

    // MARK: - Helpers

    static func failure(_ error: CourierError?) -> AuthorizationFailure? {
        if case .authentication(.authorizationFailed(let failure))? = error { return failure }
        return nil
    }

    static func error<T>(_ body: () async throws(CourierError) -> T) async -> CourierError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }
}

/// Query items of a URL (for the tests above).
enum AuthorizationCodeFixtures {
    static func query(_ url: URL) -> [QueryItem] {
        (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { QueryItem(name: $0.name, value: $0.value) }
    }
}

/// The test's browser: opens a URL with a GET, follows one redirect (the authorization server's
/// 302 to the loopback receiver), and keeps the page it landed on.
actor Browser {
    private(set) var lastPage: RawHTTP.Reply?
    private(set) var redirectPort: Int?
    private var done = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func open(_ url: URL) async {
        defer {
            done = true
            waiters.forEach { $0.resume() }
            waiters = []
        }
        guard let first = await RawHTTP.get(url), let location = first.headers["location"], let next = URL(string: location) else { return }
        redirectPort = next.port
        lastPage = await RawHTTP.get(next)
    }

    /// Returns once ``open(_:)`` has read the last page (`signIn` does not wait for the browser).
    func waitUntilDone() async {
        if done { return }
        await withCheckedContinuation { waiters.append($0) }
    }
}

/// An OAuth2 authorization server on a FlyingFox ``TestServer``.
actor AuthorizationServer {
    struct Options: Sendable {
        /// Answer with this `state` instead of the request's.
        var forgedState: String?
        /// Answer with `error=` this instead of a code.
        var error: String?
        /// The `iss` to add to the response; `nil` adds none.
        var issuer: String? = AuthorizationCodeIntegrationTests.issuer
    }

    struct Stats: Sendable {
        var tokenRequests = 0
        var verifiedExchanges = 0
        var challengeMethods: [String] = []
    }

    private struct Grant {
        var challenge: String
        var redirectURI: String
        var clientID: String
        var used = false
    }

    private(set) var stats = Stats()
    private var options = Options()
    private var grants: [String: Grant] = [:]
    nonisolated let baseURL: BaseURL

    private init(baseURL: BaseURL) {
        self.baseURL = baseURL
    }

    nonisolated var authorizeURL: URL { URL(string: "\(baseURL)/authorize")! }

    nonisolated var tokenEndpoint: OAuth2TokenEndpoint {
        OAuth2TokenEndpoint(
            baseURL: baseURL, path: try! URLPath("/token"), clientAuthentication: .publicClient(clientID: "cli"),
            configuration: Configuration(transport: TransportKind.platformDefault.make()))
    }

    func configure(_ change: @Sendable (inout Options) -> Void) {
        change(&options)
    }

    static func run(_ body: (AuthorizationServer) async throws -> Void) async throws {
        try await TestServer.run { http in
            let server = AuthorizationServer(baseURL: http.baseURL)
            await http.route("GET /authorize") { request in
                await server.authorize(try await ReceivedRequest(request))
            }
            await http.route("POST /token") { request in
                await server.token(try await ReceivedRequest(request))
            }
            try await body(server)
        }
    }

    /// signIn with this server's endpoints, `browser` opening the URL.
    nonisolated func signIn(issuer: String? = nil, requiresIssuer: Bool = false, browser: Browser) async throws(CourierError) -> TokenCredential {
        try await AuthorizationCodeFlow.signIn(
            authorizationEndpoint: authorizeURL, tokenEndpoint: tokenEndpoint, scope: "read write", issuer: issuer,
            requiresIssuer: requiresIssuer, timeout: .seconds(30)
        ) { url in await browser.open(url) }
    }

    private static func items(_ encoded: String) -> [String: String] {
        var result: [String: String] = [:]
        for item in URLComponents(string: "http://query.example/?" + encoded)?.queryItems ?? [] { result[item.name] = item.value ?? "" }
        return result
    }

    private func authorize(_ request: ReceivedRequest) -> FlyingFox.HTTPResponse {
        let query = Self.items(request.rawQuery)
        guard query["response_type"] == "code", let redirectURI = query["redirect_uri"], let state = query["state"],
            let challenge = query["code_challenge"], let clientID = query["client_id"]
        else { return FlyingFox.HTTPResponse(statusCode: .badRequest) }
        stats.challengeMethods.append(query["code_challenge_method"] ?? "plain")
        var response: [String]
        if let error = options.error {
            response = ["error=\(error)", "error_description=The%20user%20declined"]
        } else {
            let code = "code-\(grants.count + 1)"
            grants[code] = Grant(challenge: challenge, redirectURI: redirectURI, clientID: clientID)
            response = ["code=\(code)"]
        }
        response.append("state=" + PercentEncoding.encode(options.forgedState ?? state))
        if let issuer = options.issuer { response.append("iss=" + PercentEncoding.encode(issuer)) }
        return FlyingFox.HTTPResponse(
            statusCode: HTTPStatusCode(302, phrase: "Found"), headers: [HTTPHeader("Location"): redirectURI + "?" + response.joined(separator: "&")])
    }

    private func token(_ request: ReceivedRequest) -> FlyingFox.HTTPResponse {
        stats.tokenRequests += 1
        let form = Self.items(String(decoding: request.body, as: UTF8.self))
        guard form["grant_type"] == "authorization_code", let code = form["code"], var grant = grants[code], !grant.used,
            form["redirect_uri"] == grant.redirectURI, form["client_id"] == grant.clientID,
            let verifier = form["code_verifier"],
            Self.base64URL(SHA256.hash(Data(verifier.utf8))) == grant.challenge
        else {
            return FlyingFox.HTTPResponse(
                statusCode: .badRequest, headers: [HTTPHeader("Content-Type"): "application/json"], body: Data(#"{"error":"invalid_grant"}"#.utf8))
        }
        grant.used = true
        grants[code] = grant
        stats.verifiedExchanges += 1
        let body = #"{"access_token":"at-\#(code)","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-\#(code)"}"#
        return FlyingFox.HTTPResponse(statusCode: .ok, headers: [HTTPHeader("Content-Type"): "application/json"], body: Data(body.utf8))
    }

    /// The server's own base64url (RFC 4648 §5, no padding), independent of Courier's.
    private static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var text = ""
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = 0
            for byte in chunk { value = value << 8 | Int(byte) }
            value <<= 8 * (3 - chunk.count)
            for position in 0..<(chunk.count + 1) { text.append(alphabet[(value >> (18 - 6 * position)) & 63]) }
            index += 3
        }
        return text
    }
}

/// A raw HTTP/1.1 client for `127.0.0.1`: blocking sockets with 10 s timeouts, run on threads of
/// their own so that the tests never block Swift's cooperative pool.
enum RawHTTP {
    struct Reply: Sendable {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    #if canImport(Glibc)
        static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
        static let streamType = SOCK_STREAM
    #endif

    /// A connected socket to `127.0.0.1:port`, or `nil` when the connection is refused.
    static func connect(port: Int) -> Int32? {
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { return nil }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
            var on: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Self.systemConnect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    private static func systemConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
        #if canImport(Glibc)
            Glibc.connect(descriptor, address, length)
        #elseif canImport(Musl)
            Musl.connect(descriptor, address, length)
        #else
            Darwin.connect(descriptor, address, length)
        #endif
    }

    static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #elseif canImport(Musl)
            _ = Musl.close(descriptor)
        #else
            _ = Darwin.close(descriptor)
        #endif
    }

    static func write(_ descriptor: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        #if os(Linux)
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let flags: Int32 = 0
        #endif
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, bytes.count - offset, flags) }
            guard count > 0 else { return }
            offset += count
        }
    }

    /// GETs an `http://127.0.0.1:<port>` URL.
    static func get(_ url: URL) async -> Reply? {
        guard let port = url.port else { return nil }
        var target = url.path(percentEncoded: true)
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        return await get(port: port, target: target)
    }

    static func get(port: Int, target: String) async -> Reply? {
        await request(port: port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUser-Agent: CourierTests\r\nConnection: close\r\n\r\n")
    }

    /// Sends `request` on a new connection and reads the reply until the connection closes or
    /// the body is complete.
    static func request(port: Int, _ request: String) async -> Reply? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: exchange(port: port, request))
            }
        }
    }

    private static func exchange(port: Int, _ request: String) -> Reply? {
        guard let descriptor = connect(port: port) else { return nil }
        defer { close(descriptor) }
        write(descriptor, request)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += chunk[..<count]
            if let reply = parse(received), reply.body.utf8.count >= Int(reply.headers["content-length"] ?? "") ?? Int.max { return reply }
        }
        return parse(received)
    }

    private static func parse(_ bytes: [UInt8]) -> Reply? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return nil }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, headers: headers, body: String(text[split.upperBound...]))
    }
}
