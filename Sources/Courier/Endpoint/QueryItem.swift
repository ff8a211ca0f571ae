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

extension QueryItem: CustomStringConvertible {
    /// `name=value`, as it would appear before encoding; the value of a secret-bearing name
    /// (`access_token`, `password`, … see ``Redaction/default``) is shown as `<redacted>`.
    public var description: String {
        guard let value else { return name }
        let names = Redaction.normalizedSet(Redaction.default.queryItems)
        return "\(name)=\(Redaction.nameMatches(name, names: names) ? Redaction.placeholder : value)"
    }
}
