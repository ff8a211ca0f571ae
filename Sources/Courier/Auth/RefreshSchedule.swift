import Foundation

/// When a ``TokenRefresher`` may refresh: the backoff after transient failures and the loop
/// guard. A pure value, so its arithmetic is tested without any actor or clock.
///
/// Backoff after `n` consecutive transient failures is `initial × 2^(n-1)`, capped, without
/// jitter. The loop guard allows at most `maximumRefreshes` attempts in any `refreshWindow`.
/// Every computation saturates between zero and ``longestWait``, never trapping.
struct RefreshSchedule: Sendable {
    // With initial 1 s and cap 60 s the waits are 1, 2, 4, 8, 16, 32, then 60 s. No jitter: one
    // refresher makes one request at a time, so there is no herd to spread out. One attempt more
    // than the loop guard allows means the server keeps rejecting what it just issued.
    // Saturating matters: any count of failures and any policy, however absurd (`Duration`
    // extremes, a negative backoff or window), must give a wait, never an arithmetic trap; a daemon
    // in an hours-long auth outage counts thousands of consecutive failures.
    enum Permission: Equatable {
        case allowed
        case backingOff(retryAfter: Duration, last: RefreshFailure)
        case loopDetected(refreshes: Int, window: Duration)
    }

    /// The longest wait this schedule computes: 2^62 seconds (about 146 billion years), far
    /// inside what `Duration` (±1.7 × 10^20 s) and `Date` arithmetic can hold.
    static let longestWait: TimeInterval = 0x1p62

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
            let retryAfter = Self.duration(seconds: notBefore.timeIntervalSince(now))
            return .backingOff(retryAfter: retryAfter, last: lastFailure)
        }
        let windowStart = now.addingTimeInterval(-Self.seconds(policy.refreshWindow))
        let recent = attempts.filter { $0 > windowStart }.count
        if recent >= policy.maximumRefreshes {
            return .loopDetected(refreshes: recent, window: policy.refreshWindow)
        }
        return .allowed
    }

    mutating func recordAttempt(at now: Date) {
        let windowStart = now.addingTimeInterval(-Self.seconds(policy.refreshWindow))
        attempts.removeAll { $0 <= windowStart }
        attempts.append(now)
        // Only whether `maximumRefreshes` fall in the window matters: older ones can go, so a
        // huge window does not make the list grow with every refresh of a long-lived process.
        let keep = max(policy.maximumRefreshes, 1)
        if attempts.count > keep {
            attempts.removeFirst(attempts.count - keep)
        }
    }

    mutating func recordSuccess() {
        consecutiveFailures = 0
        notBefore = nil
        lastFailure = nil
    }

    mutating func recordTransientFailure(_ failure: RefreshFailure, at now: Date) {
        // Saturates: past `Int.max` failures the backoff is at its cap anyway.
        consecutiveFailures = consecutiveFailures == .max ? .max : consecutiveFailures + 1
        lastFailure = failure
        notBefore = now.addingTimeInterval(Self.seconds(backoff(afterFailures: consecutiveFailures)))
    }

    /// `initial × 2^(failures-1)`, capped at `maximumBackoff`. Computed in `Double` and capped
    /// *before* a `Duration` is built from it, so it cannot overflow: `Duration.seconds(_:)`
    /// traps beyond about 1.7 × 10^20 s, which `37 s × 2^62` already exceeds. A negative
    /// initial or maximum backoff counts as zero.
    func backoff(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        let initial = Self.seconds(policy.initialBackoff)
        let maximum = Self.seconds(policy.maximumBackoff)
        // 2^1100 is infinite in Double; `min` then picks the cap. Infinity never reaches a
        // Duration: `duration(seconds:)` saturates first.
        let exponent = Double(min(failures - 1, 1100))
        let uncapped = initial == 0 ? 0 : initial * pow(2, exponent)
        if uncapped >= maximum {
            return Self.clamped(policy.maximumBackoff)  // exactly the policy's cap when it is sane
        }
        return Self.duration(seconds: uncapped)
    }

    /// `duration` clamped to `0...longestWait`; comparing `Duration`s never traps.
    static func clamped(_ duration: Duration) -> Duration {
        if duration < .zero { return .zero }
        return min(duration, .seconds(longestWait))
    }

    /// `duration` in seconds, clamped to `0...longestWait`.
    static func seconds(_ duration: Duration) -> TimeInterval {
        min(max(duration.timeInterval, 0), longestWait)
    }

    /// A `Duration` of `seconds`, clamped to `0...longestWait` (NaN counts as zero), so building
    /// it never traps.
    static func duration(seconds: TimeInterval) -> Duration {
        guard seconds > 0 else { return .zero }  // also false for NaN
        return .seconds(min(seconds, longestWait))
    }
}
