import CourierTesting
import Foundation
import Testing

@testable import Courier

@Suite("TokenRefresher: one refresh for any number of callers", .heavy)
struct TokenRefresherTests {
    func makeRefresher(
        _ store: CountingStore, clock: WallClock, mint: TokenMint, policy: TokenRefresher.Policy = .init(),
        gate: Gate? = nil, failure: (@Sendable () -> (any Error)?)? = nil
    ) -> TokenRefresher {
        TokenRefresher(store: store, policy: policy, now: clock.closure) { _ in
            if let gate { await gate.wait() }
            if let error = failure?() { mint.count.withValue { $0 += 1 }; throw error }
            return mint.next()
        }
    }

    @Test("a token outside the leeway is used as it is", arguments: [31.0, 120, 3600])
    func freshTokenIsNotRefreshed(expiresIn: Double) async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let refresher = makeRefresher(CountingStore(clock.credential("old", expiresIn: expiresIn)), clock: clock, mint: mint)
        #expect(try await refresher.validCredential().accessToken == "old")
        #expect(mint.count.value == 0)
    }

    @Test("a token within the leeway, or expired, is refreshed before use", arguments: [29.0, 1, 0, -10])
    func expiringTokenIsRefreshed(expiresIn: Double) async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = CountingStore(clock.credential("old", expiresIn: expiresIn))
        let refresher = makeRefresher(store, clock: clock, mint: mint)
        #expect(try await refresher.validCredential().accessToken == "at-1")
        #expect(await store.stored?.accessToken == "at-1")
    }

    @Test("the leeway is capped at half the token's lifetime, so a short-lived token is not born expired")
    func leewayIsCappedAtHalfTheLifetime() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let shortLived = clock.credential("short", expiresIn: 40, issuedAgo: 0)  // lives 40 s; leeway 30 s > 20 s
        let refresher = makeRefresher(CountingStore(shortLived), clock: clock, mint: mint)
        #expect(try await refresher.validCredential().accessToken == "short")
        clock.advance(by: 19)
        #expect(try await refresher.validCredential().accessToken == "short")
        clock.advance(by: 2)  // 21 s in: within 20 s of expiry
        #expect(try await refresher.validCredential().accessToken == "at-1")
        #expect(mint.count.value == 1)
    }

    @Test("a token without expiry is never refreshed proactively")
    func noExpiryMeansNoProactiveRefresh() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let refresher = makeRefresher(CountingStore(TokenCredential(accessToken: "forever")), clock: clock, mint: mint)
        clock.advance(by: 10 * 365 * 86400)
        #expect(try await refresher.validCredential().accessToken == "forever")
        #expect(mint.count.value == 0)
    }

    @Test("10,000 concurrent callers of an expired token share exactly one refresh, round after round")
    func concurrentCallersShareOneRefresh() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = CountingStore(clock.credential("old", expiresIn: -1))
        let refresher = makeRefresher(store, clock: clock, mint: mint)
        for round in 1...5 {
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<10_000 {
                    group.addTask { try await refresher.validCredential().accessToken }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens == ["at-\(round)"])
            #expect(mint.count.value == round)
            clock.advance(by: 3600)  // the new token expires: next round must refresh once more
        }
        #expect(await store.loads == 1)
        #expect(await store.saves == 5)
    }

    @Test("callers that arrive while the new credential is being stored join the refresh instead of starting another")
    func refreshIsNotStartedTwiceWhenCallersArriveDuringStore() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = CountingStore(clock.credential("old", expiresIn: -1))
        let saveGate = Gate(), saveEntered = Gate()
        await store.configure(saveGate: saveGate, saveEntered: saveEntered)
        let refresher = makeRefresher(store, clock: clock, mint: mint)

        let first = Task { try await refresher.validCredential().accessToken }
        await saveEntered.wait()  // the refresh has its token and is writing it
        let late = (0..<100).map { _ in Task { try await refresher.validCredential().accessToken } }
        await saveGate.open()

        #expect(try await first.value == "at-1")
        for task in late { #expect(try await task.value == "at-1") }
        #expect(mint.count.value == 1)
        #expect(await store.saves == 1)
    }

    @Test("a cancelled waiter leaves at once; the refresh goes on for the others and is stored")
    func cancelledWaiterLeavesWithoutStoppingTheRefresh() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = CountingStore(clock.credential("old", expiresIn: -1))
        let gate = Gate()
        let refresher = makeRefresher(store, clock: clock, mint: mint, gate: gate)

        let cancelled = (0..<50).map { _ in Task { try await refresher.validCredential() } }
        let patient = (0..<50).map { _ in Task { try await refresher.validCredential().accessToken } }
        for task in cancelled { task.cancel() }
        for task in cancelled {
            await #expect {
                _ = try await task.value
            } throws: { error in
                if case .cancelled = error as? CourierError { return true }
                return false
            }
        }
        await gate.open()
        for task in patient { #expect(try await task.value == "at-1") }
        #expect(mint.count.value == 1)
        #expect(await store.stored?.accessToken == "at-1")
    }

    @Test("a permanent failure fails every waiter and every later caller, without refreshing again, until reset")
    func permanentFailureIsStickyUntilReset() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let rejected = RefreshFailure(
            reason: .rejected, oauth2Error: OAuth2Error(code: "invalid_grant", errorDescription: "revoked"),
            statusCode: 400, isPermanent: true)
        let failing = Locked(true)
        let gate = Gate()
        let refresher = makeRefresher(
            CountingStore(clock.credential("old", expiresIn: -1)), clock: clock, mint: mint,
            gate: gate, failure: { failing.value ? rejected : nil })

        let waiters = (0..<1_000).map { _ in Task { try await refresher.validCredential() } }
        await gate.open()
        for waiter in waiters {
            await #expect { _ = try await waiter.value } throws: { error in
                expectAuthFailure(error) { $0 == .refreshFailed(rejected) }
            }
        }
        #expect(mint.count.value == 1)

        for _ in 0..<100 {
            await #expect { _ = try await refresher.validCredential() } throws: { error in
                expectAuthFailure(error) { $0 == .refreshFailed(rejected) }
            }
        }
        #expect(mint.count.value == 1)  // no further traffic

        failing.withValue { $0 = false }
        try await refresher.reset(to: clock.credential("signed-in-again", expiresIn: 3600))
        #expect(try await refresher.validCredential().accessToken == "signed-in-again")
    }

    @Test("a transient failure fails the waiters; the next refresh waits for the backoff, which doubles")
    func transientFailureBacksOff() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let unavailable = RefreshFailure(reason: .unexpectedStatus, statusCode: 503, isPermanent: false)
        let failing = Locked(true)
        let refresher = makeRefresher(
            CountingStore(clock.credential("old", expiresIn: -1)), clock: clock, mint: mint,
            failure: { failing.value ? unavailable : nil })

        await #expect { _ = try await refresher.validCredential() } throws: { error in
            expectAuthFailure(error) { $0 == .refreshFailed(unavailable) }
        }
        #expect(mint.count.value == 1)

        clock.advance(by: 0.5)  // within the first backoff (1 s): no request
        await #expect { _ = try await refresher.validCredential() } throws: { error in
            expectAuthFailure(error) {
                guard case .refreshFailed(let failure) = $0, case .backingOff(let retryAfter) = failure.reason else { return false }
                return !failure.isPermanent && failure.statusCode == 503 && retryAfter == .seconds(0.5)
            }
        }
        #expect(mint.count.value == 1)

        clock.advance(by: 0.6)  // past 1 s: tried again, fails again; backoff is now 2 s
        await #expect(throws: CourierError.self) { _ = try await refresher.validCredential() }
        #expect(mint.count.value == 2)
        clock.advance(by: 1.5)
        await #expect(throws: CourierError.self) { _ = try await refresher.validCredential() }
        #expect(mint.count.value == 2)

        failing.withValue { $0 = false }
        clock.advance(by: 0.6)
        #expect(try await refresher.validCredential().accessToken == "at-3")
    }

    @Test("a custom closure's ordinary error is a transient custom failure")
    func customErrorsAreTransient() async {
        struct Boom: Error {}
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let refresher = makeRefresher(CountingStore(clock.credential("old", expiresIn: -1)), clock: clock, mint: mint, failure: { Boom() })
        await #expect { _ = try await refresher.validCredential() } throws: { error in
            expectAuthFailure(error) {
                guard case .refreshFailed(let failure) = $0, case .custom = failure.reason else { return false }
                return !failure.isPermanent
            }
        }
    }

    @Test("the loop guard stops refreshing after too many refreshes in the window, until reset")
    func loopGuardStopsRefreshing() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let policy = TokenRefresher.Policy(maximumRefreshes: 3, refreshWindow: .seconds(60))
        let refresher = makeRefresher(CountingStore(clock.credential("old", expiresIn: 3600)), clock: clock, mint: mint, policy: policy)
        for n in 1...3 {
            #expect(try await refresher.forceRefresh().accessToken == "at-\(n)")
            clock.advance(by: 1)
        }
        await #expect { _ = try await refresher.forceRefresh() } throws: { error in
            expectAuthFailure(error) { $0 == .refreshLoopDetected(refreshes: 3, window: .seconds(60)) }
        }
        // Sticky: even a call that would not need a refresh fails until reset.
        await #expect(throws: CourierError.self) { _ = try await refresher.validCredential() }
        #expect(mint.count.value == 3)
        try await refresher.reset(to: clock.credential("reset", expiresIn: 3600))
        #expect(try await refresher.validCredential().accessToken == "reset")
    }

    @Test("refreshes spread beyond the window do not trip the loop guard")
    func loopGuardForgetsOldRefreshes() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let policy = TokenRefresher.Policy(maximumRefreshes: 2, refreshWindow: .seconds(60))
        let refresher = makeRefresher(CountingStore(), clock: clock, mint: mint, policy: policy)
        for _ in 0..<10 {
            _ = try await refresher.forceRefresh()
            clock.advance(by: 31)
        }
        #expect(mint.count.value == 10)
    }

    @Test("a 401 to the current credential refreshes; a 401 to an older one just gets the current one")
    func replacementForRejectedCredential() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let refresher = makeRefresher(CountingStore(clock.credential("current", expiresIn: 3600)), clock: clock, mint: mint)
        let current = try await refresher.validCredential()
        let stale = TokenCredential(accessToken: "older")
        #expect(try await refresher.replacement(forRejected: stale)?.accessToken == "current")
        #expect(mint.count.value == 0)
        #expect(try await refresher.replacement(forRejected: current)?.accessToken == "at-1")
        #expect(mint.count.value == 1)
    }

    @Test("signing out fails waiters and later calls with missingCredential and empties the store")
    func signOut() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = CountingStore(clock.credential("old", expiresIn: -1))
        let gate = Gate()
        let refresher = makeRefresher(store, clock: clock, mint: mint, gate: gate)
        let waiter = Task { try await refresher.validCredential() }
        while await !refresher.isRefreshInFlight { await Task.yield() }  // the waiter has joined the refresh
        try await refresher.signOut()
        await #expect { _ = try await waiter.value } throws: { error in expectAuthFailure(error) { $0 == .missingCredential } }
        await gate.open()
        await #expect { _ = try await refresher.validCredential() } throws: { error in expectAuthFailure(error) { $0 == .missingCredential } }
        #expect(await store.stored == nil)
    }

    @Test("the event stream reports refreshes, failures, resets and sign-outs in order")
    func events() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let failing = Locked(false)
        let rejected = RefreshFailure(reason: .rejected, statusCode: 401, isPermanent: true)
        let refresher = makeRefresher(
            CountingStore(clock.credential("old", expiresIn: -1)), clock: clock, mint: mint,
            failure: { failing.value ? rejected : nil })
        let stream = await refresher.events()
        _ = try await refresher.validCredential()
        failing.withValue { $0 = true }
        _ = try? await refresher.forceRefresh()
        try await refresher.reset(to: clock.credential("again", expiresIn: 3600))
        try await refresher.signOut()

        var received: [AuthEvent] = []
        for await event in stream {
            received.append(event)
            if received.count == 4 { break }
        }
        guard case .refreshed(let credential) = received.first else {
            Issue.record("expected .refreshed first, got \(received)")
            return
        }
        #expect(credential.accessToken == "at-1")
        #expect(Array(received.dropFirst()) == [.refreshFailed(rejected), .credentialReset, .signedOut])
    }

    @Test("concurrent first callers load the store once; a failing load is a typed error and is retried")
    func storeLoading() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = CountingStore(clock.credential("stored", expiresIn: 3600))
        await store.configure(failLoads: true)
        let refresher = makeRefresher(store, clock: clock, mint: mint)
        await #expect { _ = try await refresher.validCredential() } throws: { error in
            expectAuthFailure(error) { if case .storeFailed(let cause) = $0 { cause is CountingStore.Failure } else { false } }
        }
        await store.configure(failLoads: false)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<1_000 { group.addTask { try await refresher.validCredential().accessToken } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens == ["stored"])
        #expect(await store.loads == 2)
    }

    @Test("a credential that cannot be saved is still used, and the failure is reported as an event")
    func saveFailureKeepsTheNewCredential() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = CountingStore(clock.credential("old", expiresIn: -1))
        await store.configure(failSaves: true)
        let refresher = makeRefresher(store, clock: clock, mint: mint)
        let stream = await refresher.events()
        #expect(try await refresher.validCredential().accessToken == "at-1")
        var iterator = stream.makeAsyncIterator()
        let event = await iterator.next()
        #expect(event == .storeFailed(CountingStore.Failure()))
        guard case .storeFailed(let error)? = event else { return }
        #expect(error is CountingStore.Failure, "the store's own error, not its description")
        #expect(try await refresher.validCredential().accessToken == "at-1")
        #expect(mint.count.value == 1)
    }

    @Test("no credential at all: a refresh-token refresher cannot help, a custom closure is asked")
    func missingCredential() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let custom = makeRefresher(CountingStore(), clock: clock, mint: mint)
        #expect(try await custom.validCredential().accessToken == "at-1")
    }

    @Test(
        "the backoff table doubles from the initial wait up to the cap",
        arguments: [
            (1, 1.0), (2, 2), (3, 4), (4, 8), (5, 16), (6, 32), (7, 60), (50, 60), (1000, 60),
        ])
    func backoffTable(failures: Int, seconds: Double) {
        let schedule = RefreshSchedule(policy: .init(initialBackoff: .seconds(1), maximumBackoff: .seconds(60)))
        #expect(schedule.backoff(afterFailures: failures) == .seconds(seconds))
    }
}
