/// The path of an endpoint, validated against RFC 3986.
///
/// `init(_:)` takes a path that is already percent-encoded and checks it; `init(segments:)`
/// takes raw segments and percent-encodes each one, so user input can go into a path safely.
///
/// ```swift
/// let users = try URLPath("/v1/users")
/// let user = try URLPath(segments: ["v1", "users", userName])   // "a/b" becomes "a%2Fb"
/// ```
///
/// Rules: the path starts with `/`; each segment uses RFC 3986 `pchar` (unreserved,
/// sub-delims, `:`, `@` and valid `%XX` escapes); no empty segment except a trailing slash;
/// no `?` or `#` (use ``Requestable/queryItems``); and no dot segment, because servers and
/// proxies that normalise paths would send the request somewhere else: no `.` or `..` segment,
/// also not percent-encoded (`%2E%2E`), nor a segment in which one appears once `%2F` and `%5C`
/// are read as slashes (`..%2Fadmin`: nginx decodes it and climbs) or once a `;` parameter is
/// cut off (`..;jsessionid=x`: Tomcat and Spring read `..`).
public struct URLPath: Hashable, Sendable {
    /// The percent-encoded path, starting with `/`.
    public let rawValue: String

    /// `/`.
    public static let root = URLPath(unchecked: "/")

    private init(unchecked: String) { rawValue = unchecked }

    /// Validates an already percent-encoded path.
    /// - Throws: ``CourierError/invalidRequest(_:)`` with ``InvalidRequest/invalidPath(_:reason:)``
    ///   naming the path and the rule it breaks.
    public init(_ path: String) throws(CourierError) {
        if let problem = Self.problem(with: path) {
            throw .invalidRequest(.invalidPath(path, reason: problem))
        }
        rawValue = path
    }

    /// Builds a path from raw segments, percent-encoding each one (everything but RFC 3986
    /// unreserved characters, so `/`, `?`, `#`, `%` and space are encoded). An empty list gives `/`.
    /// - Throws: ``CourierError/invalidRequest(_:)`` with ``InvalidRequest/invalidPath(_:reason:)``
    ///   if a segment is empty, or is or contains a dot segment as the type's rules say (`..`,
    ///   `../x`, `..\x`, `..;x`).
    public init(segments: [String]) throws(CourierError) {
        for segment in segments {
            if let problem = Self.rawSegmentProblem(segment) {
                throw .invalidRequest(.invalidPath("/" + segments.joined(separator: "/"), reason: problem))
            }
        }
        let encoded = "/" + segments.map { PercentEncoding.encode($0) }.joined(separator: "/")
        // The encoded form is checked as `init(_:)` checks a path: "../x" became "..%2Fx".
        var bytes = encoded
        if let problem = bytes.withUTF8({ Self.segmentProblem(in: $0) }) {
            throw .invalidRequest(.invalidPath("/" + segments.joined(separator: "/"), reason: problem))
        }
        rawValue = encoded
    }

    /// This path with raw `segments` appended, each percent-encoded as in ``init(segments:)``.
    /// - Throws: the errors of ``init(segments:)``.
    package func appending(_ segments: String...) throws(CourierError) -> URLPath {
        try appending(contentsOf: segments)
    }

    /// This path with raw `segments` appended, as ``appending(_:)``.
    package func appending(contentsOf segments: [String]) throws(CourierError) -> URLPath {
        let tail = try URLPath(segments: segments)
        if tail == .root { return self }
        let base = rawValue.hasSuffix("/") ? String(rawValue.dropLast()) : rawValue
        return URLPath(unchecked: base + tail.rawValue)
    }

    private static func rawSegmentProblem(_ segment: String) -> String? {
        switch segment {
        case "": return "a segment is empty"
        case ".", "..": return "\"\(segment)\" is a dot segment, which servers resolve to another path"
        default: return nil
        }
    }

