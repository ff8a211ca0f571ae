public import Courier

extension Endpoint {
    /// This endpoint with `segments` added to its path, each percent-encoded as by
    /// `URLPath.init(segments:)` (`"a/b"` becomes `a%2Fb`).
    ///
    /// ```swift
    /// let issues = api.get("repos", owner, repo).appending("issues", String(number))
    /// ```
    ///
    /// A segment that is empty, `.` or `..` fails the call with
    /// `InvalidRequest.invalidPath(_:reason:)` when it is resumed.
    public func appending(_ segments: String...) -> Self {
        appending(contentsOf: segments)
    }

    /// This endpoint with `segments` added to its path, as ``appending(_:)``.
    func appending(contentsOf segments: [String]) -> Self {
        guard !segments.isEmpty else { return self }
        return with { parts in
            do throws(CourierError) {
                parts.path = try parts.path.appending(contentsOf: segments)
            } catch {
                parts.record(error)
            }
        }
    }

    /// This endpoint with one more query item, `name=value`, after those it has; nothing when
    /// `value` is `nil`, so an optional parameter is left out until it has a value. Repeat it to
    /// send a name more than once.
    ///
    /// ```swift
    /// let cursor: String? = nil
    /// api.get("search").query("q", "swift & linux").query("tag", "a").query("tag", "b").query("page", 2).query("cursor", cursor)
    /// // /search?q=swift%20%26%20linux&tag=a&tag=b&page=2
    /// ```
    ///
    /// The value is written by its `description` (`2`, `true`, `1.5`) and percent-encoded as
    /// `QueryItem` says. A NaN or infinite number fails the call with
    /// `InvalidRequest.encodingFailed(_:underlyingError:)` when it is resumed, as in `QueryValue`.
    public func query(_ name: String, _ value: (any LosslessStringConvertible)?) -> Self {
        guard let value else { return self }
        return with { parts in
            if let number = value as? any FloatingPoint, !number.isFinite {
                let reason = "the query item \"\(name)\" is a NaN or infinite number, which cannot be written in a query string"
                parts.record(.invalidRequest(.encodingFailed(reason)))
            }
            parts.queryItems.append(QueryItem(name: name, value: value.description))
        }
    }

    /// This endpoint with the bare query item `name` (no `=`), after those it has: a flag.
    ///
    /// ```swift
    /// api.get("search").query("q", "swift").query("verbose")
    /// // /search?q=swift&verbose
    /// ```
    public func query(_ name: String) -> Self {
        with { $0.queryItems.append(QueryItem(name: name)) }
    }

    /// This endpoint with `items` added after the query items it has, in order.
    ///
    /// ```swift
    /// api.get("search").query([QueryItem(name: "q", value: "swift"), QueryItem(name: "verbose")])
    /// ```
    public func query(_ items: [QueryItem]) -> Self {
        with { $0.queryItems += items }
    }

    /// This endpoint with nested parameters: arrays, dictionaries, numbers, written after the
    /// flat items as `QueryParameters` and ``queryStringOptions(_:)`` (or the client's
    /// `Configuration.queryStringOptions`) say, names in sorted order. A name given again
    /// replaces its earlier value.
    ///
    /// ```swift
    /// api.get("issues").query(["labels": ["bug", "ui"], "page": ["size": 20]])
    /// // /issues?labels%5B0%5D=bug&labels%5B1%5D=ui&page%5Bsize%5D=20
    /// ```
    public func query(_ parameters: QueryParameters) -> Self {
        with { parts in
            parts.queryParameters = QueryParameters(
                (parts.queryParameters?.values ?? [:]).merging(parameters.values) { _, new in new })
        }
    }

    /// This endpoint with the nested parameters `value` encodes (see
    /// `QueryParameters.init(encoding:)`), as `query(_ parameters:)`.
    ///
    /// ```swift
    /// struct Filter: Encodable { var state: String; var labels: [String] }
    /// api.get("issues").query(encoding: Filter(state: "open", labels: ["bug"]))
    /// // /issues?labels%5B0%5D=bug&state=open
    /// ```
    ///
    /// A value that does not encode (it throws, holds a NaN, or is not keyed at its top level)
    /// fails the call with `InvalidRequest.encodingFailed(_:underlyingError:)` when it is resumed.
    public func query(encoding value: some Encodable) -> Self {
        do throws(CourierError) {
            return query(try QueryParameters(encoding: value))
        } catch {
            return with { $0.record(error) }
        }
    }

    /// This endpoint with its query written as `options` say, rather than as the
    /// client's `Configuration.queryStringOptions`.
    ///
    /// ```swift
    /// api.get("items").query(["ids": [1, 2, 3]]).queryStringOptions(QueryStringFormattingOptions(arrayFormat: .commaSeparated))
    /// // /items?ids=1,2,3
    /// ```
    public func queryStringOptions(_ options: QueryStringFormattingOptions) -> Self {
        with { $0.queryStringOptions = options }
    }
}
