import Foundation

/// What a ``TokenRefresher`` with a ``CoordinatedTokenStore`` does once it holds the store's
/// lock and has re-read the stored credential. Pure, so every case is a table row in a test.
enum RefreshCoordination {
    enum Decision: Equatable {
        /// Another holder stored a newer credential that is not about to expire: use it, no refresh.
        case adopt(TokenCredential)
        /// Refresh, renewing this credential (`nil` when there is none).
        case refresh(from: TokenCredential?)
    }

    /// - Parameters:
    ///   - stored: what the store holds now, read under the lock.
    ///   - current: the credential this refresher was about to renew.
    static func decide(stored: TokenCredential?, current: TokenCredential?, now: Date, leeway: Duration) -> Decision {
        guard let stored, stored != current else {
            // Nothing newer. An empty store (another process signed out, or the file was
            // deleted) does not sign this refresher out: it renews what it has, as it would
            // without coordination.
            return .refresh(from: current)
        }
        if let storedIssued = stored.issuedAt, let currentIssued = current?.issuedAt, storedIssued < currentIssued {
            // Older than ours (our own save failed, or a stale file was put back): ours wins.
            return .refresh(from: current)
        }
        if stored.needsRefresh(at: now, leeway: leeway) {
            // Rotated elsewhere and already expiring: its refresh token is the live one (ours
            // may be spent), so renew that.
            return .refresh(from: stored)
        }
        return .adopt(stored)
    }
}
