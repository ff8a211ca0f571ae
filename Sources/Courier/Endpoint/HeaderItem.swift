/// One request header.
///
/// The name must be an RFC 9110 token and the value must not contain control characters
/// (CR, LF, NUL…), which would let an attacker inject headers. Both are checked when the
/// request is built: a bad header fails the call with ``InvalidRequest/invalidHeaderName(_:)``
/// or ``InvalidRequest/invalidHeaderValue(name:)`` and nothing is sent.
///
/// ```swift
/// var headerItems: [HeaderItem]? {
///     [.accept("application/json"), HeaderItem(name: "X-Request-ID", value: requestID)]
/// }
/// ```
public struct HeaderItem: Hashable, Sendable {
    /// The header's name, e.g. `"Accept"`. Compared case-insensitively when headers are merged.
    public var name: String
    /// The header's value.
    public var value: String

    /// Creates a header item. Validation happens when the request is built.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `Accept: <value>`.
    public static func accept(_ value: String) -> HeaderItem {
        HeaderItem(name: "Accept", value: value)
    }

    /// `Content-Type: <value>`.
    public static func contentType(_ value: String) -> HeaderItem {
        HeaderItem(name: "Content-Type", value: value)
    }

    /// `User-Agent: <value>`.
    public static func userAgent(_ value: String) -> HeaderItem {
        HeaderItem(name: "User-Agent", value: value)
    }
}

extension HeaderItem: CustomStringConvertible {
    /// The name only; the value is never printed because it may be a credential.
    public var description: String { "\(name): <redacted>" }
}

extension HeaderItem {
    /// Whether `value` is a valid RFC 9110 field value: no control characters but horizontal tab.
    static func isValidValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { byte in
            byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
        }
    }
}
