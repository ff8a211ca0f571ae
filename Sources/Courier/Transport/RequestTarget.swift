import Foundation
import HTTPTypes

/// Where a request goes: the scheme, authority and path of its head, checked byte by byte, and
/// the URL they make, parsed by Foundation the first time it is asked for.
///
/// Copies of a ``TransportRequest`` share one (changing the scheme, authority or path, or the
/// redaction, gives a request a new one), and a response made by Courier's transports keeps its
/// request's (``ResponseLocation``). A call over async-http-client hands the transport the
/// string and never asks for the URL; URLSession, authorization checks, logs and errors do.
///
/// One allocation: the parts and the URL once parsed live under one lock.
struct RequestTarget: Sendable {
    private struct State: Sendable {
        let scheme: String?
        let authority: String?
        let path: String?
        let absoluteString: String?
        let redaction: Redaction
        /// The URL once asked for: `.some(nil)` when Foundation reads none in `absoluteString`.
        var parsed: URL?? = nil
    }

    private let state: LockedState<State>

    /// The URL `about:blank`, which ``TransportRequest/url`` returns when the head makes no URL.
    static let unusable = URL(string: "about:blank") ?? URL(fileURLWithPath: "/")

    init(_ head: HTTPRequest, redaction: Redaction) {
        var absoluteString: String?
        // Checked byte by byte first: Foundation's URL(string:) quietly percent-encodes a space
        // and would read a path without its leading "/" as more of the host.
        if let scheme = head.scheme, let authority = head.authority, let path = head.path, Self.isValid(authority: authority),
            Self.isValid(pathAndQuery: path)
        {
            // One string, built in place: `+` would allocate each intermediate one.
            var string = ""
            string.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count)
            string += scheme
            string += "://"
            string += authority
            string += path
            absoluteString = string
        }
        state = LockedState(
            State(scheme: head.scheme, authority: head.authority, path: head.path, absoluteString: absoluteString, redaction: redaction))
    }

    /// `scheme://authority` followed by the path, when the three parts pass the byte checks of
    /// ``isValid(authority:)`` and ``isValid(pathAndQuery:)``; `nil` otherwise.
    var absoluteString: String? { state.withLock { $0.absoluteString } }

    /// What counts as secret when the request is printed or logged.
    var redaction: Redaction { state.withLock { $0.redaction } }

    /// The URL the head makes, or `nil` when it makes none (its parts fail the byte checks, or
    /// Foundation reads no URL in them). Parsed once, on the first call.
    var url: URL? {
        state.withLock { state in
            if let parsed = state.parsed { return parsed }
            let url = state.absoluteString.flatMap { URL(string: $0) }
            state.parsed = .some(url)
            return url
        }
    }

    /// Whether `head` has the same scheme, authority and path as this target.
    func matches(_ head: HTTPRequest) -> Bool {
        state.withLock { head.scheme == $0.scheme && head.authority == $0.authority && head.path == $0.path }
    }

    /// Whether `other` is this target itself (a copy of the same one), not only an equal one.
    func isSame(as other: RequestTarget) -> Bool {
        state.isSame(as: other.state)
    }

    /// RFC 3986 `path-absolute [ "?" query ]`: a leading `/`, then `pchar`, `/` and `?`, with
    /// every `%` starting a valid escape. No fragment, space, control or non-ASCII byte.
    static func isValid(pathAndQuery: String) -> Bool {
        pathAndQuery.utf8.first == UInt8(ascii: "/") && hasOnlyURLBytes(pathAndQuery, extra: "/?")
    }

    /// RFC 3986 `[ userinfo "@" ] host [ ":" port ]`, as bytes: not empty, and only what those
    /// may hold (user-info is refused later, with its own error).
    static func isValid(authority: String) -> Bool {
        !authority.isEmpty && hasOnlyURLBytes(authority, extra: "[]")
    }

    /// Unreserved, sub-delims, `:`, `@`, valid `%XX` escapes and the `extra` bytes.
    private static func hasOnlyURLBytes(_ text: String, extra: StaticString) -> Bool {
        let extras = UnsafeBufferPointer(start: extra.utf8Start, count: extra.utf8CodeUnitCount)
        var bytes = text.utf8.makeIterator()
        while let byte = bytes.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard bytes.next().flatMap(PercentEncoding.hexValue) != nil,
                    bytes.next().flatMap(PercentEncoding.hexValue) != nil
                else { return false }
            case _ where PercentEncoding.isUnreserved(byte):
                continue
            case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
                UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
                UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"):
                continue
            default:
                guard extras.contains(byte) else { return false }
            }
        }
        return true
    }

    /// Sets `head`'s scheme, authority (`user:password@host:port`, as written) and path with
    /// query (`/` when the URL has no path) from `url`.
    static func apply(_ url: URL, to head: inout HTTPRequest) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        head.scheme = components?.scheme ?? url.scheme
        var authority = components?.percentEncodedHost ?? ""
        if authority.utf8.contains(UInt8(ascii: ":")), authority.utf8.first != UInt8(ascii: "[") { authority = "[" + authority + "]" }
        if let port = components?.port { authority += ":\(port)" }
        if let user = components?.percentEncodedUser {
            let password = components?.percentEncodedPassword.map { ":" + $0 } ?? ""
            authority = user + password + "@" + authority
        }
        head.authority = authority
        let path = components?.percentEncodedPath ?? ""
        let query = components?.percentEncodedQuery.map { "?" + $0 } ?? ""
        head.path = (path.isEmpty ? "/" : path) + query
    }
}

/// The URL a response answers: given as a URL, or the target of the request it answers, whose
/// URL is parsed only when someone reads ``ResponseHead/url`` (or an error reports it).
struct ResponseLocation: Sendable, Equatable {
    private enum Source: Sendable {
        case url(URL)
        case target(RequestTarget)
    }

    private var source: Source

    /// A location given as a URL.
    init(_ url: URL) {
        source = .url(url)
    }

    /// The location of the request `target` describes.
    init(_ target: RequestTarget) {
        source = .target(target)
    }

    /// The URL: `about:blank` for a request whose head makes none (a request the client never
    /// sends; see ``TransportRequest/url``).
    var url: URL {
        switch source {
        case .url(let url): url
        case .target(let target): target.url ?? RequestTarget.unusable
        }
    }

    static func == (lhs: ResponseLocation, rhs: ResponseLocation) -> Bool {
        if case .target(let left) = lhs.source, case .target(let right) = rhs.source, left.isSame(as: right) { return true }
        return lhs.url == rhs.url
    }
}
