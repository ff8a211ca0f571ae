public import Foundation
public import HTTPTypes

/// The one seam between Courier's pipeline and the wire.
///
/// A transport sends one fully built request and returns the response head with a body that
/// is still arriving (``StreamedResponse``), or throws ``CourierError/transport(_:)`` when no
/// response arrived and ``CourierError/cancelled`` when the calling task was cancelled. Errors
/// after the head are thrown by the body's reader. A transport that streams wraps its chunks with
/// ``ResponseBody/init(_:expectedLength:)`` and stops the transfer when the body is dropped.
///
/// ```swift
/// struct CannedTransport: Transport {   // fakes the network in tests
///     func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
///         StreamedResponse(status: .ok, body: ResponseBody(Data(#"{"id":1}"#.utf8)), url: request.url)
///     }
/// }
/// ```
public protocol Transport: Sendable {
    // A transport does not validate status codes, decode bodies, retry, or authenticate: the
    // pipeline does that around it. "Dropped" above means cancelled or dropped unread.

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

/// A transport that says which cookies it adds to what it sends (none, for most): the cache
/// stage reads them first, attaches them itself (``TransportRequest/storedCookiesAttached``) and
/// partitions by them, so that a response is stored under the cookies it was actually sent with.
/// Through a transport that does not conform (one of the app's own, a wrapper), the cache cannot
/// tell, and stores no response that varies on `Cookie`, nor a `private` one that nothing else
/// partitions.
package protocol StoredCookieSource: Sendable {
    /// The `Cookie` value this transport would add to a request for `url`; `nil` for none.
    func storedCookieHeader(for url: URL) -> String?
    /// Whether ``storedCookieHeader(for:)`` tells what a request sent now would carry: `false`
    /// when the request goes to a transport that cannot say (the default transport's, inside a
    /// scope of another), which the cache treats as one that does not conform.
    var saysWhichCookiesItAdds: Bool { get }
}

extension StoredCookieSource {
    package var saysWhichCookiesItAdds: Bool { true }
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
    /// Whether Courier's ``HTTPCache`` is above the transport for this request (the client's
    /// ``Configuration/cache`` is set): a transport's own cache, such as a kept `URLCache`, must
    /// then not answer it, or a `.reload` or a revalidation would be answered without the network.
    var isBelowHTTPCache = false
    /// The OpenAPI operation the request is sent for (CourierOpenAPI), named in its log lines.
    package var operationID: String?
    /// The WebSocket upgrade this request asks for (``Call/openWebSocket(_:)``), handled by a
    /// ``WebSocketTransport``.
    package var webSocket: WebSocketUpgrade?
    /// Which headers carry secrets: a transport that follows a redirect to another origin removes
    /// every header for which ``Redaction/isSecret(headerName:)`` is `true`, and a transport that
    /// logs hides their values. Default: ``Redaction/default``; the client passes its
    /// ``Configuration/redaction``.
    public var redaction: Redaction {
        get { shared.redaction }
        set { shared = RequestTarget(head, redaction: newValue) }
    }

    /// Where the request goes, with its URL parsed when first asked for, and the redaction, in
    /// one box that copies of the request share (see ``RequestTarget``).
    ///
    /// A box because every stage of the pipeline is an async function that keeps the request in
    /// its task frame, allocated anew by each call.
    private var shared: RequestTarget
    /// Whether the `Cookie` field already holds the cookies of the transport's cookie storage
    /// (the cache stage attached them, to key what is sent): the transport adds none.
    var storedCookiesAttached = false
    /// The `Cookie` value the cache stage attached from the transport's cookie storage (the last
    /// `Cookie` field), when it attached one: what the caller set is the rest.
    var attachedStoredCookies: String?

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
        if let url { RequestTarget.apply(url, to: &head) }
        self.head = head
        self.shared = RequestTarget(head, redaction: redaction)
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
        get { shared.url ?? RequestTarget.unusable }
        set {
            var head = self.head
            RequestTarget.apply(newValue, to: &head)
            self.head = head
        }
    }

    /// This request, marked as below Courier's ``HTTPCache`` when `isBelow` (see ``isBelowHTTPCache``).
    @inline(__always)
    func belowHTTPCache(_ isBelow: Bool) -> TransportRequest {
        guard isBelow else { return self }
        var request = self
        request.isBelowHTTPCache = true
        return request
    }

    /// The URL of ``head``, or `nil` when its parts make none.
    var resolvedURL: URL? { shared.url }

    /// `scheme://authority` and the path of ``head``, or `nil` when they fail the byte checks
    /// that come before Foundation parses a URL (see ``RequestTarget``). The request the client
    /// builds from an endpoint always has one.
    var absoluteString: String? { shared.absoluteString }

    /// Where a response to this request comes from, its URL parsed only when read.
    var location: ResponseLocation { ResponseLocation(shared) }

    /// Whether `other` goes to the same URL with the same redaction as this request, known
    /// without comparing them: both are copies of one request whose URL and redaction were not
    /// changed since (changing either gives a request a box of its own). `false` does not mean
    /// they differ.
    func sharesTargetAndRedaction(with other: TransportRequest) -> Bool {
        shared.isSame(as: other.shared)
    }

    private mutating func refreshTarget() {
        // Only the three parts of a URL matter: a header edit keeps the box.
        if !shared.matches(head) {
            shared = RequestTarget(head, redaction: shared.redaction)
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
