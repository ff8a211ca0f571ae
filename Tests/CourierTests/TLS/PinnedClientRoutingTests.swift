#if AsyncHTTPClientLinked
    import CourierTransportTestSupport
    import Foundation
    import Testing

    @testable import Courier

    /// `AsyncHTTPClientTransport` sends each request through the client of its host: one per
    /// pinned host (whose connections are checked against that host's pins), the shared one for
    /// every other host. The host is matched as `PinningPolicy` normalizes it.
    @Suite("Pinned client routing")
    struct PinnedClientRoutingTests {
        static func transport() throws -> AsyncHTTPClientTransport {
            let pin = PinningPolicy.Pin(publicKeyInfo: Data("key".utf8))
            let pinning = PinningPolicy(["API.Example.com.": [pin], "[::1]": [pin], "127.0.0.1": [pin]])
            return try AsyncHTTPClientTransport(configuration: .init(tls: .init(pinning: pinning)))
        }

        @Test(arguments: [
            ("https://api.example.com/v1", "api.example.com"),
            ("https://API.EXAMPLE.COM/v1", "api.example.com"),
            ("https://api.example.com./v1", "api.example.com"),
            ("https://[::1]:8443/v1", "::1"),
            ("https://127.0.0.1:8443/v1", "127.0.0.1"),
            ("http://127.0.0.1:8080/v1", "127.0.0.1"),
        ])
        func aRequestToAPinnedHostGoesThroughThatHostsClient(_ url: String, host: String) throws {
            let transport = try Self.transport()
            let pinned = try #require(transport.pinnedClients[host])
            #expect(transport.client(for: try #require(URL(string: url))) === pinned)
            #expect(transport.pinnedClients.count == 3)
        }

        @Test(arguments: [
            ("https://a.example.org/", "*.example.org"),
            ("https://b.a.EXAMPLE.org/", "*.example.org"),
            ("https://api.example.org/", "api.example.org"),
        ])
        func aRequestToASubdomainOfAWildcardGoesThroughTheWildcardsClient(_ url: String, key: String) throws {
            let pin = PinningPolicy.Pin(publicKeyInfo: Data("key".utf8))
            let transport = try AsyncHTTPClientTransport(
                configuration: .init(tls: .init(pinning: PinningPolicy(["*.example.org": [pin], "api.example.org": [pin]]))))
            #expect(transport.client(for: try #require(URL(string: url))) === transport.pinnedClients[key])
            #expect(transport.client(for: try #require(URL(string: "https://example.org/"))) === transport.client)
        }

        @Test(arguments: ["https://v2.api.example.com/", "https://example.com/", "https://[::2]/", "https://127.0.0.2/"])
        func aRequestToAnyOtherHostGoesThroughTheUnpinnedClient(_ url: String) throws {
            let transport = try Self.transport()
            #expect(transport.client(for: try #require(URL(string: url))) === transport.client)
        }
    }
#endif
