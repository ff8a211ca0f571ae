import CourierTesting
import Foundation
import Testing

@testable import Courier

/// `TokenRefresher.credentialIfValidNow()`: the lock-protected snapshot calls read instead of
/// taking a turn on the refresher actor. It may offer a credential only when
/// `validCredential()` would return that same credential without waiting.
@Suite("The refresher's fast path offers only what validCredential would return at once", .heavy)
struct RefresherFastPathTests {
    private func refresher(_ store: CountingStore, clock: WallClock, refresh: @escaping @Sendable () async throws -> TokenCredential)
        -> TokenRefresher
    {
        TokenRefresher(store: store, now: clock.closure) { _ in try await refresh() }
    }

    @Test("nothing before the store was read; the credential once it was; nothing once it is about to expire")
    func loadAndExpiry() async throws {
        let clock = WallClock()
        let store = CountingStore(clock.credential("stored", expiresIn: 3600))
        let mint = TokenMint(clock: clock)
        let refresher = refresher(store, clock: clock) { mint.next() }
        #expect(refresher.credentialIfValidNow() == nil, "the store has not been read")
        #expect(try await refresher.validCredential().accessToken == "stored")
        #expect(refresher.credentialIfValidNow()?.accessToken == "stored")
        clock.advance(by: 3600 - 10)  // inside the leeway
        #expect(refresher.credentialIfValidNow() == nil)
        #expect(try await refresher.validCredential().accessToken == "at-1", "the refresh hands out a fresh token")
        #expect(refresher.credentialIfValidNow()?.accessToken == "at-1")
    }

    @Test("nothing while a refresh runs, after a permanent failure, or after a sign-out; the new credential after a reset")
    func phases() async throws {
        let clock = WallClock()
        let store = CountingStore(clock.credential("old", expiresIn: 3600))
        let entered = Gate()
        let release = Gate()
        let refresher = refresher(store, clock: clock) {
            await entered.open()
            await release.wait()
            throw RefreshFailure(reason: .custom("revoked"), isPermanent: true)
        }
        _ = try await refresher.validCredential()
        let refreshing = Task { try await refresher.forceRefresh() }
        await entered.wait()
        #expect(refresher.credentialIfValidNow() == nil, "a refresh is running")
        await release.open()
        _ = await refreshing.result
        #expect(refresher.credentialIfValidNow() == nil, "the refresh failed permanently")

        try await refresher.reset(to: clock.credential("new", expiresIn: 3600))
        #expect(refresher.credentialIfValidNow()?.accessToken == "new")
        try await refresher.signOut()
        #expect(refresher.credentialIfValidNow() == nil)
    }

    @Test("10,000 concurrent calls with a valid token all carry it, and none refreshes")
    func manyCallsWithAValidToken() async throws {
        let clock = WallClock()
        let mint = TokenMint(clock: clock)
        let store = CountingStore(clock.credential("at-valid", expiresIn: 3600))
        let refresher = refresher(store, clock: clock) { mint.next() }
        let api = BearerAPI()
        var configuration = Configuration(transport: api)
        configuration.authentication = .bearer(refresher)
        configuration.authorizedHosts = ["api.example.com"]
        let client = Client(configuration: configuration)
        let signed = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<10_000 {
                group.addTask { try? await client.enqueue(APIEndpoint()).resume().body.utf8String }
            }
            var tokens: [String: Int] = [:]
            for await token in group { tokens[token ?? "failed", default: 0] += 1 }
            return tokens
        }
        #expect(signed == ["Bearer at-valid": 10_000])
        #expect(mint.count.value == 0)
        #expect(await store.loads == 1)
    }
}

private extension Data {
    var utf8String: String { String(decoding: self, as: UTF8.self) }
}
