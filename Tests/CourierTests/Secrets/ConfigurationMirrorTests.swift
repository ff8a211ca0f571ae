import CourierTransportTestSupport
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 22, item 10: `dump()` of a `Configuration` printed the proxy password. The transport had
/// no mirror, and the `HTTPClient` inside it keeps the proxy's `Proxy-Authorization` value
/// (`c3ZjOnMzY3JldA==`, base64 of `svc:s3cret`). Nothing reachable by reflection from a
/// configuration may print a secret.
@Suite("Secrets: nothing reachable from a Configuration prints one")
struct ConfigurationMirrorTests {
    /// The secret's forms: as given, and base64 of `user:password` as a Basic header has it.
    static let secrets = ["s3cret", "c3ZjOnMzY3JldA==", "SECRET"]

    static func expectNoSecret(in value: Any, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in secrets {
            let leaks = renderings(of: value, containing: secret)
            #expect(leaks.isEmpty, "\(secret) in \(leaks.first ?? "")", sourceLocation: sourceLocation)
        }
    }

    #if AsyncHTTPClientLinked
        @Test("an async-http-client transport with an authenticated proxy, and a configuration holding it")
        func asyncHTTPClientTransport() throws {
            let transport = try AsyncHTTPClientTransport(
                configuration: AsyncHTTPClientTransport.Configuration(
                    idleTimeout: .seconds(5), proxy: .http(host: "proxy.internal", port: 3128, username: "svc", password: "s3cret")))
            Self.expectNoSecret(in: transport)
            Self.expectNoSecret(in: Self.configuration(transport))
            var dumped = ""
            dump(transport, to: &dumped)
            #expect(dumped.contains("AsyncHTTPClientTransport"))
        }
    #endif

    @Test("a URLSession transport whose session configuration carries credentials")
    func urlSessionTransport() {
        let session = URLSessionConfiguration.ephemeral
        session.httpAdditionalHeaders = ["Authorization": "Basic c3ZjOnMzY3JldA==", "X-Api-Key": "SECRET"]
        let transport = URLSessionTransport(configuration: session)
        Self.expectNoSecret(in: transport)
        Self.expectNoSecret(in: Self.configuration(transport))
    }

    /// A configuration with every secret-carrying member Courier knows of set.
    static func configuration(_ transport: any Transport) -> Configuration {
        Configuration(
            transport: transport, headers: [HeaderItem(name: "Authorization", value: "Bearer SECRET")],
            authentication: .basic(BasicCredential(username: "svc", password: "s3cret")), authorizedHosts: ["api.example.com"])
    }
}
