import Foundation

extension Redaction {
    /// Rules that make a name secret by its shape rather than by a list: a header, query item,
    /// form field or JSON key is secret when its normalized name (lower-cased, without `-`, `_`
    /// and white space) contains one of the ``fragments`` or starts with one of the
    /// ``prefixes``. A prefix also matches after an `X-` (or `x_`) prefix, so `auth` matches
    /// `X-Auth-User`.
    ///
    /// A list can never name every credential header a service invents (`Private-Token`,
    /// `X-Amz-Security-Token`, `X-Goog-Api-Key`…); the words they are made of are few.
    ///
    /// ```swift
    /// var patterns = Redaction.NamePatterns.standard
    /// patterns.fragments.insert("pin")
    /// let redaction = Redaction(namePatterns: patterns)   // hides `X-User-PIN` too
    /// ```
    package struct NamePatterns: Sendable, Equatable {
        /// A name containing one of these (after normalization) is secret.
        package var fragments: Set<String>
        /// A name starting with one of these (after normalization, with or without an `X-`
        /// prefix) is secret.
        package var prefixes: Set<String>

        /// Creates patterns; without arguments, patterns that match nothing.
        ///
        /// ```swift
        /// let patterns = Redaction.NamePatterns(fragments: ["token"], prefixes: ["auth"])
        /// ```
        package init(fragments: Set<String> = [], prefixes: Set<String> = []) {
            self.fragments = fragments
            self.prefixes = prefixes
        }

        /// Fragments `token`, `secret`, `key`, `password`, `passwd`, `pwd`, `passphrase`,
        /// `credential`, `signature`, `session`, `sessid` (PHP's `PHPSESSID`), `cookie`,
        /// `authorization` (so `Proxy-Authorization`), `jwt`, `csrf`, `xsrf`; prefix `auth`.
        ///
        /// `Private-Token` matches; `WWW-Authenticate` does not (a challenge, not a secret).
        package static let standard = NamePatterns(
            fragments: [
                "token", "secret", "key", "password", "passwd", "pwd", "passphrase", "credential",
                "signature", "session", "sessid", "cookie", "authorization", "jwt", "csrf", "xsrf",
            ],
            prefixes: ["auth"]
        )

        /// Whether `name` matches a fragment or a prefix.
        ///
        /// <!-- guide: skip: internal API, not visible outside Courier -->
        /// ```swift
        /// Redaction.NamePatterns.standard.matches("x_auth_user")   // true
        /// Redaction.NamePatterns.standard.matches("Accept")        // false
        /// ```
        func matches(_ name: some StringProtocol) -> Bool {
            SecretNameMatcher(listed: [], exposed: [], patterns: self).matchesPatterns(name)
        }
    }
}

// MARK: Name matching

/// A ``Redaction``'s rules for one kind of name, normalized once: a JSON body with many keys or
/// a long query costs one normalization per name, not one per name and rule.
struct SecretNameMatcher {
    /// Listed names, normalized.
    private let listed: Set<String>
    /// Exposed names, normalized.
    private let exposed: Set<String>
    /// Pattern fragments and prefixes, normalized, without empty ones (which would match all).
    private let fragments: [String]
    private let prefixes: [String]

    init(listed: Set<String>, exposed: Set<String>, patterns: Redaction.NamePatterns) {
        self.listed = Redaction.normalizedSet(listed)
        self.exposed = Redaction.normalizedSet(exposed)
        self.fragments = Array(Redaction.normalizedSet(patterns.fragments))
        self.prefixes = Array(Redaction.normalizedSet(patterns.prefixes))
    }

    /// Whether a header name is secret: not exposed, and listed or matching a pattern.
    func isSecret(headerName name: String) -> Bool {
        let normalized = Redaction.normalize(name)
        guard !normalized.isEmpty, !exposed.contains(normalized) else { return false }
        return listed.contains(normalized) || matchesPatterns(name)
    }

