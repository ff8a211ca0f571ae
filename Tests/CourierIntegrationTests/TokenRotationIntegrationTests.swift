import CourierTesting
import FlyingFox
import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Courier's `Client` + the platform's default transport + `TokenRefresher` + `OAuth2TokenEndpoint` against a
/// real FlyingFox server on `127.0.0.1` that is both the API and an OAuth2 authorization server
/// issuing **single-use rotating** refresh tokens, the kind that punishes a client which refreshes
/// twice: a refresh token may be spent once; a second use answers `400 {"error":"invalid_grant"}`
/// and revokes the whole token family (its later refreshes fail and its access tokens stop working).
///
/// The refresher and the token endpoint share an injected wall clock: "expiry" is the test moving
/// that clock past the token's lifetime, never a sleep. Whatever the server observes (token
/// requests, `invalid_grant`s, which token each API request carried) is counted server-side.
@Suite("Token refresh against a rotating-refresh-token server", .heavy, .timeLimit(.minutes(6)))
struct TokenRotationIntegrationTests {
    // MARK: - a) coalescing under load, round after round

    @Test(
        "1,000 concurrent calls per round over 20 forced expiries: exactly 20 token requests, 0 invalid_grant, all 20,000 calls succeed",
        .timeLimit(.minutes(6))
    )
    func everyExpiryRoundSharesExactlyOneRotatingRefresh() async throws {
        // The clock moves 3,700 s per round: past the 3,600 s lifetime, and past the 60 s window
        // of the loop guard, so 20 legitimate refreshes never look like a loop.
        let policy = TokenRefresher.Policy(leeway: .seconds(30), maximumRefreshes: 10, refreshWindow: .seconds(60))
        try await Fixture.run(policy: policy) { fixture in
            let rounds = 20
            let callsPerRound = 1_000
            var succeeded = 0
            for round in 1...rounds {
                fixture.clock.advance(by: Self.pastExpiry)
                let results = await fixture.burst(callsPerRound) { _ in fixture.me() }
                succeeded += results.filter { (try? $0.get())?.statusCode == 200 }.count
                let failures = results.compactMap { result -> CourierError? in
                    if case .failure(let error) = result { return error }
                    return nil
                }
                #expect(failures.isEmpty, "round \(round): \(failures.count) calls failed, e.g. \(failures.prefix(3))")
                #expect(await fixture.auth.stats.tokenRequests == round, "round \(round) must add exactly one token request")
            }

            let stats = await fixture.auth.stats
            #expect(succeeded == rounds * callsPerRound)
            #expect(stats.tokenRequests == rounds)
            #expect(stats.refreshesIssued == rounds)
            #expect(stats.invalidGrants == 0)
            #expect(stats.familiesRevoked == 0)
            #expect(stats.apiAccepted == rounds * callsPerRound)
            #expect(stats.apiRejected == 0, "no call may carry a spent access token")
            #expect(stats.protocolViolations.isEmpty, "\(stats.protocolViolations)")
            // Each round's 1,000 calls all carried that round's freshly rotated access token.
            let perToken = await fixture.auth.acceptedCallsByAccessToken
            #expect(perToken.count == rounds)
            #expect(perToken.values.allSatisfy { $0 == callsPerRound }, "\(perToken.values.sorted())")
            // The refresher holds the newest pair, which the server still honours.
            let held = try await fixture.refresher.currentCredential()
            #expect(held?.refreshToken != nil)
            #expect(await fixture.auth.isLive(refreshToken: held?.refreshToken ?? ""))
        }
    }

    // MARK: - b) a 401 to the current token

    @Test(
        "a server-revoked but unexpired access token: 200 concurrent calls get 401, share exactly one refresh, and each is replayed once and succeeds",
        .timeLimit(.minutes(6))
    )
    func aRevokedAccessTokenIsRefreshedOnceAndEveryCallReplayedOnce() async throws {
        let callCount = 200
        // Every call must be able to hold a connection while the server gathers the 401s.
        try await Fixture.run(connectionsPerHost: callCount + 16) { fixture in
            let warmUp = await fixture.client.enqueue(fixture.me(callID: -1)).result()
            #expect((try? warmUp.get())?.statusCode == 200)
            let revoked = try #require(try await fixture.refresher.currentCredential()).accessToken

            // Server-side switch: the token is dead though its expiry is an hour away. The server
            // holds its 401s until all 200 calls have arrived with it, so every call provably
            // signed with the revoked token before any refresh could start.
            await fixture.auth.revoke(accessToken: revoked)
            await fixture.auth.holdRejections(until: callCount)

            let results = await fixture.burst(callCount) { fixture.me(callID: $0) }

            let failures = results.compactMap { result -> CourierError? in
                if case .failure(let error) = result { return error }
                return nil
            }
            #expect(failures.isEmpty, "\(failures.count) calls failed, e.g. \(failures.prefix(3))")
            let stats = await fixture.auth.stats
            #expect(stats.rejectionHoldReached, "the 200 calls never all arrived with the revoked token")
            #expect(stats.tokenRequests == 1, "one coalesced refresh for all 200 401s")
            #expect(stats.invalidGrants == 0)
            #expect(stats.apiRejected == callCount)
            #expect(stats.protocolViolations.isEmpty, "\(stats.protocolViolations)")

            let fresh = try #require(try await fixture.refresher.currentCredential()).accessToken
            #expect(fresh != revoked)
            let log = await fixture.auth.apiLog
            for id in 0..<callCount {
                let hits = log.filter { $0.callID == String(id) }
                // Exactly two requests per call: the original (401) and one replay (200) with the new token.
                #expect(hits.map(\.status) == [401, 200], "call \(id): \(hits.map(\.status))")
                #expect(hits.map(\.accessToken) == [revoked, fresh], "call \(id) was not replayed with the refreshed token")
            }
        }
    }

