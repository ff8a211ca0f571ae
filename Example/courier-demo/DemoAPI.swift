import FlyingFox
import Foundation

/// The demo's JSON API, served in-process by FlyingFox on 127.0.0.1 with an ephemeral port.
///
/// - `GET  /v1/users`                  every user
/// - `GET  /v1/users/{id}`             one user; 404 with an ``APIErrorBody`` for unknown ids
/// - `POST /v1/users`                  creates a user from a JSON ``NewUser``; 201 with the user
/// - `GET  /v1/slow?ticket=…`          answers only after ``slowDelay``
/// - `GET  /v1/slow/arrivals/{ticket}` long poll: 200 once the slow request with `ticket` has
///   arrived, 404 if it has not within ``arrivalWait``
/// - `POST /oauth/token`               OAuth2 token endpoint (RFC 6749), form-urlencoded, client
///   authentication by HTTP Basic (``DemoClient``): the `password` grant signs ``DemoAccount`` in,
///   the `refresh_token` grant renews. Refresh tokens are **single-use and rotating**: each
///   refresh answers a new pair, and presenting a spent refresh token answers
///   `400 {"error":"invalid_grant"}` and revokes the whole token family
/// - `GET  /v1/me`                     the signed-in user; needs `Authorization: Bearer <token>`
///   with the family's current access token, else 401 with `WWW-Authenticate: Bearer error="invalid_token"`
/// - `GET  /.well-known/oauth-authorization-server`, `GET /oauth/authorize`,
///   `POST /oauth/device_authorization`, `POST /oauth/device`, `POST /oauth/revoke`: the
///   interactive flows (see `DemoAuthorizationServer.swift`)
/// - `GET  /v1/files/report.bin`, `GET /v1/events`: a resumable download and a Server-Sent
///   Events stream (see `DemoTransferRoutes.swift`)
/// - `GET  /v1/admin/stats`            ``AuthStats``: token requests served so far
///
/// Anything else is a 404 with an ``APIErrorBody``.
struct DemoServer: Sendable {
    /// How long `GET /v1/slow` takes to answer.
    static let slowDelay: Duration = .seconds(30)
    /// How long `GET /v1/slow/arrivals/{ticket}` waits for the slow request.
    static let arrivalWait: Duration = .seconds(5)

    /// The port the server listens on, read back from the socket.
    let port: UInt16
    private let server: HTTPServer
    private let serving: Task<Void, any Error>

    /// Starts the server on 127.0.0.1 with a port the system picks, and waits until it listens.
    static func start() async throws -> DemoServer {
        // The handler timeout must outlast the slow endpoint, or FlyingFox answers it with a 500.
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 120, logger: .disabled)
        await DemoRoutes(users: UserStore(), arrivals: ArrivalBoard(), tokens: TokenAuthority()).install(on: server)
        let serving = Task { try await server.run() }
        do {
            try await server.waitUntilListening()
        } catch {
            serving.cancel()
            throw DemoServerError("the server did not start listening: \(error)")
        }
        guard case .ip4(_, let port)? = await server.listeningAddress else {
            serving.cancel()
            throw DemoServerError("could not read the listening port back")
        }
        return DemoServer(port: port, server: server, serving: serving)
    }

    /// Serves until the process is killed (or the server fails).
    func serveForever() async throws {
        try await serving.value
    }

    /// Closes the listening socket and cancels requests still being handled (the slow ones).
    func stop() async {
        await server.stop(timeout: 0)
        serving.cancel()
    }
}

struct DemoServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The routes and their handlers.
private struct DemoRoutes: Sendable {
    let users: UserStore
    let arrivals: ArrivalBoard
    let tokens: TokenAuthority

