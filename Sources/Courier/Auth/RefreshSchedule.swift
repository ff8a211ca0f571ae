import Foundation

/// When a ``TokenRefresher`` may refresh: the backoff after transient failures and the loop
/// guard. A pure value, so its arithmetic is tested without any actor or clock.
///
/// Backoff after `n` consecutive transient failures is `initial × 2^(n-1)`, capped:
///
/// | failures | 1 | 2 | 3 | 4 | 5 | 6 | 7+ |
/// | --- | --- | --- | --- | --- | --- | --- | --- |
/// | wait (initial 1 s, cap 60 s) | 1 s | 2 s | 4 s | 8 s | 16 s | 32 s | 60 s |
///
/// No jitter: one refresher makes one request at a time, so there is no herd to spread out.
///
/// Loop guard: at most `maximumRefreshes` attempts in any `refreshWindow`; one more means the
/// server keeps rejecting what it just issued.
struct RefreshSchedule: Sendable {
    enum Permission: Equatable {
        case allowed
        case backingOff(retryAfter: Duration, last: RefreshFailure)
        case loopDetected(refreshes: Int, window: Duration)
    }

    let policy: TokenRefresher.Policy
    private(set) var attempts: [Date] = []
    private(set) var consecutiveFailures = 0
    private(set) var notBefore: Date?
    private(set) var lastFailure: RefreshFailure?

    init(policy: TokenRefresher.Policy) {
        self.policy = policy
    }

    func permission(at now: Date) -> Permission {
        if let notBefore, let lastFailure, now < notBefore {
            return .backingOff(retryAfter: .seconds(notBefore.timeIntervalSince(now)), last: lastFailure)
        }
        let windowStart = now.addingTimeInterval(-policy.refreshWindow.timeInterval)
        let recent = attempts.filter { $0 > windowStart }.count
        if recent >= policy.maximumRefreshes {
            return .loopDetected(refreshes: recent, window: policy.refreshWindow)
        }
        return .allowed
    }

    mutating func recordAttempt(at now: Date) {
        let windowStart = now.addingTimeInterval(-policy.refreshWindow.timeInterval)
        attempts.removeAll { $0 <= windowStart }
        attempts.append(now)
    }

    mutating func recordSuccess() {
        consecutiveFailures = 0
        notBefore = nil
        lastFailure = nil
    }

    mutating func recordTransientFailure(_ failure: RefreshFailure, at now: Date) {
        consecutiveFailures += 1
        lastFailure = failure
        notBefore = now.addingTimeInterval(backoff(afterFailures: consecutiveFailures).timeInterval)
    }

    /// `initial × 2^(failures-1)`, capped at `maximumBackoff`.
    func backoff(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        let exponent = min(failures - 1, 62)   // 2^62 seconds is already far past any cap
        let seconds = policy.initialBackoff.timeInterval * pow(2, Double(exponent))
        return min(.seconds(seconds), policy.maximumBackoff)
    }
}