    // MARK: - c) permanent failure

    @Test(
        "invalid_grant is permanent: 1,000 waiting calls fail with it, 100 later calls fail with no token request, unauthenticated calls still work, reset recovers",
        .timeLimit(.minutes(6))
    )
    func invalidGrantFailsEveryCallUntilReset() async throws {
        try await Fixture.run { fixture in
            let events = await fixture.refresher.events()
            let signedIn = try #require(try await fixture.refresher.currentCredential())
            fixture.clock.advance(by: Self.pastExpiry)
            // The family was revoked server-side (say, a stolen copy of the refresh token was
            // replayed elsewhere): its refresh token now earns `invalid_grant`.
            await fixture.auth.revokeFamily(ofRefreshToken: try #require(signedIn.refreshToken))

            // All 1,000 calls start before the token endpoint is allowed to answer.
            let waiting = 1_000
            let results = await fixture.burstWhileTokenEndpointHeld(waiting) { fixture.me(callID: $0) }

            #expect(results.count == waiting)
            for (index, result) in results.enumerated() {
                Self.expectInvalidGrant(result, "waiting call \(index)")
            }
            #expect(await fixture.auth.stats.tokenRequests == 1)

            // The next 100 calls fail the same way at once: no token request, nothing sent to the API.
            let later = await fixture.burst(100) { fixture.me(callID: 10_000 + $0) }
            for (index, result) in later.enumerated() {
                Self.expectInvalidGrant(result, "later call \(index)")
            }
            var stats = await fixture.auth.stats
            #expect(stats.tokenRequests == 1, "a permanent failure must not be retried")
            #expect(stats.apiAccepted + stats.apiRejected == 0, "no API request may be sent with a dead credential")

            // An endpoint that needs no authorization still works, and carries no credential.
            let open = await fixture.client.enqueue(fixture.status()).result()
            #expect((try? open.get())?.statusCode == 200)
            #expect(await fixture.auth.statusAuthorizations == [nil])

            // The user signs in again: the server issues a fresh family, the app resets the refresher.
            let fresh = await fixture.signIn()
            try await fixture.refresher.reset(to: fresh)
            let recovered = await fixture.burst(100) { fixture.me(callID: 20_000 + $0) }
            #expect(recovered.allSatisfy { (try? $0.get())?.statusCode == 200 })
            stats = await fixture.auth.stats
            #expect(stats.tokenRequests == 1, "the fresh credential is unexpired: no refresh needed")
            #expect(stats.apiAccepted == 100)

            // And refreshing works again for the new family.
            fixture.clock.advance(by: Self.pastExpiry)
            let afterExpiry = await fixture.burst(100) { fixture.me(callID: 30_000 + $0) }
            #expect(afterExpiry.allSatisfy { (try? $0.get())?.statusCode == 200 })
            stats = await fixture.auth.stats
            #expect(stats.tokenRequests == 2)
            #expect(stats.refreshesIssued == 1)
            #expect(stats.invalidGrants == 1, "only the one refresh of the revoked family was rejected")
            #expect(stats.protocolViolations.isEmpty, "\(stats.protocolViolations)")

            var iterator = events.makeAsyncIterator()
            guard case .refreshFailed(let failure)? = await iterator.next() else {
                Issue.record("the first event must be the permanent refresh failure")
                return
            }
            #expect(failure.isPermanent && failure.oauth2Error?.code == "invalid_grant")
            #expect(await iterator.next() == .credentialReset)
            guard case .refreshed? = await iterator.next() else {
                Issue.record("the refresh after the reset must be reported")
                return
            }
        }
    }

    // MARK: - d) transient failure

    @Test(
        "a 503 from the token endpoint is transient: waiters fail with unexpectedStatus 503, the next call backs off without a request, after the backoff a call refreshes and succeeds",
        .timeLimit(.minutes(6))
    )
    func a503FailsTheWaitersThenBacksOffThenRecovers() async throws {
        let policy = TokenRefresher.Policy(initialBackoff: .seconds(1), maximumBackoff: .seconds(60))
        try await Fixture.run(policy: policy) { fixture in
            fixture.clock.advance(by: Self.pastExpiry)
            await fixture.auth.failNextTokenRequest(status: 503)

            let waiting = 100
            let results = await fixture.burstWhileTokenEndpointHeld(waiting) { fixture.me(callID: $0) }
            for (index, result) in results.enumerated() {
                guard case .failure(.authentication(.refreshFailed(let failure))) = result else {
                    Issue.record("waiting call \(index): expected a transient refreshFailed, got \(result)")
                    continue
                }
                #expect(failure.reason == .unexpectedStatus, "waiting call \(index): \(failure)")
                #expect(failure.statusCode == 503)
                #expect(!failure.isPermanent)
            }
            #expect(await fixture.auth.stats.tokenRequests == 1)

            // Immediately after: backing off, no request.
            let immediate = await fixture.client.enqueue(fixture.me(callID: 1_000)).result()
            guard case .failure(.authentication(.refreshFailed(let backingOff))) = immediate,
                case .backingOff(let retryAfter) = backingOff.reason
            else {
                Issue.record("expected refreshFailed(.backingOff), got \(immediate)")
                return
            }
            #expect(retryAfter > .zero && retryAfter <= .seconds(1), "\(retryAfter)")
            #expect(backingOff.statusCode == 503)
            #expect(!backingOff.isPermanent)
            #expect(await fixture.auth.stats.tokenRequests == 1, "a call during the backoff sends no token request")

            // Past the backoff: one refresh, and the call succeeds (the 503 did not spend the refresh token).
            fixture.clock.advance(by: 1.5)
            let recovered = await fixture.client.enqueue(fixture.me(callID: 1_001)).result()
            #expect((try? recovered.get())?.statusCode == 200, "\(recovered)")
            let stats = await fixture.auth.stats
            #expect(stats.tokenRequests == 2)
            #expect(stats.refreshesIssued == 1)
            #expect(stats.invalidGrants == 0)
            #expect(stats.apiAccepted == 1)
            #expect(stats.protocolViolations.isEmpty, "\(stats.protocolViolations)")
        }
    }

    // MARK: - e) what the token request carries

    @Test(
        "the token request never carries the access token, and authenticates the client with Basic over the percent-encoded id and secret",
        .timeLimit(.minutes(6))
    )
    func theTokenRequestCarriesClientBasicAuthAndNeverTheAccessToken() async throws {
        try await Fixture.run { fixture in
            let first = try #require(try await fixture.refresher.currentCredential())
            // Refresh 1: proactive, the token expired.
            fixture.clock.advance(by: Self.pastExpiry)
            let proactive = await fixture.client.enqueue(fixture.me(callID: 1)).result()
            #expect((try? proactive.get())?.statusCode == 200, "\(proactive)")
            let second = try #require(try await fixture.refresher.currentCredential())
            // Refresh 2: reactive, after a 401 to an unexpired but revoked token.
            await fixture.auth.revoke(accessToken: second.accessToken)
            let reactive = await fixture.client.enqueue(fixture.me(callID: 2)).result()
            #expect((try? reactive.get())?.statusCode == 200, "\(reactive)")

            let requests = await fixture.auth.tokenRequests
            #expect(requests.count == 2)
            let spentAccessTokens = [first.accessToken, second.accessToken]
            let presentedRefreshTokens = [first.refreshToken, second.refreshToken]
            for (index, request) in requests.enumerated() {
                #expect(request.method == "POST")
                #expect(request.rawPath == "/oauth/token")
                #expect(request.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")

                // Never the access token: not as a bearer, not anywhere in the headers or body.
                let authorization = request.header("Authorization") ?? ""
                #expect(!authorization.lowercased().hasPrefix("bearer"), "token request \(index) carried a bearer")
                let everything = request.headers.values.joined(separator: "\n") + "\n" + String(decoding: request.body, as: UTF8.self)
                for token in spentAccessTokens {
                    #expect(!everything.contains(token), "token request \(index) carried an access token")
                }

                // Client authentication: Basic base64(percent-encoded id ":" percent-encoded secret).
                let basic = try #require(RotatingAuthServer.ClientBasic(authorization), "token request \(index): \(authorization)")
                #expect(basic.clientID == RotatingAuthServer.clientID)
                #expect(basic.clientSecret == RotatingAuthServer.clientSecret)
                // Every reserved character was encoded, so plain percent-decoding (no `+` → space)
                // reads the same values as form decoding, and the `:` in the id cannot split early.
                #expect(basic.encodedSecret == "s3cr%3Dt%26%2B%20%25%2Fx")
                #expect(basic.encodedID.removingPercentEncoding == RotatingAuthServer.clientID)
                #expect(basic.encodedSecret.removingPercentEncoding == RotatingAuthServer.clientSecret)
                #expect(!basic.encodedID.contains(":"))

                // The form: the refresh grant with the refresh token the client held, no secret in the body.
                let form = try #require(RotatingAuthServer.parseForm(request.body), "token request \(index): unparseable form")
                #expect(form.map(\.name) == ["grant_type", "refresh_token"])
                #expect(form.first?.value == "refresh_token")
                #expect(form.last?.value == presentedRefreshTokens[index])
            }
            let stats = await fixture.auth.stats
            #expect(stats.protocolViolations.isEmpty, "\(stats.protocolViolations)")
            #expect(stats.invalidGrants == 0)
            #expect(stats.refreshesIssued == 2)
        }
    }

    // MARK: - Helpers

    /// Beyond the 3,600 s token lifetime and the 60 s loop-guard window.
    static let pastExpiry: TimeInterval = 3_700

    static func expectInvalidGrant(
        _ result: Result<Response, CourierError>, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .failure(.authentication(.refreshFailed(let failure))) = result else {
            Issue.record("\(what): expected refreshFailed(invalid_grant), got \(result)", sourceLocation: sourceLocation)
            return
        }
        #expect(failure.oauth2Error?.code == "invalid_grant", "\(what): \(failure)", sourceLocation: sourceLocation)
        #expect(failure.statusCode == 400, "\(what): \(failure)", sourceLocation: sourceLocation)
        #expect(failure.isPermanent, "\(what): \(failure)", sourceLocation: sourceLocation)
        #expect(failure.reason == .rejected, "\(what): \(failure)", sourceLocation: sourceLocation)
    }
}

// MARK: - Fixture

extension TokenRotationIntegrationTests {
    /// One server (API + token endpoint), one injected clock, one refresher, one client.
    /// How long the test and the server wait for each other. Only a regression reaches them, and
    /// then the counts fail instead of the suite hanging; on a loaded CI machine 1,000 calls took
    /// over 30 s to reach the refresher while the 10,000-call suites ran beside them, so the bounds
    /// are generous. The server holds longer than the test waits after the token request arrived.
    enum Bounds {
        static let testWait: Duration = .seconds(80)
        static let serverHold: Duration = .seconds(200)
    }

