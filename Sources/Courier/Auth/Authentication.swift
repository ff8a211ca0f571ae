import Foundation

/// How a ``Client`` authenticates the endpoints that require authorization.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.authentication = .bearer(refresher)
/// configuration.authorizedHosts = ["api.example.com"]
/// ```
///
/// Credentials are attached only when the endpoint's ``Requestable/requiresAuthorization`` is
/// `true` **and** its host is in ``Configuration/authorizedHosts``; a call that needs
/// authorization for any other host fails with ``AuthenticationFailure/hostNotAuthorized(host:)``
/// and sends nothing.
public enum Authentication: Sendable {
    /// No credentials are attached.
    case none
    /// `Authorization: Basic base64(username:password)` (RFC 7617).
    case basic(BasicCredential)
    /// `Authorization: Bearer <token>` from a ``TokenRefresher``, which refreshes the token
    /// before it expires and after a 401, one refresh for any number of concurrent calls.
    case bearer(TokenRefresher)
    /// Whatever a ``RequestSigner`` adds, run once per attempt: an API key, an HMAC signature,
    /// a SigV4-style scheme. The host rules are the same as for the other cases.
    ///
    /// ```swift
    /// configuration.authentication = .signed(APIKeySigner(header: "X-Api-Key", key: apiKey))
    /// ```
    case signed(any RequestSigner)

    /// Whether this is ``none``.
    var isNone: Bool {
        if case .none = self { true } else { false }
    }
}

/// A username and password for HTTP Basic authentication (RFC 7617).
///
/// Encoded as UTF-8, joined with `:` and base64-encoded. A username cannot contain `:` (the
/// server could not tell where it ends); such a credential fails the call with
/// ``AuthenticationFailure/invalidCredential(_:)``. Neither `description`
/// nor a `dump` prints the password.
public struct BasicCredential: Sendable, Equatable {
    /// The user name; must not contain `:`.
    public var username: String
    /// The password.
    public var password: String

    /// Creates a credential.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// `Basic <base64(username:password)>`.
    /// - Throws: ``CourierError/authentication(_:)`` with ``AuthenticationFailure/invalidCredential(_:)``
    ///   when the username contains `:` or either part contains a control character.
    func authorizationValue() throws(CourierError) -> String {
        // Scalars, not characters: ":" followed by a combining mark is still the separator a
        // server splits the decoded pair at.
        guard !username.unicodeScalars.contains(":") else {
            throw .authentication(.invalidCredential("a Basic username cannot contain \":\""))
        }
        guard HeaderItem.isValidValue(username), HeaderItem.isValidValue(password) else {
            throw .authentication(.invalidCredential("a Basic username or password cannot contain control characters"))
        }
        return "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }
}

extension BasicCredential: CustomStringConvertible, CustomReflectable {
    /// The username only; the password is shown as `<redacted>`.
    public var description: String { "BasicCredential(username: \(username.debugDescription), password: <redacted>)" }

    /// The username and a `<redacted>` password, so that `dump(_:)` and reflection-based
    /// loggers cannot reach the password.
    ///
    /// ```swift
    /// dump(BasicCredential(username: "ada", password: "pw"))
    /// // ▿ BasicCredential(username: "ada", password: <redacted>)
    /// //   - username: "ada"
    /// //   - password: "<redacted>"
    /// ```
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "password": Redaction.placeholder], displayStyle: .struct)
    }
}

/// Something that happened to a ``TokenRefresher``'s credential, for apps that must react
/// (show a sign-in screen, update a "last refreshed" label).
///
/// ```swift
/// for await event in await refresher.events() {
///     if case .refreshFailed(let failure) = event, failure.isPermanent { await showSignIn() }
/// }
/// ```
#if hasAttribute(nonexhaustive)
    @nonexhaustive
#endif
public enum AuthEvent: Sendable, Equatable {
    /// A refresh succeeded; the new credential is stored and in use.
    case refreshed(TokenCredential)
    /// A refresh failed. When ``RefreshFailure/isPermanent``, calls that need authorization
    /// fail until ``TokenRefresher/reset(to:)``.
    case refreshFailed(RefreshFailure)
    /// The app supplied a new credential with ``TokenRefresher/reset(to:)``.
    case credentialReset
    /// The app signed out with ``TokenRefresher/signOut()``.
    case signedOut
    /// A new credential could not be written to the store; it is used from memory. The value is
    /// the error the store threw.
    case storeFailed(any Error)

    /// Events are equal when their cases and values are; two store errors are equal when they
    /// print the same.
    public static func == (lhs: AuthEvent, rhs: AuthEvent) -> Bool {
        switch (lhs, rhs) {
        case (.refreshed(let a), .refreshed(let b)): a == b
        case (.refreshFailed(let a), .refreshFailed(let b)): a == b
        case (.credentialReset, .credentialReset), (.signedOut, .signedOut): true
        case (.storeFailed(let a), .storeFailed(let b)): String(describing: a) == String(describing: b)
        default: false
        }
    }
}
