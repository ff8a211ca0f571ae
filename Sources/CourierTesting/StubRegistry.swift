import Foundation

/// The routes and the recorded requests of one ``NetworkStub``.
///
/// `@unchecked Sendable` because its state is shared between the test's tasks (which add routes
/// and read requests) and URLSession's queues (which record requests and pick responses).
/// Every access to a `var` below happens between `lock.lock()` and `lock.unlock()` in this
/// class, and no user code (a handler) runs while the lock is held, so a handler may call back
/// into the stub without deadlocking.
final class StubStorage: @unchecked Sendable {
    /// One registration, tried in the order they were added.
    struct Route {
        enum Rule {
            /// Method and path (with or without the query), answered with a fixed response.
            case path(method: String, path: String, ignoringQuery: Bool, response: StubResponse)
            /// A closure that answers or passes (`nil`).
            case handler(@Sendable (RecordedRequest) -> StubResponse?)
        }

        let id: Int
        let rule: Rule
        /// How many more requests this route may answer; `nil` for any number.
        var remaining: Int?
    }

    private let lock = NSLock()
    private var routes: [Route] = []
    private var nextRouteID = 0
    private var recorded: [RecordedRequest] = []
    private var unmatched: [RecordedRequest] = []

    func add(_ rule: Route.Rule, times: Int? = nil) {
        lock.lock()
        routes.append(Route(id: nextRouteID, rule: rule, remaining: times))
        nextRouteID += 1
        lock.unlock()
    }

    var requests: [RecordedRequest] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    var unmatchedRequests: [RecordedRequest] {
        lock.lock()
        defer { lock.unlock() }
        return unmatched
    }

    func reset() {
        lock.lock()
        routes.removeAll()
        recorded.removeAll()
        unmatched.removeAll()
        lock.unlock()
    }

    /// Records `request` and returns the response of the first route that answers it, or `nil`
    /// (after recording it as unmatched) when none does.
    func respond(to request: RecordedRequest) -> StubResponse? {
        lock.lock()
        recorded.append(request)
        let candidates = routes
        lock.unlock()

        for route in candidates {
            switch route.rule {
            case .path(let method, let path, let ignoringQuery, let response):
                guard method == request.method, Self.target(of: request, ignoringQuery: ignoringQuery) == path,
                    claim(route.id)
                else { continue }
                return response
            case .handler(let handler):
                if let response = handler(request) { return response }
            }
        }

        lock.lock()
        unmatched.append(request)
        lock.unlock()
        return nil
    }

    /// Takes one use of the route `id`; `false` if it has been used up (by a concurrent request)
    /// or removed since the caller looked.
    private func claim(_ id: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let index = routes.firstIndex(where: { $0.id == id }) else { return false }
        guard let remaining = routes[index].remaining else { return true }
        if remaining <= 1 {
            routes.remove(at: index)
        } else {
            routes[index].remaining = remaining - 1
        }
        return true
    }

    /// The percent-encoded path, followed by `?` and the percent-encoded query if there is one
    /// and it is not ignored.
    static func target(of request: RecordedRequest, ignoringQuery: Bool) -> String {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? ""
        var target = path.isEmpty ? "/" : path
        if !ignoringQuery, let query = components?.percentEncodedQuery {
            target += "?" + query
        }
        return target
    }
}

/// The process-wide table from a stub's id to its storage; the URLProtocol class of a session
/// carries the id (see ``StubURLProtocol``).
///
/// `@unchecked Sendable` because it is a shared singleton; `nextID` and `storages` are only read
/// or written between `lock.lock()` and `lock.unlock()` in this class.
final class StubRegistry: @unchecked Sendable {
    static let shared = StubRegistry()

    private let lock = NSLock()
    private var nextID: UInt64 = 1
    private var storages: [UInt64: StubStorage] = [:]

    /// Adds `storage` under a new id, never used before in this process.
    func register(_ storage: StubStorage) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        let id = nextID
        nextID += 1
        storages[id] = storage
        return id
    }

    func unregister(_ id: UInt64) {
        lock.lock()
        storages[id] = nil
        lock.unlock()
    }

    func storage(for id: UInt64) -> StubStorage? {
        lock.lock()
        defer { lock.unlock() }
        return storages[id]
    }
}
