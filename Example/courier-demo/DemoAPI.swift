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
        await DemoRoutes(users: UserStore(), arrivals: ArrivalBoard()).install(on: server)
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

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    func install(on server: HTTPServer) async {
        await server.appendRoute("GET /v1/users") { _ in
            Self.json(.ok, await users.all())
        }
        await server.appendRoute("GET /v1/users/:id") { request in
            let id = request.routeParameters["id"] ?? ""
            guard let number = Int(id), let user = await users.user(id: number) else {
                return Self.error(.notFound, "not_found", "no user with id \(id)")
            }
            return Self.json(.ok, user)
        }
        await server.appendRoute("POST /v1/users") { request in
            let contentType = request.headers[.contentType] ?? ""
            guard contentType.lowercased().hasPrefix("application/json") else {
                return Self.error(.unsupportedMediaType, "unsupported_media_type", "send the user as application/json")
            }
            guard let new = try? JSONDecoder().decode(NewUser.self, from: await request.bodyData) else {
                return Self.error(.badRequest, "bad_request", "expected {\"name\": …, \"email\": …}")
            }
            let user = await users.create(new)
            return Self.json(.created, user, headers: [.location: "/v1/users/\(user.id)"])
        }
        await server.appendRoute("GET /v1/slow") { request in
            if let ticket = request.query["ticket"] {
                await arrivals.markArrived(ticket)
            }
            try await Task.sleep(for: DemoServer.slowDelay)   // cancelled when the server stops
            return Self.json(.ok, ["message": "thanks for waiting"])
        }
        await server.appendRoute("GET /v1/slow/arrivals/:ticket") { request in
            let ticket = request.routeParameters["ticket"] ?? ""
            guard await arrivals.waitForArrival(of: ticket, upTo: DemoServer.arrivalWait) else {
                return Self.error(.notFound, "not_arrived", "no slow request with ticket \(ticket) arrived within \(DemoServer.arrivalWait)")
            }
            return Self.json(.ok, Arrival(ticket: ticket, arrived: true))
        }
        await server.appendRoute("*") { request in
            Self.error(.notFound, "not_found", "no route for \(request.method.rawValue) \(request.path)")
        }
    }

    private static func json(
        _ status: HTTPStatusCode, _ value: some Encodable, headers: HTTPHeaders = [:]
    ) -> FlyingFox.HTTPResponse {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return FlyingFox.HTTPResponse(statusCode: status, headers: headers, body: body)
    }

    private static func error(_ status: HTTPStatusCode, _ code: String, _ message: String) -> FlyingFox.HTTPResponse {
        json(status, APIErrorBody(error: code, message: message))
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
