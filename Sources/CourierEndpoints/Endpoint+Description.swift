import Courier

extension Endpoint: CustomStringConvertible, CustomReflectable {
    /// The method and the URL, with secret query items redacted (`Redaction.default`); never a
    /// header value or the body, which may carry credentials.
    ///
    /// ```swift
    /// api.get("search").query("q", "swift").query("access_token", token).description
    /// // "GET https://api.example.com/search?q=swift&access_token=<redacted>"
    /// ```
    ///
    /// An endpoint that cannot be sent says why instead of its URL: `"GET <invalid: …>"`.
    public var description: String {
        "\(method.rawValue) \(printableURL)"
    }

    /// Method, redacted URL, header names, the body's media type and the model type: what
    /// `dump(_:)` and reflection-based loggers show, never a header value or the body.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method.rawValue,
                "url": printableURL,
                "headers": parts.headerItems.map { Redaction.printableHeaderName($0.name) },
                "body": parts.body.map { "\($0.contentType), not shown" } ?? "none",
                "model": String(describing: Model.self),
            ], displayStyle: .struct)
    }

    private var printableURL: String {
        do throws(CourierError) {
            let base = try baseURL()
            let path = try path()
            let query = try RequestBuilder.queryString(
                items: queryItems, parameters: queryParameters, options: queryStringOptions ?? QueryStringFormattingOptions())
            return Redaction.default.redact(urlString: "\(base)\(path.rawValue)\(query)")
        } catch {
            return "<invalid: \(error)>"
        }
    }
}