    /// Whether a decoded query, form or JSON name is secret: the whole name is not exposed, and
    /// the whole name is listed, or one of its parts (`a[b][c]`, `a.b`; the whole name when it
    /// has no parts) is listed or matches a pattern and is not exposed itself.
    func isSecret(parameter name: String) -> Bool {
        let whole = Redaction.normalize(name)
        guard !whole.isEmpty, !exposed.contains(whole) else { return false }
        if listed.contains(whole) { return true }
        let parts = name.split(whereSeparator: { $0 == "[" || $0 == "]" || $0 == "." })
        return parts.contains { part in
            let normalized = Redaction.normalize(part)
            guard !normalized.isEmpty, !exposed.contains(normalized) else { return false }
            return listed.contains(normalized) || matchesPatterns(part)
        }
    }

    /// Whether `name` contains a fragment or starts with a prefix (also after `X-` or `x_`).
    func matchesPatterns(_ name: some StringProtocol) -> Bool {
        let normalized = Redaction.normalize(name)
        guard !normalized.isEmpty else { return false }
        if fragments.contains(where: { normalized.contains($0) }) { return true }
        guard !prefixes.isEmpty else { return false }
        // `X-` is the old convention for "not standardized", not part of what a name means.
        let lowered = name.lowercased()
        let withoutX =
            lowered.hasPrefix("x-") || lowered.hasPrefix("x_")
            ? Redaction.normalize(lowered.dropFirst(2)) : normalized
        return prefixes.contains { normalized.hasPrefix($0) || withoutX.hasPrefix($0) }
    }
}

extension Redaction {
    /// The matcher for header names.
    var headerMatcher: SecretNameMatcher {
        SecretNameMatcher(listed: headers, exposed: exposed, patterns: namePatterns)
    }

    /// The matcher for query item names (also fragment items and path parameters).
    var queryItemMatcher: SecretNameMatcher {
        SecretNameMatcher(listed: queryItems, exposed: exposed, patterns: namePatterns)
    }

    /// The matcher for form field names and JSON keys.
    var fieldMatcher: SecretNameMatcher {
        SecretNameMatcher(listed: formFields, exposed: exposed, patterns: namePatterns)
    }

    /// ``isSecret(queryItemName:)`` with the rules normalized once, for many names.
    var queryItemNameTest: (String) -> Bool {
        let matcher = queryItemMatcher
        return { matcher.isSecret(parameter: Redaction.decodedName(Substring($0))) }
    }

    /// ``isSecret(fieldName:)`` with the rules normalized once, for many names.
    var fieldNameTest: (String) -> Bool {
        let matcher = fieldMatcher
        return { matcher.isSecret(parameter: Redaction.decodedName(Substring($0))) }
    }

    /// A query or form name, percent-decoded (`+` as a space) up to three times, so that an
    /// encoded name cannot slip past the patterns.
    ///
    /// Works on UTF-8 bytes, as a server does: `String.replacingOccurrences(of: "+", …)` and
    /// `contains("%")` compare grapheme clusters, and miss a `+` or `%` that a combining mark
    /// (U+0301, U+06E4, …) follows.
    static func decodedName(_ name: Substring) -> String {
        let percent = UInt8(ascii: "%")
        var text = String(decoding: name.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
        for _ in 0..<3 where text.utf8.contains(percent) {
            guard let bytes = PercentEncoding.decodeBytes(text) else { break }
            text = String(decoding: bytes, as: UTF8.self)
        }
        return text
    }

    /// Lower-cased, without `-`, `_` and white space.
    static func normalize(_ name: some StringProtocol) -> String {
        // Names are almost always ASCII: lower-case and filter their bytes directly.
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(name.utf8.count)
            for byte in name.utf8
            where byte != UInt8(ascii: "-") && byte != UInt8(ascii: "_")
                && byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t")
            {
                bytes.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return String(
            name.lowercased().unicodeScalars.filter { $0 != "-" && $0 != "_" && $0 != " " && $0 != "\t" }
                .map(Character.init))
    }

    static func normalizedSet(_ names: Set<String>) -> Set<String> {
        Set(names.map { normalize($0) }.filter { !$0.isEmpty })
    }
}
