public import Courier
public import HTTPTypes

#if canImport(FoundationNetworking)
    public import Foundation
    import FoundationNetworking
#else
    public import Foundation
#endif

/// A request as it reached a ``NetworkStub``: method, URL, header fields and the whole body.
///
/// ```swift
/// let request = try #require(network.requests.first)
/// #expect(request.method == "POST")
/// #expect(request.path == "/users")
/// #expect(request.headers[.contentType] == "application/json")
/// #expect(try request.decodeJSON(NewUser.self) == NewUser(name: "Ada"))
/// ```
///
/// Headers are those of the request itself, as Courier built it (endpoint and configuration
/// headers, `Content-Type`, `Authorization`…). Headers that URLSession adds on the wire
/// (`Accept-Encoding`, `User-Agent`, `Content-Length`…) are not part of it.
public struct RecordedRequest: Sendable, Equatable {
    /// The method as sent, e.g. `"GET"`.
    public var method: String
    /// The absolute URL, with its query.
    public var url: URL
    /// The header fields (swift-http-types); names compare case-insensitively.
    public var headers: HTTPFields
    /// The body, whole; empty when the request had none. A body URLSession handed over as a
    /// stream has been read to its end.
    public var body: Data

    /// Creates a recorded request, for comparisons and for testing code that handles them.
    public init(method: String, url: URL, headers: HTTPFields = [:], body: Data = Data()) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The percent-encoded path, e.g. `"/users/42"`; `"/"` when the URL has none.
    public var path: String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        return path.isEmpty ? "/" : path
    }

    /// The path and query as sent, the query items `redaction` names secret redacted: what a
    /// failure may print, e.g. `/search?q=a/b&api_key=<redacted>`.
    func redactedTarget(_ redaction: Redaction) -> String {
        let redacted = redaction.redact(url: url)
        guard let scheme = redacted.range(of: "://") else { return redacted }
        let rest = redacted[scheme.upperBound...]
        guard let start = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let target = rest[start...]
        return target.first == "?" ? "/" + target : String(target)
    }

    /// The query parameters in order, percent-decoded; empty when there is no query.
    ///
    /// ```swift
    /// #expect(request.queryItems == [QueryItem(name: "q", value: "swift & linux")])
    /// ```
    public var queryItems: [QueryItem] {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return items.map { QueryItem(name: $0.name, value: $0.value) }
    }

    /// The value of the header `name` (case-insensitive), with repeated fields joined by `", "`;
    /// `nil` if absent or if `name` is not a valid header name (the package's tests; users read
    /// ``headers``).
    package func headerValue(for name: String) -> String? {
        guard let fieldName = HTTPField.Name(name) else { return nil }
        return headers[fieldName]
    }

    /// Decodes the body as JSON.
    ///
    /// ```swift
    /// let sent = try request.decodeJSON(NewUser.self)
    /// ```
    /// - Throws: the `DecodingError` of `decoder` when the body is not valid JSON for `type`.
    public func decodeJSON<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws(DecodingError) -> T {
        do {
            return try decoder.decode(type, from: body)
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: "The decoder failed: \(error)", underlyingError: error))
        }
    }
}

extension RecordedRequest: CustomStringConvertible {
    /// The method, the URL (secret query items redacted) and the body size, e.g.
    /// `POST https://api.example.com/users (24 bytes)`.
    public var description: String {
        "\(method) \(Redaction.default.redact(url: url)) (\(body.count) bytes)"
    }
}

extension RecordedRequest {
    /// Records `request` as a URLProtocol sees it, reading a body stream to its end.
    init(_ request: URLRequest) {
        var fields = HTTPFields()
        let headers = request.allHTTPHeaderFields ?? [:]
        for (name, value) in headers.sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            if let fieldName = HTTPField.Name(name) {
                fields.append(HTTPField(name: fieldName, value: value))
            }
        }
        let body: Data
        if let data = request.httpBody {
            body = data
        } else if let stream = request.httpBodyStream {
            body = Self.readAll(stream)
        } else {
            body = Data()
        }
        self.init(
            method: request.httpMethod ?? "GET",
            url: request.url ?? URL(fileURLWithPath: "/"),
            headers: fields,
            body: body)
    }

    /// Every byte of `stream`, up to its end or its first error.
    private static func readAll(_ stream: InputStream) -> Data {
        stream.open()
        defer { stream.close() }
        var data = Data()
        let chunkSize = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = stream.read(&buffer, maxLength: chunkSize)
            guard count > 0 else { break }  // 0 is the end, a negative count an error
            data.append(buffer, count: count)
        }
        return data
    }
}
