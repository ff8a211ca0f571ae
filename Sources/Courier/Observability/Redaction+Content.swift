package import Foundation
package import HTTPTypes

// MARK: Headers

extension Redaction {
    /// `headers` in their order, with every field of a secret header (see
    /// ``isSecret(headerName:)``) replaced by ``placeholder`` (keeping a well-known
    /// authentication scheme), and URL-valued fields (an `http(s)` URL, or a reference starting
    /// with `/`, such as a relative `Location`) redacted like URLs.
    ///
    /// ```swift
    /// let shown = Redaction.default.redact(headers: [.authorization: "Bearer abc", .accept: "*/*"])
    /// // Authorization: Bearer <redacted>, Accept: */*
    /// ```
    package func redact(headers: HTTPFields) -> HTTPFields {
        var result = HTTPFields()
        for field in headers {
            result.append(HTTPField(name: field.name, value: redactedValue(ofHeader: field.name.rawName, value: field.value)))
        }
        return result
    }

    /// The value of the header `name` as it may be printed.
    func redactedValue(ofHeader name: String, value: String) -> String {
        if isSecret(headerName: name) {
            let normalized = Self.normalize(name)
            if normalized == "authorization" || normalized == "proxyauthorization",
                let scheme = value.split(separator: " ", maxSplits: 1).first,
                Self.authenticationSchemes.contains(scheme.lowercased())
            {
                return "\(scheme) \(Self.placeholder)"
            }
            return Self.placeholder
        }
        let lowered = value.lowercased()
        // An absolute URL, or a reference that starts with "/" (a relative `Location:
        // /next?token=…`, which servers send as often as absolute ones).
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || value.utf8.first == UInt8(ascii: "/") {
            return redact(urlString: value)
        }
        return value
    }

    /// Schemes that say how to authenticate, not who: safe to show.
    private static let authenticationSchemes: Set<String> = [
        "basic", "bearer", "digest", "dpop", "negotiate", "ntlm", "hoba", "mutual", "token",
        "aws4-hmac-sha256", "oauth",
    ]

    /// `text` with every occurrence of each of `secrets` (UTF-8 bytes, compared byte for byte:
    /// a combining mark after a secret does not hide it) replaced by ``placeholder`` (by nothing
    /// when a secret is part of the placeholder); the placeholder alone when a secret still
    /// occurs after that (one the placeholder completed).
    package static func replacing(_ secrets: [[UInt8]], in text: String) -> String {
        func occurs(_ secret: [UInt8], in bytes: [UInt8]) -> Bool {
            bytes.indices.contains { bytes[$0...].starts(with: secret) }
        }
        let placeholder = secrets.contains { occurs($0, in: Array(Self.placeholder.utf8)) } ? "" : Self.placeholder
        var bytes = Array(text.utf8)
        var replaced = false
        for secret in secrets where !secret.isEmpty {
            var out: [UInt8] = []
            var index = 0
            while index < bytes.count {
                if bytes[index] == secret[0], bytes.count - index >= secret.count,
                    bytes[index..<(index + secret.count)].elementsEqual(secret)
                {
                    out += placeholder.utf8
                    index += secret.count
                    replaced = true
                } else {
                    out.append(bytes[index])
                    index += 1
                }
            }
            bytes = out
        }
        guard replaced else { return text }
        return secrets.contains { occurs($0, in: bytes) } ? placeholder : String(decoding: bytes, as: UTF8.self)
    }

    /// A header name as it may be printed. A valid name (an RFC 9110 token) is printed whole; of
    /// anything else only the token characters before the first other character are, followed
    /// by `…`, because a "name" such as `Authorization: Bearer abc` is a header line pasted
    /// whole, value included.
    package static func printableHeaderName(_ name: String) -> String {
        guard let bad = firstInvalidHeaderNameScalar(name) else { return name }
        return String(name.unicodeScalars[..<bad]) + "…"
    }

