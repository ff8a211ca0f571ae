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
        // Validated, so ASCII: lower-cased only when it has an upper-case letter.
        let host = host.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) ? host.lowercased() : host
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
        // Byte by byte: endpoints build their base URL on every call, and Foundation's string
        // search (`range(of:)`, `contains` of a string) costs more than the rest of this.
        let parts: Parts
        switch Self.parts(of: string.utf8) {
        case .success(let found): parts = found
        case .failure(let problem): throw fail(problem.reason)
        }
        try self.init(scheme: parts.scheme, host: String(string[parts.host]), port: parts.port)
    }

    /// What ``init(string:)`` reads in a string, before the host and port are validated.
    private struct Parts {
        let scheme: Scheme
        let host: Range<String.Index>
        let port: Int?
    }

    /// Splits `scheme://host[:port][/]` into its parts, or names why it is not one.
    private static func parts(of bytes: String.UTF8View) -> Result<Parts, PartsProblem> {
        let colon = UInt8(ascii: ":"), slash = UInt8(ascii: "/")
        // The first "://".
        var separator: String.Index?
        var index = bytes.startIndex
        while index < bytes.endIndex, separator == nil {
            if bytes[index] == colon, bytes[index...].starts(with: "://".utf8) { separator = index }
            index = bytes.index(after: index)
        }
        guard let separator else { return .failure("expected scheme://host[:port]") }
        let scheme: Scheme
        if isASCII(bytes[..<separator], ignoringCase: "https") {
            scheme = .https
        } else if isASCII(bytes[..<separator], ignoringCase: "http") {
            scheme = .http
        } else {
            return .failure("the scheme must be http or https")
        }
        let start = bytes.index(separator, offsetBy: 3)
        var end = bytes.endIndex
        if start < end, bytes[bytes.index(before: end)] == slash { end = bytes.index(before: end) }
        let rest = bytes[start..<end]
        if rest.contains(where: { $0 == slash || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            return .failure("a base URL has no path, query or fragment; put those in the endpoint")
        }
        if rest.contains(UInt8(ascii: "@")) {
            return .failure("a base URL has no user-info; use Authentication for credentials")
        }
        // The port follows the last ":" outside an IPv6 literal's brackets.
        var hostEnd = start
        if rest.first == UInt8(ascii: "[") {
            hostEnd = rest.firstIndex(of: UInt8(ascii: "]")).map { bytes.index(after: $0) } ?? end
        }
        guard let portColon = bytes[hostEnd..<end].lastIndex(of: colon) else {
            return .success(Parts(scheme: scheme, host: start..<end, port: nil))
        }
        let digits = bytes[bytes.index(after: portColon)..<end]
        var port = 0
        var overflow = digits.isEmpty
        for byte in digits where !overflow {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return .failure("the port must be a decimal number") }
            (port, overflow) = port.multipliedReportingOverflow(by: 10)
            if !overflow { (port, overflow) = port.addingReportingOverflow(Int(byte - UInt8(ascii: "0"))) }
        }
        guard !overflow else { return .failure("the port must be a decimal number") }
        return .success(Parts(scheme: scheme, host: start..<portColon, port: port))
    }

    /// Whether `bytes` are the ASCII letters of `expected` (lower case) in any case.
    private static func isASCII(_ bytes: Substring.UTF8View, ignoringCase expected: StaticString) -> Bool {
        bytes.elementsEqual(UnsafeBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount)) { $0 | 0x20 == $1 }
    }

    /// Why a string is not `scheme://host[:port]`.
    private struct PartsProblem: Error, ExpressibleByStringLiteral {
        let reason: String
        init(stringLiteral reason: String) { self.reason = reason }
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
