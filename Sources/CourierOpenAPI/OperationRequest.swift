import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A generated operation's request as a Courier endpoint: the base URL's scheme, host and port,
/// its path prefix joined to the operation's path (both already percent-encoded, checked as
/// `URLPath` checks any path), the query as the generated code encoded it, the headers, and
/// the body.
struct OperationRequest {
    let endpoint: Endpoint
    let encodedQuery: String?

    /// The endpoint the call is enqueued with.
    struct Endpoint: Requestable {
        let base: BaseURL
        let target: URLPath
        let method: HTTPMethod
        let headerItems: [HeaderItem]?
        let body: RequestBody?
        let requiresAuthorization: Bool

        func baseURL() throws(CourierError) -> BaseURL { base }
        func path() throws(CourierError) -> URLPath { target }
        /// Every status goes to the generated code, which decides what each one means.
        var acceptableStatusCodes: Set<Int> { Self.everyStatus }
        static let everyStatus = Set(0...999)
    }

    /// The longest body of known length that can be iterated more than once which is sent as
    /// one piece of memory rather than streamed: generated JSON and form bodies.
    static let wholeRequestBodyLimit = 1 << 20

    /// - Throws: `InvalidRequest.invalidBaseURL(_:reason:)` for a base URL with a query,
    ///   fragment or user-info, and the errors of `BaseURL`, `URLPath` and `HTTPMethod`.
    init(_ request: HTTPRequest, body: HTTPBody?, server: Server, requiresAuthorization: Bool) async throws(CourierError) {
        let (base, prefix) = (server.base, server.prefix)
        let target = request.path ?? "/"
        let pathPart: Substring
        if let mark = target.firstIndex(of: "?") {
            pathPart = target[..<mark]
            encodedQuery = String(target[target.index(after: mark)...])
        } else {
            pathPart = target[...]
            encodedQuery = nil
        }
        // Glued to the server URL's path, an operation path without its "/" would name another
        // resource ("/api" + "v1" is "/apiv1").
        guard pathPart.isEmpty || pathPart.hasPrefix("/") else {
            throw .invalidRequest(.invalidPath(target, reason: "must start with \"/\""))
        }
        let path = prefix + (pathPart.isEmpty ? "/" : pathPart)
        let method = try HTTPMethod(validating: request.method.rawValue)
        endpoint = Endpoint(
            base: base, target: try URLPath(path.isEmpty ? "/" : path), method: method,
            headerItems: try Self.headerItems(request.headerFields, body: body),
            body: try await Self.requestBody(body), requiresAuthorization: requiresAuthorization)
    }

    /// The request's headers, without the `Content-Length` the runtime sets for a body of known
    /// length: Courier frames the message itself, from the same length.
    /// - Throws: `InvalidRequest.reservedHeader(_:)` for a `Content-Length` that is not the
    ///   body's length, as for any other framing header (nothing is sent).
    static func headerItems(_ fields: HTTPFields, body: HTTPBody?) throws(CourierError) -> [HeaderItem] {
        var items: [HeaderItem] = []
        items.reserveCapacity(fields.count)
        for field in fields {
            if field.name == .contentLength {
                let announced: Int64? = if case .known(let count)? = body?.length { count } else { body == nil ? 0 : nil }
                guard let announced, field.value == String(announced) else { throw .invalidRequest(.reservedHeader(field.name.rawName)) }
                continue
            }
            // HTTPField.value turns bytes that are not UTF-8 (obs-text) into U+FFFD; a header
            // Courier cannot send byte for byte is refused rather than changed.
            guard field.withUnsafeBytesOfValue({ $0.elementsEqual(field.value.utf8) }) else {
                throw .invalidRequest(.invalidHeaderValue(name: field.name.rawName))
            }
            items.append(HeaderItem(name: field.name.rawName, value: field.value))
        }
        return items
    }

    /// A server URL split into what Courier sends to and the path prefix of every operation.
    struct Server: Sendable {
        let url: URL
        let base: BaseURL
        /// The URL's path without a trailing `/` (`""` for none), percent-encoded as given.
        let prefix: String

        /// - Throws: `InvalidRequest.invalidBaseURL(_:reason:)` for a URL with a query,
        ///   fragment or user-info, or that is not `scheme://host[:port][/path]`, and the errors
        ///   of `BaseURL`.
        init(_ url: URL) throws(CourierError) {
            let string = url.absoluteString
            func fail(_ reason: String) -> CourierError {
                .invalidRequest(.invalidBaseURL(Redaction.default.redact(urlString: string), reason: reason))
            }
            guard let separator = string.firstRange(of: "://") else { throw fail("expected scheme://host[:port][/path]") }
            let rest = string[separator.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            base = try BaseURL(string: String(string[..<authorityEnd]))
            var prefix = rest[authorityEnd...]
            if prefix.contains("?") || prefix.contains("#") { throw fail("a server URL has no query or fragment") }
            if prefix.hasSuffix("/") { prefix = prefix.dropLast() }
            self.url = url
            self.prefix = String(prefix)
        }
    }

    /// `body` as Courier sends it: one piece of memory when it is short, known in length and
    /// can be iterated again; otherwise a stream, replayable only when it can be iterated again.
    static func requestBody(_ body: HTTPBody?) async throws(CourierError) -> RequestBody? {
        guard let body else { return nil }
        let length: Int64? = if case .known(let count) = body.length { count } else { nil }
        if let length, length < 0 { throw .invalidRequest(.bodySourceFailed("the body announced a negative length, \(length)")) }
        let replayable = body.iterationBehavior == .multiple
        if replayable, let length, length <= wholeRequestBodyLimit {
            let data: Data
            do {
                data = try await Data(collecting: body, upTo: Int(length))
            } catch {
                throw .invalidRequest(.bodySourceFailed("the operation's request body could not be read", underlyingError: error))
            }
            guard data.count == length else {
                throw .invalidRequest(.bodySourceFailed("the body ended after \(data.count) of the \(length) bytes it announced"))
            }
            return .data(data)
        }
        return .stream(BodyStream(body, length: length, replayable: replayable))
    }
}
