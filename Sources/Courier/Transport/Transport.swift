public import Foundation
public import HTTPTypes

/// The one seam between Courier's pipeline and the wire.
///
/// A transport sends one fully built request and returns the response, or throws a
/// ``CourierError``: ``CourierError/transport(_:)`` when no response arrived, ``CourierError/cancelled``
/// when the calling task was cancelled. It does not validate status codes, decode bodies,
/// retry, or authenticate: the client does that around it.
///
/// ``URLSessionTransport`` is the default. Write your own to send through another HTTP stack
/// or to fake the network in tests:
///
/// ```swift
/// struct CannedTransport: Transport {
///     func send(_ request: TransportRequest) async throws(CourierError) -> Response {
///         Response(statusCode: 200, body: Data(#"{"id":1}"#.utf8), url: request.url)
///     }
/// }
/// ```
public protocol Transport: Sendable {
    /// Sends `request` and returns the response, whatever its status code.
    /// - Throws: ``CourierError/transport(_:)``, ``CourierError/cancelled`` when the calling task
    ///   is cancelled (the request must then be stopped, not left to finish in the background).
    func send(_ request: TransportRequest) async throws(CourierError) -> Response

    /// Whether the transport decodes `Content-Encoding: gzip` responses itself, so that the
    /// client may send `Accept-Encoding: gzip`. Default: `false`.
    var decodesGzip: Bool { get }
}

extension Transport {
    /// `false`: a transport that does not say otherwise hands bodies over as they arrived.
    public var decodesGzip: Bool { false }
}

/// A fully built request, as a transport receives it.
public struct TransportRequest: Sendable {
    /// Method, scheme, authority, path with query, and header fields (swift-http-types).
    public var head: HTTPRequest
    /// The body, if any.
    public var body: TransportBody?
    /// How long the whole exchange may take, from sending the request to the last byte of the
    /// response. A transport must enforce it to the millisecond and fail with a
    /// ``TransportFailure/Kind/timedOut`` failure when it passes.
    public var timeout: Duration
    /// The absolute URL: scheme, authority and path with query of ``head``.
    public var url: URL
    /// The most bytes of response body the transport may read, counted after decompression, or
    /// `nil` for no limit. Past it the transport stops reading, stops the request and fails with
    /// a ``TransportFailure/Kind/responseTooLarge`` failure. Default:
    /// ``Configuration/defaultMaximumResponseSize``.
    public var maximumResponseSize: Int?
    /// Which headers carry secrets: a transport that follows a redirect to another origin removes
    /// every header for which ``Redaction/isSecret(headerName:)`` is `true`, and a transport that
    /// logs hides their values. Default: ``Redaction/default``; the client passes its
    /// ``Configuration/redaction``.
    public var redaction: Redaction

    /// Creates a transport request.
    public init(head: HTTPRequest, body: TransportBody? = nil, timeout: Duration, url: URL,
                maximumResponseSize: Int? = Configuration.defaultMaximumResponseSize,
                redaction: Redaction = .default) {
        self.head = head
        self.body = body
        self.timeout = timeout
        self.url = url
        self.maximumResponseSize = maximumResponseSize
        self.redaction = redaction
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
    public var isReplayable: Bool {
        switch self {
        case .data: true
        case .stream(let stream): stream.isReplayable
        }
    }
}
