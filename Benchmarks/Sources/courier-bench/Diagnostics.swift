import Courier
import Foundation
import HTTPTypes
import HTTPTypesFoundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Diagnostic clients, for `--clients`: each isolates one part of what Courier adds over raw
// URLSession, so a regression can be located without a profiler. Not part of the default run.

/// Courier's pipeline with no network at all: a transport that returns a canned 200 with the
/// payload and nginx's headers. CPU per request = Courier's own cost (build, validate, convert,
/// decode); its req/s is meaningless next to the network clients.
struct CourierStubClient: BenchClient {
    let label = "courier-stub"
    let client: Client
    let endpoint: GetItem

    init(port: Int) throws {
        client = Client(configuration: Configuration(transport: StubTransport()))
        endpoint = GetItem(base: try BaseURL(scheme: .http, host: "127.0.0.1", port: port))
    }

    func fetch() async throws -> Item {
        try await client.enqueue(endpoint).resume(expecting: Item.self)
    }
}

struct StubTransport: Transport {
    let headers: HTTPFields = [
        .server: "nginx/1.22.1", .date: "Mon, 01 Jan 2024 00:00:00 GMT", .contentType: "application/json",
        .contentLength: String(Payload.data.count), .lastModified: "Mon, 01 Jan 2024 00:00:00 GMT",
        .connection: "keep-alive", .eTag: "\"65920080-d4\"", .acceptRanges: "bytes",
    ]
    let body = Payload.data

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        StreamedResponse(status: .ok, headers: headers, body: ResponseBody(body), url: request.url)
    }
}

/// Courier over `URLSessionTransport(keepsURLCache: true)`: the session keeps
/// `URLSessionConfiguration.default`'s `urlCache`, as `raw` and `raw-delegate` do, where
/// `courier` (the transport's default) has none. Against `courier` it shows what the cache
/// changes on this platform.
struct CourierURLCacheClient: BenchClient {
    let label = "courier-urlcache"
    let client: Client
    let endpoint: GetItem

    init(port: Int) throws {
        client = Client(configuration: Configuration(transport: URLSessionTransport(keepsURLCache: true)))
        endpoint = GetItem(base: try BaseURL(scheme: .http, host: "127.0.0.1", port: port))
    }

    func fetch() async throws -> Item {
        try await client.enqueue(endpoint).resume(expecting: Item.self)
    }
}

/// Courier's client over a transport that uses `URLSession.data(for:)` on a session without a
/// delegate — the raw client's URLSession path. Against `raw` it shows the cost of Courier's
/// client side; against `courier` the cost of `URLSessionTransport`'s delegate machinery.
/// (Not a usable transport: without a session delegate, Linux URLSession hangs on a 401 with
/// `WWW-Authenticate: Basic`, and redirects cannot be policed.)
struct CourierDataForClient: BenchClient {
    let label = "courier-datafor"
    let client: Client
    let endpoint: GetItem

    init(port: Int) throws {
        client = Client(configuration: Configuration(transport: DataForTransport()))
        endpoint = GetItem(base: try BaseURL(scheme: .http, host: "127.0.0.1", port: port))
    }

    func fetch() async throws -> Item {
        try await client.enqueue(endpoint).resume(expecting: Item.self)
    }
}

struct DataForTransport: Transport {
    let session = URLSession(configuration: .default)

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.head.method.rawValue
        for field in request.head.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        urlRequest.timeoutInterval = max(1, request.timeout.seconds.rounded(.up))
        do {
            let (data, response) = try await session.data(for: urlRequest)
            guard let head = (response as? HTTPURLResponse)?.httpResponse else {
                throw URLError(.badServerResponse)
            }
            return StreamedResponse(status: head.status, headers: head.headerFields, body: ResponseBody(data), url: request.url)
        } catch {
            throw .transport(TransportFailure(error as? URLError ?? URLError(.unknown), url: request.url))
        }
    }
}

/// Raw URLSession driven the way `URLSessionTransport` drives it — a session-level
/// `URLSessionDataDelegate` on a serial delegate queue that collects response and body and
/// resumes a continuation on completion — but with nothing else: no Courier, no deadline timer,
/// no header conversion. Against `raw` it shows what the delegate path itself costs in
/// corelibs-foundation.
struct RawDelegateClient: BenchClient {
    let label: String
    let session: URLSession
    let collector: Collector
    let url: URL
    let decoder = JSONDecoder()

    /// - Parameter cache: `false` for the `raw-delegate-nocache` diagnostic: `urlCache = nil`.
    init(port: Int, cache: Bool = true) {
        collector = Collector()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let configuration = URLSessionConfiguration.default
        if !cache { configuration.urlCache = nil }
        label = cache ? "raw-delegate" : "raw-delegate-nocache"
        session = URLSession(configuration: configuration, delegate: collector, delegateQueue: queue)
        url = URL(string: "http://127.0.0.1:\(port)\(Payload.path)")!
    }

    func fetch() async throws -> Item {
        let task = session.dataTask(with: URLRequest(url: url))
        let (data, status): (Data, Int) = try await withCheckedThrowingContinuation { continuation in
            collector.register(task, continuation)
            task.resume()
        }
        guard status == 200 else { throw BenchError("raw-delegate: status \(status)") }
        return try decoder.decode(Item.self, from: data)
    }

    final class Collector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        // @unchecked: `pending` is only touched under `lock`.
        struct Pending {
            var continuation: CheckedContinuation<(Data, Int), any Error>
            var status = 0
            var body = Data()
        }
        private let lock = NSLock()
        private var pending: [Int: Pending] = [:]

        func register(_ task: URLSessionTask, _ continuation: CheckedContinuation<(Data, Int), any Error>) {
            lock.withLock { pending[task.taskIdentifier] = Pending(continuation: continuation) }
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            lock.withLock { pending[dataTask.taskIdentifier]?.status = status }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            lock.withLock { pending[dataTask.taskIdentifier]?.body.append(data) }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let done = lock.withLock({ pending.removeValue(forKey: task.taskIdentifier) }) else { return }
            if let error {
                done.continuation.resume(throwing: error)
            } else {
                done.continuation.resume(returning: (done.body, done.status))
            }
        }
    }
}

/// A transport called by hand with the request Courier's client sends (its three extra header
/// fields included), the body collected, the status checked and the body decoded with a
/// `JSONDecoder`: the transport's cost without `Client`.
/// - `ahc-transport`: ``AsyncHTTPClientTransport``. Between `raw-ahc` and it is the adapter;
///   between it and `courier-ahc`, Courier's pipeline.
/// - `urlsession-transport`: ``URLSessionTransport``, likewise between `raw-delegate-nocache`
///   and `courier`.
struct TransportClient: BenchClient {
    let label: String
    let transport: any Transport
    let request: TransportRequest
    let decoder = JSONDecoder()

    init(_ label: String, _ transport: any Transport, port: Int) {
        self.label = label
        self.transport = transport
        var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(port)", path: Payload.path)
        for (name, value) in RawAsyncHTTPClient.courierHeaders {
            if let name = HTTPField.Name(name) { head.headerFields.append(HTTPField(name: name, value: value)) }
        }
        request = TransportRequest(head: head, timeout: .seconds(30))
    }

    func fetch() async throws -> Item {
        let response = try await transport.send(request)
        guard response.status == .ok else { throw BenchError("\(label): status \(response.status)") }
        let body = try await response.body.collect(upTo: 32 << 20)
        return try decoder.decode(Item.self, from: body)
    }
}
