import Foundation
import HTTPTypes

/// Turns an endpoint and the client's configuration into the exact request a transport sends.
///
/// Everything an endpoint declares is validated here, before any byte leaves: a bad header, a
/// body on GET, a non-positive timeout each fail with ``CourierError/invalidRequest(_:)``.
package enum RequestBuilder {
    /// - Parameter options: what the call changes beside the endpoint: the `Accept` value for
    ///   what the caller expects (sent unless the endpoint or the configuration sets `Accept`),
    ///   headers replacing the endpoint's, the timeout, the upload meter.
    static func build(_ endpoint: some Requestable, configuration: Configuration, options: CallOptions = CallOptions()) throws(CourierError) -> TransportRequest
    {
        let base = try endpoint.baseURL()
        let path = try endpoint.path()
        let method = endpoint.method
        let pathAndQuery: String
        if let encodedQuery = options.encodedQuery {
            // Checked with the whole target below, byte by byte.
            pathAndQuery = path.rawValue + "?" + encodedQuery
        } else {
            pathAndQuery =
                try path.rawValue
                + queryString(
                    items: endpoint.queryItems, parameters: endpoint.queryParameters, options: endpoint.queryStringOptions ?? configuration.queryStringOptions)
        }
        guard let httpMethod = HTTPRequest.Method(method.rawValue) else {
            throw .invalidRequest(.invalidURL("\(base.scheme.rawValue)://\(base.authority)\(pathAndQuery)"))
        }

        var body: TransportBody?
        if let requestBody = endpoint.body {
            guard method.allowsRequestBody else {
                throw .invalidRequest(.bodyNotAllowed(method: method.rawValue))
            }
            body = try requestBody.transportBody(configuration: configuration, uploadMeter: options.uploadMeter)
        }

        var fields = try headerFields(configuration.headers, options.headerItems(of: endpoint))
        fields.reserveCapacity(fields.count + 4)  // the usual implied ones: one allocation, not three
        // What the body's format calls for (Content-Type, SOAPAction) and Courier's defaults,
        // each only where neither the endpoint nor the configuration set that header.
        func imply(_ name: HTTPField.Name, _ value: String) throws(CourierError) {
            guard !fields.contains(where: { $0.name == name }) else { return }
            guard HeaderItem.isValidValue(value) else { throw .invalidRequest(.invalidHeaderValue(name: name.rawName)) }
            fields.append(HTTPField(name: name, value: value))
        }
        if let requestBody = endpoint.body {
            try imply(.contentType, requestBody.contentType)
            for item in requestBody.headers { try imply(fieldName(item), item.value) }
        }
        if let accept = options.accept { try imply(.accept, accept) }
        if let userAgent = configuration.userAgent { try imply(.userAgent, userAgent) }
        if let upgrade = options.webSocket {
            try checkWebSocket(method: httpMethod, hasBody: body != nil, upgrade: upgrade)
            if !upgrade.options.subprotocols.isEmpty {
                try imply(.secWebSocketProtocol, upgrade.options.subprotocols.joined(separator: ", "))
            }
        } else if configuration.transport.decodesGzip {
            try imply(.acceptEncoding, "gzip")
        }

        let timeout = options.timeout ?? endpoint.timeout ?? configuration.timeout
        guard timeout > .zero else { throw .invalidRequest(.invalidTimeout(timeout)) }

        let head = HTTPRequest(
            method: httpMethod, scheme: base.scheme.rawValue, authority: base.authority,
            path: pathAndQuery, headerFields: fields)
        var request = TransportRequest(
            head: head, body: body, timeout: timeout,
            maximumResponseSize: endpoint.maximumResponseSize ?? configuration.maximumResponseSize,
            redaction: configuration.redaction)
        request.redirectMode = endpoint.redirectMode
        request.operationID = options.operationID
        request.webSocket = options.webSocket
        // The byte checks, not Foundation's parser: a validated `BaseURL`, a validated `URLPath`
        // and an encoded query make a URL Foundation reads, so it is parsed only if asked for.
        guard request.absoluteString != nil else { throw invalidURL(request) }
        assert(request.resolvedURL != nil, "a request that passes the byte checks makes a URL")
        return request
    }

    /// Refuses a WebSocket call that is not a body-less `GET` or offers a subprotocol that is not a token.
    static func checkWebSocket(method: HTTPRequest.Method, hasBody: Bool, upgrade: WebSocketUpgrade) throws(CourierError) {
        guard method == .get else { throw .invalidRequest(.webSocketUnavailable("the method is \(method.rawValue), not GET")) }
        guard !hasBody else { throw .invalidRequest(.webSocketUnavailable("the endpoint has a body")) }
        for subprotocol in upgrade.options.subprotocols where !HTTPToken.isValid(subprotocol) {
            throw .invalidRequest(.webSocketUnavailable("the subprotocol \(subprotocol.debugDescription) is not a token"))
        }
    }

    /// `?` and the query: flat `items` in order, then the nested `parameters`, formatted by
    /// `options` (see ``QueryStringFormattingOptions``); empty when there is nothing to write.
    /// - Throws: ``InvalidRequest/encodingFailed(_:underlyingError:)`` for a NaN or infinite number.
    package static func queryString(
        items: [QueryItem]?, parameters: QueryParameters?,
        options: QueryStringFormattingOptions
    ) throws(CourierError) -> String {
        if items?.isEmpty ?? true, parameters == nil { return "" }
        let query = try QueryStringEncoder(options: options).encode(items: items ?? [], parameters: parameters)
        return query.isEmpty ? "" : "?" + query
    }

    /// Client-wide headers, then the endpoint's; an endpoint header replaces every client header
    /// of the same name (case-insensitively). Repeated names within one list are all sent.
    static func headerFields(_ defaults: [HeaderItem], _ overrides: [HeaderItem]) throws(CourierError) -> HTTPFields {
        var fields = HTTPFields()
        let overridden = try Set(overrides.map { item throws(CourierError) in try fieldName(item) })
        for item in defaults {
            let name = try fieldName(item)
            if !overridden.contains(name) {
                fields.append(HTTPField(name: name, value: try validValue(item)))
            }
        }
        for item in overrides {
            fields.append(HTTPField(name: try fieldName(item), value: try validValue(item)))
        }
        return fields
    }

    private static func fieldName(_ item: HeaderItem) throws(CourierError) -> HTTPField.Name {
        guard HTTPToken.isValid(item.name), let name = HTTPField.Name(item.name) else {
            throw .invalidRequest(.invalidHeaderName(item.name))
        }
        guard !isReserved(name) else {
            throw .invalidRequest(.reservedHeader(item.name))
        }
        return name
    }

    /// Headers that frame the message or manage the connection (RFC 9112 §6, RFC 9110 §7.6.1):
    /// the transport computes them from the body and the URL, and HTTP/2 forbids the
    /// connection-specific ones (RFC 9113 §8.2.2). One set by hand could disagree with the bytes
    /// sent and smuggle a second request onto a kept-alive connection.
    static let reservedHeaders: Set<HTTPField.Name> = [
        .contentLength, .transferEncoding, .connection, .te, .upgrade,
        HTTPField.Name("Host")!, HTTPField.Name("Trailer")!, HTTPField.Name("Keep-Alive")!,
        HTTPField.Name("Proxy-Connection")!,
    ]

    /// Whether `name` is one of ``reservedHeaders``, without hashing it: every request's headers
    /// are checked twice.
    static func isReserved(_ name: HTTPField.Name) -> Bool {
        switch name.canonicalName {
        case "content-length", "transfer-encoding", "connection", "te", "upgrade", "host", "trailer", "keep-alive",
            "proxy-connection":
            return true
        default:
            return false
        }
    }

    /// Refuses what a middleware may have made of a request that the transport must not send:
    /// a header among ``reservedHeaders`` (the endpoint's were checked when it was built), a URL
    /// that is not `http` or `https` (URLSession would read a `file:` URL from disk and hand it
    /// back as a response), or a URL with user-info (the transport would send it as credentials,
    /// to a host nobody authorized).
    /// - Throws: ``InvalidRequest/reservedHeader(_:)`` or ``InvalidRequest/invalidBaseURL(_:reason:)``.
    static func checkSendable(_ request: TransportRequest) throws(CourierError) {
        for field in request.head.headerFields where isReserved(field.name) {
            throw .invalidRequest(.reservedHeader(field.name.rawName))
        }
        guard let url = request.resolvedURL else { throw invalidURL(request) }
        let scheme = url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", url.host(percentEncoded: true)?.isEmpty == false else {
            throw .invalidRequest(
                .invalidBaseURL(
                    Redaction.default.redact(urlString: url.absoluteString),
                    reason: "the request's URL must be http or https with a host"))
        }
        guard url.user == nil, url.password == nil else {
            throw .invalidRequest(
                .invalidBaseURL(
                    Redaction.default.redact(urlString: url.absoluteString),
                    reason: "the request's URL must not carry user-info (the transport would send it as credentials)"))
        }
    }

    /// The failure of a request whose head makes no URL: ``InvalidRequest/invalidURL(_:)`` with
    /// its scheme, authority and path as written, redacted.
    static func invalidURL(_ request: TransportRequest) -> CourierError {
        let head = request.head
        let described = "\(head.scheme ?? "")://\(head.authority ?? "")\(head.path ?? "")"
        return .invalidRequest(.invalidURL(Redaction.default.redact(urlString: described)))
    }

    private static func validValue(_ item: HeaderItem) throws(CourierError) -> String {
        guard HeaderItem.isValidValue(item.value) else {
            throw .invalidRequest(.invalidHeaderValue(name: item.name))
        }
        return item.value
    }
}
