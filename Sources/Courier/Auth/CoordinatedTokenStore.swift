/// A ``TokenStore`` whose credential other processes (or other store instances) may share, and
/// which can lock them out while a ``TokenRefresher`` reads, refreshes and writes it.
///
/// With single-use rotating refresh tokens, two processes that share one token file and refresh
/// on their own spend the same refresh token twice (the server then revokes the family) or
/// overwrite each other's rotated token. When its store conforms, ``TokenRefresher``:
/// - refreshes inside ``withExclusiveAccess(_:)``: it re-reads the store first, and if another
///   holder already stored a newer credential that is not about to expire, uses that one
///   instead of refreshing (an expiring newer one is refreshed with *its* refresh token);
/// - saves after ``TokenRefresher/reset(to:)`` and removes after ``TokenRefresher/signOut()``
///   inside it too, so another process's refresh cannot write over them.
///
/// ``FileTokenStore`` conforms with an advisory `flock` on a lock file next to the token file.
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
