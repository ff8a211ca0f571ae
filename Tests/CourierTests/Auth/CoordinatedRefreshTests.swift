import CourierTesting
import Foundation
import Testing

@testable import Courier

/// A store shared by several refreshers (as a token file is by several processes), with an
/// exclusive section like `FileTokenStore.withExclusiveAccess`: an async lock, no threads blocked.
actor SharedLockingStore: CoordinatedTokenStore {
    private(set) var stored: TokenCredential?
    private(set) var saves = 0
    private(set) var sections = 0
    private var locked = false
    private var queue: [CheckedContinuation<Void, Never>] = []

    init(_ credential: TokenCredential?) { stored = credential }

    func load() -> TokenCredential? { stored }
    func save(_ credential: TokenCredential) { saves += 1; stored = credential }
    func remove() { stored = nil }

    func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if locked {
            await withCheckedContinuation { queue.append($0) }
        } else {
            locked = true
        }
        sections += 1
        defer {
            if queue.isEmpty { locked = false } else { queue.removeFirst().resume() }  // hand over
        }
        return try await body()
    }
}

@Suite("TokenRefresher with a CoordinatedTokenStore: one refresh per expiry across refreshers sharing a store", .heavy)
struct CoordinatedRefreshTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func credential(_ token: String, expiresIn: TimeInterval, issuedAgo: TimeInterval = 60) -> TokenCredential {
        TokenCredential(
            accessToken: token, refreshToken: "rt-\(token)", expiresAt: now.addingTimeInterval(expiresIn),
            issuedAt: now.addingTimeInterval(-issuedAgo))
    }

    @Test(
        "what a refresher does with the credential it re-read under the lock",
        arguments: [
            // (stored, current, expected)
            ("none", "mine", "refresh mine"),
            ("mine", "mine", "refresh mine"),
            ("newer-valid", "mine", "adopt newer-valid"),
            ("newer-expiring", "mine", "refresh newer-expiring"),
            ("older-valid", "mine", "refresh mine"),
            ("newer-valid", "none", "adopt newer-valid"),
        ])
    func decisionTable(stored: String, current: String, expected: String) {
        let credentials: [String: TokenCredential] = [
            "mine": Self.credential("mine", expiresIn: -1, issuedAgo: 3600),
            "newer-valid": Self.credential("newer-valid", expiresIn: 3600, issuedAgo: 10),
            "newer-expiring": Self.credential("newer-expiring", expiresIn: 5, issuedAgo: 1800),
            "older-valid": Self.credential("older-valid", expiresIn: 3600, issuedAgo: 7200),
        ]
        let decision = RefreshCoordination.decide(
            stored: credentials[stored], current: credentials[current],
            now: Self.now, leeway: .seconds(30))
        let described =
            switch decision {
            case .adopt(let credential): "adopt \(credential.accessToken)"
            case .refresh(let credential): "refresh \(credential?.accessToken ?? "none")"
            }
        #expect(described == expected)
    }

    @Test("200 trials: two refreshers on one store, both holding the same expired token, 50 callers each: one refresh, one token")
    func twoRefreshersShareOneRefresh() async throws {
        for trial in 0..<200 {
            let clock = WallClock()
            let store = SharedLockingStore(clock.credential("old", expiresIn: -1))
            let mint = TokenMint(clock: clock)
            let seen = Locked<[String?]>([])
            let makeRefresher = {
                TokenRefresher(store: store, now: clock.closure) { current in
                    seen.withValue { $0.append(current?.refreshToken) }
                    return mint.next()
                }
            }
            let first = makeRefresher(), second = makeRefresher()
            // Both have loaded the old token before either refreshes, as two processes would.
            _ = try await first.currentCredential()
            _ = try await second.currentCredential()

            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<100 {
                    let refresher = index.isMultiple(of: 2) ? first : second
                    group.addTask { try await refresher.validCredential().accessToken }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens == ["at-1"], "trial \(trial)")
            #expect(mint.count.value == 1, "trial \(trial)")
            #expect(seen.value == ["rt-old"], "trial \(trial)")
            #expect(await store.stored?.accessToken == "at-1")
            #expect(await store.saves == 1)
        }
    }

    @Test("a refresher whose token another one rotated and let expire renews with the rotated refresh token, never its spent one")
    func renewsWithTheRotatedRefreshToken() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock, lifetime: 600)
        let store = SharedLockingStore(clock.credential("old", expiresIn: -1))
        let used = Locked<[String?]>([])
        let makeRefresher = {
            TokenRefresher(store: store, now: clock.closure) { current in
                used.withValue { $0.append(current?.refreshToken) }
                return mint.next()
            }
        }
        let first = makeRefresher(), second = makeRefresher()
        _ = try await second.currentCredential()  // second holds "old"
        #expect(try await first.validCredential().accessToken == "at-1")  // first rotates: rt-old → rt-1
        clock.advance(by: 3600)  // at-1 expires too
        #expect(try await second.validCredential().accessToken == "at-2")
        #expect(used.value == ["rt-old", "rt-1"])  // never rt-old twice
    }

    @Test("sign-out during a coordinated refresh cancels it at the token endpoint; nothing is saved, the store ends empty")
    func signOutCancelsCoordinatedRefresh() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = SharedLockingStore(clock.credential("old", expiresIn: -1))
        let atEndpoint = Gate(), answer = Gate()
        let sawCancellation = Locked(false)
        let refresher = TokenRefresher(store: store, now: clock.closure) { _ in
            await atEndpoint.open()
            await answer.wait()
            sawCancellation.withValue { $0 = Task.isCancelled }
            return mint.next()
        }
        let caller = Task { try await refresher.validCredential() }
        await atEndpoint.wait()  // inside the lock, at the token endpoint
        let signOut = Task { try await refresher.signOut() }
        while await refresher.isRefreshInFlight { await Task.yield() }  // the sign-out is decided
        await answer.open()
        try await signOut.value  // its removal runs after the refresh's section
        #expect(sawCancellation.value)
        await #expect { _ = try await caller.value } throws: { expectAuthFailure($0) { $0 == .missingCredential } }
        #expect(await store.saves == 0)
        #expect(await store.stored == nil)
    }

    @Test("resets and sign-outs take the lock too, so another refresher's refresh cannot write over them")
    func writesTakeTheLock() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let store = SharedLockingStore(clock.credential("old", expiresIn: 3600))
        let refresher = TokenRefresher(store: store, now: clock.closure) { _ in mint.next() }
        try await refresher.reset(to: clock.credential("new", expiresIn: 3600))
        try await refresher.signOut()
        #expect(await store.sections == 2)
        #expect(await store.stored == nil)
    }
}