    func install(on server: HTTPServer) async {
        await server.appendRoute("GET /v1/users") { _ in
            DemoJSON.response(.ok, await users.all())
        }
        await server.appendRoute("GET /v1/users/:id") { request in
            let id = request.routeParameters["id"] ?? ""
            guard let number = Int(id), let user = await users.user(id: number) else {
                return DemoJSON.error(.notFound, "not_found", "no user with id \(id)")
            }
            // A user record may be kept for a minute: the generated-client step's cached GET.
            return DemoJSON.response(.ok, user, headers: [HTTPHeader("Cache-Control"): "max-age=60"])
        }
        await server.appendRoute("POST /v1/users") { request in
            let contentType = request.headers[.contentType] ?? ""
            guard contentType.lowercased().hasPrefix("application/json") else {
                return DemoJSON.error(.unsupportedMediaType, "unsupported_media_type", "send the user as application/json")
            }
            guard let new = try? JSONDecoder().decode(NewUser.self, from: await request.bodyData) else {
                return DemoJSON.error(.badRequest, "bad_request", "expected {\"name\": …, \"email\": …}")
            }
            let user = await users.create(new)
            return DemoJSON.response(.created, user, headers: [.location: "/v1/users/\(user.id)"])
        }
        await server.appendRoute("POST /v1/uploads") { request in
            // Reads the body as it arrives and reports what came, so the client can check it.
            var received = 0
            for try await chunk in request.bodySequence {
                received += chunk.count
            }
            return DemoJSON.response(
                .created,
                UploadReceipt(
                    bytes: received,
                    contentLength: request.headers[.contentLength].flatMap(Int.init),
                    chunked: request.headers[HTTPHeader("Transfer-Encoding")] != nil,
                    contentType: request.headers[.contentType] ?? ""
                ))
        }
        await server.appendRoute("GET /v1/slow") { request in
            if let ticket = request.query["ticket"] {
                await arrivals.markArrived(ticket)
            }
            try await Task.sleep(for: DemoServer.slowDelay)  // cancelled when the server stops
            return DemoJSON.response(.ok, ["message": "thanks for waiting"])
        }
        await server.appendRoute("GET /v1/slow/arrivals/:ticket") { request in
            let ticket = request.routeParameters["ticket"] ?? ""
            guard await arrivals.waitForArrival(of: ticket, upTo: DemoServer.arrivalWait) else {
                return DemoJSON.error(.notFound, "not_arrived", "no slow request with ticket \(ticket) arrived within \(DemoServer.arrivalWait)")
            }
            return DemoJSON.response(.ok, Arrival(ticket: ticket, arrived: true))
        }
        await server.appendRoute("POST /oauth/token") { request in
            let contentType = request.headers[.contentType] ?? ""
            let form =
                contentType.lowercased().hasPrefix("application/x-www-form-urlencoded")
                ? FormEncoding.parse(try await request.bodyData) : nil
            switch await tokens.answer(form: form, authorization: request.headers[.authorization]) {
            case .issued(let token):
                return DemoJSON.response(.ok, token, headers: [HTTPHeader("Cache-Control"): "no-store"])
            case .rejected(let status, let error):
                return DemoJSON.response(status, error, headers: [HTTPHeader("Cache-Control"): "no-store"])
            }
        }
        await AuthorizationRoutes(tokens: tokens).install(on: server)
        await DemoTransferRoutes().install(on: server)
        await server.appendRoute("GET /v1/me") { request in
            let authorization = request.headers[.authorization] ?? ""
            let token = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst("Bearer ".count)) : ""
            guard let userID = await tokens.user(forAccessToken: token), let user = await users.user(id: userID) else {
                return DemoJSON.response(
                    .unauthorized, APIErrorBody(error: "invalid_token", message: "send a current access token"),
                    headers: [HTTPHeader("WWW-Authenticate"): #"Bearer error="invalid_token""#]
                )
            }
            return DemoJSON.response(.ok, user)
        }
        await server.appendRoute("GET /v1/admin/stats") { _ in
            DemoJSON.response(.ok, await tokens.stats)
        }
        // A WebSocket echo (FlyingFox's), for the WebSocket step.
        await server.appendRoute("GET /v1/live", to: WebSocketHTTPHandler(handler: MessageFrameWSHandler(handler: EchoWSMessageHandler())))
        await server.appendRoute("*") { request in
            DemoJSON.error(.notFound, "not_found", "no route for \(request.method.rawValue) \(request.path)")
        }
    }
}

