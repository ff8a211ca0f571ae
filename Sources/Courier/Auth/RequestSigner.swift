import Foundation
import HTTPTypes

/// Custom authentication: code that adds credentials to each attempt of a request, for schemes
/// other than Basic and Bearer (an API key, an HMAC signature, AWS SigV4-style signing).
///
/// A signer runs once per attempt (every retry and replay is signed anew), after the origin was
/// checked against ``Configuration/authorizedHosts``. A signer that moves the request to an
/// origin not authorized fails the call with ``AuthenticationFailure/hostNotAuthorized(host:)``.
/// Name the headers and query items that carry a secret in ``Configuration/redaction`` so logs
/// hide them and redirects to another origin drop them. ``APIKeySigner`` covers API keys;
/// Documentation/Authentication.md shows an HMAC signer.
///
/// ```swift
/// configuration.authentication = .signed(HMACSigner(key: key))
/// ```
public protocol RequestSigner: Sendable {
    // The signer runs in the authentication stage, before the request is sent: no stage above
    // authentication sees what it adds. The framing headers stay refused as everywhere else.

    /// Adds this attempt's credentials to `request`.
    /// - Throws: any ``CourierError``; the call fails with it and nothing is sent.
    func sign(_ request: inout TransportRequest, context: SigningContext) async throws(CourierError)
}

/// What a ``RequestSigner`` knows about the attempt it signs.
public struct SigningContext: Sendable {
    /// The endpoint the request was built from.
    public let endpoint: any Requestable
    /// Which attempt this is, from 1: a retry by ``Configuration/retryPolicy`` counts up.
    public let attempt: Int

    /// Creates a context (for testing a signer on its own).
    public init(endpoint: any Requestable, attempt: Int) {
        self.endpoint = endpoint
        self.attempt = attempt
    }
}

/// A static API key sent in a header or a query item with every attempt: the simplest
/// ``RequestSigner``.
///
/// ```swift
/// configuration.authentication = .signed(APIKeySigner(header: "X-Api-Key", key: "s3cr3t"))
/// configuration.authentication = .signed(APIKeySigner(queryItem: "api_key", key: "s3cr3t"))
/// ```
/// The name is added to the request's ``TransportRequest/redaction``, so that logs, `curlCommand()`
/// and errors hide the key and a redirect to another origin drops the header, whatever the name.
public struct APIKeySigner: RequestSigner, CustomStringConvertible, CustomReflectable {
    /// Where the key goes.
    enum Placement: Sendable, Equatable {
        /// A header field with this name.
        case header(String)
        /// A query item with this name, appended to the request's query.
        case queryItem(String)
    }

    /// Where the key goes.
    let placement: Placement
    private let key: String

    /// A key sent as the header `name`.
    public init(header name: String, key: String) {
        placement = .header(name)
        self.key = key
    }

    /// A key sent as the query item `name` (percent-encoded).
    public init(queryItem name: String, key: String) {
        placement = .queryItem(name)
        self.key = key
    }

    /// Adds the key.
    /// - Throws: ``AuthenticationFailure/invalidCredential(_:)`` for a header name that is not an
    ///   HTTP token or a key that cannot be a header value, and
    ///   ``InvalidRequest/reservedHeader(_:)`` for a framing header's name.
    public func sign(_ request: inout TransportRequest, context: SigningContext) async throws(CourierError) {
        switch placement {
        case .header(let name):
            guard HTTPToken.isValid(name), let field = HTTPField.Name(name) else {
                throw .authentication(.invalidCredential("the API key header name \(name.debugDescription) is not an HTTP token"))
            }
            guard !RequestBuilder.reservedHeaders.contains(field) else { throw .invalidRequest(.reservedHeader(name)) }
            guard HeaderItem.isValidValue(key) else {
                throw .authentication(.invalidCredential("the API key cannot contain control characters"))
            }
            request.redaction.headers.insert(name)
            request.head.headerFields[field] = key
        case .queryItem(let name):
            request.redaction.queryItems.insert(name)
            let encoder = QueryStringEncoder(options: QueryStringFormattingOptions())
            let item = encoder.escape(name) + "=" + encoder.escape(key)
            let path = request.head.path ?? "/"
            request.head.path = path + (path.utf8.contains(UInt8(ascii: "?")) ? "&" : "?") + item
        }
    }

    /// Where the key goes, never the key.
    public var description: String {
        switch placement {
        case .header(let name): "APIKeySigner(header: \(name.debugDescription), key: <redacted>)"
        case .queryItem(let name): "APIKeySigner(queryItem: \(name.debugDescription), key: <redacted>)"
        }
    }

    /// The placement and a `<redacted>` key, so that `dump(_:)` cannot reach the key.
    public var customMirror: Mirror {
        Mirror(self, children: ["placement": placement, "key": Redaction.placeholder], displayStyle: .struct)
    }
}
