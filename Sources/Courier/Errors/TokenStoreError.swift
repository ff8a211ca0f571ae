/// Why a ``TokenStore`` shipped with Courier could not load, save or remove a credential.
///
/// ``FileTokenStore`` and `KeychainTokenStore` declare their methods `throws(TokenStoreError)`.
/// A damaged or foreign store is always one of these errors: it is never read as "no credential".
///
/// <!-- guide: if EncryptedTokenStore -->
/// ```swift
/// do {
///     let credential = try await store.load()
/// } catch .authenticationFailed {
///     // wrong key or passphrase, or the file was modified: ask the user to sign in again
/// } catch {
///     log.error("token store: \(error)")   // never contains a token
/// }
/// ```
#if hasAttribute(nonexhaustive)
    @nonexhaustive
#endif
public enum TokenStoreError: Error, Sendable {
    /// The stored data is not a valid token file: too short, wrong magic bytes, an unknown key
    /// derivation, an iteration count out of range, or a decrypted payload that is not a
    /// ``TokenCredential``. The reason says which.
    case corrupted(String)
    /// The encrypted payload did not authenticate. AES-GCM cannot tell a wrong key (or
    /// passphrase) from a modified file: both fail the same tag check, so both land here. A file
    /// written with a passphrase but opened with a raw key (or the other way round) is also
    /// reported this way.
    case authenticationFailed
    /// The file is a token file of a format version this build does not read.
    case unsupportedVersion(UInt8)
    /// The key, passphrase or iteration count given to the store is unusable, e.g. a raw key
    /// that is not 32 bytes, an empty passphrase, or too few PBKDF2 rounds.
    case invalidKey(String)
    /// The credential could not be encoded or sealed for storage (e.g. a date that is not
    /// finite). `underlyingError` is the encoder's or the cipher's error, when there is one.
    case encodingFailed(String, underlyingError: (any Error)? = nil)
    /// A file-system operation failed. The message names the operation, the path and the
    /// system error; it never contains a token. `underlyingError` is the system's error (a
    /// `POSIXError` for a failed system call), when there is one.
    ///
    /// <!-- guide: if EncryptedTokenStore -->
    /// ```swift
    /// do {
    ///     try await store.save(credential)
    /// } catch .io(_, let cause as POSIXError) where cause.code == .ENOSPC {
    ///     showDiskFull()
    /// }
    /// ```
    case io(String, underlyingError: (any Error)? = nil)
    /// A Keychain call returned this `OSStatus` (Apple platforms only).
    case keychain(status: Int32)
}

extension TokenStoreError: CustomStringConvertible {
    /// A readable sentence; never contains a credential.
    public var description: String {
        switch self {
        case .corrupted(let reason):
            return "token store is corrupted: \(reason)"
        case .authenticationFailed:
            return "token store did not authenticate: wrong key or passphrase, or the file was modified"
        case .unsupportedVersion(let version):
            return "token store format version \(version) is not supported"
        case .invalidKey(let reason):
            return "invalid token store key: \(reason)"
        case .encodingFailed(let reason, _):
            return "the credential could not be encoded: \(reason)"
        case .io(let message, _):
            return "token store I/O failed: \(message)"
        case .keychain(let status):
            return "keychain call failed with OSStatus \(status)"
        }
    }
}

extension TokenStoreError: Equatable {
    /// Equal when the case and its message (or status) are equal; an underlying error is not
    /// compared.
    public static func == (lhs: TokenStoreError, rhs: TokenStoreError) -> Bool {
        switch (lhs, rhs) {
        case (.corrupted(let a), .corrupted(let b)), (.invalidKey(let a), .invalidKey(let b)),
            (.encodingFailed(let a, _), .encodingFailed(let b, _)), (.io(let a, _), .io(let b, _)):
            a == b
        case (.authenticationFailed, .authenticationFailed): true
        case (.unsupportedVersion(let a), .unsupportedVersion(let b)): a == b
        case (.keychain(let a), .keychain(let b)): a == b
        default: false
        }
    }
}
