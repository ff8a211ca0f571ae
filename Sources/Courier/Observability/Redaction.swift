public import Foundation
public import HTTPTypes

/// Which secrets to hide when a request or response is printed, and the functions that hide them.
///
/// Courier never prints a credential: header values, query items and body fields whose names
/// are listed here are replaced by ``placeholder``. The lists start from ``default`` and can be
/// changed:
///
/// ```swift
/// var redaction = Redaction.default
/// redaction.headers.insert("X-Tenant-Secret")   // also hide this header
/// redaction.queryItems.remove("code")           // show `code` query items
/// print(redaction.describe(request))            // "POST https://api.example.com/token (3 headers, 120-byte body)"
/// print(request.curlCommand(redaction: redaction))
/// ```
///
/// ## How names match
/// Names compare case-insensitively and ignoring `-` and `_`, so `access_token`, `Access-Token`
/// and `accessToken` are the same name. Query and form names are percent-decoded first (also
/// `+` as a space, and up to three times, so `access%5Ftoken` and `access%255Ftoken` match).
/// A structured name matches when any of its parts does: `user[password]`, `password[]`,
/// `auth[0][token]` and `user.password` are all redacted when `password` or `token` is listed.
/// This errs on the side of hiding too much rather than too little.
///
/// ## What is hidden
/// - Every field of a listed header, whatever its value (commas and repeated fields included).
///   For `Authorization` and `Proxy-Authorization` a well-known scheme stays visible
///   (`Bearer <redacted>`). A header that is not listed but whose value is an `http(s)` URL
///   (`Location`, `Referer`) gets its query redacted like a request URL.
/// - In URLs: the values of listed query items and of listed `name=value` items of the fragment
///   (OAuth implicit-flow tokens travel there), and the user-info password.
/// - In `application/x-www-form-urlencoded` bodies: the values of listed fields. In JSON bodies:
///   the values of listed object keys (``formFields`` serves both).
///
/// Not hidden: secrets in path segments (`/reset/{token}`), in URLs nested inside query values,
/// and in text bodies that are neither form-encoded nor JSON. Bodies never appear in
/// `describe(_:)`; ``TransportRequest/curlCommand(redaction:)`` shows at most
/// ``bodyPreviewLimit`` bytes of a redacted form, JSON or text body.
public struct Redaction: Sendable, Equatable {
    /// Header names whose values are hidden. Default: ``defaultHeaders``.
    ///
    /// ```swift
    /// var redaction = Redaction.default
    /// redaction.headers.insert("X-Signature")
    /// ```
    public var headers: Set<String>
    /// Query item names whose values are hidden, in URLs (query and fragment). Default:
    /// ``defaultParameterNames``.
    ///
    /// ```swift
    /// var redaction = Redaction.default
    /// redaction.queryItems.insert("sig")
    /// ```
    public var queryItems: Set<String>
    /// Field names whose values are hidden in `application/x-www-form-urlencoded` bodies and keys
    /// whose values are hidden in JSON bodies. Default: ``defaultParameterNames``.
    ///
    /// ```swift
    /// var redaction = Redaction.default
    /// redaction.formFields.insert("pin")
    /// ```
    public var formFields: Set<String>

    /// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`, `X-Auth-Token`.
    ///
    /// ```swift
    /// let redaction = Redaction(headers: Redaction.defaultHeaders.union(["X-Signature"]))
    /// ```
    public static let defaultHeaders: Set<String> = [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Auth-Token",
    ]

    /// The OAuth 2 and common API-key parameter names: `access_token`, `refresh_token`,
    /// `id_token`, `token`, `subject_token`, `actor_token`, `client_secret`, `client_assertion`,
    /// `assertion`, `code`, `code_verifier`, `password`, `api_key` (which also matches `apiKey`
    /// and `api-key`), `apikey`, `secret`.
    ///
    /// ```swift
    /// let redaction = Redaction(queryItems: Redaction.defaultParameterNames.subtracting(["code"]))
    /// ```
    public static let defaultParameterNames: Set<String> = [
        "access_token", "refresh_token", "id_token", "token", "subject_token", "actor_token",
        "client_secret", "client_assertion", "assertion", "code", "code_verifier", "password",
        "api_key", "apikey", "secret",
    ]

    /// The default lists: ``defaultHeaders``, and ``defaultParameterNames`` for query items and
    /// body fields.
    ///
    /// ```swift
    /// Redaction.default.redact(url: URL(string: "https://h/cb?code=abc&state=1")!)
    /// // "https://h/cb?code=<redacted>&state=1"
    /// ```
    public static let `default` = Redaction()

