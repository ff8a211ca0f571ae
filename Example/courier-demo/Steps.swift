import Courier
import CourierOAuth
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
        client = Client(
            configuration: Configuration(
                timeout: .seconds(10),
                headers: [.accept("application/json")],
                userAgent: "courier-demo"
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

        guard report.record("multipart upload", "POST /v1/uploads", await uploadFile(bytes: 8 << 20)) else { return report }

        let unknownID = 999_999
        guard report.record("unknown user", "GET /v1/users/\(unknownID)", await fetchUnknownUser(id: unknownID)) else { return report }
        let concurrentCalls = 50
        guard
            report.record(
                "coalesced refresh", "\(concurrentCalls) concurrent calls with an expired token",
                await coalescedRefresh(calls: concurrentCalls)
            )
        else { return report }
        guard
            report.record(
                "generated client", "OpenAPI operations through CourierClientTransport",
                await generatedClient(calls: concurrentCalls)
            )
        else { return report }
        guard report.record("device flow", "RFC 8628 via discovery", await deviceFlow()) else { return report }
        guard report.record("loopback sign-in", "PKCE + 127.0.0.1 redirect", await loopbackSignIn()) else { return report }
        guard report.record("download to disk", "GET /v1/files/report.bin", await download()) else { return report }
        guard report.record("server-sent events", "GET /v1/events", await serverSentEvents()) else { return report }
        guard report.record("WebSocket", "GET /v1/live (upgrade)", await webSocket()) else { return report }
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
            let user = try response.decode(User.self, using: JSONBodyDecoder(client.configuration.decoder))
            guard response.statusCode == 201 else {
                return (user, .failed("expected 201 Created, got \(response.statusCode)"))
            }
            guard user.name == new.name, user.email == new.email else {
                return (user, .failed("the API echoed \(user.name) <\(user.email)>, not what was sent"))
            }
            let location = response.headers[.location].map { ", Location: \($0)" } ?? ""
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

    /// Uploads a temporary file of `bytes` bytes as a multipart part, streamed from disk: the API
    /// must receive exactly the announced `Content-Length`, without chunked framing.
    func uploadFile(bytes: Int) async -> Outcome {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            try Data(repeating: 0x2A, count: bytes).write(to: file)
        } catch {
            return .failed("could not write a temporary file: \(error.localizedDescription)")
        }
        var form = MultipartForm()
        form.append(text: "Quarterly report", name: "title")
        form.append(fileAt: file, name: "report", filename: "report.bin")
        do {
            let receipt = try await client.enqueue(Upload(api: api, form: form)).resume(expecting: UploadReceipt.self)
            guard receipt.contentLength == receipt.bytes, !receipt.chunked, receipt.bytes > bytes else {
                return .failed(
                    "the API received \(receipt.bytes) bytes, Content-Length \(receipt.contentLength.map(String.init) ?? "none"), chunked: \(receipt.chunked)")
            }
            return .passed("\(bytes >> 20) MiB file streamed from disk in a form of \(receipt.bytes) bytes; Content-Length matched, no chunking")
        } catch {
            return unexpected(error, expected: "201 with an upload receipt")
        }
    }

    /// Fetches an id that does not exist: the 404 must arrive as `CourierError.response`.
    func fetchUnknownUser(id: Int) async -> Outcome {
        do {
            let user = try await client.enqueue(GetUser(api: api, id: id)).resume(expecting: User.self)
            return .failed("expected a 404, but the API answered with a user (#\(user.id) \(user.name))")
        } catch .response(let response) where response.statusCode == 404 {
            // The error keeps the whole response: decode the API's error body from it.
            let body = try? response.decode(APIErrorBody.self, using: JSONBodyDecoder(client.configuration.decoder))
            let message = body.map { "\"\($0.message)\"" } ?? "no JSON error body"
            return .passed(".response, status \(response.statusCode), \(message); description: \(CourierError.response(response))")
        } catch {
            return unexpected(error, expected: "CourierError.response with status 404")
        }
    }

    /// Signs in at the token endpoint, marks the credential expired (as an app finds it the morning
    /// after), and fires `calls` concurrent `GET /v1/me` through a bearer client. The refresher
    /// must renew the token with exactly **one** token request for all of them (the server's
    /// refresh tokens are single-use: a second refresh with the same one would be `invalid_grant`
    /// and revoke the session), and every call must succeed. The count comes from the server's
    /// `GET /v1/admin/stats`, read before and after.
    func coalescedRefresh(calls: Int) async -> Outcome {
        let before: AuthStats
        do {
            before = try await client.enqueue(GetAuthStats(api: api)).resume(expecting: AuthStats.self)
        } catch {
            return unexpected(error, expected: "token statistics from GET /v1/admin/stats")
        }

        let tokens: OAuth2TokenEndpoint
        let signedIn: TokenCredential
        do {
            // Token requests go straight to the transport, never through a client (whose calls
            // may be the ones waiting for this very token).
            tokens = OAuth2TokenEndpoint(
                baseURL: api,
                path: try URLPath("/oauth/token"),
                clientAuthentication: .basic(clientID: DemoClient.id, clientSecret: DemoClient.secret),
                configuration: Configuration(transport: Configuration.defaultTransport),
                timeout: .seconds(10)
            )
            signedIn = try await tokens.requestToken(
                grantType: "password",
                parameters: [
                    QueryItem(name: "username", value: DemoAccount.username),
                    QueryItem(name: "password", value: DemoAccount.password),
                ])
        } catch {
            return unexpected(error, expected: "to sign in with the password grant at POST /oauth/token")
        }

        var expired = signedIn
        expired.issuedAt = Date(timeIntervalSinceNow: -7_200)
        expired.expiresAt = Date(timeIntervalSinceNow: -3_600)
        let refresher = TokenRefresher(store: InMemoryTokenStore(expired), tokenEndpoint: tokens)
        let authorized = Client(
            configuration: Configuration(
                timeout: .seconds(10),
                headers: client.configuration.headers,
                authentication: .bearer(refresher),
                authorizedHosts: [api.host]
            ))

        let results = await withTaskGroup(of: Result<User, CourierError>.self) { group in
            for _ in 0..<calls {
                group.addTask { [api] in
                    do throws(CourierError) {
                        return .success(try await authorized.enqueue(GetMe(api: api)).resume(expecting: User.self))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var results: [Result<User, CourierError>] = []
            for await result in group { results.append(result) }
            return results
        }

        let after: AuthStats
        do {
            after = try await client.enqueue(GetAuthStats(api: api)).resume(expecting: AuthStats.self)
        } catch {
            return unexpected(error, expected: "token statistics from GET /v1/admin/stats")
        }
        // The sign-in was one token request; everything else is the refresh.
        let tokenRequests = after.tokenRequests - before.tokenRequests - 1
        let invalidGrants = after.invalidGrants - before.invalidGrants
        let successes = results.filter { (try? $0.get())?.id == DemoAccount.userID }.count
        let failures = results.compactMap { result -> CourierError? in
            if case .failure(let error) = result { return error }
            return nil
        }
        let renewed = (try? await refresher.currentCredential())?.accessToken
        guard tokenRequests == 1, invalidGrants == 0, successes == calls, renewed != signedIn.accessToken else {
            var problems = ["\(tokenRequests) token \(tokenRequests == 1 ? "request" : "requests") (expected 1)"]
            if invalidGrants > 0 { problems.append("\(invalidGrants) invalid_grant") }
            problems.append("\(successes) × 200 of \(calls)")
            if let first = failures.first { problems.append("\(failures.count) failed, e.g. \(first)") }
            if renewed == signedIn.accessToken { problems.append("the token was never renewed") }
            return .failed(problems.joined(separator: ", "))
        }
        return .passed("1 token request, \(successes) × 200")
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
    func unexpected(_ error: CourierError, expected: String) -> Outcome {
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

    /// `text` padded with spaces to `width`; longer text is kept whole.
    private static func pad(_ text: String, to width: Int) -> String {
        text.count >= width ? text : text.padding(toLength: width, withPad: " ", startingAt: 0)
    }

    /// Prints the step's line; returns whether the demo should go on.
    mutating func record(_ name: String, _ request: String, _ outcome: Outcome) -> Bool {
        let label = Self.pad(name, to: 18)
        let call = Self.pad(request, to: 20)
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