    struct Fixture: Sendable {
        let server: TestServer
        let auth: RotatingAuthServer
        let clock: WallClock
        let refresher: TokenRefresher
        let client: Client

        /// Starts the server, signs a user in server-side (an unexpired credential, dated by the
        /// injected clock), builds the refresher and the client, runs `body`, stops the server.
        /// - Parameter connectionsPerHost: the API transport's connection limit; libcurl queues
        ///   requests beyond it. The calls are all concurrent where it matters, in the refresher;
        ///   on the wire a few connections carry them fastest (every extra connection costs the
        ///   debug-built FlyingFox and the kernel more than it saves).
        static func run(
            policy: TokenRefresher.Policy = TokenRefresher.Policy(),
            connectionsPerHost: Int = 8,
            _ body: (Fixture) async throws -> Void
        ) async throws {
            try await TestServer.run { server in
                let auth = RotatingAuthServer()
                await auth.install(on: server)
                let clock = WallClock()
                // The token endpoint has a transport of its own: the refresh never queues behind
                // (or waits on) the API calls it unblocks.
                let tokenEndpoint = OAuth2TokenEndpoint(
                    baseURL: server.baseURL,
                    path: try URLPath("/oauth/token"),
                    clientAuthentication: .basic(clientID: RotatingAuthServer.clientID, clientSecret: RotatingAuthServer.clientSecret),
                    configuration: Configuration(transport: TransportKind.platformDefault.make()),
                    // Longer than the server's hold (`Bounds.serverHold`): a held token request
                    // must be released by the test, never time out first (on a starved machine it
                    // did, and the refresh failed as transient).
                    timeout: Bounds.serverHold + .seconds(40),
                    now: clock.closure
                )
                let issued = await auth.signIn()
                let refresher = TokenRefresher(
                    store: InMemoryTokenStore(issued.credential(issuedAt: clock.now)),
                    tokenEndpoint: tokenEndpoint,
                    policy: policy,
                    now: clock.closure
                )
                let client = Client(
                    configuration: Configuration(
                        transport: try TransportKind.platformDefault.make(connectionsPerHost: connectionsPerHost),
                        // Covers a call that waits for a held refresh through all three bounds.
                        timeout: Bounds.testWait * 3 + .seconds(30),
                        authentication: .bearer(refresher),
                        authorizedHosts: ["127.0.0.1"]
                    ))
                try await body(Fixture(server: server, auth: auth, clock: clock, refresher: refresher, client: client))
            }
        }

