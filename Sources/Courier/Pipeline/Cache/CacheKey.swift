import Foundation
import HTTPTypes

/// A cache's primary key (RFC 9111 §2, §4): the target URI and the caller's credential
/// partition. The method is not part of it: only `GET` responses are stored, and a `HEAD` is
/// answered from the stored `GET`.
///
/// The partition is opaque here: the caller passes a string identifying the credential of the
/// request (a hash of it), or `""` for none, so that one user's responses are never served to
/// another.
struct CacheKey: Hashable, Sendable {
    /// The normalised absolute target URI: lowercased scheme and host, no default port, no
    /// fragment, `/` for an empty path.
    var url: String
    /// The credential partition.
    var partition: String

    /// The key of `request`, for a cache partitioned by `partition`; `nil` for a request without
    /// a scheme or an authority (it cannot name a cacheable resource).
    init?(_ request: HTTPRequest, partition: String) {
        guard let scheme = request.scheme, let authority = request.authority else { return nil }
        self.init(scheme: scheme, authority: authority, path: request.path ?? "/", partition: partition)
    }

    /// The key of an absolute URI given in parts.
    init?(scheme: String, authority: String, path: String, partition: String) {
        let scheme = scheme.lowercasedIfNeeded()
        guard !scheme.isEmpty, !authority.isEmpty, !authority.utf8.contains(UInt8(ascii: "@")) else { return nil }
        var authority = authority.lowercasedIfNeeded()
        // The default port is left out (compared as bytes, not as characters).
        if scheme == "http", authority.utf8.reversed().starts(with: ":80".utf8.reversed()) {
            authority.removeLast(3)
        } else if scheme == "https", authority.utf8.reversed().starts(with: ":443".utf8.reversed()) {
            authority.removeLast(4)
        }
        var path = Substring(path)
        if let hash = path.utf8.firstIndex(of: UInt8(ascii: "#")) { path = path[..<hash] }
        var url = scheme
        url.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + max(1, path.utf8.count))
        url += "://"
        url += authority
        url += path.isEmpty ? "/" : path
        self.url = url
        self.partition = partition
    }

    /// The key of an absolute `url` (a response's final URL); `nil` for one without a scheme or
    /// a host.
    init?(_ url: URL, partition: String) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true), let scheme = components.scheme,
            var host = components.percentEncodedHost, !host.isEmpty
        else { return nil }
        if host.utf8.contains(UInt8(ascii: ":")), !host.hasPrefix("[") { host = "[" + host + "]" }
        var path = components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        self.init(scheme: scheme, authority: components.port.map { "\(host):\($0)" } ?? host, path: path, partition: partition)
    }

    /// A key from its stored parts.
    init(url: String, partition: String) {
        self.url = url
        self.partition = partition
    }

    /// Whether a cache may answer `request` at all: a `GET`, or a `HEAD` (answered from the
    /// stored `GET`), without `Range` (range requests bypass the cache). Any other request goes to
    /// the origin; an unsafe one may invalidate (``CacheValidation/invalidatedURLs(request:response:)``).
    static func mayBeAnsweredFromCache(_ request: HTTPRequest) -> Bool {
        (request.method == .get || request.method == .head) && request.headerFields[.range] == nil
    }

    /// The origin of ``url``: `scheme://authority`.
    var origin: Substring {
        guard let schemeEnd = url.range(of: "://") else { return url[...] }
        let rest = url[schemeEnd.upperBound...]
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        return url[..<end]
    }
}

/// A cache's secondary key (RFC 9111 §4.1): the request's values of the fields that the stored
/// response's `Vary` names, so that a request with other values is not answered with it.
struct CacheVariant: Hashable, Sendable {
    /// One field the response varies on: its lowercased name and the request's value, every
    /// line combined with `, ` and trimmed; `nil` when the request did not have the field.
    struct Value: Hashable, Sendable {
        var name: String
        var value: String?
    }

