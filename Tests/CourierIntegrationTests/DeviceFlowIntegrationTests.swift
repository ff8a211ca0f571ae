import Courier
import CourierOAuth
import CourierTesting
import FlyingFox
import Foundation
import Testing

/// A scripted authorization server on 127.0.0.1: a device endpoint, a token endpoint answering
/// polls from a script and dating each poll on the flow's `TestClock`, and a revocation endpoint.
actor DeviceAuthorizationServer {
    struct Poll: Sendable, Equatable {
        var at: Duration
        var form: [String: String]
    }

    private var script: [(Int, String)]
    private(set) var polls: [Poll] = []
    private(set) var deviceRequests: [[String: String]] = []
    private(set) var revocations: [[String: String]] = []
    private var pollWatchers: [(Int, CheckedContinuation<Void, Never>)] = []
    let clock: TestClock
    let expiresIn: Int

    init(script: [(Int, String)], clock: TestClock, expiresIn: Int = 1800) {
        self.script = script
        self.clock = clock
        self.expiresIn = expiresIn
    }

    static func form(_ body: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).removingPercentEncoding ?? String($0)
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    static func json(_ status: Int, _ body: String) -> FlyingFox.HTTPResponse {
        FlyingFox.HTTPResponse(
            statusCode: HTTPStatusCode(status, phrase: "Status"), headers: [.contentType: "application/json"], body: Data(body.utf8))
    }

    func device(_ body: Data) -> FlyingFox.HTTPResponse {
        deviceRequests.append(Self.form(body))
        return Self.json(
            200,
            #"{"device_code":"DEVICE-SECRET","user_code":"ABCD-EFGH","verification_uri":"http://127.0.0.1/device","expires_in":\#(expiresIn)}"#)
    }

    func token(_ body: Data) -> FlyingFox.HTTPResponse {
        polls.append(Poll(at: clock.now.offset, form: Self.form(body)))
        let ready = pollWatchers.filter { $0.0 <= polls.count }
        pollWatchers.removeAll { $0.0 <= polls.count }
        for (_, watcher) in ready { watcher.resume() }
        let (status, answer) = script.isEmpty ? (400, #"{"error":"authorization_pending"}"#) : script.removeFirst()
        return Self.json(status, answer)
    }

    func revoke(_ body: Data) -> FlyingFox.HTTPResponse {
        revocations.append(Self.form(body))
        return Self.json(200, "")
    }

    /// Returns once `count` polls have arrived.
    func waitForPolls(_ count: Int) async {
        if polls.count >= count { return }
        await withCheckedContinuation { pollWatchers.append((count, $0)) }
    }

    /// The gaps between polls, the first measured from the clock's start.
    var gaps: [Duration] {
        var previous = Duration.zero
        return polls.map { poll in
            defer { previous = poll.at }
            return poll.at - previous
        }
    }

    /// Starts a FlyingFox server serving this script, runs `body`, stops the server.
    nonisolated func serve<R>(_ body: (TestServer) async throws -> R) async throws -> R {
        try await TestServer.run { server in
            await server.route("POST /device") { request in await self.device(try await request.bodyData) }
            await server.route("POST /token") { request in await self.token(try await request.bodyData) }
            await server.route("POST /revoke") { request in await self.revoke(try await request.bodyData) }
            return try await body(server)
        }
    }
}

extension TestServer {
    /// A device flow against this server's `/device` and `/token`, on `clock`.
    nonisolated func deviceFlow(clock: TestClock) throws -> DeviceAuthorizationFlow {
        let tokens = OAuth2TokenEndpoint(
            baseURL: baseURL, path: try URLPath("/token"), clientAuthentication: .publicClient(clientID: "tv-app"),
            configuration: Configuration(transport: TransportKind.platformDefault.make()), timeout: generousTimeout)
        return DeviceAuthorizationFlow(
            deviceAuthorizationEndpoint: URL(string: "\(baseURL)/device")!, tokenEndpoint: tokens, scope: "profile",
            clock: clock)
    }
}

private let pending = (400, #"{"error":"authorization_pending"}"#)
private let slowDown = (400, #"{"error":"slow_down"}"#)
private let approved = (200, #"{"access_token":"AT-SECRET","token_type":"Bearer","expires_in":3600,"refresh_token":"RT-SECRET"}"#)

@Suite("Device authorization flow against a real server", .loopback)
struct DeviceFlowIntegrationTests {
    /// Runs the whole flow with an immediate TestClock; returns the outcome and the server.
    private func run(
        _ script: [(Int, String)], expiresIn: Int = 1800
    ) async throws -> (Result<TokenCredential, CourierError>, DeviceAuthorizationServer, TestClock) {
        let clock = TestClock(sleepsReturnImmediately: true)
        let server = DeviceAuthorizationServer(script: script, clock: clock, expiresIn: expiresIn)
        let result = try await server.serve { test in
            let flow = try test.deviceFlow(clock: clock)
            do {
                let authorization = try await flow.start()
                return Result<TokenCredential, CourierError>.success(try await flow.waitForApproval(authorization))
            } catch let error as CourierError {
                return .failure(error)
            }
        }
        return (result, server, clock)
    }

    @Test("approve after pending and slow_down: the server sees polls 5, 5, 10, 10 s apart on the flow's clock")
    func approve() async throws {
        let (result, server, _) = try await run([pending, slowDown, pending, approved])
        let credential = try result.get()
        #expect(credential.accessToken == "AT-SECRET")
        #expect(credential.scope == "profile")
        #expect(await server.gaps == [5, 5, 10, 10].map { .seconds($0) })
        #expect(await server.deviceRequests == [["scope": "profile", "client_id": "tv-app"]])
        let forms = await server.polls.map(\.form)
        #expect(
            forms.allSatisfy {
                $0 == ["grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": "DEVICE-SECRET", "client_id": "tv-app"]
            })
    }

    @Test("deny: access_denied ends the flow with .denied after the second poll")
    func deny() async throws {
        let (result, server, _) = try await run([pending, (400, #"{"error":"access_denied"}"#)])
        guard case .failure(.authentication(.authorizationFailed(.denied(let error)))) = result else {
            Issue.record("expected .denied, got \(result)")
            return
        }
        #expect(error.code == "access_denied")
        #expect(await server.polls.count == 2)
    }

    @Test("expire: with expires_in 12 the server sees polls at 5 and 10 s, then the flow fails at 12 s without a third")
    func expire() async throws {
        let (result, server, clock) = try await run([], expiresIn: 12)
        guard case .failure(.authentication(.authorizationFailed(.expired))) = result else {
            Issue.record("expected .expired, got \(result)")
            return
        }
        #expect(await server.polls.map(\.at) == [.seconds(5), .seconds(10)])
        #expect(clock.now.offset == .seconds(12))
    }

    @Test("server errors back off: 503, 503, 500 then approval arrive 5, 10, 20, 40 s apart")
    func backoff() async throws {
        let unavailable = (503, #"{"error":"temporarily_unavailable"}"#)
        let (result, server, _) = try await run([unavailable, unavailable, (500, ""), approved])
        #expect(try result.get().accessToken == "AT-SECRET")
        #expect(await server.gaps == [5, 10, 20, 40].map { .seconds($0) })
    }

    @Test("cancelling between polls ends the flow with .cancelled, and the server sees no further poll")
    func cancellation() async throws {
        let clock = TestClock()
        let server = DeviceAuthorizationServer(script: [pending], clock: clock)
        try await server.serve { test in
            let flow = try test.deviceFlow(clock: clock)
            let authorization = try await flow.start()
            let task = Task { () async throws(CourierError) -> TokenCredential in try await flow.waitForApproval(authorization) }
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(5))
            await server.waitForPolls(1)
            await clock.waitForSleepers(1)  // pending was read; the flow waits for the next poll
            task.cancel()
            guard case .failure(let error) = await task.result, case .cancelled? = error as? CourierError else {
                Issue.record("expected .cancelled")
                return
            }
            clock.advance(by: .seconds(60))
            #expect(clock.pendingSleepCount == 0)
        }
        #expect(await server.polls.count == 1)
    }
}
