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
    package static func contentType(_ value: String) -> HeaderItem {
        HeaderItem(name: "Content-Type", value: value)
    }
}

extension HeaderItem: CustomStringConvertible, CustomReflectable {
    /// `Name: value`, with the value of a secret header (see ``Redaction/isSecret(headerName:)``
    /// and ``Redaction/default``) shown as `<redacted>`, keeping a well-known scheme
    /// (`Authorization: Bearer <redacted>`). A value with control characters is not printed (it
    /// would forge log lines), nor is the part of an invalid name from its first invalid
    /// character on (`Authorization: Bearer abc` given as a name).
    ///
    /// ```swift
    /// HeaderItem(name: "X-Api-Key", value: "k").description   // "X-Api-Key: <redacted>"
    /// HeaderItem.accept("application/json").description       // "Accept: application/json"
    /// ```
    public var description: String {
        "\(Redaction.printableHeaderName(name)): \(printableValue)"
    }

    /// The name and the value as ``description`` shows them, so that `dump(_:)` and
    /// reflection-based loggers cannot reach a secret value.
    ///
    /// ```swift
    /// dump(HeaderItem(name: "Private-Token", value: "t"))
    /// // ▿ Private-Token: <redacted>
    /// //   - name: "Private-Token"
    /// //   - value: "<redacted>"
    /// ```
    public var customMirror: Mirror {
        Mirror(self, children: ["name": Redaction.printableHeaderName(name), "value": printableValue], displayStyle: .struct)
    }

    private var printableValue: String {
        // An invalid name may be a whole header line pasted in, so its value is treated as secret.
        guard HTTPToken.isValid(name) else { return Redaction.placeholder }
        let redaction = Redaction.default
        if redaction.isSecret(headerName: name) || Self.isValidValue(value) {
            return redaction.redactedValue(ofHeader: name, value: value)
        }
        return "<value with control characters, not shown>"
    }
}

extension HeaderItem {
    /// Whether `value` is a valid RFC 9110 field value: no control characters but horizontal tab.
    static func isValidValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { byte in
            byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
        }
    }
}
