import Courier
import Foundation

/// How one step of the demo ended.
enum Outcome: Sendable {
    /// It behaved as expected; the text gives the key facts.
    case passed(String)
    /// It did not; the text says what was expected and what happened.
    case failed(String)
    /// No connection could be made: the remaining steps are skipped.
    case unreachable(CourierError)
}

/// The demo: real calls through a Courier `Client` against the demo API at `api`.
struct Demo: Sendable {
    let api: BaseURL
    let client: Client

    init(api: BaseURL) {
        self.api = api
        client = Client(configuration: Configuration(
            timeout: .seconds(10),
            headers: [.accept("application/json"), .userAgent("courier-demo")]
        ))
    }

    /// Runs every step in order, printing one line per step, and returns what went wrong.
    func run() async -> Report {
        var report = Report()
        guard report.record("list users", "GET /v1/users", await listUsers()) else { return report }

        let newcomer = NewUser(name: "Katherine Johnson", email: "katherine@example.com")
        let (created, creation) = await createUser(newcomer)
        guard report.record("create user", "POST /v1/users", creation) else { return report }

        if let created {
            let path = "GET /v1/users/\(created.id)"
            guard report.record("fetch created", path, await fetchUser(created)) else { return report }
        }

        let unknownID = 999_999
        guard report.record("unknown user", "GET /v1/users/\(unknownID)", await fetchUnknownUser(id: unknownID)) else { return report }
        guard report.record("cancellation", "GET /v1/slow", await cancelSlowCall()) else { return report }
        _ = report.record("timeout", "GET /v1/slow", await timeOutSlowCall(after: .milliseconds(300)))
        return report
    }

    // MARK: - Steps

    /// Lists users, decoding straight into `[User]`.
    func listUsers() async -> Outcome {
        do {
            let users = try await client.enqueue(ListUsers(api: api)).resume(expecting: [User].self)
            let names = users.prefix(3).map(\.name).joined(separator: ", ")
            let more = users.count > 3 ? ", …" : ""
            return .passed("\(users.count) \(users.count == 1 ? "user" : "users"): \(names)\(more)")
        } catch {
            return unexpected(error, expected: "a list of users")
        }
    }

    /// Creates a user with a JSON body; expects 201 and the same user echoed with an id.
    func createUser(_ new: NewUser) async -> (User?, Outcome) {
        do {
            let response = try await client.enqueue(CreateUser(api: api, user: new)).resume()
            let user = try response.decode(User.self, using: client.configuration.decoder)
            guard response.statusCode == 201 else {
                return (user, .failed("expected 201 Created, got \(response.statusCode)"))
            }
            guard user.name == new.name, user.email == new.email else {
                return (user, .failed("the API echoed \(user.name) <\(user.email)>, not what was sent"))
            }
            let location = response.headerValue(for: "Location").map { ", Location: \($0)" } ?? ""
            return (user, .passed("201 Created, #\(user.id) \(user.name)\(location)"))
        } catch {
            return (nil, unexpected(error, expected: "201 Created with the new user"))
        }
    }

    /// Fetches the user just created, by id.
    func fetchUser(_ expected: User) async -> Outcome {
        do {
            let user = try await client.enqueue(GetUser(api: api, id: expected.id)).resume(expecting: User.self)
            guard user == expected else {
                return .failed("expected \(expected), got \(user)")
            }
            return .passed("#\(user.id) \(user.name) <\(user.email)>")
        } catch {
            return unexpected(error, expected: "the user created in the previous step")
        }
    }

    /// Fetches an id that does not exist: the 404 must arrive as `CourierError.response`.
    func fetchUnknownUser(id: Int) async -> Outcome {
        do {
            let user = try await client.enqueue(GetUser(api: api, id: id)).resume(expecting: User.self)
            return .failed("expected a 404, but the API answered with a user (#\(user.id) \(user.name))")
        } catch .response(let response) where response.statusCode == 404 {
            // The error keeps the whole response: decode the API's error body from it.
            let body = try? response.decode(APIErrorBody.self, using: client.configuration.decoder)
            let message = body.map { "\"\($0.message)\"" } ?? "no JSON error body"
            return .passed(".response, status \(response.statusCode), \(message); description: \(CourierError.response(response))")
        } catch {
            return unexpected(error, expected: "CourierError.response with status 404")
        }
    }