    /// The fields, in the order `Vary` lists them (duplicates dropped).
    var values: [Value]
    /// `Vary: *` (or a `Vary` that cannot be read): no request ever matches.
    var matchesNothing: Bool

    /// No `Vary`: every request matches.
    static let none = CacheVariant(values: [], matchesNothing: false)

    /// The variants of one key a storage keeps at most, the oldest evicted first: a `Vary` on a
    /// field that changes with every call (a request id) cannot make each lookup of the URI read
    /// thousands of entries.
    static let maximumStoredPerKey = 32

    /// A variant from its stored parts.
    init(values: [Value], matchesNothing: Bool) {
        self.values = values
        self.matchesNothing = matchesNothing
    }

    /// The variant that `response` (through its `Vary`) selected from `request`'s fields.
    init(request: HTTPFields, response: HTTPFields) {
        let vary = response[values: .vary]
        var names: [String] = []
        var matchesNothing = false
        for line in vary {
            for element in line.split(separator: ",", omittingEmptySubsequences: true) {
                let name = element.trimmingSpaceAndTab().lowercased()
                if name.isEmpty { continue }
                if name == "*" || HTTPField.Name(name) == nil {
                    matchesNothing = true
                } else if !names.contains(name) {
                    names.append(name)
                }
            }
        }
        self.matchesNothing = matchesNothing
        values = names.map { name in
            Value(name: name, value: HTTPField.Name(name).flatMap { Self.normalisedValue(of: $0, in: request) })
        }
    }

    /// Whether `request` has the same values for every field this variant names (§4.1).
    func matches(_ request: HTTPFields) -> Bool {
        guard !matchesNothing else { return false }
        for value in values {
            guard let name = HTTPField.Name(value.name) else { return false }
            if Self.normalisedValue(of: name, in: request) != value.value { return false }
        }
        return true
    }

    /// The stored `entries` that may answer a request with these fields (§4.1): those whose
    /// variant matches, the most recent first (by `Date`, then by when they were received, then
    /// the one that stays fresh longest).
    static func selected(for request: HTTPFields, among entries: [CacheEntry]) -> [CacheEntry] {
        if entries.count == 1 { return entries[0].variant.matches(request) ? entries : [] }
        let matching = entries.filter { $0.variant.matches(request) }
        return matching.sorted { first, second in
            if first.facts.date != second.facts.date { return first.facts.date > second.facts.date }
            if first.responseTime != second.responseTime { return first.responseTime > second.responseTime }
            // Received at the same moment (a disk cache reopened forgets which came first): the
            // one that stays fresh longer, so that a response a 304 or a later call made usable
            // is not passed over for a stale one.
            return first.facts.lifetime > second.facts.lifetime
        }
    }

    /// The field's lines combined with `, `, each trimmed of spaces and tabs; `nil` if absent.
    /// (§4.1 allows normalising; this is the whitespace normalisation that is always safe.)
    static func normalisedValue(of name: HTTPField.Name, in fields: HTTPFields) -> String? {
        let lines = fields[values: name]
        guard !lines.isEmpty else { return nil }
        return lines.map { $0.trimmingSpaceAndTab() }.joined(separator: ", ")
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (RFC 9110 `OWS`).
    func trimmingSpaceAndTab() -> String {
        let text = String(self)
        let bytes = text.utf8
        func isSpaceOrTab(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isSpaceOrTab(bytes[start]) { bytes.formIndex(after: &start) }
        while end > start, isSpaceOrTab(bytes[bytes.index(before: end)]) { bytes.formIndex(before: &end) }
        if start == bytes.startIndex, end == bytes.endIndex { return text }
        return String(text[start..<end])
    }

    /// The text lowercased; the same string, without a copy, when it is ASCII without an
    /// uppercase letter (the usual case for a scheme or a host).
    func lowercasedIfNeeded() -> String {
        let text = String(self)
        let isLowercaseASCII = text.utf8.allSatisfy { $0 < 0x80 && !($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) }
        return isLowercaseASCII ? text : text.lowercased()
    }
}
