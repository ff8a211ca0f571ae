import CourierTesting
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// With `keepsURLCache: true` and `Configuration.cache` both on, `URLCache` must not answer below
/// Courier's cache: the client marks its requests, and the URLSession transport sends them with
/// `reloadIgnoringLocalCacheData`.
@Suite("Apple platforms: URLCache never answers below Courier's cache")
struct TwoCachesTests {
    struct Item: Requestable {
        var cachePolicy: CachePolicy = .useProtocolRules
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
        func path() throws(CourierError) -> URLPath { try URLPath("/item") }
        var requiresAuthorization: Bool { false }
    }

    static func client(_ transport: RecordingTransport, cache: HTTPCache?) -> Client {
        var configuration = Configuration(transport: transport)
        configuration.cache = cache
        return Client(configuration: configuration)
    }

    @Test(arguments: [CachePolicy.useProtocolRules, .reload, .returnCachedElseLoad])
    func withCouriersCacheEveryRequestIsMarkedBelowIt(policy: CachePolicy) async throws {
        let transport = RecordingTransport(status: 200, headers: HTTPFields(["Cache-Control": "no-store"]), body: Data("{}".utf8))
        let client = Self.client(transport, cache: HTTPCache())
        _ = try await client.enqueue(Item(cachePolicy: policy)).resume()
        let sent = try #require(await transport.last)
        #expect(sent.isBelowHTTPCache)
        #expect(URLSessionTransport.cachePolicy(for: sent) == .reloadIgnoringLocalCacheData)
    }

    @Test func withoutCouriersCacheTheSessionsPolicyDecides() async throws {
        let transport = RecordingTransport(status: 200, body: Data("{}".utf8))
        let client = Self.client(transport, cache: nil)
        _ = try await client.enqueue(Item()).resume()
        let sent = try #require(await transport.last)
        #expect(!sent.isBelowHTTPCache)
        #expect(URLSessionTransport.cachePolicy(for: sent) == nil)
    }

    /// A request a caller builds and sends to a transport itself is not marked.
    @Test func aRequestBuiltOutsideTheClientIsNotMarked() {
        let request = TransportRequest(
            head: .init(method: .get, scheme: "https", authority: "api.example.com", path: "/item"), timeout: .seconds(5))
        #expect(!request.isBelowHTTPCache)
        #expect(request.belowHTTPCache(true).isBelowHTTPCache)
        #expect(!request.belowHTTPCache(false).isBelowHTTPCache)
    }
}
