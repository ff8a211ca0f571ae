import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Every call asks the refresher actor for its credential (one model for the refresher's state,
/// no lock-protected copy beside it): with a valid token, thousands of concurrent calls carry it
/// and none of them refreshes or reads the store again.
@Suite("Calls with a valid token", .heavy)
struct RefresherValidTokenTests {
    private func refresher(_ store: CountingStore, clock: WallClock, refresh: @escaping @Sendable () async throws -> TokenCredential)
        -> TokenRefresher
    {
        TokenRefresher(store: store, now: clock.closure) { _ in try await refresh() }
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
