/// Why authentication failed or could not be attempted.
///
/// The authentication layer (Basic, Bearer and the token refresher) reports its failures
/// through this type inside ``CourierError/authentication(_:)``.
public struct AuthenticationFailure: Error, Sendable, Equatable {
    /// The class of failure.
    public enum Kind: String, Sendable, Equatable {
        /// The request needs authorization but no credential is available.
        case missingCredential
        /// The credential could not be refreshed.
        case refreshFailed
        /// The server rejected the credential.
        case rejected
    }

    /// The class of failure.
    public var kind: Kind
    /// A human-readable explanation. It never contains a credential.
    public var message: String

    /// Creates an authentication failure.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }
}

extension AuthenticationFailure: CustomStringConvertible {
    /// The kind and the message.
    public var description: String { "\(kind.rawValue): \(message)" }
}
