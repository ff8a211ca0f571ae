import Foundation
import Testing

@testable import Courier

/// Issue 9, defect 2: `RefreshSchedule.backoff` trapped ("Overflow in multiplication") after 63
/// consecutive transient failures once `initialBackoff` ≥ 37 s. Every computation now saturates.
@Suite("RefreshSchedule: saturating backoff and loop-window arithmetic")
struct RefreshScheduleTests {
    /// Policies from ordinary to absurd.
    static let policies: [PolicyCase] = [
        PolicyCase(initialBackoff: .seconds(37), maximumBackoff: .seconds(3600)),  // the reported trap
        PolicyCase(initialBackoff: .seconds(1), maximumBackoff: .seconds(60)),
        PolicyCase(initialBackoff: .seconds(1), maximumBackoff: .seconds(Int64.max)),
        PolicyCase(initialBackoff: .seconds(Int64.max), maximumBackoff: .seconds(Int64.max)),
        PolicyCase(initialBackoff: .seconds(Int64.max), maximumBackoff: .seconds(60)),
        PolicyCase(initialBackoff: .nanoseconds(1), maximumBackoff: .seconds(Int64.max)),
        PolicyCase(initialBackoff: .zero, maximumBackoff: .seconds(60)),
        PolicyCase(initialBackoff: .seconds(-5), maximumBackoff: .seconds(60)),
        PolicyCase(initialBackoff: .seconds(5), maximumBackoff: .seconds(-60)),
        PolicyCase(initialBackoff: .seconds(Int64.min), maximumBackoff: .seconds(Int64.min)),
        PolicyCase(initialBackoff: .seconds(86_400 * 365), maximumBackoff: .seconds(86_400 * 365 * 1_000)),
    ]

    static let failureCounts = [1, 2, 36, 62, 63, 64, 65, 100, 1_023, 1_024, 1_100, 1_101, 5_000, 10_000, Int.max]

    @Test(
        "any failure count under any policy gives a wait within zero and the cap, without trapping",
        arguments: policies, failureCounts)
    func backoffSaturates(policyCase: PolicyCase, failures: Int) {
        let policy = policyCase.policy
        let schedule = RefreshSchedule(policy: policy)
        let wait = schedule.backoff(afterFailures: failures)
        #expect(wait >= .zero)
        #expect(wait <= max(policy.maximumBackoff, .zero))
        #expect(wait <= .seconds(RefreshSchedule.longestWait))
    }

    @Test("the reported case: 37 s doubling, capped at an hour, is exactly the cap from failure 8 on", arguments: [8, 62, 63, 64, 10_000])
    func reportedCase(failures: Int) {
        let schedule = RefreshSchedule(policy: .init(initialBackoff: .seconds(37), maximumBackoff: .seconds(3600)))
        #expect(schedule.backoff(afterFailures: failures) == .seconds(3600))
        #expect(schedule.backoff(afterFailures: 7) == .seconds(37 * 64))
    }

    @Test("the wait never shrinks as failures add up", arguments: policies)
    func backoffIsMonotonic(policyCase: PolicyCase) {
        let schedule = RefreshSchedule(policy: policyCase.policy)
        var previous = Duration.zero
        for failures in 1...1_200 {
            let wait = schedule.backoff(afterFailures: failures)
            #expect(wait >= previous, "failure \(failures)")
            previous = wait
        }
    }

    @Test(
        "10,000 consecutive transient failures recorded and checked under every policy: no trap, a sane wait",
        arguments: policies)
    func tenThousandFailures(policyCase: PolicyCase) {
        let policy = policyCase.policy
        var schedule = RefreshSchedule(policy: policy)
        var now = Date(timeIntervalSince1970: 1_800_000_000)
        let failure = RefreshFailure(reason: .unexpectedStatus, statusCode: 503, isPermanent: false)
        for _ in 0..<10_000 {
            schedule.recordAttempt(at: now)
            schedule.recordTransientFailure(failure, at: now)
            switch schedule.permission(at: now) {
            case .backingOff(let retryAfter, _):
                #expect(retryAfter > .zero && retryAfter <= .seconds(RefreshSchedule.longestWait))
            case .allowed, .loopDetected:
                break
            }
            now = now.addingTimeInterval(3600)
        }
        #expect(schedule.consecutiveFailures == 10_000)
        #expect(schedule.attempts.count <= max(policy.maximumRefreshes, 1))
    }

    @Test(
        "loop-guard windows of any size, negative included, count attempts without trapping",
        arguments: [
            Duration.zero, .seconds(-60), .seconds(Int64.min), .seconds(Int64.max), .nanoseconds(1), .seconds(60),
        ])
    func extremeWindows(window: Duration) {
        var schedule = RefreshSchedule(policy: .init(maximumRefreshes: 3, refreshWindow: window))
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for second in 0..<10 {
            let moment = now.addingTimeInterval(Double(second))
            if case .allowed = schedule.permission(at: moment) {
                schedule.recordAttempt(at: moment)
            }
        }
        #expect(schedule.attempts.count <= 3)
        let expectLoop = window > .seconds(10)  // ten attempts a second apart fill a window this long
        if case .loopDetected(let refreshes, _) = schedule.permission(at: now.addingTimeInterval(10)) {
            #expect(expectLoop && refreshes == 3)
        } else {
            #expect(!expectLoop)
        }
    }

    @Test("a refresher with a 37 s backoff survives 100 consecutive transient failures (the daemon in an outage)")
    func refresherSurvivesLongOutage() async throws {
        let clock = WallClock()
        let attempts = Locked(0)
        let policy = TokenRefresher.Policy(
            initialBackoff: .seconds(37), maximumBackoff: .seconds(Int64.max),
            maximumRefreshes: .max, refreshWindow: .seconds(1))
        let unavailable = RefreshFailure(reason: .unexpectedStatus, statusCode: 503, isPermanent: false)
        let refresher = TokenRefresher(
            store: InMemoryTokenStore(clock.credential("old", expiresIn: -1)),
            policy: policy, now: clock.closure
        ) { _ in
            attempts.withValue { $0 += 1 }
            throw unavailable
        }
        for attempt in 1...100 {
            await #expect { _ = try await refresher.validCredential() } throws: { error in
                expectAuthFailure(error) { $0 == .refreshFailed(unavailable) }
            }
            #expect(attempts.value == attempt)
            clock.advance(by: 2 * RefreshSchedule.longestWait)  // past any backoff
        }
    }
}

/// A backoff policy as a test argument, named by its two backoff values.
struct PolicyCase: CustomTestStringConvertible, Sendable {
    let policy: TokenRefresher.Policy

    init(initialBackoff: Duration, maximumBackoff: Duration) {
        policy = TokenRefresher.Policy(initialBackoff: initialBackoff, maximumBackoff: maximumBackoff)
    }

    var testDescription: String { "initial \(policy.initialBackoff), max \(policy.maximumBackoff)" }
}
