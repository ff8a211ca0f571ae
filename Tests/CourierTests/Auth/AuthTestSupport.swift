import Foundation
import HTTPTypes

@testable import Courier

/// A wall clock (`Date`) the test moves by hand, for `TokenRefresher(now:)`; for `Duration`
/// clocks (retry delays, constraint timeouts) tests use `CourierTesting.TestClock`.
final class WallClock: Sendable {
    private let storage = Locked(Date(timeIntervalSince1970: 1_800_000_000))

    var now: Date { storage.value }

    func advance(by seconds: TimeInterval) {
        storage.withValue { $0 = $0.addingTimeInterval(seconds) }
    }

    var closure: @Sendable () -> Date { { self.now } }
}

/// A tiny lock-protected box for test bookkeeping.
final class Locked<Value: Sendable>: @unchecked Sendable {  // every access goes through `lock`
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    @discardableResult
    func withValue<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&stored)
    }
}

/// A one-shot signal: `wait()` suspends until `open()`; waiting after opening returns at once.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func open() {
        isOpen = true
        let released = waiters
        waiters.removeAll()
        for waiter in released { waiter.resume() }
    }

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }
}

/// A token store that counts and can be made to block or fail.
actor CountingStore: TokenStore {
    private(set) var stored: TokenCredential?
    private(set) var loads = 0
    private(set) var saves = 0
    var saveGate: Gate?
    var saveEntered: Gate?
    var failLoads = false
    var failSaves = false

    struct Failure: Error, CustomStringConvertible { var description: String { "disk on fire" } }

    init(_ credential: TokenCredential? = nil) { stored = credential }

    func configure(saveGate: Gate? = nil, saveEntered: Gate? = nil, failLoads: Bool = false, failSaves: Bool = false) {
        self.saveGate = saveGate
        self.saveEntered = saveEntered
        self.failLoads = failLoads
        self.failSaves = failSaves
    }

    func load() async throws -> TokenCredential? {
        loads += 1
        if failLoads { throw Failure() }
        return stored
    }

    func save(_ credential: TokenCredential) async throws {
        saves += 1
        await saveEntered?.open()
        await saveGate?.wait()
        if failSaves { throw Failure() }
        stored = credential
    }

    func remove() async throws { stored = nil }
}

/// Counts refreshes and hands out numbered tokens: at-1, at-2, …
final class TokenMint: Sendable {
    let count = Locked(0)
    let clock: WallClock
    let lifetime: TimeInterval

    init(clock: WallClock, lifetime: TimeInterval = 3600) {
        self.clock = clock
        self.lifetime = lifetime
    }

    func next() -> TokenCredential {
        let n = count.withValue { value -> Int in
            value += 1
            return value
        }
        return TokenCredential(
            accessToken: "at-\(n)", refreshToken: "rt-\(n)",
            expiresAt: clock.now.addingTimeInterval(lifetime), issuedAt: clock.now)
    }
}

extension WallClock {
    func credential(_ name: String, expiresIn seconds: TimeInterval, issuedAgo: TimeInterval = 3600) -> TokenCredential {
        TokenCredential(
            accessToken: name, refreshToken: "rt-\(name)", expiresAt: now.addingTimeInterval(seconds),
            issuedAt: now.addingTimeInterval(-issuedAgo))
    }
}

/// An API transport: answers 200 with the Authorization header it got, or 401 for rejected tokens.
actor BearerAPI: Transport {
    private(set) var requests: [TransportRequest] = []
    private let valid: @Sendable (String?) -> Bool
    var holdNext: Gate?
    var arrived: Gate?

    private let challenges: Bool

    /// - Parameter challenges: whether a 401 carries `WWW-Authenticate: Bearer error="invalid_token"`.
    init(challenges: Bool = true, valid: @escaping @Sendable (String?) -> Bool = { _ in true }) {
        self.challenges = challenges
        self.valid = valid
    }

    func hold(until gate: Gate, signalling arrived: Gate) {
        holdNext = gate
        self.arrived = arrived
    }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        requests.append(request)
        if let gate = holdNext {
            holdNext = nil
            await arrived?.open()
            await gate.wait()
        }
        let authorization = request.head.headerFields[.authorization]
        let status = valid(authorization) ? 200 : 401
        let headers = status == 401 && challenges ? ["WWW-Authenticate": #"Bearer error="invalid_token""#] : [:]
        return StreamedResponse(
            statusCode: status, headers: headers,
            body: Data((authorization ?? "none").utf8), url: request.url)
    }

    var authorizations: [String?] { requests.map { $0.head.headerFields[.authorization] } }
}

struct APIEndpoint: Requestable {
    var host = "api.example.com"
    var requiresAuthorization = true
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: host) }
    func path() throws(CourierError) -> URLPath { try URLPath("/me") }
}

func expectAuthFailure(_ error: any Error, _ match: (AuthenticationFailure) -> Bool) -> Bool {
    guard case .authentication(let failure) = error as? CourierError else { return false }
    return match(failure)
}

/// A token endpoint behind a fake transport: answers every POST with a new token, counting them.
func countingTokenEndpoint(clock: WallClock) throws -> (OAuth2TokenEndpoint, Locked<Int>) {
    let requests = Locked(0)
    let transport = RecordingTransport { request throws(CourierError) in
        let n = requests.withValue { value -> Int in
            value += 1
            return value
        }
        let body = #"{"access_token":"at-\#(n)","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-\#(n)"}"#
        return Response(statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8), url: request.url)
    }
    let endpoint = OAuth2TokenEndpoint(
        baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/token"),
        clientAuthentication: .publicClient(clientID: "tests"), configuration: Configuration(transport: transport),
        now: clock.closure)
    return (endpoint, requests)
}
