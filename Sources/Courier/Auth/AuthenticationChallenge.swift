/// One authentication challenge of a `WWW-Authenticate` (or `Proxy-Authenticate`) field, RFC 9110
/// §11.6.1: an auth-scheme, then either a `token68` or a list of `name=value` parameters.
///
/// A `401` says how to authenticate in its challenges; RFC 6750 §3 adds the Bearer parameters
/// `error`, `error_description`, `error_uri` and `scope`, which tell an expired token
/// (`invalid_token`) from a missing permission (`insufficient_scope`):
///
/// ```swift
/// // WWW-Authenticate: Bearer realm="api", error="insufficient_scope", scope="repo admin:org"
/// if let bearer = response.authenticationChallenges.first(where: { $0.hasScheme("Bearer") }) {
///     bearer[parameter: "error"]  // "insufficient_scope"
///     bearer.scopes               // ["repo", "admin:org"]
///     bearer[parameter: "REALM"]  // "api": parameter names are case-insensitive
/// }
/// ```
///
/// Challenges carry no credentials, but a `token68` can be an opaque server token (Negotiate,
/// for one), so ``description`` prints only its length.
struct AuthenticationChallenge: Sendable, Hashable {
    /// One `name=value` auth-param. The quoted-string and token forms of a value are equivalent
    /// (RFC 9110 §11.2): `value` holds the text with quotes and backslash escapes removed.
    ///
    /// ```swift
    /// AuthenticationChallenge.Parameter(name: "realm", value: "api")
    /// ```
    struct Parameter: Sendable, Hashable {
        /// The parameter's name, in lower case (names are case-insensitive).
        var name: String
        /// The parameter's value, unquoted and unescaped.
        var value: String

        /// Creates a parameter; `name` is stored in lower case.
        ///
        /// ```swift
        /// let realm = AuthenticationChallenge.Parameter(name: "Realm", value: "api")   // name "realm"
        /// ```
        init(name: String, value: String) {
            self.name = name.lowercased()
            self.value = value
        }
    }

    /// The authentication scheme as the server wrote it, e.g. `"Bearer"`. Schemes are
    /// case-insensitive: compare with ``hasScheme(_:)``.
    var scheme: String
    /// The `token68` form's value (`Negotiate YIIB…`), or `nil` when the challenge has parameters
    /// or nothing after its scheme.
    var token68: String?
    /// The auth-params in the order they were sent; names are in lower case and unique.
    var parameters: [Parameter]

    /// Creates a challenge, for tests and custom transports.
    ///
    /// ```swift
    /// let challenge = AuthenticationChallenge(scheme: "Bearer", parameters: [.init(name: "error", value: "invalid_token")])
    /// ```
    init(scheme: String, token68: String? = nil, parameters: [Parameter] = []) {
        self.scheme = scheme
        self.token68 = token68
        self.parameters = parameters
    }

    /// Whether this challenge's scheme is `name`, compared case-insensitively.
    ///
    /// ```swift
    /// challenge.hasScheme("bearer")   // true for "Bearer" and "BEARER"
    /// ```
    func hasScheme(_ name: String) -> Bool {
        scheme.lowercased() == name.lowercased()
    }

    /// The value of the parameter `name` (case-insensitive), or `nil` when absent.
    ///
    /// ```swift
    /// challenge[parameter: "Realm"]   // "api"
    /// ```
    subscript(parameter name: String) -> String? {
        let name = name.lowercased()
        return parameters.first { $0.name == name }?.value
    }

    /// The RFC 6750 §3 `scope` parameter split at spaces: the scopes the resource needs. Empty when
    /// absent.
    ///
    /// ```swift
    /// challenge.scopes   // ["repo", "admin:org"] for scope="repo admin:org"
    /// ```
    var scopes: [String] {
        (self[parameter: "scope"] ?? "").split(separator: " ").map(String.init)
    }

    /// The longest field value `parse(_:)` reads, in UTF-8 bytes: 8 KiB, the field size most
    /// servers and proxies accept. A longer value gives no challenges.
    static let maximumFieldLength = 8 * 1024
    /// The most challenges `parse(_:)` returns for one field value (and
    /// `Response.authenticationChallenges` for a whole response); later ones are ignored.
    static let maximumChallenges = 16
    /// The most parameters a challenge may have; a challenge with more is malformed.
    static let maximumParameters = 32