    /// Why `path` is not a valid percent-encoded path, or `nil` when it is.
    package static func problem(with path: String) -> String? {
        // Byte by byte, without splitting or decoding into new strings: endpoints usually build
        // their path on every call, so this runs for nearly every request (measured: Foundation's
        // `contains` and the split were ~2 µs of a call).
        if path.utf8.contains(where: { $0 >= 0x80 }), let bad = path.unicodeScalars.first(where: { !$0.isASCII }) {
            let code = "U+" + String(bad.value, radix: 16, uppercase: true)
            return "contains the non-ASCII character \(code); percent-encode it, or build the path with URLPath(segments:)"
        }
        guard path.utf8.first == UInt8(ascii: "/") else { return "must start with \"/\"" }
        if path.utf8.contains(UInt8(ascii: "?")) { return "contains \"?\"; put query parameters in queryItems" }
        if path.utf8.contains(UInt8(ascii: "#")) { return "contains \"#\"; a fragment is never sent to the server" }
        var path = path
        return path.withUTF8 { segmentProblem(in: $0) }
    }

    /// The first problem of the segments of `path` (ASCII, starting with `/`, without `?` or `#`).
    private static func segmentProblem(in path: UnsafeBufferPointer<UInt8>) -> String? {
        var start = 1
        while true {
            var end = start
            while end < path.count, path[end] != UInt8(ascii: "/") { end += 1 }
            let isLast = end == path.count
            if end == start {
                if isLast { return nil }  // a trailing slash, or the root
                return "has an empty segment (\"//\")"
            }
            var index = start
            while index < end {
                let byte = path[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < end, PercentEncoding.isHexDigit(path[index + 1]), PercentEncoding.isHexDigit(path[index + 2]) else {
                        return "has a malformed percent-escape; \"%\" must be followed by two hex digits"
                    }
                    index += 3
                } else if !isPChar(byte) {
                    return "has the character \(String(UnicodeScalar(byte)).debugDescription), which is not allowed in a path segment; percent-encode it"
                } else {
                    index += 1
                }
            }
            if containsDotSegment(UnsafeBufferPointer(rebasing: path[start..<end])) {
                return "has a dot segment (\".\" or \"..\", also when percent-encoded, after a \"%2F\" or \"%5C\", or before a \";\"), "
                    + "which servers resolve to another path"
            }
            if isLast { return nil }
            start = end + 1
        }
    }

    /// Whether a segment (with valid escapes) holds a dot segment once decoded: split at `/` and
    /// `\` (servers that decode `%2F` or `%5C` before they resolve dot segments split there), each
    /// piece cut at its first `;` (path parameters, which Tomcat and Spring drop), a piece that is
    /// `.` or `..`. Byte by byte, without allocating: it runs for nearly every request.
    private static func containsDotSegment(_ segment: UnsafeBufferPointer<UInt8>) -> Bool {
        var dots = 0
        var other = false
        var inParameters = false
        var index = 0
        while true {
            var byte: UInt8?
            if index < segment.count {
                var value = segment[index]
                if value == UInt8(ascii: "%") {
                    // `segmentProblem` has checked the escape.
                    value = PercentEncoding.hexValue(segment[index + 1])! << 4 | PercentEncoding.hexValue(segment[index + 2])!
                    index += 3
                } else {
                    index += 1
                }
                byte = value
            }
            if byte == nil || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") {
                if !other, dots == 1 || dots == 2 { return true }
                guard byte != nil else { return false }
                dots = 0
                other = false
                inParameters = false
            } else if inParameters {
                continue
            } else if byte == UInt8(ascii: ";") {
                inParameters = true
            } else if byte == UInt8(ascii: ".") {
                dots += 1
            } else {
                other = true
            }
        }
    }

    /// RFC 3986 `pchar` without the `%XX` form: unreserved, sub-delims, `:` and `@`.
    private static func isPChar(_ byte: UInt8) -> Bool {
        PercentEncoding.isUnreserved(byte) || PercentEncoding.isSubDelim(byte)
            || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
    }
}

extension URLPath: CustomStringConvertible {
    /// The percent-encoded path.
    public var description: String { rawValue }
}