    /// Starts a slow call, waits until the server says the request arrived (a long poll through
    /// the same client, no sleeping), cancels the call's Task and expects `.cancelled`.
    func cancelSlowCall() async -> Outcome {
        let ticket = UUID().uuidString.lowercased()
        let slow = Task { [client, api] () -> Result<Response, CourierError> in
            do throws(CourierError) {
                return .success(try await client.enqueue(SlowCall(api: api, ticket: ticket)).resume())
            } catch {
                return .failure(error)
            }
        }
        do {
            _ = try await client.enqueue(SlowArrival(api: api, ticket: ticket)).resume(expecting: Arrival.self)
        } catch {
            slow.cancel()
            return unexpected(error, expected: "the server to signal the slow request's arrival (GET /v1/slow/arrivals/{ticket})")
        }
        let cancelled = ContinuousClock.now
        slow.cancel()
        switch await slow.value {
        case .failure(.cancelled):
            return .passed(".cancelled \(Self.format(ContinuousClock.now - cancelled)) after Task.cancel() (the server had signalled arrival)")
        case .failure(let error):
            return unexpected(error, expected: "CourierError.cancelled")
        case .success(let response):
            return .failed("expected CourierError.cancelled, but the call finished: \(response)")
        }
    }

    /// Calls the slow endpoint with a short endpoint timeout: expects `.transport` of kind `.timedOut`.
    func timeOutSlowCall(after timeout: Duration) async -> Outcome {
        let started = ContinuousClock.now
        do {
            let response = try await client.enqueue(SlowCall(api: api, timeout: timeout)).resume()
            return .failed("expected a timeout after \(Self.format(timeout)), but got \(response)")
        } catch .transport(let failure) where failure.kind == .timedOut {
            let elapsed = ContinuousClock.now - started
            return .passed(".transport(.timedOut) after \(Self.format(elapsed)) (endpoint timeout \(Self.format(timeout)))")
        } catch {
            return unexpected(error, expected: "CourierError.transport with kind .timedOut")
        }
    }

    // MARK: - Helpers

    /// A failed step; a connection that could not be made at all aborts the demo.
    private func unexpected(_ error: CourierError, expected: String) -> Outcome {
        if case .transport(let failure) = error, [.cannotConnect, .dnsFailure].contains(failure.kind) {
            return .unreachable(error)
        }
        return .failed("expected \(expected), got \(error)")
    }

    /// `0.4 ms`, `312 ms` or `1.25 s`.
    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        switch milliseconds {
        case ..<10: return String(format: "%.1f ms", milliseconds)
        case ..<1000: return String(format: "%.0f ms", milliseconds)
        default: return String(format: "%.2f s", milliseconds / 1000)
        }
    }
}

/// Prints one line per step and keeps what went wrong.
struct Report {
    private(set) var passed = 0
    private(set) var failures: [String] = []
    /// Set when the API could not be reached; the remaining steps were skipped.
    private(set) var unreachable: CourierError?

    /// Prints the step's line; returns whether the demo should go on.
    mutating func record(_ name: String, _ request: String, _ outcome: Outcome) -> Bool {
        let label = name.padding(toLength: 14, withPad: " ", startingAt: 0)
        let call = request.padding(toLength: 20, withPad: " ", startingAt: 0)
        switch outcome {
        case .passed(let facts):
            passed += 1
            Console.out("✓ \(label) \(call) → \(facts)")
            return true
        case .failed(let why):
            failures.append("\(name) (\(request)): \(why)")
            Console.out("✗ \(label) \(call) → \(why)")
            return true
        case .unreachable(let error):
            failures.append("\(name) (\(request)): \(error)")
            unreachable = error
            Console.out("✗ \(label) \(call) → no connection: \(error)")
            return false
        }
    }
}