        /// `GET /v1/me`, tagged with `X-Call-Id` when the server must tell the calls apart.
        func me(callID: Int? = nil) -> MeEndpoint {
            MeEndpoint(base: server.baseURL, callID: callID)
        }

        /// `GET /v1/status`, which requires no authorization.
        func status() -> StatusEndpoint {
            StatusEndpoint(base: server.baseURL)
        }

        /// A new token family issued by the server, as after the user signs in again.
        func signIn() async -> TokenCredential {
            await auth.signIn().credential(issuedAt: clock.now)
        }

        /// `count` calls at once; the results in call order.
        func burst<E: Requestable>(_ count: Int, _ endpoint: @escaping @Sendable (Int) -> E) async -> [Result<Response, CourierError>] {
            await withTaskGroup(of: (Int, Result<Response, CourierError>).self) { group in
                for index in 0..<count {
                    group.addTask { (index, await client.enqueue(endpoint(index)).result()) }
                }
                return await Self.ordered(&group, count: count)
            }
        }

        /// `count` calls at once, while the token endpoint holds its answer until every call's
        /// task has started and the token request has arrived, so the calls are waiting on the
        /// one refresh when it ends.
        func burstWhileTokenEndpointHeld<E: Requestable>(
            _ count: Int, _ endpoint: @escaping @Sendable (Int) -> E
        ) async -> [Result<Response, CourierError>] {
            let started = Threshold()
            let release = Threshold()
            await auth.holdTokenResponses(until: release)
            return await withTaskGroup(of: (Int, Result<Response, CourierError>).self) { group in
                for index in 0..<count {
                    group.addTask {
                        await started.increment()
                        return (index, await client.enqueue(endpoint(index)).result())
                    }
                }
                // Bounded: a regression fails the counts below instead of hanging the suite.
                let allStarted = await started.wait(forAtLeast: count, upTo: Bounds.testWait)
                let arrived = await auth.tokenRequestArrival.wait(forAtLeast: 1, upTo: Bounds.testWait)
                // A task that has started may not have reached the refresher yet (under
                // ThreadSanitizer, 9 of 100 had not): the held refresh is released only once every
                // call waits for it, so none of them can arrive after it failed and see a backoff.
                let allWaiting = await waitUntil(upTo: Bounds.testWait) { await refresher.waitingCallerCount >= count }
                #expect(
                    allStarted && arrived && allWaiting,
                    "calls started: \(allStarted), token request arrived: \(arrived), all waiting: \(allWaiting)")
                await release.increment()
                await auth.holdTokenResponses(until: nil)  // in case no token request came to take it
                return await Self.ordered(&group, count: count)
            }
        }

