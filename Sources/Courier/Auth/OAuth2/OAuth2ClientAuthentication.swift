import Foundation

/// How the client authenticates to an OAuth2 token endpoint (RFC 6749 §2.3).
///
/// ```swift
/// // A confidential client, with HTTP Basic (what every server must support, §2.3.1):
/// let basic = OAuth2ClientAuthentication.basic(clientID: "my-app", clientSecret: secret)
/// // The same credentials in the form body, for servers that ask for it:
/// let body = OAuth2ClientAuthentication.requestBody(clientID: "my-app", clientSecret: secret)
/// // A public client (a mobile or desktop app that cannot keep a secret):
/// let app = OAuth2ClientAuthentication.publicClient(clientID: "my-app")
/// ```
///
/// Neither its `description` (nor `String(reflecting:)`) nor a `dump` of it prints the secret.
public enum OAuth2ClientAuthentication: Sendable, Equatable {
    /// HTTP Basic: `Authorization: Basic base64(id:secret)`, where the id and the secret are
    /// each form-urlencoded first, as RFC 6749 §2.3.1 requires. Every byte outside RFC 3986's
    /// unreserved characters is percent-encoded from UTF-8, so a space becomes `%20` (which
    /// decodes the same under form decoding and plain percent decoding), `+` becomes `%2B`, `:`
    /// becomes `%3A`, and a non-ASCII id or secret reaches the server intact.
    case basic(clientID: String, clientSecret: String)
    /// `client_id` and `client_secret` as the last two parameters of the form body (§2.3.1).
    case requestBody(clientID: String, clientSecret: String)
    /// A public client (§2.1): `client_id` alone, as the last parameter of the form body.
    case publicClient(clientID: String)

    /// The client identifier, whichever way it is sent. Client identifiers are not secret (§2.2).
    public var clientID: String {
        switch self {
        case .basic(let clientID, _), .requestBody(let clientID, _), .publicClient(let clientID):
            clientID
        }
    }

    /// The `Authorization` header value for ``basic(clientID:clientSecret:)``, `nil` otherwise.
    var authorizationHeaderValue: String? {
        guard case .basic(let clientID, let clientSecret) = self else { return nil }
        let joined = PercentEncoding.encode(clientID) + ":" + PercentEncoding.encode(clientSecret)
        return "Basic " + Data(joined.utf8).base64EncodedString()
    }

    /// What a request with this authentication sends that must never be printed: the secret and
    /// its Basic header value.
    package var secrets: [String] {
        switch self {
        case .basic(_, let clientSecret): [clientSecret] + (authorizationHeaderValue.map { [String($0.dropFirst(6))] } ?? [])
        case .requestBody(_, let clientSecret): [clientSecret]
        case .publicClient: []
        }
    }

    /// The parameters this authentication adds to the end of the form body.
    package var bodyParameters: [QueryItem] {
        switch self {
        case .basic:
            []
        case .requestBody(let clientID, let clientSecret):
            [QueryItem(name: "client_id", value: clientID), QueryItem(name: "client_secret", value: clientSecret)]
        case .publicClient(let clientID):
            [QueryItem(name: "client_id", value: clientID)]
        }
    }
}

extension OAuth2ClientAuthentication: CustomStringConvertible, CustomReflectable {
    /// The mode and the client id; the secret is shown as `<redacted>`.
    /// For example `basic(clientID: "my-app", clientSecret: <redacted>)`.
    public var description: String {
        switch self {
        case .basic(let clientID, _):
            "basic(clientID: \(clientID.debugDescription), clientSecret: <redacted>)"
        case .requestBody(let clientID, _):
            "requestBody(clientID: \(clientID.debugDescription), clientSecret: <redacted>)"
        case .publicClient(let clientID):
            "publicClient(clientID: \(clientID.debugDescription))"
        }
    }

    /// A mirror without children, so that `dump` and reflection-based loggers cannot reach the
    /// secret.
    public var customMirror: Mirror {
        Mirror(self, children: [], displayStyle: .enum)
    }
}
