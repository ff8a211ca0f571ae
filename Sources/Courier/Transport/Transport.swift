public import Foundation
public import HTTPTypes

/// The one seam between Courier's pipeline and the wire.
///
/// A transport sends one fully built request and returns the response head with a body that
/// is still arriving (``StreamedResponse``), or throws a ``CourierError``:
/// ``CourierError/transport(_:)`` when no response arrived, ``CourierError/cancelled`` when the
/// calling task was cancelled. Errors after the head (a connection lost mid-body, the deadline,
/// the size limit) are thrown by the body's reader. It does not validate status codes, decode
/// bodies, retry, or authenticate: the pipeline does that around it.
///
/// ``URLSessionTransport`` is the default. Write your own to send through another HTTP stack
/// or to fake the network in tests:
///
/// ```swift
/// struct CannedTransport: Transport {
///     func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
///         StreamedResponse(statusCode: 200, body: Data(#"{"id":1}"#.utf8), url: request.url)
///     }
/// }
/// ```
///
/// A transport that streams wraps its chunks with ``ResponseBody/init(_:expectedLength:)``; it
/// must stop the transfer when the body is cancelled or dropped unread.
public protocol Transport: Sendable {
    /// Sends `request` and returns the response head and its body, whatever the status code.
    /// - Throws: ``CourierError/transport(_:)``, ``CourierError/cancelled`` when the calling task
    ///   is cancelled (the request must then be stopped, not left to finish in the background).
    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse

    /// Whether the transport decodes `Content-Encoding: gzip` responses itself, so that the
    /// client may send `Accept-Encoding: gzip`. Default: `false`.
    var decodesGzip: Bool { get }
}

extension Transport {
    /// `false`: a transport that does not say otherwise hands bodies over as they arrived.
    public var decodesGzip: Bool { false }
}

/// A fully built request, as a transport receives it.
///
/// ``head`` is the one source of truth for where the request goes: ``url`` is derived from its
/// scheme, authority and path (with the query), and setting ``url`` sets those three. A
/// middleware that edits `head.path` or `head.authority` changes what goes on the wire, and the
/// authorized-host check sees exactly that.
///
/// ```swift
/// var request = request
/// request.head.path = "/v2" + (request.head.path ?? "/")   // the transport sends to /v2/…
/// ```
public struct TransportRequest: Sendable {
    /// Method, scheme, authority, path with query, and header fields (swift-http-types).
    public var head: HTTPRequest {
        didSet { refreshTarget() }
    }
    /// The body, if any.
    public var body: TransportBody?
    /// How long the whole exchange may take, from sending the request to the last byte of the
    /// response (a streamed body included). A transport must enforce it to the millisecond and
    /// fail with a ``TransportFailure/Kind/timedOut`` failure when it passes: from `send` before
    /// the head, from the body's reader after it.
    public var timeout: Duration
    /// The most bytes of response body the transport may read, counted after decompression, or
    /// `nil` for no limit. Past it the transport stops reading, stops the request and fails with
    /// a ``TransportFailure/Kind/responseTooLarge`` failure (the pipeline also collects bodies up
    /// to it, so a transport that does not enforce it still cannot make a call buffer more).
    /// Default: 32 MiB, as ``Configuration/maximumResponseSize``.
    public var maximumResponseSize: Int?
    /// Which redirects the transport follows: a body goes to another origin on a 307/308 only
    /// with ``RedirectMode/followSendingBodyToOtherOrigins``, and none is followed with
    /// ``RedirectMode/never``. Default: ``RedirectMode/follow``.
    public var redirectMode: RedirectMode = .follow
    /// Which headers carry secrets: a transport that follows a redirect to another origin removes
    /// every header for which ``Redaction/isSecret(headerName:)`` is `true`, and a transport that
    /// logs hides their values. Default: ``Redaction/default``; the client passes its
    /// ``Configuration/redaction``.
    public var redaction: Redaction {
        get { shared.redaction }
        set { shared = Shared(target: shared.target, redaction: newValue) }
    }

    /// The URL ``head`` describes (with the scheme, authority and path it was made from: kept
    /// so that editing a header does not parse a URL again) and the redaction, in one box that
    /// copies of the request share.
    ///
    /// A box because every stage of the pipeline is an async function that keeps the request in
    /// its task frame, allocated anew by each call.
    private var shared: Shared