    /// Reads the challenges of one `WWW-Authenticate` or `Proxy-Authenticate` field value.
    ///
    /// Follows RFC 9110 §11.6.1: challenges and their parameters are comma-separated (empty list
    /// elements are ignored), values are tokens or quoted-strings with `\` escapes, and a
    /// `token68` stands alone after its scheme. Never traps, and never reads more than
    /// 8 KiB, and returns at most 16 challenges.
    ///
    /// A malformed challenge (an unterminated quoted-string, a control character, a parameter
    /// without a value, a parameter named twice, more than 32) ends the
    /// reading: the challenges complete before it are returned, it and everything after it are
    /// not, since where the next challenge starts can no longer be told. As the grammar says, a
    /// lone `name=` right after the scheme is a `token68` (`Bearer realm=` has the token68
    /// `realm=`), not a parameter without a value.
    ///
    /// ```swift
    /// let challenges = AuthenticationChallenge.parse(#"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#)
    /// challenges.map(\.scheme)              // ["Newauth", "Basic"]
    /// challenges[0][parameter: "title"]     // #"Login to "apps""#
    /// AuthenticationChallenge.parse("Negotiate YIIBhgYGKwYBBQUC")[0].token68   // "YIIBhgYGKwYBBQUC"
    /// AuthenticationChallenge.parse(#"Bearer error="unterminated"#)            // []
    /// ```
    static func parse(_ fieldValue: String) -> [AuthenticationChallenge] {
        guard fieldValue.utf8.count <= maximumFieldLength else { return [] }
        var parser = ChallengeParser(bytes: Array(fieldValue.utf8))
        return parser.challenges(limit: maximumChallenges)
    }
}

extension AuthenticationChallenge: CustomStringConvertible {
    /// The challenge much as it was sent, e.g. `Bearer realm="api", error="invalid_token"`; a
    /// `token68` is shown only by its length (`Negotiate <token68: 24 characters>`).
    var description: String {
        if let token68 {
            return "\(scheme) <token68: \(token68.count) characters>"
        }
        return render(token68: nil)
    }

    /// The challenge as a field value that ``parse(_:)`` reads back as this challenge (for a
    /// challenge that ``parse(_:)`` returned: a valid scheme, names and text). Values are always
    /// written as quoted-strings.
    var fieldValue: String { render(token68: token68) }

    private func render(token68: String?) -> String {
        if let token68 { return "\(scheme) \(token68)" }
        guard !parameters.isEmpty else { return scheme }
        return scheme + " " + parameters.map { "\($0.name)=\(Self.quoted($0.value))" }.joined(separator: ", ")
    }

    /// `text` as an RFC 9110 quoted-string: `"` and `\` escaped with `\`.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            if character == "\"" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result + "\""
    }
}

/// The RFC 9110 §11.6.1 grammar, on UTF-8 bytes:
///
/// ```
/// challenge   = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
/// auth-param  = token BWS "=" BWS ( token / quoted-string )
/// token68     = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
/// ```
///
/// Challenges and their parameters share one comma-separated list, so after a comma the next
/// element is a parameter when it reads `token BWS "="`, and the next challenge's scheme
/// otherwise. No recursion, one pass, each byte looked at a bounded number of times.
struct ChallengeParser {
    private let bytes: [UInt8]
    private var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var atEnd: Bool { index >= bytes.count }
    private var current: UInt8? { atEnd ? nil : bytes[index] }

    /// Every complete challenge, up to `limit`, stopping at the first malformed one.
    mutating func challenges(limit: Int) -> [AuthenticationChallenge] {
        var result: [AuthenticationChallenge] = []
        while result.count < limit {
            skipListSeparators()
            guard !atEnd, let challenge = challenge() else { break }
            result.append(challenge)
        }
        return result
    }

    /// One challenge starting at a scheme; `nil` when it is malformed.
    private mutating func challenge() -> AuthenticationChallenge? {
        guard let scheme = token() else { return nil }
        // A comma or the end right after the scheme: a challenge with nothing else.
        guard let next = current, next != UInt8(ascii: ",") else {
            return AuthenticationChallenge(scheme: scheme)
        }
        guard isWhitespace(next) else { return nil }  // `1*SP` must separate scheme and the rest
        skipWhitespace()
        if atEnd { return AuthenticationChallenge(scheme: scheme) }
        if let token68 = token68() {
            return AuthenticationChallenge(scheme: scheme, token68: token68)
        }
        guard let parameters = parameterList() else { return nil }
        return AuthenticationChallenge(scheme: scheme, parameters: parameters)
    }

