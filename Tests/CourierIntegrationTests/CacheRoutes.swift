import FlyingFox
import Foundation

@testable import Courier

/// What an origin saw, per path: the cache tests count requests exactly.
actor CacheOrigin {
    private var seen: [String: [ReceivedRequest]] = [:]

    /// Records `request` and returns how many requests its path has had, this one included.
    func record(_ request: ReceivedRequest) -> Int {
        seen[request.rawPath, default: []].append(request)
        return seen[request.rawPath, default: []].count
    }

    /// How many requests reached `path`.
    func hits(_ path: String) -> Int { seen[path]?.count ?? 0 }

    /// The requests that reached `path`, in order.
    func requests(_ path: String) -> [ReceivedRequest] { seen[path] ?? [] }
}

/// A clock for ``HTTPCache``'s internal `now:` that moves only when a test advances it, so that
/// entries go stale without sleeping.
final class CacheTestClock: Sendable {
    private let date: LockedState<Date>

    init(_ start: Date = Date()) {
        date = LockedState(start)
    }

    var now: Date { date.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        date.withLock { $0 += seconds }
    }

    var closure: @Sendable () -> Date { { [self] in now } }
}

/// httpbin-like routes for the HTTP cache tests (httpbin's `/cache`, `/cache/{n}`,
/// `/etag/{etag}`, `/response-headers`) and what httpbin lacks: a status with `Last-Modified`
/// only (`/heuristic/{status}`), a resource that fails after its first answer (`/flaky/{name}`),
/// resources that unsafe methods change (`/res/{name}`), and one per credential (`/private`).
///
/// Every handler captures only the ``CacheOrigin``, never the server.
enum CacheRoutes {
    static func install(on server: TestServer, origin: CacheOrigin) async {
        // 200 with Last-Modified and ETag; 304 to any conditional request (as httpbin).
        await server.route("GET /cache") { request in
            let received = try await ReceivedRequest(request)
            let hit = await origin.record(received)
            let validators: [HTTPHeader: String] = [
                HTTPHeader("Last-Modified"): lastModified, HTTPHeader("ETag"): "\"cache\"",
                HTTPHeader("X-Served"): String(hit),
            ]
            if received.header("If-Modified-Since") != nil || received.header("If-None-Match") != nil {
                return FlyingFox.HTTPResponse(statusCode: .notModified, headers: HTTPHeaders(validators))
            }
            return json(["url": "/cache", "hit": String(hit)], extra: validators)
        }
        // Cache-Control: public, max-age=n.
        await server.route("GET /cache/*") { request in
            let received = try await ReceivedRequest(request)
            let hit = await origin.record(received)
            let seconds = received.rawPath.split(separator: "/").last.map(String.init) ?? "0"
            return json(
                ["url": received.rawPath, "hit": String(hit)],
                extra: [HTTPHeader("Cache-Control"): "public, max-age=\(seconds)"])
        }
        // ETag: "{etag}"; If-None-Match naming it -> 304. The query's pairs are added as headers
        // to both (httpbin's /etag has no way to set Cache-Control), with X-Served: the hit count.
        await server.route("GET /etag/*") { request in
            let received = try await ReceivedRequest(request)
            let hit = await origin.record(received)
            let tag = "\"" + (received.rawPath.split(separator: "/").last.map(String.init) ?? "") + "\""
            var headers = queryHeaders(received)
            headers[HTTPHeader("ETag")] = tag
            headers[HTTPHeader("X-Served")] = String(hit)
            if let match = received.header("If-None-Match"), match.contains(tag) {
                return FlyingFox.HTTPResponse(statusCode: .notModified, headers: HTTPHeaders(headers))
            }
            return json(["etag": tag, "hit": String(hit)], extra: headers)
        }
        // The query echoed as response headers; the body is them as JSON (plus the hit count).
        await server.route("GET /response-headers") { request in
            let received = try await ReceivedRequest(request)
            let hit = await origin.record(received)
            let headers = queryHeaders(received)
            var body = Dictionary(uniqueKeysWithValues: headers.map { ($0.key.rawValue, $0.value) })
            body["hit"] = String(hit)
            body["accept"] = received.header("Accept") ?? ""
            return json(body, extra: headers)
        }
        // {status} with a Last-Modified ten days before the Date, and nothing else.
        await server.route("GET /heuristic/*") { request in
            let received = try await ReceivedRequest(request)
            let hit = await origin.record(received)
            let code = Int(received.rawPath.split(separator: "/").last ?? "") ?? 200
            var headers = queryHeaders(received)
            headers[HTTPHeader("X-Served")] = String(hit)
            return FlyingFox.HTTPResponse(
                statusCode: HTTPStatusCode(code, phrase: "Status"), headers: HTTPHeaders(headers), body: Data("served \(hit)".utf8))
        }
        // The first request gets 200 with the query as headers; every later one 503.
        await server.route("GET /flaky/*") { request in
            let received = try await ReceivedRequest(request)
            let hit = await origin.record(received)
            guard hit == 1 else { return FlyingFox.HTTPResponse(statusCode: .serviceUnavailable) }
            return json(["hit": String(hit)], extra: queryHeaders(received))
        }
        // Fresh for a minute on GET. POST, PUT and DELETE answer with a relative Location
        // ({path}-location) and an absolute Content-Location ({path}-content-location).
        await server.route("GET /res/*") { request in
            let received = try await ReceivedRequest(request)
            let hit = await origin.record(received)
            return json(["hit": String(hit)], extra: [HTTPHeader("Cache-Control"): "max-age=60"])
        }
        for method in ["POST", "PUT", "DELETE"] {
            await server.route(HTTPRoute(stringLiteral: "\(method) /res/*")) { request in
                let received = try await ReceivedRequest(request)
                _ = await origin.record(received)
                let host = received.header("Host") ?? ""
                return FlyingFox.HTTPResponse(
                    statusCode: .ok,
                    headers: HTTPHeaders([
                        HTTPHeader("Location"): received.rawPath + "-location",
                        HTTPHeader("Content-Location"): "http://\(host)\(received.rawPath)-content-location",
                    ]))
            }
        }
        // Answers with the query's `to` as Location (another origin's URL).
        await server.route("POST /cross") { request in
            let received = try await ReceivedRequest(request)
            _ = await origin.record(received)
            var components = URLComponents()
            components.percentEncodedQuery = received.rawQuery
            let to = components.queryItems?.first { $0.name == "to" }?.value ?? ""
            return FlyingFox.HTTPResponse(statusCode: .ok, headers: HTTPHeaders([HTTPHeader("Location"): to]))
        }
        // Echoes who asked (the Authorization header); `private, max-age=60`, or the query as headers.
        await server.route("GET /private") { request in
            let received = try await ReceivedRequest(request)
            let hit = await origin.record(received)
            let headers =
                received.rawQuery.isEmpty ? [HTTPHeader("Cache-Control"): "private, max-age=60"] : queryHeaders(received)
            return json(["authorization": received.header("Authorization") ?? "", "hit": String(hit)], extra: headers)
        }
    }

    /// The query of `request` as response headers.
    static func queryHeaders(_ request: ReceivedRequest) -> [HTTPHeader: String] {
        var components = URLComponents()
        components.percentEncodedQuery = request.rawQuery
        var headers: [HTTPHeader: String] = [:]
        for item in components.queryItems ?? [] {
            headers[HTTPHeader(item.name)] = item.value ?? ""
        }
        return headers
    }

    static func json(_ object: [String: String], extra: [HTTPHeader: String]) -> FlyingFox.HTTPResponse {
        var headers = extra
        headers[HTTPHeader("Content-Type")] = "application/json"
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return FlyingFox.HTTPResponse(statusCode: .ok, headers: HTTPHeaders(headers), body: body)
    }

    /// An HTTP-date (RFC 9110 §5.6.7).
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// `/cache`'s Last-Modified: now, as httpbin sends it (so no heuristic freshness).
    static var lastModified: String { httpDate(Date()) }
}
