/// Where a ``TokenRefresher`` keeps its credential between launches.
///
/// Implementations must be safe to call from any task. ``TokenRefresher`` calls ``save(_:)``
/// with every new credential *before* it lets any caller use it. If saving throws, the new
/// credential is still used from memory (a rotated refresh token must not be lost) and the
/// refresher emits ``AuthEvent/storeFailed(_:)``. A refresher never calls two of these methods
/// at once: it waits for each to return before the next, in the order it decided them. A store
/// that other processes share should also conform to ``CoordinatedTokenStore``.
///
/// Courier ships ``InMemoryTokenStore``, ``FileTokenStore`` (AES-GCM encrypted) and, on Apple
/// platforms, `KeychainTokenStore`.
public protocol TokenStore: Sendable {
    /// The stored credential, or `nil` if there is none.
    /// - Throws: if the store cannot be read (a corrupt file is an error, never `nil`).
    func load() async throws -> TokenCredential?
    /// Replaces the stored credential.
    /// - Throws: if the credential cannot be stored.
    func save(_ credential: TokenCredential) async throws
    /// Deletes the stored credential. Removing from an empty store is not an error.
    /// - Throws: if the store cannot be changed.
    func remove() async throws
}
