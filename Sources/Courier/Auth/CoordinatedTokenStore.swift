/// A ``TokenStore`` whose credential other processes may share, and which can lock them out
/// while a ``TokenRefresher`` reads, refreshes and writes it (so none of them spends the same
/// rotating refresh token twice). ``FileTokenStore`` conforms with an advisory `flock`.
///
/// ```swift
/// actor SharedStore: CoordinatedTokenStore {
///     func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
///         let lock = try await database.lock("oauth-token")   // whatever your storage offers
///         defer { lock.release() }
///         return try await body()
///     }
///     // load(), save(_:), remove() as for any TokenStore
/// }
/// ```
public protocol CoordinatedTokenStore: TokenStore {
    // TokenRefresher refreshes inside withExclusiveAccess(_:), re-reading the store first: if
    // another holder already stored a newer credential that is not about to expire, it uses that one
    // instead of refreshing (an expiring newer one is refreshed with *its* refresh token). It saves
    // after reset(to:) and removes after signOut() inside it too, so another process's refresh
    // cannot write over them. Documentation/Authentication.md ("Several processes sharing one token
    // file") says the same for users.

    /// Runs `body` while no other holder of the same stored credential runs its own
    /// `withExclusiveAccess`, and returns what `body` returns.
    ///
    /// Inside `body`, ``TokenStore/load()``, ``TokenStore/save(_:)`` and ``TokenStore/remove()``
    /// must work without taking the lock again. Waiting for the lock must not block a thread of
    /// the cooperative pool for long (poll, or wait on a thread of your own), should end with
    /// an error after a bounded time, and should end when the calling task is cancelled.
    /// - Throws: whatever `body` throws, unchanged; or an error of the store's own if the lock
    ///   cannot be taken (then `body` does not run).
    @discardableResult
    func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
}
