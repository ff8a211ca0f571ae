import Foundation

/// Why a request could not be built. Every case names the offending input so that the message
/// points at the mistake, but never a secret it may hold: header *values* are never included,
/// and hosts, paths and URLs are printed redacted by ``Redaction/default`` (user-info,
/// secret query and fragment items hidden), and so is what ``BaseURL`` keeps in its errors.
/// A `dump(_:)` shows the ``description`` only.
///
/// New cases may come in later versions: a `switch` over it needs an `@unknown default`.
#if hasAttribute(nonexhaustive)
    @nonexhaustive
#endif
public enum InvalidRequest: Sendable, Equatable {
    /// The host is not an RFC 1123 name, an IPv4 dotted quad or a bracketed IPv6 literal.
    /// ``BaseURL`` keeps the host as it may be printed: `ghp_x@api.github.com` is kept as
    /// `<redacted>@api.github.com`.
    case invalidHost(String, reason: String)
    /// The port is outside 1–65535.
    case invalidPort(Int)
    /// The path breaks the rules of ``URLPath``.
    case invalidPath(String, reason: String)
    /// A string meant to be a base URL could not be read as `scheme://host[:port]`. The string
    /// is kept as it may be printed (redacted by ``Redaction/default``).
    case invalidBaseURL(String, reason: String)
    /// The method is not an RFC 9110 token.
    case invalidMethod(String)
    /// A header name is not an RFC 9110 token. The description prints the name only up to its
    /// first invalid character: `Authorization: Bearer abc` given as a name is a whole header
    /// line, value included.
    case invalidHeaderName(String)
    /// A header value contains CR, LF, NUL or another control character (header injection).
    /// Only the header's name is kept: its value may be a secret.
    case invalidHeaderValue(name: String)
    /// The method does not allow a request body (GET and HEAD).
    case bodyNotAllowed(method: String)
    /// The body or the query could not be encoded (for example an `Encodable` that threw).
    /// `underlyingError` is the error the encoder threw, when there was one; it is not part of
    /// `==` and not printed.
    case encodingFailed(String, underlyingError: (any Error)? = nil)
    /// The URL assembled from base URL, path and query could not be formed.
    case invalidURL(String)
    /// The timeout is zero or negative.
    case invalidTimeout(Duration)
    /// A streamed body's source failed: a file that is missing, unreadable, or changed size while
    /// it was sent, or an `AsyncSequence` that threw. The request is stopped rather than sent
    /// short or long. `underlyingError` is what the file read or the sequence threw, when
    /// something did; it is not part of `==` and not printed.
    case bodySourceFailed(String, underlyingError: (any Error)? = nil)
    /// A single-use body (an `AsyncSequence`) was already sent and cannot be sent again, for a
    /// second ``Call/resume()`` or a replay.
    case bodyNotReplayable
    /// A ``MultipartForm`` cannot be sent as asked: a field name or filename with a control
    /// character (CR, LF, NUL…), a per-part `Content-Disposition` header, an invalid fixed
    /// boundary, or a fixed boundary that occurs in a part's bytes.
    case invalidMultipartForm(String)
    /// A header that frames the message or the connection (`Content-Length`, `Transfer-Encoding`,
    /// `Host`, `Connection`, `Keep-Alive`, `Proxy-Connection`, `TE`, `Trailer`, `Upgrade`) was set
    /// by an endpoint, the configuration or a middleware. Courier and the transport compute these
    /// from the body and the URL; one set by hand could disagree with the bytes sent (a
    /// `Content-Length: 3` on a 10-byte body makes the other 7 bytes the start of the next request
    /// on a kept-alive connection), so nothing is sent.
    case reservedHeader(String)
    /// The call would wait for itself forever: ``Client/runExclusively(_:)`` called from inside a
    /// call in flight on the same client (a middleware, a constraint's `satisfy`) or from inside
    /// another exclusive action, or a call made through the client from inside its own exclusive
    /// action. The associated text says which.
    case wouldDeadlock(String)
    /// A transport's TLS settings cannot be used: a pin that is not base64 of 32 bytes, a
    /// certificate or private key that is not PEM, a key that does not match its certificate.
    /// The text says which; it never holds key material.
    case invalidTLSConfiguration(String)
    /// The call cannot open a WebSocket (CourierWebSockets' `Call.webSocket(_:)`): its method is
    /// not `GET`, it has a body, a subprotocol is not a token, or the transport cannot do
    /// WebSockets. Nothing was sent.
    case webSocketUnavailable(String)
}

