import Foundation
import HTTPTypes

/// Turns an endpoint and the client's configuration into the exact request a transport sends.
///
/// Everything an endpoint declares is validated here, before any byte leaves: a bad header, a
/// body on GET, a non-positive timeout each fail with ``CourierError/invalidRequest(_:)``.
enum RequestBuilder {
    static func build(_ endpoint: some Requestable, configuration: Configuration) throws(CourierError) -> TransportRequest {
        let base = try endpoint.baseURL()
        let path = try endpoint.path()
        let method = endpoint.method
        let pathAndQuery = path.rawValue + queryString(endpoint.queryItems)
        let urlString = "\(base.scheme.rawValue)://\(base.authority)\(pathAndQuery)"
        guard let url = URL(string: urlString),
              let httpMethod = HTTPRequest.Method(method.rawValue) else {
            throw .invalidRequest(.invalidURL(urlString))
        }

        var body: TransportBody?
        var bodyContentType: String?
        if let requestBody = endpoint.body {
            guard method.allowsRequestBody else {
                throw .invalidRequest(.bodyNotAllowed(method: method.rawValue))
            }
            body = .data(try requestBody.encoded(defaultEncoder: configuration.encoder))
            bodyContentType = requestBody.contentType
        }

        var fields = try headerFields(configuration.headers, endpoint.headerItems ?? [])
        if let bodyContentType, fields[.contentType] == nil {
            guard HeaderItem.isValidValue(bodyContentType) else {
                throw .invalidRequest(.invalidHeaderValue(name: "Content-Type"))
            }
            fields[.contentType] = bodyContentType
        }

        let timeout = endpoint.timeout ?? configuration.timeout
        guard timeout > .zero else { throw .invalidRequest(.invalidTimeout(timeout)) }

        let head = HTTPRequest(method: httpMethod, scheme: base.scheme.rawValue, authority: base.authority,
                               path: pathAndQuery, headerFields: fields)
        return TransportRequest(head: head, body: body, timeout: timeout, url: url)
    }

    /// `?name=value&flag`, every name and value percent-encoded; empty when there are no items.
    static func queryString(_ items: [QueryItem]?) -> String {
        guard let items, !items.isEmpty else { return "" }
        var query = "?"
        for (index, item) in items.enumerated() {
            if index > 0 { query += "&" }
            query += PercentEncoding.encode(item.name)
            if let value = item.value {
                query += "=" + PercentEncoding.encode(value)
            }
        }
        return query
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
        return name
    }

    private static func validValue(_ item: HeaderItem) throws(CourierError) -> String {
        guard HeaderItem.isValidValue(item.value) else {
            throw .invalidRequest(.invalidHeaderValue(name: item.name))
        }
        return item.value
    }
}
