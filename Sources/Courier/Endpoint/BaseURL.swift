package import Foundation

/// The scheme, host and optional port that every endpoint of an API shares.
///
/// Construction validates the host and the port, so a `BaseURL` that exists is always one
/// Courier can send to. The host is an RFC 1123 name, an IPv4 dotted quad or an IPv6 literal in
/// brackets; non-ASCII names must be given in punycode.
///
/// ```swift
/// let api = try BaseURL(host: "api.example.com")                       // https://api.example.com
/// let local = try BaseURL(scheme: .http, host: "127.0.0.1", port: 8080)
/// let v6 = try BaseURL(scheme: .http, host: "[::1]", port: 8080)
/// let parsed = try BaseURL(string: "http://localhost:8080")
/// ```
public struct BaseURL: Hashable, Sendable {
    // Host rules in full: an RFC 1123 name (labels of 1–63 letters, digits and inner hyphens, at
    // most 253 characters), an IPv4 dotted quad with octets 0–255, or an IPv6 literal in brackets.
    // No scheme, slash, user-info, port, white space or non-ASCII character. A name whose last
    // label is all digits is read as IPv4 and must be a valid dotted quad.

    /// The URL scheme: `http` or `https`.
    public enum Scheme: String, Hashable, Sendable, CaseIterable {
        /// Plain HTTP. Use it for loopback and test servers.
        case http
        /// HTTP over TLS, the default.
        case https

        /// The port used when none is given: 80 for http, 443 for https.
        var defaultPort: Int { self == .http ? 80 : 443 }
    }

    /// The scheme.
    public let scheme: Scheme
    /// The host, as validated, in lower case (host names are case-insensitive).
    public let host: String
    /// The port, or `nil` for the scheme's default.
    public let port: Int?
    /// `host` or `host:port`, as it appears in a URL's authority.
    package let authority: String

    /// Creates a base URL from its parts.
    /// - Throws: ``CourierError/invalidRequest(_:)`` with ``InvalidRequest/invalidHost(_:reason:)``
    ///   naming the host and the rule it breaks, or ``InvalidRequest/invalidPort(_:)``. The error
    ///   never holds user-info or a secret query item: `ghp_x@api.github.com` is reported as
    ///   `<redacted>@api.github.com`.
    ///
    /// ```swift
    /// let api = try BaseURL(host: "api.example.com")
    /// ```
    public init(scheme: Scheme = .https, host: String, port: Int? = nil) throws(CourierError) {
        if let problem = HostValidation.problem(with: host) {
            // The host may be a pasted URL with a token in it; keep only what may be printed.
            throw .invalidRequest(.invalidHost(Redaction.default.redact(urlString: host), reason: problem))
        }
        if let port, !(1...65535).contains(port) {
            throw .invalidRequest(.invalidPort(port))
        }
        let host = host.lowercased()
        self.scheme = scheme
        self.host = host
        self.port = port
        self.authority = port.map { "\(host):\($0)" } ?? host
    }

    /// Reads a base URL from a string such as `"https://api.example.com"` or
    /// `"http://127.0.0.1:8080"`. A trailing `/` is allowed; any other path, a query, a
    /// fragment or user-info is an error, so nothing in the string is silently dropped.
    /// - Throws: ``CourierError/invalidRequest(_:)`` with ``InvalidRequest/invalidBaseURL(_:reason:)``,
    ///   or the host and port errors of ``init(scheme:host:port:)``. The error keeps the string
    ///   as it may be printed, without its user-info.
    ///
    /// ```swift
    /// let local = try BaseURL(string: "http://127.0.0.1:8080")
    /// ```
    public init(string: String) throws(CourierError) {
        func fail(_ reason: String) -> CourierError {
            .invalidRequest(.invalidBaseURL(Redaction.default.redact(urlString: string), reason: reason))
        }
        guard let separator = string.range(of: "://") else {
            throw fail("expected scheme://host[:port]")
        }
        guard let scheme = Scheme(rawValue: string[..<separator.lowerBound].lowercased()) else {
            throw fail("the scheme must be http or https")
        }
        var rest = string[separator.upperBound...]
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains("/") || rest.contains("?") || rest.contains("#") {
            throw fail("a base URL has no path, query or fragment; put those in the endpoint")
        }
        if rest.contains("@") {
            throw fail("a base URL has no user-info; use Authentication for credentials")
        }
        var host = rest
        var port: Int?
        // The port follows the last ":" outside an IPv6 literal's brackets.
        let hostEnd = rest.hasPrefix("[") ? (rest.firstIndex(of: "]").map { rest.index(after: $0) } ?? rest.endIndex) : rest.startIndex
        if let colon = rest[hostEnd...].lastIndex(of: ":") {
            let digits = rest[rest.index(after: colon)...]
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(digits) else {
                throw fail("the port must be a decimal number")
            }
            host = rest[..<colon]
            port = value
        }
        try self.init(scheme: scheme, host: String(host), port: port)
    }

    /// The base URL as a `URL` with an empty path, e.g. `https://api.example.com`.
    package var url: URL {
        // The parts are validated, so this cannot fail; fall back to a file URL only to stay total.
        URL(string: "\(scheme.rawValue)://\(authority)") ?? URL(fileURLWithPath: "/")
    }
}

extension BaseURL: CustomStringConvertible {
    /// `scheme://host[:port]`.
    public var description: String { "\(scheme.rawValue)://\(authority)" }
}