        /// Whether `condition` held before `limit` passed, checking it between yields.
        private func waitUntil(upTo limit: Duration, _ condition: () async -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + limit
            while ContinuousClock.now < deadline {
                if await condition() { return true }
                await Task.yield()
            }
            return await condition()
        }

        private static func ordered(
            _ group: inout TaskGroup<(Int, Result<Response, CourierError>)>, count: Int
        ) async -> [Result<Response, CourierError>] {
            var results = [Result<Response, CourierError>?](repeating: nil, count: count)
            while let (index, result) = await group.next() {
                results[index] = result
            }
            return results.compactMap { $0 }
        }
    }

    /// `GET /v1/me`: requires authorization.
    struct MeEndpoint: Requestable {
        var base: BaseURL
        var callID: Int?
        func baseURL() throws(CourierError) -> BaseURL { base }
        func path() throws(CourierError) -> URLPath { try URLPath("/v1/me") }
        var headerItems: [HeaderItem]? { callID.map { [HeaderItem(name: "X-Call-Id", value: String($0))] } }
    }

    /// `GET /v1/status`: needs no authorization.
    struct StatusEndpoint: Requestable {
        var base: BaseURL
        func baseURL() throws(CourierError) -> BaseURL { base }
        func path() throws(CourierError) -> URLPath { try URLPath("/v1/status") }
        var requiresAuthorization: Bool { false }
    }

    /// A wall clock the test moves by hand, shared by the refresher and the token endpoint.
    final class WallClock: @unchecked Sendable {  // `date` is only touched under `lock`
        private let lock = NSLock()
        private var date = Date(timeIntervalSince1970: 1_900_000_000)

        var now: Date {
            lock.lock()
            defer { lock.unlock() }
            return date
        }