/// The users the API serves, seeded with three.
private actor UserStore {
    private var users = [
        User(id: 1, name: "Ada Lovelace", email: "ada@example.com"),
        User(id: 2, name: "Grace Hopper", email: "grace@example.com"),
        User(id: 3, name: "Alan Turing", email: "alan@example.com"),
    ]

    func all() -> [User] { users }

    func user(id: Int) -> User? { users.first { $0.id == id } }

    func create(_ new: NewUser) -> User {
        let user = User(id: (users.map(\.id).max() ?? 0) + 1, name: new.name, email: new.email)
        users.append(user)
        return user
    }
}

/// The demo's OAuth2 authorization server: token families with single-use rotating refresh tokens.
actor TokenAuthority {
    /// The answer to one token request.
    enum Answer {
        case issued(TokenResponseBody)
        case rejected(HTTPStatusCode, OAuth2ErrorBody)
    }

    /// How long an access token lives.
    static let accessTokenLifetime = 3_600

    private struct Family {
        var userID: Int
        var accessToken: String?
        var revoked = false
    }

    var stats = AuthStats(tokenRequests: 0, refreshGrants: 0, invalidGrants: 0, revocations: 0)
    private var families: [Int: Family] = [:]
    /// Authorization codes not yet exchanged, with the PKCE challenge and redirect URI they were issued for.
    var codes: [String: IssuedCode] = [:]
    /// Device authorizations by device code, and the device code of each user code.
    var devices: [String: DeviceGrant] = [:]
    var deviceCodes: [String: String] = [:]
    private var refreshTokens: [String: (family: Int, spent: Bool)] = [:]
    private var accessTokens: [String: Int] = [:]
    private var nextFamily = 1

    /// The user whose family's current access token `token` is, if it is one.
    func user(forAccessToken token: String) -> Int? {
        guard let family = accessTokens[token], let entry = families[family],
            !entry.revoked, entry.accessToken == token
        else { return nil }
        return entry.userID
    }

    /// Checks the client, then runs the grant. `form` is `nil` when the body is not a form.
    func answer(form: [(name: String, value: String)]?, authorization: String?) -> Answer {
        stats.tokenRequests += 1
        guard DemoClient.isAuthenticated(authorization) else {
            return .rejected(.unauthorized, OAuth2ErrorBody(error: "invalid_client", errorDescription: "unknown client or wrong secret"))
        }
        guard let form else {
            return .rejected(.badRequest, OAuth2ErrorBody(error: "invalid_request", errorDescription: "send application/x-www-form-urlencoded"))
        }
        let fields = Dictionary(form.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard fields.count == form.count else {
            return .rejected(.badRequest, OAuth2ErrorBody(error: "invalid_request", errorDescription: "a parameter is repeated"))
        }
        switch fields["grant_type"] {
        case "password":
            guard fields["username"] == DemoAccount.username, fields["password"] == DemoAccount.password else {
                return .rejected(.badRequest, OAuth2ErrorBody(error: "invalid_grant", errorDescription: "wrong username or password"))
            }
            return signIn()
        case "refresh_token":
            stats.refreshGrants += 1
            return refresh(fields["refresh_token"] ?? "")
        case "authorization_code":
            return exchange(code: fields["code"] ?? "", redirectURI: fields["redirect_uri"], verifier: fields["code_verifier"])
        case DeviceGrant.grantType:
            return pollDevice(fields["device_code"] ?? "")
        default:
            return .rejected(
                .badRequest,
                OAuth2ErrorBody(
                    error: "unsupported_grant_type",
                    errorDescription: "use password, refresh_token, authorization_code or \(DeviceGrant.grantType)"))
        }
    }

    /// Signs the demo account in: a new token family for it.
    func signIn() -> Answer {
        let family = nextFamily
        nextFamily += 1
        families[family] = Family(userID: DemoAccount.userID)
        return .issued(issue(in: family))
    }

    /// RFC 7009: revokes the family of `token` (a refresh or an access token). Unknown tokens are
    /// not an error (§2.2).
    func revoke(_ token: String) {
        stats.revocations += 1
        let family = refreshTokens[token]?.family ?? accessTokens[token]
        if let family { families[family]?.revoked = true }
    }

    private func refresh(_ presented: String) -> Answer {
        guard let entry = refreshTokens[presented], let family = families[entry.family] else {
            return invalidGrant("unknown refresh token")
        }
        if entry.spent {
            // A spent refresh token came back: someone holds a copy. The whole family dies.
            families[entry.family]?.revoked = true
            return invalidGrant("refresh token reused; every token of its family is revoked")
        }
        if family.revoked {
            return invalidGrant("the token family is revoked")
        }
        refreshTokens[presented]?.spent = true
        return .issued(issue(in: entry.family))
    }

    func invalidGrant(_ description: String) -> Answer {
        stats.invalidGrants += 1
        return .rejected(.badRequest, OAuth2ErrorBody(error: "invalid_grant", errorDescription: description))
    }

    private func issue(in family: Int) -> TokenResponseBody {
        let access = "at-" + UUID().uuidString.lowercased()
        let refresh = "rt-" + UUID().uuidString.lowercased()
        families[family]?.accessToken = access  // the previous access token stops working
        accessTokens[access] = family
        refreshTokens[refresh] = (family, false)
        return TokenResponseBody(accessToken: access, tokenType: "Bearer", expiresIn: Self.accessTokenLifetime, refreshToken: refresh)
    }
}

/// A successful token response (RFC 6749 §5.1).
struct TokenResponseBody: Encodable, Sendable {
    var accessToken: String
    var tokenType: String
    var expiresIn: Int
    var refreshToken: String

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", expiresIn = "expires_in", refreshToken = "refresh_token"
    }
}