    /// What replaces a hidden value: `<redacted>`.
    ///
    /// ```swift
    /// #expect(text.contains(Redaction.placeholder))
    /// ```
    public static let placeholder = "<redacted>"

    /// The most body bytes ``TransportRequest/curlCommand(redaction:)`` shows: 4 KiB. A longer
    /// body is replaced by a comment with its size.
    ///
    /// ```swift
    /// if body.count > Redaction.bodyPreviewLimit { … }
    /// ```
    public static let bodyPreviewLimit = 4096

    /// Creates a redaction with the given lists; each defaults to the standard one.
    ///
    /// ```swift
    /// let strict = Redaction(headers: Redaction.defaultHeaders.union(["X-Request-Signature"]))
    /// let none = Redaction(headers: [], queryItems: [], formFields: [])   // hides nothing
    /// ```
    public init(
        headers: Set<String> = Redaction.defaultHeaders,
        queryItems: Set<String> = Redaction.defaultParameterNames,
        formFields: Set<String> = Redaction.defaultParameterNames
    ) {
        self.headers = headers
        self.queryItems = queryItems
        self.formFields = formFields
    }

    // MARK: URLs

    /// `url` with the values of listed query (and fragment) items replaced by ``placeholder``
    /// and the user-info password hidden; everything else as it was written.
    ///
    /// ```swift
    /// Redaction.default.redact(url: URL(string: "https://bob:pw@h/p?Access%5FToken=x&page=2")!)
    /// // "https://bob:<redacted>@h/p?Access%5FToken=<redacted>&page=2"
    /// ```
    public func redact(url: URL) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return "<unprintable URL>"
        }
        var text = ""
        if let scheme = components.scheme { text += scheme + ":" }
        if let host = components.percentEncodedHost {
            text += "//"
            if let user = components.percentEncodedUser {
                text += user
                if components.percentEncodedPassword != nil { text += ":" + Self.placeholder }
                text += "@"
            } else if components.percentEncodedPassword != nil {
                text += ":" + Self.placeholder + "@"
            }
            text += host
            if let port = components.port { text += ":\(port)" }
        }
        text += components.percentEncodedPath
        if let query = components.percentEncodedQuery {
            text += "?" + Self.redactParameters(query, names: queryItems)
        }
        if let fragment = components.percentEncodedFragment {
            text += "#" + Self.redactParameters(fragment, names: queryItems)
        }
        return text
    }

    // MARK: Headers

    /// `headers` in their order, with every field of a listed header replaced by ``placeholder``
    /// (keeping a well-known authentication scheme), and URL-valued fields redacted like URLs.
    ///
    /// ```swift
    /// let shown = Redaction.default.redact(headers: [.authorization: "Bearer abc", .accept: "*/*"])
    /// // Authorization: Bearer <redacted>, Accept: */*
    /// ```
    public func redact(headers: HTTPFields) -> HTTPFields {
        let listed = Self.normalizedSet(self.headers)
        var result = HTTPFields()
        for field in headers {
            result.append(HTTPField(name: field.name, value: redactedValue(of: field, listed: listed)))
        }
        return result
    }

    /// The value of `field` as it may be printed.
    func redactedValue(of field: HTTPField, listed: Set<String>) -> String {
        if listed.contains(Self.normalize(field.name.canonicalName)) {
            if field.name == .authorization || field.name == .proxyAuthorization,
               let scheme = field.value.split(separator: " ", maxSplits: 1).first,
               Self.authenticationSchemes.contains(scheme.lowercased()) {
                return "\(scheme) \(Self.placeholder)"
            }
            return Self.placeholder
        }
        let lowered = field.value.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let url = URL(string: field.value) {
            return redact(url: url)
        }
        return field.value
    }

    /// Schemes that say how to authenticate, not who: safe to show.
    private static let authenticationSchemes: Set<String> = [
        "basic", "bearer", "digest", "dpop", "negotiate", "ntlm", "hoba", "mutual", "token",
        "aws4-hmac-sha256", "oauth",
    ]

    // MARK: Bodies

    /// `formBody` with the values of listed fields replaced by ``placeholder``; `nil` when the
    /// bytes are not form-encoded text (not UTF-8, or with spaces, control or non-ASCII characters).
    ///
    /// ```swift
    /// Redaction.default.redact(formBody: Data("grant_type=password&user%5Bpassword%5D=x".utf8))
    /// // "grant_type=password&user%5Bpassword%5D=<redacted>"
    /// ```
    public func redact(formBody: Data) -> String? {
        guard formBody.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
              let text = String(data: formBody, encoding: .utf8) else { return nil }
        return Self.redactParameters(text, names: formFields)
    }

    /// `jsonBody` with the values of keys listed in ``formFields`` replaced by ``placeholder``,
    /// keys sorted; `nil` when the bytes are not JSON.
    ///
    /// ```swift
    /// Redaction.default.redact(jsonBody: Data(#"{"user":"bob","password":"x"}"#.utf8))
    /// // {"password":"<redacted>","user":"bob"}
    /// ```
    public func redact(jsonBody: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: jsonBody, options: [.fragmentsAllowed]) else {
            return nil
        }
        let names = Self.normalizedSet(formFields)
        let redacted = Self.redactJSON(object, names: names)
        guard let data = try? JSONSerialization.data(
            withJSONObject: redacted, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]) else {
            return nil
        }
        return String(data: data, encoding: .utf8)
    }

    private static func redactJSON(_ value: Any, names: Set<String>) -> Any {
        if let dictionary = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, member) in dictionary {
                result[key] = nameMatches(key, names: names) ? placeholder : redactJSON(member, names: names)
            }
            return result
        }
        if let array = value as? [Any] {
            return array.map { redactJSON($0, names: names) }
        }
        return value
    }

    // MARK: Descriptions

    /// One line for logs: method, redacted URL, header count and body size; never header values
    /// or body bytes.
    ///
    /// ```swift
    /// Redaction.default.describe(request)
    /// // "POST https://h/token?code=<redacted> (3 headers, 120-byte body)"
    /// ```
    public func describe(_ request: TransportRequest) -> String {
        let count = request.head.headerFields.count
        var details = ["\(count) header\(count == 1 ? "" : "s")"]
        switch request.body {
        case nil:
            details.append("no body")
        case .data(let data):
            details.append("\(data.count)-byte body")
        case .stream(let stream):
            details.append(stream.length.map { "streamed \($0)-byte body" } ?? "streamed body of unknown length")
        }
        return "\(request.head.method.rawValue) \(redact(url: request.url)) (\(details.joined(separator: ", ")))"
    }

    /// One line for logs: status, redacted URL, header count, body size and media type; never
    /// header values (so never `Set-Cookie`) or body bytes.
    ///
    /// ```swift
    /// Redaction.default.describe(response)
    /// // "HTTP 200 from https://h/me?access_token=<redacted> (2 headers, 512 bytes of application/json)"
    /// ```
    public func describe(_ response: Response) -> String {
        let count = response.headers.count
        var body = "\(response.body.count) byte\(response.body.count == 1 ? "" : "s")"
        if let mediaType = response.mediaType { body += " of \(mediaType)" }
        return "HTTP \(response.statusCode) from \(redact(url: response.url)) (\(count) header\(count == 1 ? "" : "s"), \(body))"
    }

    // MARK: Name matching

    /// Replaces the values of `name=value` items (separated by `&`) whose name is listed.
    static func redactParameters(_ encoded: String, names: Set<String>) -> String {
        let normalized = normalizedSet(names)
        guard !normalized.isEmpty else { return encoded }
        return encoded.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            guard let equals = item.firstIndex(of: "=") else { return String(item) }
            let name = item[..<equals]
            return nameMatches(decodedName(name), names: normalized) ? "\(name)=\(placeholder)" : String(item)
        }.joined(separator: "&")
    }

    /// A query or form name, percent-decoded (`+` as a space) up to three times.
    private static func decodedName(_ name: Substring) -> String {
        var text = name.replacingOccurrences(of: "+", with: " ")
        for _ in 0..<3 where text.contains("%") {
            guard let bytes = PercentEncoding.decodeBytes(text) else { break }
            text = String(decoding: bytes, as: UTF8.self)
        }
        return text
    }

    /// Whether `name`, or any part of a structured name (`a[b][c]`, `a.b`), is in `names`
    /// (already normalized).
    static func nameMatches(_ name: String, names: Set<String>) -> Bool {
        if names.contains(normalize(name)) { return true }
        return name.split(whereSeparator: { $0 == "[" || $0 == "]" || $0 == "." })
            .contains { names.contains(normalize($0)) }
    }

    /// Lower-cased, trimmed, without `-` and `_`.
    static func normalize(_ name: some StringProtocol) -> String {
        String(name.lowercased().unicodeScalars.filter { $0 != "-" && $0 != "_" && $0 != " " && $0 != "\t" }
            .map(Character.init))
    }

    static func normalizedSet(_ names: Set<String>) -> Set<String> {
        Set(names.map { normalize($0) }.filter { !$0.isEmpty })
    }
}
