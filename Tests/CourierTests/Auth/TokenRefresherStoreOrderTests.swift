import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Issue 9, defect 2: whatever the interleaving, the store ends up holding what the refresher
/// decided last. Each test holds one store operation open (a "300 ms save" without a sleep),
/// makes the competing decision, waits for the refresher to have made it (its event), and only
/// then lets the held operation finish.
@Suite("TokenRefresher: store operations land in the order they were decided", .heavy)
struct TokenRefresherStoreOrderTests {
    func makeRefresher(
        _ store: HoldingStore, clock: WallClock, mint: TokenMint, gate: Gate? = nil,
        cancelled: Locked<Bool>? = nil
    ) -> TokenRefresher {
        TokenRefresher(store: store, now: clock.closure) { _ in
            if let gate {
                await gate.wait()
                cancelled?.withValue { $0 = Task.isCancelled }
            }
            return mint.next()
        }
    }

    @Test("sign-out while a refresh's save is still being written: the store ends empty and a new refresher loads nothing")
    func signOutAfterRefreshSaveStarted() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = HoldingStore(clock.credential("old", expiresIn: -1))
        let save = await store.holdNext(.save)
        let refresher = makeRefresher(store, clock: clock, mint: mint)
        var events = await refresher.events().makeAsyncIterator()

        let caller = Task { try await refresher.validCredential() }
        await save.entered.wait()  // the refresh has its token and is writing it
        let signOut = Task { try await refresher.signOut() }
        await awaitEvent(.signedOut, in: &events)  // the sign-out is decided
        await save.release()  // only now does the slow save finish
        try await signOut.value

