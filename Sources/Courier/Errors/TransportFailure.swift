public import Foundation

/// A request that produced no HTTP response.
///
/// ``kind`` classifies the failure; ``urlError`` keeps the `URLError` that URLSession reported
/// (with its code and failing URL), or one Courier made for a failure it detected itself, such
/// as its own sub-second deadline (code `.timedOut`); ``underlyingError`` keeps any other error
/// the transport reported, whole.
public struct TransportFailure: Error, Sendable, Equatable {
    /// What went wrong, in broad classes that retry policies and user interfaces can act on.
    #if hasAttribute(nonexhaustive)
        @nonexhaustive
    #endif
    public enum Kind: String, Sendable, Equatable {
        /// The request's deadline passed.
        case timedOut
        /// The host name could not be resolved.
        case dnsFailure
        /// No connection could be made (refused, host unreachable, offline).
        case cannotConnect
        /// An established connection was lost before the response completed.
        case connectionLost
        /// TLS negotiation or certificate validation failed.
        case secureConnectionFailed
        /// The server's public key matched none of its host's pins (``PinningPolicy``), or the
        /// pins could not be checked; nothing of the request was sent. The message names the
        /// host, the key presented and the pins.
        case pinningFailed
        /// The response could not be read (bad or truncated response).
        case badResponse
        /// The response body grew past the request's limit (``Configuration/maximumResponseSize``,
        /// counted after decompression); the transport stopped reading it.
        case responseTooLarge
        /// Writing a download to disk failed (disk full, no permission, an I/O error); the
        /// message names the operation, the file and the system's reason.
        case fileSystem
        /// Anything else.
        case other
    }

    /// The class of failure.
    public var kind: Kind
    /// The underlying `URLError`, kept whole.
    public var urlError: URLError?
    /// The URL that was requested.
    public var url: URL?
    /// A short explanation for failures that have no `URLError` (from custom transports).
    public var message: String?
    /// The error behind the failure, when it was not a `URLError`: async-http-client's
    /// `HTTPClientError`, a TLS error, the error a response body's source threw, a custom
    /// transport's own error. Not part of `==`, and never printed by ``description`` (an error's
    /// own text may hold a URL with its query).
    ///
    /// <!-- guide: if AsyncHTTPClientLinked -->
    /// ```swift
    /// import NIOSSL
    ///
    /// if case .transport(let failure) = error, let tls = failure.underlyingError as? NIOSSLError {
    ///     print("TLS failed: \(tls)")
    /// }
    /// ```
    public var underlyingError: (any Error)?

    /// Creates a transport failure. Custom transports use this to report their own errors,
    /// passing the error itself as `underlyingError`.
    public init(kind: Kind, urlError: URLError? = nil, url: URL? = nil, message: String? = nil, underlyingError: (any Error)? = nil) {
        self.kind = kind
        self.urlError = urlError
        self.url = url
        self.message = message
        self.underlyingError = underlyingError
    }

    /// Two failures are equal when their kind, `URLError`, URL and message are; the underlying
    /// errors are not compared.
    public static func == (lhs: TransportFailure, rhs: TransportFailure) -> Bool {
        lhs.kind == rhs.kind && lhs.urlError == rhs.urlError && lhs.url == rhs.url && lhs.message == rhs.message
    }

    /// Classifies a `URLError`, keeping it whole.
    public init(_ urlError: URLError, url: URL? = nil) {
        self.init(kind: Kind(urlError.code), urlError: urlError, url: url ?? urlError.failingURL)
    }
}

extension TransportFailure {
    /// The failure a transport reports when a response body passes `limit` bytes (see
    /// ``TransportRequest/maximumResponseSize``).
    ///
    /// ```swift
    /// throw CourierError.transport(.responseTooLarge(limit: request.maximumResponseSize ?? 0, url: request.url))
    /// ```
    package static func responseTooLarge(limit: Int, url: URL?) -> TransportFailure {
        TransportFailure(kind: .responseTooLarge, url: url, message: "the response body exceeded the limit of \(limit) bytes")
    }
}