    /// `text` as one log line: control characters (C0, DEL, C1, the line and paragraph
    /// separators) and bidirectional formatting characters shown as `\u{…}`, so that text a
    /// server wrote (an OAuth2 `error_description`) cannot end the line and forge another, or
    /// reorder what a terminal shows.
    package static func singleLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnprintable) else { return text }
        var line = ""
        for scalar in text.unicodeScalars {
            if isUnprintable(scalar) {
                line += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                line.unicodeScalars.append(scalar)
            }
        }
        return line
    }

    private static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029: true  // controls, line and paragraph separators
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional formatting
        default: false
        }
    }

    /// Where `name` stops being an RFC 9110 token, if it does.
    static func firstInvalidHeaderNameScalar(_ name: String) -> String.UnicodeScalarView.Index? {
        name.unicodeScalars.firstIndex { !$0.isASCII || !HTTPToken.isTChar(UInt8($0.value)) }
    }
}

// MARK: Bodies

extension Redaction {
    /// `formBody` with the values of secret fields (by ``namePatterns``, ``formFields`` and
    /// ``exposed``) replaced by ``placeholder``; fields are separated by `&` or `;`. `nil` when the bytes are not
    /// form-encoded text (not UTF-8, or with spaces, control or non-ASCII characters).
    ///
    /// ```swift
    /// Redaction.default.redact(formBody: Data("grant_type=password&user%5Bpassword%5D=x".utf8))
    /// // "grant_type=password&user%5Bpassword%5D=<redacted>"
    /// ```
    package func redact(formBody: Data) -> String? {
        guard formBody.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            let text = String(data: formBody, encoding: .utf8)
        else { return nil }
        return Self.redactParameters(text, isSecret: fieldNameTest)
    }

    /// `jsonBody` with the values of secret object keys (by ``namePatterns``, ``formFields`` and
    /// ``exposed``), at any depth, replaced by ``placeholder``, keys sorted; `nil` when the bytes are not JSON.
    ///
    /// ```swift
    /// Redaction.default.redact(jsonBody: Data(#"{"user":"bob","auth":{"password":"x"}}"#.utf8))
    /// // {"auth":"<redacted>","user":"bob"}
    /// ```
    package func redact(jsonBody: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: jsonBody, options: [.fragmentsAllowed]) else {
            return nil
        }
        let redacted = Self.redactJSON(object, isSecret: fieldNameTest)
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: redacted, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        else {
            return nil
        }
        return String(data: data, encoding: .utf8)
    }

    private static func redactJSON(_ value: Any, isSecret: (String) -> Bool) -> Any {
        if let dictionary = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, member) in dictionary {
                result[key] = isSecret(key) ? placeholder : redactJSON(member, isSecret: isSecret)
            }
            return result
        }
        if let array = value as? [Any] {
            return array.map { redactJSON($0, isSecret: isSecret) }
        }
        return value
    }
}

// MARK: Descriptions

extension Redaction {
    /// One line for logs: method, redacted URL, header count and body size; never header values
    /// or body bytes.
    ///
    /// <!-- guide: skip: internal API, not visible outside Courier -->
    /// ```swift
    /// Redaction.default.describe(request)
    /// // "POST https://h/token?code=<redacted> (3 headers, 120-byte body)"
    /// ```
    func describe(_ request: TransportRequest) -> String {
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
    /// <!-- guide: skip: internal API, not visible outside Courier -->
    /// ```swift
    /// Redaction.default.describe(response)
    /// // "HTTP 200 from https://h/me?access_token=<redacted> (2 headers, 512 bytes of application/json)"
    /// ```
    func describe(_ response: Response) -> String {
        let count = response.headers.count
        var body = "\(response.body.count) byte\(response.body.count == 1 ? "" : "s")"
        if let mediaType = response.mediaType { body += " of \(mediaType)" }
        return "HTTP \(response.statusCode) from \(redact(url: response.url)) (\(count) header\(count == 1 ? "" : "s"), \(body))"
    }
}