    private var target: Target { shared.target }

    private final class Shared: Sendable {
        let target: Target
        let redaction: Redaction

        init(target: Target, redaction: Redaction) {
            self.target = target
            self.redaction = redaction
        }
    }

    /// Creates a transport request.
    /// - Parameters:
    ///   - head: the method, scheme, authority, path and header fields to send.
    ///   - body: the body, or `nil` for none.
    ///   - timeout: how long the whole exchange may take.
    ///   - url: when given, replaces the scheme, authority and path of `head` (they must
    ///     describe one request; the URL wins). When `nil`, the URL is derived from `head`.
    ///   - maximumResponseSize: the most body bytes collected into a ``Response``; `nil` for no limit.
    ///   - redaction: what counts as secret when this request is printed or logged.
    public init(
        head: HTTPRequest, body: TransportBody? = nil, timeout: Duration, url: URL? = nil,
        maximumResponseSize: Int? = 32 << 20,
        redaction: Redaction = .default
    ) {
        var head = head
        if let url { Target.apply(url, to: &head) }
        self.head = head
        self.shared = Shared(target: Target(head), redaction: redaction)
        self.body = body
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
    }

    /// The absolute URL of ``head``: its scheme, authority and path with query. Setting it sets
    /// those three parts of ``head``, user-info included in the authority (which the client
    /// then refuses to send).
    ///
    /// When the head's parts make no URL (no scheme, or a path with a space, say), this is
    /// `about:blank`, and the client fails the call with ``InvalidRequest/invalidURL(_:)``
    /// before it reaches a transport.
    public var url: URL {
        get { target.url ?? Target.unusable }
        set {
            var head = self.head
            Target.apply(newValue, to: &head)
            self.head = head
        }
    }

    /// The URL of ``head``, or `nil` when its parts make none.
    var resolvedURL: URL? { target.url }

    /// Whether `other` goes to the same URL with the same redaction as this request, known
    /// without comparing them: both are copies of one request whose URL and redaction were not
    /// changed since (changing either gives a request a box of its own). `false` does not mean
    /// they differ.
    func sharesTargetAndRedaction(with other: TransportRequest) -> Bool {
        shared === other.shared
    }

    private mutating func refreshTarget() {
        // Only the three parts of a URL matter: a header edit keeps the parsed URL.
        if head.scheme != target.scheme || head.authority != target.authority || head.path != target.path {
            shared = Shared(target: Target(head), redaction: shared.redaction)
        }
    }

    /// Where a request goes, parsed once.
    private struct Target: Sendable {
        var scheme: String?
        var authority: String?
        var path: String?
        var url: URL?

        static let unusable = URL(string: "about:blank") ?? URL(fileURLWithPath: "/")

        init(_ head: HTTPRequest) {
            scheme = head.scheme
            authority = head.authority
            path = head.path
            // Checked byte by byte first: Foundation's URL(string:) quietly percent-encodes a space
            // and would read a path without its leading "/" as more of the host.
            if let scheme, let authority, let path, Self.isValid(authority: authority), Self.isValid(pathAndQuery: path) {
                // One string, built in place: `+` would allocate each intermediate one.
                var string = ""
                string.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count)
                string += scheme
                string += "://"
                string += authority
                string += path
                url = URL(string: string)
            }
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
}

/// The bytes of a request body, as a transport receives them.
///
/// A custom transport should handle every case; ``URLSessionTransport`` streams ``stream(_:)``
/// bodies with bounded memory.
public enum TransportBody: Sendable, Equatable {
    /// Bytes in memory.
    case data(Data)
    /// Bytes read while they are sent (files, multipart forms, `AsyncSequence`s). Open it with
    /// ``BodyStream/makeReader()`` for each send.
    case stream(BodyStream)

    /// The length in bytes, when known before sending.
    public var count: Int64? {
        switch self {
        case .data(let data): Int64(data.count)
        case .stream(let stream): stream.length
        }
    }

    /// Whether the body can be sent again (for a replay after a 401, or a retry).
    var isReplayable: Bool {
        switch self {
        case .data: true
        case .stream(let stream): stream.isReplayable
        }
    }
}
