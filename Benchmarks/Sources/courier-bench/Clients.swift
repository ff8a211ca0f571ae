import Courier
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One way of fetching and decoding ``Item``.
protocol BenchClient: Sendable {
    var label: String { get }
    func fetch() async throws -> Item
}

/// What an application writes without Courier: `URLSession.data(for:)`, a status check, and
/// `JSONDecoder`. Its own session over `URLSessionConfiguration.default`, like Courier's shared
/// transport, so each client has a connection pool of its own.
struct RawClient: BenchClient {
    let label: String
    let session: URLSession
    let url: URL
    let decoder = JSONDecoder()

    /// - Parameter cache: `false` for the `raw-nocache` diagnostic: `urlCache = nil`.
    init(port: Int, cache: Bool = true) {
        let configuration = URLSessionConfiguration.default
        if !cache { configuration.urlCache = nil }
        label = cache ? "raw" : "raw-nocache"
        session = URLSession(configuration: configuration)
        url = URL(string: "http://127.0.0.1:\(port)\(Payload.path)")!
    }

    func fetch() async throws -> Item {
        let (data, response) = try await session.data(for: URLRequest(url: url))
        guard let http = response as? HTTPURLResponse, http.statusCode == 200 else {
            throw BenchError("raw: unexpected response \(response)")
        }
        return try decoder.decode(Item.self, from: data)
    }
}

/// Courier over URLSession: `Client(configuration: Configuration(transport: URLSessionTransport.shared))`
/// and a plain `JSONDecoder`. (Named explicitly: `Configuration()` is async-http-client on
/// Linux, which `courier-ahc` measures.)
struct CourierClient: BenchClient {
    let label = "courier"
    let client: Client
    /// Parses its base URL on every call, as GettingStarted's endpoints do.
    let endpoint: ParsedGetItem

    init(port: Int) throws {
        client = Client(configuration: Configuration(transport: URLSessionTransport.shared))
        endpoint = ParsedGetItem(base: "http://127.0.0.1:\(port)")
    }

    func fetch() async throws -> Item {
        try await client.enqueue(endpoint).resume(expecting: Item.self)
    }
}
