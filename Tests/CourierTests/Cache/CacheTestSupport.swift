import Foundation
import HTTPTypes

@testable import Courier

/// A fixed moment: Sun, 06 Nov 1994 08:49:37 GMT, the RFC's example date.
let cacheEpoch = Date(timeIntervalSince1970: 784_111_777)

/// Fields from name-value pairs, in order (a name may repeat).
func cacheFields(_ pairs: [(String, String)]) -> HTTPFields {
    var fields = HTTPFields()
    for (name, value) in pairs {
        fields.append(HTTPField(name: HTTPField.Name(name)!, value: value))
    }
    return fields
}

/// A response with this status and these fields.
func cacheResponse(_ status: Int = 200, _ pairs: [(String, String)] = []) -> HTTPResponse {
    HTTPResponse(status: .init(code: status), headerFields: cacheFields(pairs))
}

/// A request for `https://example.com<path>` with this method and these fields.
func cacheRequest(_ method: HTTPRequest.Method = .get, path: String = "/a", _ pairs: [(String, String)] = [])
    -> HTTPRequest
{
    HTTPRequest(method: method, scheme: "https", authority: "example.com", path: path, headerFields: cacheFields(pairs))
}

/// An entry for `https://example.com<path>` received at `cacheEpoch` (sent one second before).
func cacheEntry(
    path: String = "/a", partition: String = "", status: Int = 200, _ pairs: [(String, String)] = [],
    body: String = "body", variant: CacheVariant = .none, receivedAt: Date = cacheEpoch
) -> CacheEntry {
    CacheEntry(
        key: CacheKey(url: "https://example.com\(path)", partition: partition), variant: variant,
        response: cacheResponse(status, pairs), body: Data(body.utf8),
        requestTime: receivedAt.addingTimeInterval(-1), responseTime: receivedAt)
}

/// An HTTP-date `seconds` after `cacheEpoch`.
func cacheDate(_ seconds: Int) -> String {
    let date = cacheEpoch.addingTimeInterval(TimeInterval(seconds))
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}

/// A new, empty folder under the temporary directory.
func cacheTemporaryDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("courier-cache-\(UUID().uuidString)")
}

/// A server in a closure: counts requests per path and answers what `answer` says.
final class CacheOrigin: Transport, StoredCookieSource {
    let requests = LockedState<[TransportRequest]>([])
    let answer: @Sendable (TransportRequest, Int) throws(CourierError) -> StreamedResponse

    /// None: the origin is the server; no cookie storage sits between it and the cache.
    func storedCookieHeader(for url: URL) -> String? { nil }

    init(answer: @escaping @Sendable (TransportRequest, Int) throws(CourierError) -> StreamedResponse) {
        self.answer = answer
    }

    /// Answers every request with `status`, `headers` and a body naming the request's number.
    convenience init(status: Int = 200, headers: [String: String]) {
        self.init { request, number in
            StreamedResponse(statusCode: status, headers: headers, body: Data("body \(number)".utf8), url: request.url)
        }
    }

    var count: Int { requests.withLock { $0.count } }
    var last: TransportRequest? { requests.withLock { $0.last } }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let number = requests.withLock { requests in
            requests.append(request)
            return requests.count
        }
        return try answer(request, number)
    }
}

/// A `GET` of `https://api.example.com<pathString>`, with what a cache test changes.
struct CacheResource: Requestable {
    var pathString = "/r"
    var method: HTTPMethod = .get
    var headerItems: [HeaderItem]?
    var queryItems: [QueryItem]?
    var cachePolicy: CachePolicy = .useProtocolRules
    var requiresAuthorization = false

    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath(pathString) }
}

/// What the cache suites share: a wall clock that moves only when a test moves it, and caches
/// and clients on it.
protocol CacheSuite {
    var clock: CacheTestClock { get }
}

extension CacheSuite {
    /// A 1 MiB cache in memory on ``clock``.
    func memoryCache(staleWhileRevalidate: Bool = false, staleIfError: Bool = false) -> HTTPCache {
        let clock = clock
        return HTTPCache(
            storage: MemoryCacheStorage(capacity: 1 << 20), staleWhileRevalidate: staleWhileRevalidate, staleIfError: staleIfError,
            now: { clock.now })
    }

    /// The body as UTF-8 text.
    func text(_ response: Response) -> String { String(decoding: response.body, as: UTF8.self) }

    /// A client that signs its calls in with `refresher`'s bearer tokens for `api.example.com`.
    func signedInClient(_ transport: any Transport, cache: HTTPCache, refresher: TokenRefresher, retries: RetryPolicy = .none) -> Client {
        var configuration = Configuration(transport: transport, cache: cache)
        configuration.authentication = .bearer(refresher)
        configuration.authorizedHosts = ["api.example.com"]
        configuration.retryPolicy = retries
        return Client(configuration: configuration)
    }

    /// A `GET /me` that requires authorization.
    var mine: CacheResource {
        var endpoint = CacheResource(pathString: "/me")
        endpoint.requiresAuthorization = true
        return endpoint
    }
}