extension TransportFailure {
    /// A failure a transport other than URLSession detected, with the `URLError` URLSession would
    /// have reported for it, so that code reading ``urlError`` works whichever transport runs.
    init(synthesizing kind: Kind, url: URL?, message: String?, underlyingError: (any Error)? = nil) {
        let code: URLError.Code =
            switch kind {
            case .timedOut: .timedOut
            case .dnsFailure: .cannotFindHost
            case .cannotConnect: .cannotConnectToHost
            case .connectionLost: .networkConnectionLost
            case .secureConnectionFailed: .secureConnectionFailed
            case .pinningFailed: .serverCertificateUntrusted
            case .badResponse: .badServerResponse
            case .responseTooLarge: .dataLengthExceedsMaximum
            case .fileSystem: .cannotWriteToFile
            case .other: .unknown
            }
        var userInfo: [String: Any] = [:]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        if let message { userInfo[NSLocalizedDescriptionKey] = message }
        self.init(kind: kind, urlError: URLError(code, userInfo: userInfo), url: url, message: message, underlyingError: underlyingError)
    }
}

extension TransportFailure.Kind {
    /// Maps URLSession's error codes onto the broad classes.
    init(_ code: URLError.Code) {
        switch code {
        case .timedOut:
            self = .timedOut
        case .cannotFindHost, .dnsLookupFailed:
            self = .dnsFailure
        case .cannotConnectToHost, .notConnectedToInternet, .internationalRoamingOff,
            .dataNotAllowed, .callIsActive:
            self = .cannotConnect
        case .networkConnectionLost:
            self = .connectionLost
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid,
            .clientCertificateRejected, .clientCertificateRequired:
            self = .secureConnectionFailed
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData,
            .cannotDecodeContentData, .zeroByteResource:
            self = .badResponse
        default:
            self = .other
        }
    }
}

extension TransportFailure: CustomStringConvertible, CustomReflectable {
    /// The kind, the URL error code and the URL as ``Redaction/default`` prints it: no
    /// user-info, secret query, fragment and path-parameter values shown as `<redacted>`.
    ///
    /// ```swift
    /// TransportFailure(URLError(.cannotConnectToHost), url: URL(string: "http://127.0.0.1:1/v1?key=k&page=2")!)
    /// // cannotConnect, URLError -1004 (cannotConnectToHost), for http://127.0.0.1:1/v1?key=<redacted>&page=2
    /// ```
    public var description: String {
        var parts = [kind.rawValue]
        if let urlError {
            parts.append("URLError \(urlError.code.rawValue)\(urlError.code.name.map { " (\($0))" } ?? "")")
        }
        if let url {
            parts.append("for \(Redaction.default.redact(url: url))")
        }
        if let message {
            parts.append(message)
        }
        return parts.joined(separator: ", ")
    }

    /// Kind, URL error code, redacted URL and message. The `URLError` itself is left out: its
    /// `userInfo` holds the failing URL whole, query included.
    ///
    /// ```swift
    /// dump(failure)   // ▿ timedOut, URLError -1001 (timedOut), for https://h/p?token=<redacted> …
    /// ```
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "kind": kind,
                "urlErrorCode": urlError.map { $0.code.rawValue } as Any,
                "url": url.map { Redaction.default.redact(url: $0) } as Any,
                "message": message as Any,
            ], displayStyle: .struct)
    }
}

extension URLError.Code {
    /// The Foundation name of common codes, for readable messages.
    var name: String? {
        switch self {
        case .timedOut: "timedOut"
        case .cancelled: "cancelled"
        case .cannotFindHost: "cannotFindHost"
        case .dnsLookupFailed: "dnsLookupFailed"
        case .cannotConnectToHost: "cannotConnectToHost"
        case .notConnectedToInternet: "notConnectedToInternet"
        case .networkConnectionLost: "networkConnectionLost"
        case .secureConnectionFailed: "secureConnectionFailed"
        case .serverCertificateUntrusted: "serverCertificateUntrusted"
        case .badServerResponse: "badServerResponse"
        case .cannotParseResponse: "cannotParseResponse"
        case .badURL: "badURL"
        case .unsupportedURL: "unsupportedURL"
        case .userAuthenticationRequired: "userAuthenticationRequired"
        case .httpTooManyRedirects: "httpTooManyRedirects"
        default: nil
        }
    }
}
