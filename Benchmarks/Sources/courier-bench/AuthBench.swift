import Courier
import Foundation
import HTTPTypes

/// Courier signing every request with a bearer token from a `TokenRefresher` whose token never
/// expires during the run: the cost of authorization on an un-contended call.
///
/// - `courier-bearer` / `courier-ahc-bearer`: `Configuration(authentication: .bearer(refresher))`
///   over `URLSessionTransport()` / `AsyncHTTPClientTransport()`: Courier's authentication stage,
///   which asks the refresher actor (until 2026-11-28 it read a lock-protected copy instead; the
///   `-hop` clients measured what dropping that copy would cost, and it was dropped);
/// - `courier-bearer-hop` / `courier-ahc-bearer-hop`: the same transport and refresher, no
///   `authentication`, and a ``HopBearerSigner`` middleware that hops onto the actor for every
///   call (`try await refresher.validCredential()`): now the stage's own path, from a middleware.
struct CourierBearerClient: BenchClient {
    /// How a call gets its credential.
    enum Signing {
        /// Courier's `.bearer` authentication stage (named for the lock it read until 2026-11-28).
        case lock
        /// ``HopBearerSigner``: a turn on the refresher actor per call.
        case hop
    }

    let label: String
    let client: Client
    let endpoint: GetItem

    init(_ label: String, transport: any Transport, signing: Signing, port: Int) throws {
        self.label = label
        let credential = TokenCredential(accessToken: "bench-token", expiresAt: Date().addingTimeInterval(86_400))
        let refresher = TokenRefresher(store: InMemoryTokenStore(credential)) { _ in credential }
        let base = try BaseURL(scheme: .http, host: "127.0.0.1", port: port)
        switch signing {
        case .lock:
            client = Client(
                configuration: Configuration(transport: transport, authentication: .bearer(refresher), authorizedHosts: ["127.0.0.1"]))
            endpoint = GetItem(base: base, requiresAuthorization: true)
        case .hop:
            var configuration = Configuration(transport: transport)
            configuration.middleware = [HopBearerSigner(refresher: refresher)]
            client = Client(configuration: configuration)
            endpoint = GetItem(base: base)
        }
    }

    func fetch() async throws -> Item {
        try await client.enqueue(endpoint).resume(expecting: Item.self)
    }
}

/// Signs every request with `Authorization: Bearer …` from `refresher.validCredential()`: a turn
/// on the refresher actor per call, where Courier's `.bearer` authentication reads the valid
/// credential under a lock. It does less than that stage otherwise: no authorized-host check, no
/// replay after a `401`, and it runs once per call above the retry stage, not once per attempt.
/// With `authorizedHost` (`--overhead`'s `courier-bearer-hop-host`) it first compares the host of
/// the request's URL with it, as a stand-in for the stage's authorized-host check (which parses
/// the URL too), so that what differs from `courier-bearer` is mostly the hop.
struct HopBearerSigner: Middleware {
    let refresher: TokenRefresher
    var authorizedHost: String?

    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        if let authorizedHost {
            let host = request.url.host ?? "<no host>"
            guard host == authorizedHost else { throw .authentication(.hostNotAuthorized(host: host)) }
        }
        // `validCredential()` already throws `CourierError` only.
        let credential = try await refresher.validCredential()
        var request = request
        request.head.headerFields[.authorization] = "Bearer " + credential.accessToken
        return try await next(request)
    }
}

/// `--auth-burst N`: N concurrent calls that all find the token expired, against the same burst
/// without authentication, alternating, `rounds` times. Prints the wall time of each and the
/// number of refreshes (which must be exactly one per burst).
enum AuthBurst {
    static func run(calls: Int, rounds: Int, port: Int) async throws {
        let base = try BaseURL(scheme: .http, host: "127.0.0.1", port: port)
        let transport = URLSessionTransport()
        let plain = Client(configuration: Configuration(transport: transport))
        var authorizedTimes: [Double] = []
        var plainTimes: [Double] = []
        var refreshCounts: [Int] = []
        for round in 0..<rounds {
            let refreshes = Counter()
            let expired = TokenCredential(accessToken: "expired", refreshToken: "r", expiresAt: Date().addingTimeInterval(-1))
            let refresher = TokenRefresher(store: InMemoryTokenStore(expired)) { _ in
                await refreshes.increment()
                return TokenCredential(accessToken: "fresh", expiresAt: Date().addingTimeInterval(3600))
            }
            let authorized = Client(
                configuration: Configuration(
                    transport: transport, authentication: .bearer(refresher),
                    authorizedHosts: ["127.0.0.1"]))
            let order: [(Client, Bool)] = round.isMultiple(of: 2) ? [(authorized, true), (plain, false)] : [(plain, false), (authorized, true)]
            for (client, isAuthorized) in order {
                let endpoint = GetItem(base: base, requiresAuthorization: isAuthorized)
                let started = ContinuousClock.now
                let successes = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<calls {
                        group.addTask {
                            _ = try await client.enqueue(endpoint).resume(expecting: Item.self); return 1
                        }
                    }
                    return try await group.reduce(0, +)
                }
                let elapsed = (ContinuousClock.now - started).seconds
                guard successes == calls else { throw BenchError("burst: \(successes) of \(calls) calls succeeded") }
                if isAuthorized { authorizedTimes.append(elapsed) } else { plainTimes.append(elapsed) }
            }
            refreshCounts.append(await refreshes.value)
            CourierBench.say(
                "  auth burst round \(round + 1)/\(rounds): \(calls) calls with an expired token "
                    + "\(CourierBench.format(authorizedTimes.last! * 1000, 0)) ms (\(refreshCounts.last!) refresh), "
                    + "without authentication \(CourierBench.format(plainTimes.last! * 1000, 0)) ms")
        }
        let authorizedMedian = median(authorizedTimes), plainMedian = median(plainTimes)
        CourierBench.say(
            """

            auth burst: \(calls) concurrent calls, median of \(rounds) rounds: expired token \
            \(CourierBench.format(authorizedMedian * 1000, 0)) ms, no authentication \(CourierBench.format(plainMedian * 1000, 0)) ms, \
            ratio \(CourierBench.format(authorizedMedian / plainMedian, 3)); refreshes per burst: \
            \(Set(refreshCounts).sorted().map(String.init).joined(separator: ", "))
            """)
    }

    actor Counter {
        private(set) var value = 0
        func increment() { value += 1 }
    }
}