/// An OAuth2 error response (RFC 6749 §5.2).
struct OAuth2ErrorBody: Encodable, Sendable {
    var error: String
    var errorDescription: String

    enum CodingKeys: String, CodingKey {
        case error, errorDescription = "error_description"
    }
}

/// `application/x-www-form-urlencoded` as RFC 6749 uses it, for the token endpoint.
enum FormEncoding {
    /// `+` is a space, then percent-decoding; `nil` for a malformed escape.
    static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// The pairs in order; `nil` if any does not decode.
    static func parse(_ body: Data) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count == 2 ? parts[1] : "") else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// `Basic base64(urlencoded id ":" urlencoded secret)` (RFC 6749 §2.3.1), decoded.
    static func basicCredentials(_ authorization: String) -> (id: String, secret: String)? {
        guard authorization.hasPrefix("Basic "),
            let data = Data(base64Encoded: String(authorization.dropFirst("Basic ".count))),
            let joined = String(data: data, encoding: .utf8),
            let colon = joined.firstIndex(of: ":"),
            let id = decode(joined[..<colon]),
            let secret = decode(joined[joined.index(after: colon)...])
        else { return nil }
        return (id, secret)
    }
}

/// Which slow requests have arrived, and who is waiting to hear about it.
private actor ArrivalBoard {
    private var arrived: Set<String> = []
    private var waiters: [String: [UUID: CheckedContinuation<Bool, Never>]] = [:]

    func markArrived(_ ticket: String) {
        arrived.insert(ticket)
        for waiter in (waiters.removeValue(forKey: ticket) ?? [:]).values {
            waiter.resume(returning: true)
        }
    }

    /// `true` as soon as the slow request with `ticket` has arrived; `false` after `limit`.
    func waitForArrival(of ticket: String, upTo limit: Duration) async -> Bool {
        if arrived.contains(ticket) { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.arrival(of: ticket) }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func arrival(of ticket: String) async -> Bool {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if arrived.contains(ticket) {
                    continuation.resume(returning: true)
                } else if Task.isCancelled {
                    // Cancelled before registering: the handler below found nothing to resume.
                    continuation.resume(returning: false)
                } else {
                    waiters[ticket, default: [:]][id] = continuation
                }
            }
        } onCancel: {
            Task { await self.giveUp(ticket: ticket, id: id) }
        }
    }

    private func giveUp(ticket: String, id: UUID) {
        waiters[ticket]?.removeValue(forKey: id)?.resume(returning: false)
    }
}
