import CourierTesting
import Foundation
import Testing

@testable import Courier
@testable import CourierOAuth

/// Fixtures for the device flow suites.
enum DeviceFixtures {
    static let deviceURL = URL(string: "https://auth.example.com/oauth/device")!

    static func deviceJSON(expiresIn: String = "1800", interval: String? = nil, deviceCode: String = "DEVICE-SECRET-1") -> String {
        var json = #"{"device_code":"\#(deviceCode)","user_code":"WDJB-MJHT","verification_uri":"https://example.com/device","#
        json += #""verification_uri_complete":"https://example.com/device?user_code=WDJB-MJHT","expires_in":\#(expiresIn)"#
        if let interval { json += #","interval":\#(interval)"# }
        return json + "}"
    }

    static func error(_ code: String, status: Int = 400) -> RecordingTransport.Answer {
        .status(status, headers: HTTPFields(["Content-Type": "application/json"]), body: Data(#"{"error":"\#(code)"}"#.utf8))
    }

    static func json(_ body: String, status: Int = 200) -> RecordingTransport.Answer {
        .status(status, headers: HTTPFields(["Content-Type": "application/json"]), body: Data(body.utf8))
    }

    static let token = json(OAuth2Fixtures.tokenJSON)

    static func flow(
        _ transport: RecordingTransport, clock: TestClock = TestClock(sleepsReturnImmediately: true),
        authentication: OAuth2ClientAuthentication = .publicClient(clientID: "app"), scope: String? = "read write",
        additionalParameters: [QueryItem] = []
    ) throws -> DeviceAuthorizationFlow {
        DeviceAuthorizationFlow(
            deviceAuthorizationEndpoint: deviceURL,
            tokenEndpoint: try OAuth2Fixtures.endpoint(transport, authentication: authentication),
            scope: scope, additionalParameters: additionalParameters, clock: clock)
    }

    static func failure(_ body: () async throws(CourierError) -> TokenCredential) async -> CourierError? {
        await OAuth2Fixtures.error(from: body)
    }
}

@Suite("Device authorization (RFC 8628): the device request and its response")
struct DeviceAuthorizationRequestTests {
    @Test("start POSTs scope, the additional parameters and the client authentication to the device endpoint", arguments: OAuth2AuthenticationCase.all)
    func startBody(mode: OAuth2AuthenticationCase) async throws {
        let transport = RecordingTransport(script: [DeviceFixtures.json(DeviceFixtures.deviceJSON())])
        let flow = try DeviceFixtures.flow(
            transport, authentication: mode.authentication, additionalParameters: [QueryItem(name: "resource", value: "https://api.example.com/")])
        _ = try await flow.start()
        let request = try #require(await transport.last)
        #expect(request.head.method == .post)
        #expect(request.url.absoluteString == "https://auth.example.com/oauth/device")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(request.header("Accept") == "application/json")
        #expect(request.bodyText == "scope=read%20write&resource=https%3A%2F%2Fapi.example.com%2F" + mode.bodySuffix)
        #expect(request.basicCredentials == mode.basicCredentials)
    }

    @Test("start reads every field; interval defaults to 5 s; expiresAt is the send time plus expires_in")
    func startParses() async throws {
        let transport = RecordingTransport(script: [DeviceFixtures.json(DeviceFixtures.deviceJSON())])
        let authorization = try await DeviceFixtures.flow(transport).start()
        #expect(authorization.userCode == "WDJB-MJHT")
        #expect(authorization.verificationURI.absoluteString == "https://example.com/device")
        #expect(authorization.verificationURIComplete?.absoluteString == "https://example.com/device?user_code=WDJB-MJHT")
        #expect(authorization.expiresIn == .seconds(1800))
        #expect(authorization.expiresAt == OAuth2Fixtures.now.addingTimeInterval(1800))
        #expect(authorization.interval == .seconds(5))
        #expect(authorization.deviceCode == "DEVICE-SECRET-1")
    }

    @Test("the device code is in no description, debug description or dump")
    func deviceCodeNeverPrinted() async throws {
        let transport = RecordingTransport(script: [DeviceFixtures.json(DeviceFixtures.deviceJSON())])
        let flow = try DeviceFixtures.flow(transport)
        let authorization = try await flow.start()
        var dumped = ""
        dump(authorization, to: &dumped)
        var dumpedFlow = ""
        dump(flow, to: &dumpedFlow)
        for text in [authorization.description, String(reflecting: authorization), dumped, "\(flow)", dumpedFlow] {
            #expect(!text.contains("DEVICE-SECRET"), "\(text)")
        }
        #expect(authorization.description.contains("WDJB-MJHT"))
    }

    @Test(
        "interval: absent or null is 5 s, small values are raised to 1 s, decimals and strings are read",
        arguments: [("null", 5.0), ("0", 1.0), ("0.2", 1.0), ("7", 7.0), (#""10""#, 10.0), ("2.5", 2.5)])
    func interval(raw: String, seconds: Double) throws {
        let parsed = try DeviceAuthorizationResponse.parse(Data(DeviceFixtures.deviceJSON(interval: raw).utf8)).get()
        #expect(parsed.interval == .milliseconds(Int64(seconds * 1000)))
    }

    @Test(
        "malformed device responses are rejected with the field and the problem, never a value",
        arguments: [
            (#"{"user_code":"A","verification_uri":"https://device.example/d","expires_in":5}"#, "device_code is missing"),
            (#"{"device_code":"D","verification_uri":"https://device.example/d","expires_in":5}"#, "user_code is missing"),
            (#"{"device_code":"D","user_code":"A","expires_in":5}"#, "verification_uri is missing"),
            (#"{"device_code":"D","user_code":"A","verification_uri":"https://device.example/d"}"#, "expires_in is missing"),
            (#"{"device_code":"D","user_code":"A","verification_uri":"https://device.example/d","expires_in":-1}"#, "expires_in is negative"),
            (#"{"device_code":"D","user_code":"A","verification_uri":"https://device.example/d","expires_in":0}"#, "expires_in is not positive"),
            (#"{"device_code":"D","user_code":"A","verification_uri":"https://device.example/d","expires_in":1e12}"#, "expires_in is too large"),
            (#"{"device_code":"D","user_code":"A","verification_uri":"https://device.example/d","expires_in":5,"interval":-5}"#, "interval is negative"),
            (#"{"device_code":"D","user_code":"A","verification_uri":"https://device.example/d","expires_in":5,"interval":86400}"#, "interval is too large"),
            (
                #"{"device_code":"D","user_code":"A\u001b[2J","verification_uri":"https://device.example/d","expires_in":5}"#,
                "user_code contains control characters"
            ),
            (
                #"{"device_code":"D","user_code":"A","verification_uri":"http://evil.example/d","expires_in":5}"#,
                "verification_uri is not https (plain http is allowed only for loopback hosts)"
            ),
            (
                #"{"device_code":"D","user_code":"A","verification_uri":"javascript:alert(1)","expires_in":5}"#,
                "verification_uri is not an absolute URL with a host"
            ),
            (#"{"device_code":7,"user_code":"A","verification_uri":"https://device.example/d","expires_in":5}"#, "device_code is not a string"),
            ("[]", "the body is not a JSON object"),
            ("{", "the body is not valid JSON (or is truncated)"),
            ("  ", "the body is empty"),
        ])
    func malformed(body: String, reason: String) {
        guard case .failure(let malformed) = DeviceAuthorizationResponse.parse(Data(body.utf8)) else {
            Issue.record("parsed \(body)")
            return
        }
        #expect(malformed.reason == reason)
        #expect(DeviceAuthorizationResponse.reasons.contains(malformed.reason))
    }

    @Test("a device code over 4 KiB and a user code over 256 bytes are rejected")
    func lengthLimits() {
        let longDevice = DeviceFixtures.deviceJSON(deviceCode: String(repeating: "d", count: 4097))
        #expect((try? DeviceAuthorizationResponse.parse(Data(longDevice.utf8)).get()) == nil)
        let longUser = DeviceFixtures.deviceJSON().replacingOccurrences(of: "\"WDJB-MJHT\"", with: "\"\(String(repeating: "U", count: 257))\"")
        guard case .failure(let malformed) = DeviceAuthorizationResponse.parse(Data(longUser.utf8)) else {
            Issue.record("parsed a long user code")
            return
        }
        #expect(malformed.reason == "user_code is too long")
    }

    @Test("Google's verification_url is read when verification_uri is absent")
    func verificationURLAlias() throws {
        let body = #"{"device_code":"D","user_code":"A","verification_url":"https://oauth2.example/device","expires_in":1800}"#
        let parsed = try DeviceAuthorizationResponse.parse(Data(body.utf8)).get()
        #expect(parsed.verificationURI.absoluteString == "https://oauth2.example/device")
    }

    @Test("a malformed 200 is an authorizationFailed(.malformedResponse) naming the field")
    func malformedStart() async throws {
        let transport = RecordingTransport(script: [DeviceFixtures.json(#"{"user_code":"A"}"#)])
        let error = await courierError(from: try DeviceFixtures.flow(transport).start)
        #expect(error?.authorizationFailure == .malformedResponse("device authorization response: device_code is missing"))
    }

    @Test("a device response over 64 KiB is malformed, not parsed")
    func oversized() async throws {
        let padded = DeviceFixtures.deviceJSON() + String(repeating: " ", count: 64 << 10)
        let transport = RecordingTransport(script: [DeviceFixtures.json(padded)])
        let error = await courierError(from: try DeviceFixtures.flow(transport).start)
        guard case .malformedResponse(let why)? = error?.authorizationFailure else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(why.contains("64 KiB"))
    }

    @Test("a 400 invalid_client from the device endpoint is the token endpoint's permanent rejection")
    func rejectedStart() async throws {
        let transport = RecordingTransport(script: [DeviceFixtures.error("invalid_client", status: 401)])
        let failure = try #require(OAuth2Fixtures.refreshFailure(await courierError(from: try DeviceFixtures.flow(transport).start)))
        #expect(failure.reason == .rejected)
        #expect(failure.oauth2Error?.code == "invalid_client")
        #expect(failure.statusCode == 401)
        #expect(failure.isPermanent)
    }

    @Test("additional parameters may not repeat scope or client_id; nothing is sent")
    func reservedParameters() async throws {
        let transport = RecordingTransport(script: [DeviceFixtures.json(DeviceFixtures.deviceJSON())])
        for name in ["scope", "client_id"] {
            let flow = try DeviceFixtures.flow(transport, additionalParameters: [QueryItem(name: name, value: "x")])
            await #expect(throws: CourierError.self) { _ = try await flow.start() }
        }
        #expect(await transport.count == 0)
    }
}

@Suite("Device authorization (RFC 8628): polling")
struct DevicePollingTests {
    /// Runs start + waitForApproval against `polls` (the device response comes first).
    private func poll(
        _ polls: [RecordingTransport.Answer], expiresIn: String = "1800", interval: String? = nil
    ) async throws -> (Result<TokenCredential, CourierError>, [Duration], RecordingTransport) {
        let transport = RecordingTransport(script: [DeviceFixtures.json(DeviceFixtures.deviceJSON(expiresIn: expiresIn, interval: interval))] + polls)
        let clock = TestClock(sleepsReturnImmediately: true)
        let flow = try DeviceFixtures.flow(transport, clock: clock)
        let authorization = try await flow.start()
        let result: Result<TokenCredential, CourierError>
        do {
            result = .success(try await flow.waitForApproval(authorization))
        } catch {
            result = .failure(error)
        }
        return (result, clock.sleeps, transport)
    }

    @Test("each poll sends the device_code grant and the client authentication, after waiting the interval")
    func pollBody() async throws {
        let (result, sleeps, transport) = try await poll([DeviceFixtures.token])
        let credential = try result.get()
        #expect(credential.accessToken == "at-new")
        #expect(credential.scope == "read write")  // the requested scope, as the response has none
        #expect(sleeps == [.seconds(5)])
        let request = try #require(await transport.last)
        #expect(request.url.absoluteString == "https://auth.example.com/oauth/token")
        #expect(request.bodyText == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=DEVICE-SECRET-1&client_id=app")
    }

    @Test("authorization_pending keeps the interval; slow_down adds 5 s for good")
    func slowDown() async throws {
        let (result, sleeps, transport) = try await poll([
            DeviceFixtures.error("authorization_pending"), DeviceFixtures.error("slow_down"),
            DeviceFixtures.error("authorization_pending"), DeviceFixtures.error("slow_down"), DeviceFixtures.token,
        ])
        #expect(try result.get().accessToken == "at-new")
        #expect(sleeps == [5, 5, 10, 10, 15].map { .seconds($0) })
        #expect(await transport.count == 6)
    }

    @Test("GitHub's 200 with an error body is read like a 400")
    func pendingWith200() async throws {
        let (result, sleeps, _) = try await poll([DeviceFixtures.error("authorization_pending", status: 200), DeviceFixtures.token])
        #expect(try result.get().accessToken == "at-new")
        #expect(sleeps == [.seconds(5), .seconds(5)])
    }

    @Test("access_denied is .denied with the server's error")
    func denied() async throws {
        let denial = DeviceFixtures.json(#"{"error":"access_denied","error_description":"The user said no"}"#, status: 400)
        let (result, _, transport) = try await poll([DeviceFixtures.error("authorization_pending"), denial])
        #expect(result.failure?.authorizationFailure == .denied(OAuth2Error(code: "access_denied", errorDescription: "The user said no")))
        #expect(await transport.count == 3)
    }

    @Test("expired_token is .expired")
    func expiredToken() async throws {
        let (result, _, _) = try await poll([DeviceFixtures.error("expired_token")])
        #expect(result.failure?.authorizationFailure == .expired)
    }

    @Test("when the next poll would come after expires_in, the flow waits out the code's life and fails without another poll")
    func expiresByClock() async throws {
        let (result, sleeps, transport) = try await poll([DeviceFixtures.error("authorization_pending")], expiresIn: "12")
        #expect(result.failure?.authorizationFailure == .expired)
        #expect(sleeps == [.seconds(5), .seconds(5), .seconds(2)])
        #expect(await transport.count == 3)  // the device request and two polls
    }

    @Test("connection failures, 5xx and 429 double the wait until an ordinary answer; they never fail the flow")
    func connectionBackoff() async throws {
        let lost = RecordingTransport.Answer.failure(.transport(TransportFailure(kind: .connectionLost)))
        let (result, sleeps, _) = try await poll([
            lost, .status(503), .status(429), DeviceFixtures.error("authorization_pending"), .status(500), DeviceFixtures.token,
        ])
        #expect(try result.get().accessToken == "at-new")
        #expect(sleeps == [5, 10, 20, 40, 5, 10].map { .seconds($0) })
    }

    @Test("the connection backoff is capped at 60 s")
    func backoffCap() {
        var schedule = DevicePollSchedule(interval: .seconds(5))
        var waits: [Duration] = []
        for _ in 0..<6 {
            schedule.unreachable()
            waits.append(schedule.nextWait)
        }
        #expect(waits == [10, 20, 40, 60, 60, 60].map { .seconds($0) })
        schedule.pending()
        #expect(schedule.nextWait == .seconds(5))
    }

    @Test("other OAuth2 errors end the flow with the token endpoint's error", arguments: ["invalid_client", "invalid_grant", "unsupported_grant_type"])
    func otherErrors(code: String) async throws {
        let (result, _, transport) = try await poll([DeviceFixtures.error(code)])
        guard case .failure(let error) = result, let failure = OAuth2Fixtures.refreshFailure(error) else {
            Issue.record("expected refreshFailed, got \(result)")
            return
        }
        #expect(failure.oauth2Error?.code == code)
        #expect(failure.reason == .rejected)
        #expect(await transport.count == 2)
    }

    @Test("cancelling while waiting between polls ends the flow with .cancelled at once, and nothing more is sent")
    func cancellation() async throws {
        let transport = RecordingTransport(script: [
            DeviceFixtures.json(DeviceFixtures.deviceJSON()), DeviceFixtures.error("authorization_pending"),
        ])
        let clock = TestClock()
        let flow = try DeviceFixtures.flow(transport, clock: clock)
        let authorization = try await flow.start()
        let task = Task { () async throws(CourierError) -> TokenCredential in try await flow.waitForApproval(authorization) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))  // the first poll: pending
        await clock.waitForSleepers(1)
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result, case .cancelled? = error as? CourierError else {
            Issue.record("expected .cancelled, got \(result)")
            return
        }
        #expect(await transport.count == 2)
        clock.advance(by: .seconds(60))
        #expect(await transport.count == 2)
    }

    @Test("run presents the authorization once, before the first poll")
    func runPresents() async throws {
        let transport = RecordingTransport(script: [DeviceFixtures.json(DeviceFixtures.deviceJSON()), DeviceFixtures.token])
        let flow = try DeviceFixtures.flow(transport)
        let presented = LockedBox<[String]>([])
        let credential = try await flow.run { authorization in
            presented.mutate { $0.append("\(authorization.userCode) after \(transport.self)") }
        }
        #expect(credential.accessToken == "at-new")
        #expect(presented.value.count == 1)
    }

    @Test("an authorization from another flow is timed by its expiresAt on the wall clock")
    func foreignAuthorization() async throws {
        let transport = RecordingTransport(script: [
            DeviceFixtures.json(DeviceFixtures.deviceJSON(expiresIn: "12")), DeviceFixtures.error("authorization_pending"),
        ])
        let authorization = try await DeviceFixtures.flow(transport).start()
        let clock = TestClock(sleepsReturnImmediately: true)
        let other = try DeviceFixtures.flow(transport, clock: clock)
        let error = await courierError { () async throws(CourierError) in try await other.waitForApproval(authorization) }
        #expect(error?.authorizationFailure == .expired)
        #expect(clock.sleeps == [.seconds(5), .seconds(5), .seconds(2)])
    }
}

/// A value behind a lock, for closures that record what they saw.
final class LockedBox<Value: Sendable>: Sendable {
    private let state: LockedState<Value>
    init(_ value: Value) { state = LockedState(value) }
    var value: Value { state.withLock { $0 } }
    func mutate(_ change: @Sendable (inout Value) -> Void) { state.withLock { change(&$0) } }
}

/// Runs `body` and returns the `CourierError` it threw, or `nil` if it returned.
func courierError<T>(from body: () async throws -> T) async -> CourierError? {
    do {
        _ = try await body()
        return nil
    } catch let error as CourierError {
        return error
    } catch {
        Issue.record("not a CourierError: \(error)")
        return nil
    }
}

extension CourierError {
    /// The failure inside `.authentication(.authorizationFailed(_))`, if that is what this is.
    var authorizationFailure: AuthorizationFailure? {
        if case .authentication(.authorizationFailed(let failure)) = self { return failure }
        return nil
    }

    /// Whether this is `.authentication(.missingCredential)`.
    var isMissingCredential: Bool {
        if case .authentication(.missingCredential) = self { return true }
        return false
    }
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