extension InvalidRequest: CustomStringConvertible, CustomReflectable {
    /// A readable sentence naming the offending input, without a secret it may hold.
    ///
    /// ```swift
    /// InvalidRequest.invalidURL("https://h/p?token=t").description
    /// // "the URL \"https://h/p?token=<redacted>\" could not be formed"
    /// ```
    public var description: String {
        switch self {
        case .invalidHost(let host, let reason):
            return "invalid host \(Self.redacted(host).debugDescription): \(reason)"
        case .invalidPort(let port):
            return "invalid port \(port): must be between 1 and 65535"
        case .invalidPath(let path, let reason):
            return "invalid path \(Self.redacted(path).debugDescription): \(reason)"
        case .invalidBaseURL(let string, let reason):
            return "invalid base URL \(Self.redacted(string).debugDescription): \(reason)"
        case .invalidMethod(let method):
            return "invalid HTTP method \(method.debugDescription): must be an RFC 9110 token"
        case .invalidHeaderName(let name):
            guard let bad = Redaction.firstInvalidHeaderNameScalar(name) else {
                return "invalid header name \(name.debugDescription): must be an RFC 9110 token"
            }
            // Nothing from the first invalid character on: it may start a value (`: Bearer …`).
            let code = "U+" + String(name.unicodeScalars[bad].value, radix: 16, uppercase: true)
            return
                "invalid header name \(Redaction.printableHeaderName(name).debugDescription): it has the character \(code), and a name must be an RFC 9110 token (the rest of it is not shown)"
        case .invalidHeaderValue(let name):
            return "invalid value for header \(Redaction.printableHeaderName(name).debugDescription): control characters such as CR or LF are not allowed"
        case .bodyNotAllowed(let method):
            return "a \(method) request cannot carry a body"
        case .encodingFailed(let reason, _):
            return "the body could not be encoded: \(reason)"
        case .invalidURL(let string):
            return "the URL \(Self.redacted(string).debugDescription) could not be formed"
        case .invalidTimeout(let timeout):
            return "invalid timeout \(timeout): must be positive"
        case .bodySourceFailed(let reason, _):
            return "the body could not be read: \(reason)"
        case .bodyNotReplayable:
            return "the body is a single-use stream that was already sent"
        case .invalidMultipartForm(let reason):
            return "invalid multipart form: \(reason)"
        case .reservedHeader(let name):
            return "the header \(name.debugDescription) frames the message and is computed by Courier: it cannot be set"
        case .wouldDeadlock(let reason):
            return "this would wait for itself forever: \(reason)"
        case .invalidTLSConfiguration(let reason):
            return "invalid TLS configuration: \(reason)"
        case .webSocketUnavailable(let reason):
            return "the call cannot open a WebSocket: \(reason)"
        }
    }

    /// Two failures are equal when their case and what it names are; underlying errors are not
    /// compared.
    public static func == (lhs: InvalidRequest, rhs: InvalidRequest) -> Bool {
        switch (lhs, rhs) {
        case (.invalidHost(let a, let x), .invalidHost(let b, let y)), (.invalidPath(let a, let x), .invalidPath(let b, let y)),
            (.invalidBaseURL(let a, let x), .invalidBaseURL(let b, let y)):
            return a == b && x == y
        case (.invalidMethod(let a), .invalidMethod(let b)), (.invalidHeaderName(let a), .invalidHeaderName(let b)),
            (.invalidHeaderValue(let a), .invalidHeaderValue(let b)), (.bodyNotAllowed(let a), .bodyNotAllowed(let b)),
            (.encodingFailed(let a, _), .encodingFailed(let b, _)), (.invalidURL(let a), .invalidURL(let b)),
            (.bodySourceFailed(let a, _), .bodySourceFailed(let b, _)), (.invalidMultipartForm(let a), .invalidMultipartForm(let b)),
            (.reservedHeader(let a), .reservedHeader(let b)), (.wouldDeadlock(let a), .wouldDeadlock(let b)),
            (.invalidTLSConfiguration(let a), .invalidTLSConfiguration(let b)), (.webSocketUnavailable(let a), .webSocketUnavailable(let b)):
            return a == b
        case (.invalidPort(let a), .invalidPort(let b)):
            return a == b
        case (.invalidTimeout(let a), .invalidTimeout(let b)):
            return a == b
        case (.bodyNotReplayable, .bodyNotReplayable):
            return true
        default:
            return false
        }
    }

    /// The description only: the default mirror would print the associated values as given.
    public var customMirror: Mirror {
        Mirror(self, children: [], displayStyle: .enum)
    }

    /// A host, path or URL string as it may be printed.
    private static func redacted(_ string: String) -> String {
        Redaction.default.redact(urlString: string)
    }
}
