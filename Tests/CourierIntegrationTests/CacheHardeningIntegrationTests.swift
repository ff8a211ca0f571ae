import FlyingFox
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Hardening III against a real server on `127.0.0.1`: the cache keys what is actually sent
/// (cookies a transport adds), and never stores a redirect's target under the URL that
/// redirected.
@Suite("HTTP cache hardening against a real server", .loopback, .timeLimit(.minutes(2)))
struct CacheHardeningIntegrationTests {
    /// Defect 1, as the audit reproduced it: URLSession's cookie jar sat below the cache, so
    /// `bob got … "vary":"auditsession=alice" … from .cache`.
    @Test("a private Vary: Cookie response is stored under the jar's cookie: the next user of the jar gets their own")
    func cookieJarUsers() async throws {
        try await TestServer.run { server in
            let origin = CacheOrigin()
            await server.route("GET /login/*") { request in
                let received = try await ReceivedRequest(request)
                _ = await origin.record(received)
                let user = received.rawPath.split(separator: "/").last.map(String.init) ?? ""
                return FlyingFox.HTTPResponse(
                    statusCode: .ok,
                    headers: HTTPHeaders([HTTPHeader("Set-Cookie"): "auditsession=\(user); Path=/", HTTPHeader("Cache-Control"): "no-store"]))
            }
            await server.route("GET /whoami") { request in
                let received = try await ReceivedRequest(request)
                let hit = await origin.record(received)
                return CacheRoutes.json(
                    ["cookie": received.header("Cookie") ?? "", "hit": String(hit)],
                    extra: [HTTPHeader("Cache-Control"): "private, max-age=60", HTTPHeader("Vary"): "Cookie"])
            }
            let configuration = URLSessionConfiguration.ephemeral
            let jar = try #require(configuration.httpCookieStorage)
            let client = Client(
                configuration: Configuration(
                    transport: URLSessionTransport(configuration: configuration), timeout: generousTimeout, cache: HTTPCache()))
            struct Who: Decodable, Equatable { var cookie: String }
            func call(_ path: String) throws -> CachedEndpoint { CachedEndpoint(base: server.baseURL, urlPath: try URLPath(path)) }
            _ = try await client.enqueue(try call("/login/alice")).resume()
            #expect(try await client.enqueue(try call("/whoami")).resume(expecting: Who.self).cookie == "auditsession=alice")
            let again = try await client.enqueue(try call("/whoami")).resume()
            #expect(again.source == .cache)
            _ = try await client.enqueue(try call("/login/bob")).resume()
            #expect(jar.cookies?.first?.value == "bob")
            let bobs = try await client.enqueue(try call("/whoami")).resume()
            #expect(bobs.source == .network)
            #expect(try bobs.decode(Who.self, using: JSONBodyDecoder()).cookie == "auditsession=bob")
            #expect(await origin.hits("/whoami") == 2)
        }
    }

    /// Defect 10: the 302 was effectively cached for the target's lifetime, under the URL that
    /// redirected, and invalidating the target never reached it.
    @Test("a redirected GET is not stored under the URL that redirected", arguments: TransportKind.allCases)
    func redirectsAreNotStoredUnderTheSource(kind: TransportKind) async throws {
        try await TestServer.run { server in
            let origin = CacheOrigin()
            await server.route("GET /moved") { request in
                _ = await origin.record(try await ReceivedRequest(request))
                return FlyingFox.HTTPResponse(statusCode: .found, headers: HTTPHeaders([HTTPHeader("Location"): "/target"]))
            }
            await server.route("GET /target") { request in
                let hit = await origin.record(try await ReceivedRequest(request))
                return CacheRoutes.json(["hit": String(hit)], extra: [HTTPHeader("Cache-Control"): "public, max-age=600"])
            }
            let client = Client(configuration: Configuration(transport: kind.make(), timeout: generousTimeout, cache: HTTPCache()))
            let moved = CachedEndpoint(base: server.baseURL, urlPath: try URLPath("/moved"))
            #expect(try await client.enqueue(moved).resume().source == .network)
            #expect(try await client.enqueue(moved).resume().source == .network)
            #expect(await origin.hits("/moved") == 2)
        }
    }
}