    /// `#auth-param`, starting after the scheme's spaces; stops before the next challenge's
    /// scheme, or at the end. `nil` when malformed.
    private mutating func parameterList() -> [AuthenticationChallenge.Parameter]? {
        var parameters: [AuthenticationChallenge.Parameter] = []
        var names = Set<String>()
        while true {
            // Empty list elements (`, ,`) are allowed; decide what the next element is.
            let crossedComma = skipListSeparators()
            if atEnd { return parameters }
            let elementStart = index
            guard let name = token() else { return nil }
            skipWhitespace()
            guard current == UInt8(ascii: "=") else {
                // A list element that is a token without "=" is the next challenge's scheme.
                // Without a comma before it, it is malformed: `Basic realm x`.
                guard crossedComma else { return nil }
                index = elementStart
                return parameters
            }
            index += 1
            skipWhitespace()
            guard let value = current == UInt8(ascii: "\"") ? quotedString() : token() else { return nil }
            let lowercasedName = name.lowercased()
            // RFC 9110 §11.2: each name occurs once per challenge; two would be ambiguous.
            guard names.insert(lowercasedName).inserted,
                parameters.count < AuthenticationChallenge.maximumParameters
            else { return nil }
            parameters.append(AuthenticationChallenge.Parameter(name: lowercasedName, value: value))
            skipWhitespace()
            guard atEnd || current == UInt8(ascii: ",") else { return nil }
        }
    }

    /// A `token68` followed by optional whitespace and then a comma or the end; otherwise
    /// consumes nothing and gives `nil` (the text is a parameter list).
    private mutating func token68() -> String? {
        var end = index
        while end < bytes.count, Self.isToken68Character(bytes[end]) { end += 1 }
        guard end > index else { return nil }
        while end < bytes.count, bytes[end] == UInt8(ascii: "=") { end += 1 }
        var after = end
        while after < bytes.count, isWhitespace(bytes[after]) { after += 1 }
        guard after == bytes.count || bytes[after] == UInt8(ascii: ",") else { return nil }
        let value = String(decoding: bytes[index..<end], as: UTF8.self)
        index = after
        return value
    }

    /// A non-empty RFC 9110 token, or `nil` (consuming nothing).
    private mutating func token() -> String? {
        let start = index
        while let byte = current, HTTPToken.isTChar(byte) { index += 1 }
        guard index > start else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A quoted-string starting at its `"`, unescaped; `nil` when unterminated or holding a
    /// control character.
    ///
    /// ```
    /// quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE
    /// qdtext        = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
    /// quoted-pair   = "\" ( HTAB / SP / VCHAR / obs-text )
    /// ```
    ///
    /// obs-text (bytes 0x80–0xFF) is the UTF-8 of non-ASCII text here: the value is cut only at
    /// ASCII bytes, so it stays valid UTF-8.
    private mutating func quotedString() -> String? {
        index += 1  // the opening quote
        var value: [UInt8] = []
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = current, escaped == 0x09 || escaped >= 0x20, escaped != 0x7F else { return nil }
                value.append(escaped)
                index += 1
            case 0x09, 0x20...0x7E, 0x80...0xFF:
                value.append(byte)
            default:
                return nil  // a control character or DEL
            }
        }
        return nil  // unterminated
    }

    private mutating func skipWhitespace() {
        while let byte = current, isWhitespace(byte) { index += 1 }
    }

    /// OWS and commas: the separators (and empty elements) of a `#` list. Whether a comma was
    /// among them.
    @discardableResult
    private mutating func skipListSeparators() -> Bool {
        var crossedComma = false
        while let byte = current, isWhitespace(byte) || byte == UInt8(ascii: ",") {
            crossedComma = crossedComma || byte == UInt8(ascii: ",")
            index += 1
        }
        return crossedComma
    }

    private func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == 0x09
    }

    /// `ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/"`.
    private static func isToken68Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
            UInt8(ascii: "+"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}