        await #expect { _ = try await caller.value } throws: { expectAuthFailure($0) { $0 == .missingCredential } }
        #expect(await store.stored == nil)
        #expect(await store.effects == [.load("old"), .save("at-1"), .remove])
        let next = TokenRefresher(store: store) { _ in TokenCredential(accessToken: "unused") }
        #expect(try await next.currentCredential() == nil)
    }

    @Test("reset while a refresh's save is still being written: the reset credential is what stays stored")
    func resetAfterRefreshSaveStarted() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = HoldingStore(clock.credential("old", expiresIn: -1))
        let save = await store.holdNext(.save)
        let refresher = makeRefresher(store, clock: clock, mint: mint)
        var events = await refresher.events().makeAsyncIterator()

        let caller = Task { try await refresher.validCredential().accessToken }
        await save.entered.wait()
        let reset = Task { try await refresher.reset(to: clock.credential("signed-in", expiresIn: 3600)) }
        await awaitEvent(.credentialReset, in: &events)
        await save.release()
        try await reset.value

        #expect(try await caller.value == "signed-in")  // the waiter got the reset credential
        #expect(await store.stored?.accessToken == "signed-in")
        #expect(await store.effects == [.load("old"), .save("at-1"), .save("signed-in")])
        #expect(try await refresher.validCredential().accessToken == "signed-in")
        #expect(mint.count.value == 1)
    }

    @Test("reset then reset while the first save is still being written: the second one stays stored")
    func resetThenReset() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = HoldingStore(clock.credential("old", expiresIn: 3600))
        let firstSave = await store.holdNext(.save)
        let refresher = makeRefresher(store, clock: clock, mint: mint)
        var events = await refresher.events().makeAsyncIterator()

        let first = Task { try await refresher.reset(to: clock.credential("alice", expiresIn: 3600)) }
        await firstSave.entered.wait()
        let second = Task { try await refresher.reset(to: clock.credential("bob", expiresIn: 3600)) }
        await awaitEvent(.credentialReset, count: 2, in: &events)
        await firstSave.release()
        try await first.value
        try await second.value

        #expect(await store.stored?.accessToken == "bob")
        #expect(await store.effects == [.save("alice"), .save("bob")])
        #expect(try await refresher.currentCredential()?.accessToken == "bob")
    }

    @Test("reset while a sign-out's removal is still running: the reset credential stays stored")
    func signOutThenReset() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = HoldingStore(clock.credential("old", expiresIn: 3600))
        let remove = await store.holdNext(.remove)
        let refresher = makeRefresher(store, clock: clock, mint: mint)
        var events = await refresher.events().makeAsyncIterator()

        let signOut = Task { try await refresher.signOut() }
        await remove.entered.wait()
        let reset = Task { try await refresher.reset(to: clock.credential("back", expiresIn: 3600)) }
        await awaitEvent(.credentialReset, in: &events)
        await remove.release()
        try await signOut.value
        try await reset.value

        #expect(await store.stored?.accessToken == "back")
        #expect(await store.effects == [.remove, .save("back")])
    }

    @Test("a refresh's save, a sign-out and a reset decided in that order land in that order")
    func saveThenSignOutThenReset() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = HoldingStore(clock.credential("old", expiresIn: -1))
        let save = await store.holdNext(.save)
        let refresher = makeRefresher(store, clock: clock, mint: mint)
        var events = await refresher.events().makeAsyncIterator()

        let caller = Task { try await refresher.validCredential() }
        await save.entered.wait()
        let signOut = Task { try await refresher.signOut() }
        await awaitEvent(.signedOut, in: &events)
        let reset = Task { try await refresher.reset(to: clock.credential("again", expiresIn: 3600)) }
        await awaitEvent(.credentialReset, in: &events)
        await save.release()
        try await signOut.value
        try await reset.value
        _ = try? await caller.value

        #expect(await store.effects == [.load("old"), .save("at-1"), .remove, .save("again")])
        #expect(await store.stored?.accessToken == "again")
    }

    @Test("sign-out while the refresh is at the token endpoint: the refresh is cancelled and its result never saved")
    func signOutDuringNetworkRefresh() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = HoldingStore(clock.credential("old", expiresIn: -1))
        let atEndpoint = Gate(), answer = Gate(), answered = Gate()
        let sawCancellation = Locked(false)
        let refresher = TokenRefresher(store: store, now: clock.closure) { _ in
            await atEndpoint.open()
            await answer.wait()
            sawCancellation.withValue { $0 = Task.isCancelled }
            defer { Task { await answered.open() } }
            return mint.next()
        }

        let caller = Task { try await refresher.validCredential() }
        await atEndpoint.wait()
        try await refresher.signOut()
        await #expect { _ = try await caller.value } throws: { expectAuthFailure($0) { $0 == .missingCredential } }
        await answer.open()
        await answered.wait()
        // One more decision, so the history below has something after the sign-out:
        try await refresher.reset(to: clock.credential("fresh-start", expiresIn: 3600))

        #expect(sawCancellation.value)
        #expect(await store.effects == [.load("old"), .remove, .save("fresh-start")])
        #expect(await store.stored?.accessToken == "fresh-start")
    }

    @Test("sign-out while the first load is still reading: the caller fails, the late load is ignored, the store ends empty")
    func signOutDuringLoad() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = HoldingStore(clock.credential("stored", expiresIn: 3600))
        let load = await store.holdNext(.load)
        let refresher = makeRefresher(store, clock: clock, mint: mint)
        var events = await refresher.events().makeAsyncIterator()

        let caller = Task { try await refresher.validCredential() }
        await load.entered.wait()
        let signOut = Task { try await refresher.signOut() }
        await awaitEvent(.signedOut, in: &events)
        await load.release()
        try await signOut.value

        await #expect { _ = try await caller.value } throws: { expectAuthFailure($0) { $0 == .missingCredential } }
        #expect(try await refresher.currentCredential() == nil)
        #expect(await store.effects == [.load("stored"), .remove])
        #expect(mint.count.value == 0)
    }

    @Test("reset while the first load is still reading: the late load never overwrites the reset credential")
    func resetDuringLoad() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = HoldingStore(clock.credential("stale", expiresIn: 3600))
        let load = await store.holdNext(.load)
        let refresher = makeRefresher(store, clock: clock, mint: mint)
        var events = await refresher.events().makeAsyncIterator()

        let callers = (0..<20).map { _ in Task { try await refresher.validCredential().accessToken } }
        await load.entered.wait()
        let reset = Task { try await refresher.reset(to: clock.credential("new", expiresIn: 3600)) }
        await awaitEvent(.credentialReset, in: &events)
        await load.release()
        try await reset.value

        for caller in callers { #expect(try await caller.value == "new") }
        #expect(try await refresher.currentCredential()?.accessToken == "new")
        #expect(await store.stored?.accessToken == "new")
    }

    @Test("300 trials x 12 first callers against a store that fails every other load: no call fails for want of a credential, no refresh with nil")
    func firstLoadRace() async throws {
        let trials = 300, callers = 12
        var succeeded = 0, storeFailures = 0, wrongFailures = 0, refreshes = 0, refreshesWithNil = 0
        for _ in 0..<trials {
            let clock = WallClock()
            let store = HoldingStore(clock.credential("stored", expiresIn: 3600))
            await store.failLoads(Set(stride(from: 1, through: 2 * callers, by: 2)))  // loads 1, 3, 5, … fail
            let calls = Locked((all: 0, withNil: 0))
            let refresher = TokenRefresher(store: store, now: clock.closure) { current in
                calls.withValue {
                    $0.all += 1; if current == nil { $0.withNil += 1 }
                }
                return TokenCredential(accessToken: "refreshed")
            }
            let outcomes = await withTaskGroup(of: Result<String, CourierError>.self) { group in
                for _ in 0..<callers {
                    group.addTask {
                        do throws(CourierError) {
                            return .success(try await refresher.validCredential().accessToken)
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for outcome in outcomes {
                switch outcome {
                case .success(let token) where token == "stored": succeeded += 1
                case .failure(.authentication(.storeFailed)): storeFailures += 1
                default: wrongFailures += 1
                }
            }
            refreshes += calls.value.all
            refreshesWithNil += calls.value.withNil
        }
        #expect(wrongFailures == 0)
        #expect(refreshes == 0)
        #expect(refreshesWithNil == 0)
        #expect(succeeded + storeFailures == trials * callers)
        #expect(storeFailures > 0)  // the failing loads were really exercised
    }
}