        func advance(by seconds: TimeInterval) {
            lock.lock()
            date = date.addingTimeInterval(seconds)
            lock.unlock()
        }

        var closure: @Sendable () -> Date { { self.now } }
    }
}

// MARK: - Waiting without sleeping

extension TokenRotationIntegrationTests {
    /// A counter that tasks can wait on until it reaches a value. Waits are bounded and cancellable,
    /// so a regression shows as a failed expectation, not a hung test.
    actor Threshold {
        private var count = 0
        private var waiters: [UInt64: (target: Int, continuation: CheckedContinuation<Bool, Never>)] = [:]
        private var nextID: UInt64 = 0

        func increment() {
            count += 1
            for (id, waiter) in waiters where count >= waiter.target {
                waiters[id] = nil
                waiter.continuation.resume(returning: true)
            }
        }

        /// `true` once the count reaches `target`; `false` if `bound` passes first or the task is cancelled.
        func wait(forAtLeast target: Int, upTo bound: Duration) async -> Bool {
            if count >= target { return true }
            let id = nextID
            nextID += 1
            let timer = Task { [weak self] in
                try? await Task.sleep(for: bound)  // the upper bound of the wait, not the wait: give(up:) runs only if the count never arrives
                await self?.give(up: id)
            }
            defer { timer.cancel() }
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    if Task.isCancelled {
                        continuation.resume(returning: false)
                    } else {
                        waiters[id] = (target, continuation)
                    }
                }
            } onCancel: {
                Task { await self.give(up: id) }
            }
        }

        private func give(up id: UInt64) {
            waiters.removeValue(forKey: id)?.continuation.resume(returning: false)
        }
    }
}

// MARK: - The server

