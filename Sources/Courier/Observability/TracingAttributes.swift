import Foundation
import HTTPTypes
import Tracing

/// The names Courier reports calls under, in spans and in metrics: the OpenTelemetry semantic
/// conventions for HTTP clients (stable since 1.23), so that a backend's HTTP views work as
/// they do for any other instrumented client.
///
/// Every value is low-cardinality and carries no secret: a method outside the standard set is
/// reported as `_OTHER`, a URL only as `Redaction.redactForTelemetry(url:)` prints it, an
/// error as its kind (``errorType(_:)``), never its message.
enum HTTPSemantics {
    // Attribute keys (semantic conventions, stable).
    static let method = "http.request.method"
    static let originalMethod = "http.request.method_original"
    static let resendCount = "http.request.resend_count"
    static let statusCode = "http.response.status_code"
    static let errorType = "error.type"
    static let fullURL = "url.full"
    static let scheme = "url.scheme"
    static let serverAddress = "server.address"
    static let serverPort = "server.port"
    /// What the ``HTTPCache`` made of the call (``CacheResult``); Courier's own attribute, as
    /// OpenTelemetry names none for a client cache.
    static let cacheResult = "courier.cache.result"
    /// The pipeline stage whose own error failed the call (see `Pipeline`).
    static let failedStage = "courier.failed_stage"
    /// The OpenAPI `operationId` of a generated call (CourierOpenAPI); Courier's own attribute.
    static let operation = "courier.operation"

    /// The methods HTTP defines (RFC 9110, RFC 5789, and QUERY), which are reported by name.
    static let standardMethods = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "QUERY"]

    /// `method` as `http.request.method` and the metrics' `method` dimension report it: itself
    /// when it is one of ``standardMethods``, compared case-sensitively as HTTP does, otherwise
    /// `_OTHER` (a method a caller makes up cannot add to the number of metric series).
    static func reportedMethod(_ method: String) -> String {
        standardMethods.contains(method) ? method : "_OTHER"
    }

    /// The span name for a request with `method`: the method, or `HTTP` for one reported as
    /// `_OTHER`.
    static func spanName(_ method: String) -> String {
        let reported = reportedMethod(method)
        return reported == "_OTHER" ? "HTTP" : reported
    }

    /// `error.type` for a call or request that failed with `error`: the status code for a
    /// refused response (as the conventions ask for HTTP errors), the ``TransportFailure/Kind``
    /// of a transport failure (`timedOut`, `cannotConnect`, …), and the error's case otherwise
    /// (`cancelled`, `invalidRequest`, `authentication`, `constraint`, `decoding`, `webSocketClosed`).
    static func errorType(_ error: CourierError) -> String {
        switch error {
        case .response(let response): String(response.statusCode)
        case .transport(let failure): failure.kind.rawValue
        case .cancelled: "cancelled"
        case .invalidRequest: "invalidRequest"
        case .authentication: "authentication"
        case .constraint: "constraint"
        case .decoding: "decoding"
        case .webSocketClosed: "webSocketClosed"
        }
    }

    /// The request attributes of a span: method, `url.full` (redacted), scheme, server address
    /// and port.
    static func requestAttributes(method: String, url: URL?, authority: String?, redaction: Redaction) -> SpanAttributes {
        var attributes = SpanAttributes()
        attributes.reserveCapacity(6)
        let reported = reportedMethod(method)
        attributes[Self.method] = reported
        if reported == "_OTHER" { attributes[originalMethod] = method }
        if let url {
            attributes[fullURL] = redaction.redactForTelemetry(url: url)
        }
        let scheme = url?.scheme?.lowercased()
        if let scheme { attributes[Self.scheme] = scheme }
        if let server = authority.flatMap(server(inAuthority:)) {
            attributes[serverAddress] = server.host
            if let port = server.port ?? scheme.flatMap(defaultPort(for:)) {
                attributes[serverPort] = port
            }
        }
        return attributes
    }

    /// Sets what the response or the failure says on `span`, as the conventions ask of a client
    /// span: a status code of 400 or more, or no response at all, is an error. A failure other
    /// than a refused response or a cancellation is also recorded on the span (its description
    /// names no secret, like every ``CourierError``'s).
    /// `failure` with the URL of a transport failure redacted with `redaction` (the client's): a
    /// failure's description redacts only what ``Redaction/default`` names, and exporters write
    /// a recorded error's description into the span.
    static func redacted(_ failure: CourierError, with redaction: Redaction) -> CourierError {
        guard case .transport(var transport) = failure, let url = transport.url else { return failure }
        transport.url = URL(string: redaction.redactForTelemetry(url: url))
        return .transport(transport)
    }

    static func setOutcome(on span: any Span, statusCode: Int?, error: CourierError?, redaction: Redaction = .default) {
        let type: String? =
            if let error { errorType(error) } else if let statusCode, statusCode >= 400 { String(statusCode) } else { nil }
        span.updateAttributes { attributes in
            if let statusCode { attributes[Self.statusCode] = statusCode }
            if let type { attributes[errorType] = type }
        }
        if let error {
            switch error {
            case .response, .cancelled: break
            default: span.recordError(redacted(error, with: redaction))
            }
        }
        if type != nil {
            span.setStatus(SpanStatus(code: .error))
        }
    }

    /// The host (IPv6 without brackets) and explicit port of an authority (`user@host:port`),
    /// or `nil` when it has no host.
    static func server(inAuthority authority: String) -> (host: String, port: Int?)? {
        // User-info ends at the last "@" (a password may hold another); it is never reported.
        var rest = Substring(authority)
        if let at = rest.utf8.lastIndex(of: UInt8(ascii: "@")) { rest = rest[rest.index(after: at)...] }
        let host: Substring
        var portText: Substring?
        if rest.utf8.first == UInt8(ascii: "["), let close = rest.utf8.firstIndex(of: UInt8(ascii: "]")) {
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.utf8.first == UInt8(ascii: ":") { portText = after.dropFirst() }
        } else if let colon = rest.utf8.lastIndex(of: UInt8(ascii: ":")) {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { return nil }
        return (String(host).lowercased(), portText.flatMap { Int($0) })
    }

    /// 80 for `http`, 443 for `https`.
    static func defaultPort(for scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }
}
