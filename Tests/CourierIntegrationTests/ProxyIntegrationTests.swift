#if AsyncHTTPClientLinked
    import Courier
    import CourierTesting
    import CourierTransportTestSupport
    import FlyingFox
    import Foundation
    import Testing

    /// ``AsyncHTTPClientTransport/Configuration/proxy``: requests really go to the named proxy,
    /// with its credentials, and nothing but the proxy is contacted.
    @Suite("Proxies (async-http-client)", .loopback, .timeLimit(.minutes(1)))
    struct ProxyIntegrationTests {
        /// async-http-client tunnels every request through an HTTP proxy with `CONNECT` (plain
        /// `http` too). The proxy's credentials go on the `CONNECT` only, never to the target;
        /// the target host (`api.invalid`, which no resolver knows) is never looked up or
        /// contacted by Courier. (FlyingFox, playing the proxy, answers the CONNECT and then the
        /// tunnelled request on the same connection.)
        @Test func anHTTPRequestGoesToTheProxyWithItsCredentials() async throws {
            try await TestServer.run { proxy in
                let seen = Recorder<String>()
                await proxy.route("*") { request in
                    await seen.record("\(request.method.rawValue) \(request.path) \(request.headers[HTTPHeader("Proxy-Authorization")] ?? "<none>")")
                    // A 2xx to CONNECT has no body (RFC 9110 §9.3.6): the client reads the next
                    // bytes as the tunnel's, so a body here would be parsed as the next response.
                    if request.method.rawValue == "CONNECT" { return FlyingFox.HTTPResponse(statusCode: .ok) }
                    return FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: Data(#"{"via":"proxy"}"#.utf8))
                }
                let transport = try AsyncHTTPClientTransport(
                    configuration: .init(proxy: .http(host: "127.0.0.1", port: proxy.port, username: "svc", password: "s3cret")))
                let client = Client(configuration: Configuration(transport: transport, timeout: generousTimeout))
                let endpoint = TestEndpoint(baseURL: try BaseURL(scheme: .http, host: "api.invalid"), path: try URLPath("/v1/items"))

                let response = try await client.enqueue(endpoint).resume()

                #expect(response.statusCode == 200)
                let credentials = Data("svc:s3cret".utf8).base64EncodedString()
                let values = await seen.values
                #expect(values.count == 2)
                #expect(values.first?.hasPrefix("CONNECT ") == true)
                #expect(values.first?.hasSuffix(" Basic \(credentials)") == true)
                #expect(values.last == "GET /v1/items <none>")
            }
        }

        @Test func aProxyPrintsItsUserButNeverItsPassword() {
            let proxy = AsyncHTTPClientTransport.Proxy.http(host: "proxy.example", port: 3128, username: "svc", password: "s3cret")
            #expect(proxy.description == "http://svc@proxy.example:3128")
            var dumped = ""
            dump(proxy, to: &dumped)
            #expect(!dumped.contains("s3cret"))
            #expect(AsyncHTTPClientTransport.Proxy.socks(host: "10.0.0.1").description == "socks5://10.0.0.1:1080")
        }

        @Test func aClientCertificatePrintsNoKey() {
            let identity = AsyncHTTPClientTransport.ClientCertificate(
                certificateChainPEM: Data("-----BEGIN CERTIFICATE-----".utf8), privateKeyPEM: Data("-----BEGIN PRIVATE KEY-----SECRETKEY".utf8))
            var dumped = ""
            dump(identity, to: &dumped)
            #expect(!"\(identity)".contains("SECRETKEY"))
            #expect(!dumped.contains("SECRETKEY"))
        }

        @Test func linuxDefaultsToAsyncHTTPClient() throws {
            // The default transport forwards to the platform's shared transport (outside a
            // test scope of CourierTesting).
            let platform = try #require((Configuration().transport as? DefaultTransport)?.platform)
            #if canImport(FoundationNetworking)
                #expect(platform === AsyncHTTPClientTransport.shared)
            #else
                #expect(platform === URLSessionTransport.shared)
            #endif
        }
    }
#endif
