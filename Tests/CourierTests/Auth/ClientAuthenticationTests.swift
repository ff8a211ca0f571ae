import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import Courier

@Suite("Client authentication: Basic, Bearer, host scoping, 401 replay", .heavy)
struct ClientAuthenticationTests {
    func client(_ transport: any Transport, _ authentication: Authentication, hosts: Set<String> = ["api.example.com"]) -> Client {
        Client(configuration: Configuration(transport: transport, authentication: authentication, authorizedHosts: hosts))
    }

    @Test(
        "Basic encodes username:password as UTF-8, then base64",
        arguments: [
            ("alice", "secret", "Basic YWxpY2U6c2VjcmV0"),
            ("zoë", "pä ss:wörd", "Basic em/Dqzpww6Qgc3M6d8O2cmQ="),
            ("", "", "Basic Og=="),
        ])
    func basicHeader(username: String, password: String, expected: String) async throws {
        let api = BearerAPI()
        _ = try await client(api, .basic(BasicCredential(username: username, password: password))).enqueue(APIEndpoint()).resume()
        #expect(await api.authorizations == [expected])
        #expect(Data(base64Encoded: String(expected.dropFirst(6))) == Data("\(username):\(password)".utf8))
    }

    @Test(
        "a Basic username with ':' or a credential with CR/LF is refused and nothing is sent",
        arguments: [
            ("ali:ce", "pw"), ("alice", "pw\r\nX-Evil: 1"),
        ])
    func basicInvalidCredential(username: String, password: String) async {
        let api = BearerAPI()
        await #expect { _ = try await client(api, .basic(BasicCredential(username: username, password: password))).enqueue(APIEndpoint()).resume() } throws: {
            error in
            expectAuthFailure(error) { if case .invalidCredential = $0 { true } else { false } } && !String(describing: error).contains("pw")
        }
        #expect(await api.requests.isEmpty)
    }

    @Test("credentials are attached only for authorized hosts, compared case-insensitively")
    func hostScoping() async throws {
        let api = BearerAPI()
        let basic = Authentication.basic(BasicCredential(username: "a", password: "b"))
        _ = try await client(api, basic, hosts: ["API.Example.com"]).enqueue(APIEndpoint()).resume()
        await #expect { _ = try await client(api, basic).enqueue(APIEndpoint(host: "cdn.example.com")).resume() } throws: { error in
            expectAuthFailure(error) { $0 == .hostNotAuthorized(host: "cdn.example.com") }
        }
        await #expect(throws: CourierError.self) { _ = try await client(api, basic, hosts: []).enqueue(APIEndpoint()).resume() }
        #expect(await api.requests.count == 1)
    }

    @Test("an endpoint that does not require authorization gets no credential, whatever its host")
    func noAuthorizationRequired() async throws {
        let api = BearerAPI()
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let refresher = TokenRefresher(store: CountingStore(), now: clock.closure) { _ in mint.next() }
        _ = try await client(api, .bearer(refresher)).enqueue(APIEndpoint(host: "public.example.org", requiresAuthorization: false)).resume()
        _ = try await client(api, .basic(BasicCredential(username: "a", password: "b"))).enqueue(APIEndpoint(requiresAuthorization: false)).resume()
        #expect(await api.authorizations == [nil, nil])
        #expect(mint.count.value == 0)
    }

    @Test("Bearer signs with the refresher's token, normalising the token type's case")
    func bearerHeader() async throws {
        let api = BearerAPI()
        let store = CountingStore(TokenCredential(accessToken: "at-0", tokenType: "bearer"))
        let refresher = TokenRefresher(store: store) { _ in TokenCredential(accessToken: "never") }
        _ = try await client(api, .bearer(refresher)).enqueue(APIEndpoint()).resume()
        #expect(await api.authorizations == ["Bearer at-0"])
    }

    @Test(
        "a 401 to the current token refreshes once and replays the request exactly once, with or without a challenge",
        arguments: [true, false])
    func replayOnceAfter401(challenges: Bool) async throws {
        let api = BearerAPI(challenges: challenges, valid: { $0 != "Bearer at-0" })
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let refresher = TokenRefresher(store: CountingStore(clock.credential("at-0", expiresIn: 3600)), now: clock.closure) { _ in mint.next() }
        let response = try await client(api, .bearer(refresher)).enqueue(APIEndpoint()).resume()
        #expect(response.statusCode == 200)
        #expect(await api.authorizations == ["Bearer at-0", "Bearer at-1"])
        #expect(mint.count.value == 1)
    }

    @Test("a 401 after the replay is returned as the response error; no second replay")
    func secondRejectionIsReturned() async {
        let api = BearerAPI(valid: { _ in false })
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let refresher = TokenRefresher(store: CountingStore(clock.credential("at-0", expiresIn: 3600)), now: clock.closure) { _ in mint.next() }
        await #expect { _ = try await client(api, .bearer(refresher)).enqueue(APIEndpoint()).resume() } throws: { error in
            guard case .response(let response) = error as? CourierError else { return false }
            return response.statusCode == 401
        }
        #expect(await api.requests.count == 2)
        #expect(mint.count.value == 1)
    }

    @Test("a 401 to a token older than the current one replays with the current one, without refreshing")
    func staleCredentialReplaysWithoutRefreshing() async throws {
        let api = BearerAPI(valid: { $0 != "Bearer at-0" })
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let refresher = TokenRefresher(store: CountingStore(clock.credential("at-0", expiresIn: 3600)), now: clock.closure) { _ in mint.next() }
        let hold = Gate(), arrived = Gate()
        await api.hold(until: hold, signalling: arrived)
        let call = Task { try await client(api, .bearer(refresher)).enqueue(APIEndpoint()).resume() }
        await arrived.wait()  // the request signed with at-0 is on the wire
        _ = try await refresher.forceRefresh()  // meanwhile another call refreshed: at-1
        await hold.open()  // now the server answers 401 to at-0
        #expect(try await call.value.statusCode == 200)
        #expect(await api.authorizations == ["Bearer at-0", "Bearer at-1"])
        #expect(mint.count.value == 1)
    }

    @Test("after a permanent refresh failure, calls that need authorization fail at once; others keep working")
    func permanentFailureSparesPublicEndpoints() async throws {
        let api = BearerAPI()
        let clock = WallClock()
        let refreshes = Locked(0)
        let rejected = RefreshFailure(reason: .rejected, oauth2Error: OAuth2Error(code: "invalid_grant"), statusCode: 400, isPermanent: true)
        let refresher = TokenRefresher(store: CountingStore(clock.credential("at-0", expiresIn: -5)), now: clock.closure) { _ in
            refreshes.withValue { $0 += 1 }
            throw rejected
        }
        let client = client(api, .bearer(refresher))
        for _ in 0..<3 {
            await #expect { _ = try await client.enqueue(APIEndpoint()).resume() } throws: { error in
                expectAuthFailure(error) { $0 == .refreshFailed(rejected) }
            }
        }
        #expect(try await client.enqueue(APIEndpoint(requiresAuthorization: false)).resume().statusCode == 200)
        #expect(refreshes.value == 1)
        #expect(await api.requests.count == 1)
    }

    @Test("10,000 concurrent calls with an expired token: exactly one token request per expiry over 20 rounds, all succeed")
    func tenThousandConcurrentCallsShareOneRefreshPerRound() async throws {
        let api = BearerAPI()
        let clock = WallClock()
        let (tokenEndpoint, tokenRequests) = try countingTokenEndpoint(clock: clock)
        let refresher = TokenRefresher(
            store: CountingStore(clock.credential("at-0", expiresIn: -1)), tokenEndpoint: tokenEndpoint,
            now: clock.closure)
        let client = client(api, .bearer(refresher))
        for round in 1...20 {
            let successes = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10_000 {
                    group.addTask { try await client.enqueue(APIEndpoint()).resume().statusCode == 200 ? 1 : 0 }
                }
                return try await group.reduce(0, +)
            }
            #expect(successes == 10_000)
            #expect(tokenRequests.value == round)
            #expect(await api.authorizations.last == "Bearer at-\(round)")
            clock.advance(by: 7200)  // expire the token for the next round
        }
        #expect(await api.requests.count == 200_000)
    }
}
