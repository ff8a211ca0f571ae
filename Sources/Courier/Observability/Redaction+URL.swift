package import Foundation

extension Redaction {
    /// `url` as it may be printed: the whole user-info replaced by ``placeholder``, and the
    /// values of secret items of the query, the fragment and the path parameters too;
    /// everything else as it was written.
    ///
    /// ```swift
    /// Redaction.default.redact(url: URL(string: "https://bob:pw@h/p;jsessionid=s?Access%5FToken=x;page=2")!)
    /// // "https://<redacted>@h/p;jsessionid=<redacted>?Access%5FToken=<redacted>;page=2"
    /// ```
    package func redact(url: URL) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return redact(urlString: url.absoluteString)
        }
        return redact(components) ?? redact(urlString: url.absoluteString)
    }

    /// A string meant to be a URL (or a host, or a path), as it may be printed: like
    /// ``redact(url:)`` when it parses as a URL with a host. When it does not, it is read
    /// leniently and cautiously: everything before the last `@` of the part that could be the
    /// authority is replaced by ``placeholder``, and secret query and fragment items are hidden,
    /// so a mistyped URL's credentials are not printed in the error that reports it.
    ///
    /// ```swift
    /// Redaction.default.redact(urlString: "ghp_SECRET@api.github.com")    // "<redacted>@api.github.com"
    /// Redaction.default.redact(urlString: "https://u:p/w@h x?token=t")     // "https://<redacted>@h x?token=<redacted>"
    /// ```
    package func redact(urlString: String) -> String {
        if let components = URLComponents(string: urlString), let redacted = redact(components) {
            return redacted
        }
        // Every delimiter is found among Unicode scalars, never `Character`s: a combining mark
        // after a "?", "@" or "=" (U+0301) makes one grapheme cluster with it, which a
        // character search skips, leaving a secret unredacted.
        var rest = Substring(urlString)
        var fragment: Substring?
        var query: Substring?
        if let hash = rest.unicodeScalars.firstIndex(of: "#") {
            fragment = rest[rest.unicodeScalars.index(after: hash)...]
            rest = rest[..<hash]
        }
        if let question = rest.unicodeScalars.firstIndex(of: "?") {
            query = rest[rest.unicodeScalars.index(after: question)...]
            rest = rest[..<question]
        }
        // Where an authority would start: after `scheme://`, after a leading `//`, or at once
        // for something that is not a path (a host such as `user@api.example.com`). It ends at
        // the last `@` before the query, not at the first `/`: a password may hold an
        // unescaped `/`, and an invalid string is better over-redacted than leaking one.
        let authorityStart: Substring.Index? =
            if let scheme = rest.range(of: "://", options: .literal) { scheme.upperBound } else if rest.utf8.starts(with: "//".utf8) {
                rest.utf8.index(rest.startIndex, offsetBy: 2)
            } else if rest.utf8.first != UInt8(ascii: "/") { rest.startIndex } else { nil }
        var text = ""
        if let start = authorityStart, let at = rest.unicodeScalars[start...].lastIndex(of: "@") {
            text = rest[..<start] + Self.placeholder + "@"
            rest = rest[rest.unicodeScalars.index(after: at)...]
            // What follows the host is a path, whose parameters are redacted below.
            if let slash = rest.unicodeScalars.firstIndex(of: "/") {
                text += rest[..<slash]
                rest = rest[slash...]
            } else {
                text += rest
                rest = rest[rest.endIndex...]
            }
        }
        text += redactPathParameters(String(rest))
        if let query { text += "?" + Self.redactParameters(query, isSecret: queryItemNameTest) }
        if let fragment { text += "#" + Self.redactParameters(fragment, isSecret: queryItemNameTest) }
        return text
    }

    /// `url` as a span attribute (`url.full`) may hold it, in the form the OpenTelemetry
    /// semantic conventions ask for: user-info as `REDACTED:REDACTED`, the values of secret
    /// query, fragment and path-parameter items as `REDACTED`; still a valid URL. A URL that
    /// cannot be taken apart is redacted as ``redact(urlString:)`` does.
    func redactForTelemetry(url: URL) -> String {
        let string = url.absoluteString
        // Without user-info, a query, a fragment or path parameters there is nothing to hide
        // (an "@" in a path takes the long way, which finds nothing either).
        let hidesNothing = !string.utf8.contains { byte in
            byte == UInt8(ascii: "@") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: ";")
        }
        if hidesNothing { return string }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let text = redact(components, userInfo: "REDACTED:REDACTED", replacement: "REDACTED")
        else {
            return redact(urlString: url.absoluteString)
        }
        return text
    }

    /// The redacted text of parsed components, or `nil` when they have no host (not a URL
    /// Courier sends, so the lenient reading applies).
    /// - Parameters:
    ///   - userInfo: what replaces the whole user-info, if there is one.
    ///   - replacement: what replaces the value of a secret item.
    private func redact(
        _ components: URLComponents, userInfo: String = placeholder, replacement: String = placeholder
    ) -> String? {
        guard let host = components.percentEncodedHost, !host.isEmpty else { return nil }
        var text = ""
        if let scheme = components.scheme { text += scheme + ":" }
        text += "//"
        if components.percentEncodedUser != nil || components.percentEncodedPassword != nil {
            // A user name is as secret as a password: `https://ghp_token@github.com` is common.
            text += userInfo + "@"
        }
        text += host
        if let port = components.port { text += ":\(port)" }
        text += redactPathParameters(components.percentEncodedPath, replacement: replacement)
        if let query = components.percentEncodedQuery {
            text += "?" + Self.redactParameters(query, isSecret: queryItemNameTest, replacement: replacement)
        }
        if let fragment = components.percentEncodedFragment {
            text += "#" + Self.redactParameters(fragment, isSecret: queryItemNameTest, replacement: replacement)
        }
        return text
    }

    /// A path whose segments' `;name=value` parameters (RFC 3986 §3.3, Java's `;jsessionid=`)
    /// have their secret values hidden; segments themselves are kept.
    func redactPathParameters(_ path: String, replacement: String = placeholder) -> String {
        guard path.utf8.contains(UInt8(ascii: ";")) else { return path }
        return path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false).map { scalars -> String in
            let segment = Substring(scalars)
            guard let semicolon = segment.unicodeScalars.firstIndex(of: ";") else { return String(segment) }
            let parameters = segment[segment.unicodeScalars.index(after: semicolon)...]
            return segment[...semicolon]
                + Self.redactParameters(parameters, isSecret: queryItemNameTest, replacement: replacement)
        }.joined(separator: "/")
    }

    /// Replaces the values of `name=value` items, separated by `&` or `;`, whose (still
    /// encoded) name `isSecret` says is secret, by `replacement`. Separators and other items are
    /// kept as written.
    static func redactParameters(
        _ encoded: some StringProtocol, isSecret: (String) -> Bool, replacement: String = placeholder
    ) -> String {
        let scalars = Substring(encoded).unicodeScalars
        var result = ""
        var itemStart = scalars.startIndex
        var index = scalars.startIndex
        while true {
            let atEnd = index == scalars.endIndex
            if atEnd || scalars[index] == "&" || scalars[index] == ";" {
                let item = scalars[itemStart..<index]
                if let equals = item.firstIndex(of: "="), isSecret(String(item[..<equals])) {
                    result += String(item[..<equals]) + "=" + replacement
                } else {
                    result += String(item)
                }
                if atEnd { break }
                result.unicodeScalars.append(scalars[index])
                itemStart = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        return result
    }
}
