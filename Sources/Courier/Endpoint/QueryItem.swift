/// One query parameter. A `nil` value gives a bare name (`?flag`).
///
/// Names and values are percent-encoded when the URL is built, by the same rules as nested
/// ``QueryParameters`` (see ``QueryStringFormattingOptions``): `&`, `=`, `#`, `[`, `]`, `%`,
/// `+` (as `%2B`) and space (as `%20`) are always encoded, so they can never change the query's
/// structure; the reserved characters `!*'();:@$,/?` are left as they are unless the options
/// list them.
///
/// ```swift
/// var queryItems: [QueryItem]? { [QueryItem(name: "q", value: "swift & linux"), QueryItem(name: "verbose")] }
/// // ?q=swift%20%26%20linux&verbose
/// ```
public struct QueryItem: Hashable, Sendable {
    /// The parameter's name.
    public var name: String
    /// The parameter's value; `nil` for a bare name.
    public var value: String?

    /// Creates a query item.
    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }
}

extension QueryItem: CustomStringConvertible, CustomReflectable {
    /// `name=value`, as it would appear before encoding; the value of a secret name
    /// (`access_token`, `password`, `X-Amz-Signature`… see ``Redaction/isSecret(queryItemName:)``
    /// and ``Redaction/default``) is shown as `<redacted>`.
    ///
    /// ```swift
    /// QueryItem(name: "access_token", value: "t").description   // "access_token=<redacted>"
    /// QueryItem(name: "page", value: "2").description           // "page=2"
    /// ```
    public var description: String {
        guard let value = printableValue else { return name }
        return "\(name)=\(value)"
    }

    /// The name and the value as ``description`` shows it, so that `dump(_:)` and
    /// reflection-based loggers cannot reach a secret value.
    ///
    /// ```swift
    /// dump(QueryItem(name: "token", value: "t"))   // ▿ token=<redacted> - name: "token" - value: "<redacted>"
    /// ```
    public var customMirror: Mirror {
        Mirror(self, children: ["name": name, "value": printableValue as Any], displayStyle: .struct)
    }

    private var printableValue: String? {
        guard let value else { return nil }
        // The name is given unencoded; `isSecret(queryItemName:)` decodes, which cannot hide a
        // secret name (decoding only ever reveals more of it).
        return Redaction.default.isSecret(queryItemName: name) ? Redaction.placeholder : value
    }
}
