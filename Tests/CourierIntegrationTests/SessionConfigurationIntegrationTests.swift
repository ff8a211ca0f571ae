import Courier
import CourierTesting
import FlyingFox
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `URLSessionTransport(configuration:)` against a real server on 127.0.0.1: which settings of
/// the caller's `URLSessionConfiguration` are honoured, which Courier overrides, and that the
/// caller's object is never changed.
@Suite("URLSession configuration", .loopback, .timeLimit(.minutes(1)))
struct SessionConfigurationIntegrationTests {
    /// A client over `URLSessionTransport(configuration:)` for `server`.
    private func client(_ configuration: URLSessionConfiguration, timeout: Duration = .seconds(20)) -> Client {
        Client(configuration: Configuration(transport: URLSessionTransport(configuration: configuration), timeout: timeout))
    }

    /// Routes `/echo` (answers with the request's headers, lower-cased names, as JSON) and
    /// `/login` (sets the cookie `session=abc123`).
    private func addRoutes(to server: TestServer) async {
        await server.route("GET /echo") { request in
            let received = try await ReceivedRequest(request)
            let body = try JSONEncoder().encode(received.headers)
            return FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: body)
        }
        await server.route("GET /login") { _ in
            FlyingFox.HTTPResponse(statusCode: .noContent, headers: [.setCookie: "session=abc123; Path=/"], body: Data())
        }
        // login → 302 + Set-Cookie → /echo, as a web login answers.
        await server.route("GET /login-redirect") { _ in
            FlyingFox.HTTPResponse(statusCode: .found, headers: [.setCookie: "session=fromredirect; Path=/", .location: "/echo"], body: Data())
        }
        // A redirect from /a/ to /b/: each path has a cookie of its own in the jar.
        await server.route("GET /a/start") { _ in
            FlyingFox.HTTPResponse(statusCode: .found, headers: [.location: "/b/echo"], body: Data())
        }
        await server.route("GET /b/echo") { request in
            let received = try await ReceivedRequest(request)
            return FlyingFox.HTTPResponse(
                statusCode: .ok, headers: [.contentType: "application/json"], body: try JSONEncoder().encode(received.headers))
        }
        // A server setting a cookie for another site.
        await server.route("GET /foreign-cookie") { _ in
            FlyingFox.HTTPResponse(
                statusCode: .noContent, headers: [.setCookie: "tracker=1; Path=/; Domain=example.com"], body: Data())
        }
    }

    /// The headers `/echo` saw.
    private func echoedHeaders(_ client: Client, _ server: TestServer, headers: [HeaderItem]? = nil) async throws -> [String: String] {
        let endpoint = try server.endpoint("/echo").with { $0.headerItems = headers }
        return try await client.enqueue(endpoint).resume(expecting: [String: String].self)
    }

    @Test func additionalHeadersReachTheServerAndTheRequestsOwnHeadersWin() async throws {
        try await TestServer.run { server in
            await addRoutes(to: server)
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpAdditionalHeaders = ["X-Client": "ios-7.2", "user-agent": "from-the-configuration", "Accept": "text/html"]

            let headers = try await echoedHeaders(client(configuration), server)

            #expect(headers["x-client"] == "ios-7.2")
            #expect(headers["user-agent"]?.hasPrefix("Courier/") == true)
            #expect(headers["accept"] == "application/json")
        }
    }

    @Test func aRepeatedHeaderArrivesAsOneFieldInOrderWithTheOthersUntouched() async throws {
        try await TestServer.run { server in
            await addRoutes(to: server)
            let sent = [
                HeaderItem(name: "X-Trace", value: "a"), HeaderItem(name: "X-Other", value: "kept"),
                HeaderItem(name: "x-trace", value: "b"), HeaderItem(name: "X-Empty", value: ""),
            ]

            let headers = try await echoedHeaders(client(.ephemeral), server, headers: sent)

            #expect(headers["x-trace"] == "a,b")
            #expect(headers["x-other"] == "kept")
            #expect(headers["accept"] == "application/json")
        }
    }

    @Test func theCallersConfigurationIsNeverChanged() throws {
        let cache = URLCache(memoryCapacity: 1024, diskCapacity: 0, diskPath: nil)
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = cache
        configuration.timeoutIntervalForRequest = 5
        configuration.httpAdditionalHeaders = ["X-Client": "1"]
        let storage = try #require(configuration.httpCookieStorage)
        let credentials = try #require(configuration.urlCredentialStorage)

        let transport = URLSessionTransport(configuration: configuration)

        #expect(configuration.urlCache === cache)
        #expect(configuration.urlCredentialStorage === credentials)
        #expect(configuration.timeoutIntervalForRequest == 5)
        #expect(configuration.httpShouldSetCookies)
        #expect(configuration.httpCookieStorage === storage)
        let used = transport.session.configuration
        #expect(used.urlCache == nil)
        #expect(used.urlCredentialStorage == nil)
        #expect(used.timeoutIntervalForRequest == 7 * 24 * 60 * 60)
        #expect(used.httpCookieStorage === storage)
        #expect(used.httpAdditionalHeaders?["X-Client"] as? String == "1")
    }

    @Test(arguments: [false, true])
    func theURLCacheIsKeptOnlyWhenAsked(keepsURLCache: Bool) {
        let cache = URLCache(memoryCapacity: 1024, diskCapacity: 0, diskPath: nil)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = cache

        let transport = URLSessionTransport(configuration: configuration, keepsURLCache: keepsURLCache)

        #expect((transport.session.configuration.urlCache === cache) == keepsURLCache)
        #expect(keepsURLCache || transport.session.configuration.urlCache == nil)
    }

    // MARK: Cookies

    @Test func aStoredCookieGoesBackWithTheNextRequest() async throws {
        try await TestServer.run { server in
            await addRoutes(to: server)
            let configuration = URLSessionConfiguration.ephemeral
            let client = client(configuration)

            _ = try await client.enqueue(server.endpoint("/login")).resume()
            let headers = try await echoedHeaders(client, server)

            #expect(headers["cookie"] == "session=abc123")
            #expect(configuration.httpCookieStorage?.cookies?.map(\.name) == ["session"])
        }
    }

    @Test func theEndpointsOwnCookieIsSentNextToTheStoredOnes() async throws {
        try await TestServer.run { server in
            await addRoutes(to: server)
            let client = client(URLSessionConfiguration.ephemeral)

            _ = try await client.enqueue(server.endpoint("/login")).resume()
            let headers = try await echoedHeaders(client, server, headers: [HeaderItem(name: "Cookie", value: "theme=dark")])

            #expect(headers["cookie"] == "theme=dark; session=abc123")
        }
    }

    @Test("a cookie a redirect sets goes with the next hop, and is stored")
    func aCookieSetByARedirectGoesToTheNextHop() async throws {
        try await TestServer.run { server in
            await addRoutes(to: server)
            let configuration = URLSessionConfiguration.ephemeral
            let client = client(configuration)

            let headers = try await client.enqueue(server.endpoint("/login-redirect")).resume(expecting: [String: String].self)

            #expect(headers["cookie"] == "session=fromredirect")
            #expect(configuration.httpCookieStorage?.cookies?.map(\.value) == ["fromredirect"])
        }
    }

    @Test("each redirect hop gets the jar's cookies for its own URL, after the caller's own cookie")
    func eachHopGetsTheJarsCookiesForItsOwnURL() async throws {
        try await TestServer.run { server in
            await addRoutes(to: server)
            let configuration = URLSessionConfiguration.ephemeral
            let jar = try #require(configuration.httpCookieStorage)
            let base = try #require(URL(string: "http://127.0.0.1:\(server.port)/"))
            for (name, path) in [("first", "/a"), ("second", "/b")] {
                jar.setCookie(try #require(HTTPCookie(properties: [.name: name, .value: "1", .path: path, .domain: "127.0.0.1", .originURL: base])))
            }
            let client = client(configuration)

            let endpoint = try server.endpoint("/a/start").with { $0.headerItems = [HeaderItem(name: "Cookie", value: "theme=dark")] }
            let headers = try await client.enqueue(endpoint).resume(expecting: [String: String].self)

            #expect(headers["cookie"] == "theme=dark; second=1")
        }
    }

    @Test("a cookie whose Domain is another site is not stored")
    func aCookieForAnotherSiteIsNotStored() async throws {
        try await TestServer.run { server in
            await addRoutes(to: server)
            let configuration = URLSessionConfiguration.ephemeral
            let client = client(configuration)

            _ = try await client.enqueue(server.endpoint("/foreign-cookie")).resume()

            #expect(configuration.httpCookieStorage?.cookies?.contains { $0.name == "tracker" } == false)
        }
    }

    @Test func withoutHTTPShouldSetCookiesCookiesAreStoredButNotSent() async throws {
        try await TestServer.run { server in
            await addRoutes(to: server)
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpShouldSetCookies = false
            let client = client(configuration)

            _ = try await client.enqueue(server.endpoint("/login")).resume()
            let headers = try await echoedHeaders(client, server, headers: [HeaderItem(name: "Cookie", value: "theme=dark")])

            #expect(headers["cookie"] == "theme=dark")
            #expect(configuration.httpCookieStorage?.cookies?.map(\.name) == ["session"])
        }
    }

    @Test func withoutACookieStorageNoCookieIsStoredOrSent() async throws {
        try await TestServer.run { server in
            await addRoutes(to: server)
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpCookieStorage = nil
            let client = client(configuration)

            _ = try await client.enqueue(server.endpoint("/login")).resume()
            let headers = try await echoedHeaders(client, server)

            #expect(headers["cookie"] == nil)
        }
    }

    @Test func anAcceptPolicyOfNeverStoresNothing() async throws {
        try await TestServer.run { server in
            await addRoutes(to: server)
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpCookieAcceptPolicy = .never
            let client = client(configuration)

            _ = try await client.enqueue(server.endpoint("/login")).resume()
            let headers = try await echoedHeaders(client, server)

            #expect(headers["cookie"] == nil)
            #expect(configuration.httpCookieStorage?.cookies?.isEmpty == true)
        }
    }

    // MARK: Timeouts

    @Test func aShortSessionTimeoutDoesNotCutALongerCallTimeout() async throws {
        try await TestServer.run { server in
            await server.route("GET /slow") { _ in
                try await Task.sleep(for: .milliseconds(1500))  // the server is slow: that is the test
                return FlyingFox.HTTPResponse(statusCode: .ok, body: Data("late".utf8))
            }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 1

            let response = try await client(configuration, timeout: .seconds(20)).enqueue(server.endpoint("/slow")).resume()

            #expect(response.body == Data("late".utf8))
        }
    }

    #if canImport(FoundationNetworking)
        /// corelibs-foundation (Swift 6.3.1) never reads `timeoutIntervalForResource`: Courier's own
        /// deadline is the only bound on the whole exchange there.
        @Test func linuxIgnoresTheResourceTimeout() async throws {
            try await TestServer.run { server in
                await server.route("GET /slow") { _ in
                    try await Task.sleep(for: .milliseconds(1500))  // the server is slow: that is the test
                    return FlyingFox.HTTPResponse(statusCode: .ok, body: Data("late".utf8))
                }
                let configuration = URLSessionConfiguration.ephemeral
                configuration.timeoutIntervalForResource = 1

                let response = try await client(configuration).enqueue(server.endpoint("/slow")).resume()

                #expect(response.body == Data("late".utf8))
            }
        }
    #endif

    // MARK: Proxies and background sessions

    /// On Linux corelibs ignores `connectionProxyDictionary` (libcurl reads `http_proxy` from the
    /// environment instead): the request goes straight to the server. On Apple platforms the
    /// dictionary routes it through the proxy.
    @Test func aProxyDictionaryRoutesThroughTheProxyOnlyOnApplePlatforms() async throws {
        try await TestServer.run { proxy in
            let proxied = Recorder<String>()
            await proxy.route("*") { request in
                await proxied.record("\(request.method.rawValue) \(request.path)")
                return FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: Data(#"{"via":"proxy"}"#.utf8))
            }
            try await TestServer.run { server in
                await addRoutes(to: server)
                let configuration = URLSessionConfiguration.ephemeral
                configuration.connectionProxyDictionary = ["HTTPEnable": 1, "HTTPProxy": "127.0.0.1", "HTTPPort": proxy.port]

                let headers = try await echoedHeaders(client(configuration), server)

                #if canImport(FoundationNetworking)
                    #expect(headers["host"] == "127.0.0.1:\(server.port)")
                    #expect(await proxied.values.isEmpty)
                #else
                    #expect(await proxied.values.count == 1)
                #endif
            }
        }
    }

    @Test func aBackgroundConfigurationIsRefusedWithATypedError() async throws {
        #if canImport(FoundationNetworking)
            let configuration = URLSessionConfiguration.default
            configuration.identifier = "com.example.background"
        #else
            let configuration = URLSessionConfiguration.background(withIdentifier: "com.example.background")
        #endif
        let client = client(configuration)
        let endpoint = TestEndpoint(baseURL: try BaseURL(scheme: .http, host: "127.0.0.1", port: 9), path: .root)

        let result = await client.enqueue(endpoint).result()

        guard case .failure(.transport(let failure)) = result else {
            Issue.record("expected a transport failure, got \(result)")
            return
        }
        #expect(failure.kind == .other)
        #expect(failure.message?.contains("background session configuration") == true)
    }
}
