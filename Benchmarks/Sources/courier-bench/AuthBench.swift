import Courier
import Foundation

/// Courier signing every request with a bearer token from a `TokenRefresher` whose token never
/// expires during the run: the cost of authorization on an un-contended call.
struct CourierBearerClient: BenchClient {
    let label = "courier-bearer"
    let client: Client
    let endpoint: GetItem

    init(port: Int) throws {
        let credential = TokenCredential(accessToken: "bench-token", expiresAt: Date().addingTimeInterval(86_400))
        let refresher = TokenRefresher(store: InMemoryTokenStore(credential)) { _ in credential }
        client = Client(
            configuration: Configuration(
                transport: URLSessionTransport(), authentication: .bearer(refresher),
                authorizedHosts: ["127.0.0.1"]))
        endpoint = GetItem(base: try BaseURL(scheme: .http, host: "127.0.0.1", port: port), requiresAuthorization: true)
    }

    func fetch() async throws -> Item {
        try await client.enqueue(endpoint).resume(expecting: Item.self)
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