extension TokenRotationIntegrationTests {
    /// The API and the OAuth2 authorization server, with single-use rotating refresh tokens.
    ///
    /// - `POST /oauth/token`: `grant_type=refresh_token`, form-urlencoded, client authentication by
    ///   HTTP Basic over the form-urlencoded id and secret (RFC 6749 §2.3.1). A refresh token is spent
    ///   by its first use and answered with a new pair; any later use answers
    ///   `400 {"error":"invalid_grant"}` and revokes the token family. A bearer on this endpoint,
    ///   wrong client credentials or a malformed form are recorded as protocol violations.
    /// - `GET /v1/me`: 200 only with the family's current access token, else
    ///   `401` + `WWW-Authenticate: Bearer error="invalid_token"`.
    /// - `GET /v1/status`: no authorization needed.
    actor RotatingAuthServer {
        static let clientID = "courier:integration app"
        static let clientSecret = "s3cr=t&+ %/x"
        static let accessTokenLifetime = 3_600

        struct Stats: Sendable {
            var tokenRequests = 0
            var refreshesIssued = 0
            var invalidGrants = 0
            var familiesRevoked = 0
            var apiAccepted = 0
            var apiRejected = 0
            var rejectionHoldReached = false
            var protocolViolations: [String] = []
        }

        struct Issued: Sendable {
            var accessToken: String
            var refreshToken: String

            func credential(issuedAt: Date) -> TokenCredential {
                TokenCredential(
                    accessToken: accessToken, refreshToken: refreshToken,
                    expiresAt: issuedAt.addingTimeInterval(TimeInterval(RotatingAuthServer.accessTokenLifetime)),
                    issuedAt: issuedAt
                )
            }
        }

        struct APIHit: Sendable {
            var callID: String?
            var accessToken: String?
            var status: Int
        }

        private struct Family {
            var currentAccessToken: String?
            var revoked = false
        }

        private struct RejectionHold {
            var expected: Int
            var arrived = 0
            let release = Threshold()
        }

        private(set) var stats = Stats()
        private(set) var tokenRequests: [ReceivedRequest] = []
        private(set) var apiLog: [APIHit] = []
        private(set) var statusAuthorizations: [String?] = []
        /// Counts token requests as they arrive, before any hold.
        let tokenRequestArrival = Threshold()

        private var families: [Int: Family] = [:]
        private var refreshTokens: [String: (family: Int, spent: Bool)] = [:]
        private var accessTokenFamilies: [String: Int] = [:]
        private var serial = 0
        private var failures: [Int] = []
        private var tokenHold: Threshold?
        private var rejectionHold: RejectionHold?

        var acceptedCallsByAccessToken: [String: Int] {
            apiLog.filter { $0.status == 200 }.reduce(into: [:]) { $0[$1.accessToken ?? "", default: 0] += 1 }
        }

        func install(on server: TestServer) async {
            await server.route("POST /oauth/token") { request in
                await self.token(try await ReceivedRequest(request))
            }
            await server.route("GET /v1/me") { request in
                await self.me(try await ReceivedRequest(request))
            }
            await server.route("GET /v1/status") { request in
                await self.recordStatus(request.headers[.authorization])
                return Self.json(.ok, #"{"status":"ok"}"#)
            }
        }

        // MARK: Switches

        /// A new token family, as when a user signs in.
        func signIn() -> Issued {
            serial += 1
            families[serial] = Family()
            return issue(family: serial)
        }

        /// The access token stops working now, whatever its expiry; its refresh token still works.
        func revoke(accessToken: String) {
            guard let family = accessTokenFamilies[accessToken] else { return }
            if families[family]?.currentAccessToken == accessToken {
                families[family]?.currentAccessToken = nil
            }
        }

        /// The whole family of `refreshToken` is dead: its refreshes and its access tokens.
        func revokeFamily(ofRefreshToken refreshToken: String) {
            guard let family = refreshTokens[refreshToken]?.family else { return }
            revoke(family: family)
        }

        /// The next token request answers `status` (without spending its refresh token).
        func failNextTokenRequest(status: Int) {
            failures.append(status)
        }

        /// The next token request waits, after being counted, until `release` is incremented;
        /// `nil` cancels a hold no request has taken.
        func holdTokenResponses(until release: Threshold?) {
            tokenHold = release
        }

        /// 401 answers wait until `count` rejected requests have arrived, then all go out at once.
        func holdRejections(until count: Int) {
            rejectionHold = RejectionHold(expected: count)
        }

        func isLive(refreshToken: String) -> Bool {
            guard let entry = refreshTokens[refreshToken] else { return false }
            return !entry.spent && families[entry.family]?.revoked == false
        }

        // MARK: Token endpoint

        private func token(_ request: ReceivedRequest) async -> FlyingFox.HTTPResponse {
            stats.tokenRequests += 1
            tokenRequests.append(request)
            await tokenRequestArrival.increment()
            if let hold = tokenHold {
                tokenHold = nil
                if await !hold.wait(forAtLeast: 1, upTo: Bounds.serverHold) {
                    stats.protocolViolations.append("the test never released the held token request")
                }
            }

            let authorization = request.header("Authorization") ?? ""
            if authorization.lowercased().hasPrefix("bearer") {
                stats.protocolViolations.append("a bearer token was sent to the token endpoint")
                return Self.oauthError(.badRequest, "invalid_request", "no bearer token on the token endpoint")
            }
            guard let basic = ClientBasic(authorization),
                basic.clientID == Self.clientID, basic.clientSecret == Self.clientSecret
            else {
                stats.protocolViolations.append("bad client authentication: \(authorization.isEmpty ? "none" : "wrong")")
                return Self.oauthError(.unauthorized, "invalid_client", "client authentication failed")
            }
            guard request.header("Content-Type")?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true,
                let form = Self.parseForm(request.body)
            else {
                stats.protocolViolations.append("the token request is not a form")
                return Self.oauthError(.badRequest, "invalid_request", "expected a form")
            }
            let fields = Dictionary(form.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
            guard form.count == fields.count else {
                stats.protocolViolations.append("a parameter was repeated")
                return Self.oauthError(.badRequest, "invalid_request", "a parameter was repeated")
            }
            guard fields["grant_type"] == "refresh_token", let presented = fields["refresh_token"] else {
                stats.protocolViolations.append("not a refresh_token grant")
                return Self.oauthError(.badRequest, "unsupported_grant_type", "only refresh_token")
            }
            if !failures.isEmpty {
                let status = failures.removeFirst()
                return Self.json(HTTPStatusCode(status, phrase: "Failure"), #"{"error":"temporarily_unavailable"}"#)
            }
            guard let entry = refreshTokens[presented], let family = families[entry.family] else {
                stats.invalidGrants += 1
                return Self.oauthError(.badRequest, "invalid_grant", "unknown refresh token")
            }
            if entry.spent {
                // Reuse: someone holds a copy. Kill the family.
                stats.invalidGrants += 1
                revoke(family: entry.family)
                return Self.oauthError(.badRequest, "invalid_grant", "refresh token reused; the token family is revoked")
            }
            if family.revoked {
                stats.invalidGrants += 1
                return Self.oauthError(.badRequest, "invalid_grant", "the token family is revoked")
            }
            refreshTokens[presented]?.spent = true
            stats.refreshesIssued += 1
            let issued = issue(family: entry.family)
            let body =
                #"{"access_token":"\#(issued.accessToken)","token_type":"Bearer","expires_in":\#(Self.accessTokenLifetime),"refresh_token":"\#(issued.refreshToken)"}"#
            return Self.json(.ok, body)
        }

        private func issue(family: Int) -> Issued {
            serial += 1
            // Short but unique: FlyingFox parses request heads a byte at a time, and 20,000 calls carry one each.
            let issued = Issued(accessToken: "at.\(family).\(serial)", refreshToken: "rt.\(family).\(serial)")
            families[family]?.currentAccessToken = issued.accessToken
            accessTokenFamilies[issued.accessToken] = family
            refreshTokens[issued.refreshToken] = (family, false)
            return issued
        }

        private func revoke(family: Int) {
            guard families[family]?.revoked == false else { return }
            families[family]?.revoked = true
            families[family]?.currentAccessToken = nil
            stats.familiesRevoked += 1
        }

        // MARK: API

        private func me(_ request: ReceivedRequest) async -> FlyingFox.HTTPResponse {
            let authorization = request.header("Authorization")
            let token = authorization.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst("Bearer ".count)) : nil }
            let callID = request.header("X-Call-Id")
            if let token, let family = accessTokenFamilies[token], families[family]?.currentAccessToken == token {
                stats.apiAccepted += 1
                apiLog.append(APIHit(callID: callID, accessToken: token, status: 200))
                // No body: FlyingFox writes a response's head and body in two send()s without
                // TCP_NODELAY, so on Linux loopback a body waits ~40 ms for the client's delayed ACK.
                // 20,000 such calls would take most of a minute; the head alone goes out at once.
                var headers = HTTPHeaders()
                headers[HTTPHeader("X-Subject")] = "user-\(family)"
                return FlyingFox.HTTPResponse(statusCode: .ok, headers: headers)
            }
            stats.apiRejected += 1
            apiLog.append(APIHit(callID: callID, accessToken: token, status: 401))
            if var hold = rejectionHold {
                hold.arrived += 1
                if hold.arrived >= hold.expected {
                    rejectionHold = nil
                    stats.rejectionHoldReached = true
                    await hold.release.increment()
                } else {
                    rejectionHold = hold
                    // Bounded: if the calls never all arrive, the 401s go out and the test's counts fail.
                    if await !hold.release.wait(forAtLeast: 1, upTo: Bounds.serverHold) {
                        stats.protocolViolations.append("only \(rejectionHold?.arrived ?? hold.arrived) of \(hold.expected) held 401s arrived")
                    }
                }
            }
            return FlyingFox.HTTPResponse(
                statusCode: .unauthorized,
                headers: [HTTPHeader("WWW-Authenticate"): #"Bearer error="invalid_token""#, .contentType: "application/json"],
                body: Data(#"{"error":"invalid_token"}"#.utf8)
            )
        }

        private func recordStatus(_ authorization: String?) {
            statusAuthorizations.append(authorization)
        }

        // MARK: Encoding

        private static func json(_ status: HTTPStatusCode, _ body: String) -> FlyingFox.HTTPResponse {
            FlyingFox.HTTPResponse(
                statusCode: status,
                headers: [.contentType: "application/json", HTTPHeader("Cache-Control"): "no-store"],
                body: Data(body.utf8)
            )
        }

        private static func oauthError(_ status: HTTPStatusCode, _ code: String, _ description: String) -> FlyingFox.HTTPResponse {
            json(status, #"{"error":"\#(code)","error_description":"\#(description)"}"#)
        }

        /// `application/x-www-form-urlencoded` decoding: `+` is a space, then percent-decoding.
        static func formDecode(_ text: Substring) -> String? {
            text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }

        /// The form's pairs in order; `nil` if any name or value does not decode.
        static func parseForm(_ body: Data) -> [(name: String, value: String)]? {
            let text = String(decoding: body, as: UTF8.self)
            guard !text.isEmpty else { return [] }
            var pairs: [(name: String, value: String)] = []
            for pair in text.split(separator: "&", omittingEmptySubsequences: false) {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = formDecode(parts[0]),
                    let value = formDecode(parts.count == 2 ? parts[1] : "")
                else { return nil }
                pairs.append((name, value))
            }
            return pairs
        }

        /// `Authorization: Basic base64(form-urlencoded id ":" form-urlencoded secret)`, decoded.
        struct ClientBasic: Sendable {
            var encodedID: String
            var encodedSecret: String
            var clientID: String
            var clientSecret: String

            init?(_ authorization: String) {
                guard authorization.hasPrefix("Basic "),
                    let data = Data(base64Encoded: String(authorization.dropFirst("Basic ".count))),
                    let joined = String(data: data, encoding: .utf8),
                    let colon = joined.firstIndex(of: ":")
                else { return nil }
                encodedID = String(joined[..<colon])
                encodedSecret = String(joined[joined.index(after: colon)...])
                guard let id = RotatingAuthServer.formDecode(Substring(encodedID)),
                    let secret = RotatingAuthServer.formDecode(Substring(encodedSecret))
                else { return nil }
                clientID = id
                clientSecret = secret
            }
        }
    }
}
