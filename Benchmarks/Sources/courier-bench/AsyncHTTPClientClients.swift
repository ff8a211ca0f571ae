import AsyncHTTPClient
import Courier
import Foundation
import NIOCore

/// What a server-side application writes without Courier: async-http-client's
/// `HTTPClient.execute`, the body collected, a status check and `JSONDecoder`, on a client of its
/// own configured like Courier's (no redirects followed, gzip decoded).
///
/// `raw-ahc-headers` (a diagnostic) also sends the three header fields Courier adds to every
/// request: `Accept: application/json`, `User-Agent` and `Accept-Encoding: gzip`.
final class RawAsyncHTTPClient: BenchClient {
    let label: String
    let client: HTTPClient
    let url: String
    let headers: [(String, String)]
    let decoder = JSONDecoder()

    init(port: Int, sendsCourierHeaders: Bool = false) {
        client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .enabled(limit: .none)))
        url = "http://127.0.0.1:\(port)\(Payload.path)"
        label = sendsCourierHeaders ? "raw-ahc-headers" : "raw-ahc"
        headers = sendsCourierHeaders ? Self.courierHeaders : []
    }

    /// The header fields Courier adds to `courier-ahc`'s request (`raw-ahc-headers`, `ahc-transport`).
    static let courierHeaders = [("Accept", "application/json"), ("User-Agent", Configuration.defaultUserAgent), ("Accept-Encoding", "gzip")]

    deinit {
        let client = client
        Task { try? await client.shutdown() }
    }

    func fetch() async throws -> Item {
        var request = HTTPClientRequest(url: url)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(30))
        guard response.status == .ok else { throw BenchError("\(label): status \(response.status)") }
        let body = try await response.body.collect(upTo: 32 << 20)
        return try decoder.decode(Item.self, from: Data(body.readableBytesView))
    }
}

/// Courier over ``AsyncHTTPClientTransport``, a transport of its own: `courier-ahc` with
/// ``ParsedGetItem`` (its base URL parsed on every call, as GettingStarted's endpoints do),
/// `courier-ahc-static` with ``GetItem`` (a `BaseURL` built once): what parsing costs a call.
struct CourierAsyncHTTPClient<Endpoint: Requestable>: BenchClient {
    let label: String
    let client: Client
    let endpoint: Endpoint

    func fetch() async throws -> Item {
        try await client.enqueue(endpoint).resume(expecting: Item.self)
    }
}

extension CourierAsyncHTTPClient<ParsedGetItem> {
    init(port: Int) {
        self.init(
            label: "courier-ahc", client: Client(configuration: Configuration(transport: AsyncHTTPClientTransport())),
            endpoint: ParsedGetItem(base: "http://127.0.0.1:\(port)"))
    }
}

extension CourierAsyncHTTPClient<GetItem> {
    init(staticPort port: Int) throws {
        self.init(
            label: "courier-ahc-static", client: Client(configuration: Configuration(transport: AsyncHTTPClientTransport())),
            endpoint: GetItem(base: try BaseURL(scheme: .http, host: "127.0.0.1", port: port)))
    }
}

/// `courier-ahc` with an ``HTTPCache`` holding the response, stored `no-cache`: every call sends
/// a conditional request and gets `304`, then decodes the stored body.
struct CourierRevalidatingClient: BenchClient {
    let label = "courier-ahc-304"
    let client: Client
    let endpoint: GetItem

    init(port: Int) throws {
        client = Client(configuration: Configuration(transport: AsyncHTTPClientTransport(), cache: HTTPCache()))
        endpoint = GetItem(base: try BaseURL(scheme: .http, host: "127.0.0.1", port: port), pathString: Payload.revalidatedPath)
    }

    func fetch() async throws -> Item {
        try await client.enqueue(endpoint).resume(expecting: Item.self)
    }
}

/// `raw-ahc` sending the conditional request `courier-ahc-304` sends, and getting `304`: what the
/// exchange itself costs, to set beside `raw-ahc`'s `200`. Nothing is decoded; it returns the item
/// decoded once, up front.
final class RawAsyncHTTPClient304: BenchClient {
    let label = "raw-ahc-304"
    let client: HTTPClient
    let url: String
    let tag: String
    let item: Item

    init(port: Int, tag: String) throws {
        client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, decompression: .enabled(limit: .none)))
        url = "http://127.0.0.1:\(port)\(Payload.revalidatedPath)"
        self.tag = tag
        item = try JSONDecoder().decode(Item.self, from: Payload.data)
    }

    deinit {
        let client = client
        Task { try? await client.shutdown() }
    }

    func fetch() async throws -> Item {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "If-None-Match", value: tag)
        let response = try await client.execute(request, timeout: .seconds(30))
        guard response.status == .notModified else { throw BenchError("raw-ahc-304: status \(response.status)") }
        _ = try await response.body.collect(upTo: 32 << 20)
        return item
    }
}

/// Courier without a cache sending `raw-ahc-304`'s conditional request itself and taking the `304`
/// as it is (`resume()`, nothing decoded; it returns the item decoded once, up front): what
/// Courier's call costs around a `304` exchange, to set beside `raw-ahc-304`, apart from the cache.
struct CourierConditionalClient: BenchClient {
    struct Conditional: Requestable {
        let base: BaseURL
        let tag: String
        var requiresAuthorization: Bool { false }
        var headerItems: [HeaderItem]? { [HeaderItem(name: "If-None-Match", value: tag)] }
        var acceptableStatusCodes: Set<Int> { [304] }
        func baseURL() throws(CourierError) -> BaseURL { base }
        func path() throws(CourierError) -> URLPath { try URLPath(Payload.revalidatedPath) }
    }

    let label = "courier-ahc-304-nocache"
    let client: Client
    let endpoint: Conditional
    let item: Item

    init(port: Int, tag: String) throws {
        client = Client(configuration: Configuration(transport: AsyncHTTPClientTransport()))
        endpoint = Conditional(base: try BaseURL(scheme: .http, host: "127.0.0.1", port: port), tag: tag)
        item = try JSONDecoder().decode(Item.self, from: Payload.data)
    }

    func fetch() async throws -> Item {
        _ = try await client.enqueue(endpoint).resume()
        return item
    }
}
