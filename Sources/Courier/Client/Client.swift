import Foundation
import HTTPTypes

/// Sends endpoints and decodes what comes back.
///
/// ```swift
/// let client = Client(configuration: Configuration(timeout: .seconds(10)))
/// let user = try await client.enqueue(GetUser(id: 42)).resume(expecting: User.self)
/// ```
///
/// A client is cheap to share: create one per API and use it from any task.
public actor Client {
    /// The configuration the client was created with.
    public nonisolated let configuration: Configuration
    private var gate = CallGate()
    private var nextHeldID: UInt64 = 0

    /// Creates a client.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Prepares a call to `endpoint`. Nothing is sent until the call is resumed.
    public nonisolated func enqueue(_ endpoint: some Requestable) -> Call {
        Call(client: self, endpoint: endpoint)
    }

    /// Builds, authenticates, sends and validates one request.
    /// - Parameter accept: the `Accept` header for what the caller expects (see ``RequestBuilder``).
    nonisolated func perform(_ endpoint: some Requestable, accept: String? = nil) async throws(CourierError) -> Response {
        if Task.isCancelled { throw .cancelled }
        try await admit()
        let result: Result<Response, CourierError>
        do {
            result = .success(try await performAdmitted(endpoint, accept: accept))
        } catch {
            result = .failure(error)
        }
        await depart()
        return try result.get()
    }

    private nonisolated func performAdmitted(_ endpoint: some Requestable, accept: String?) async throws(CourierError) -> Response {
        // Constraints first: what they establish (a session, say) may shape the request.
        for constraint in endpoint.constraints {
            try await constraint.waitUntilSatisfied()
        }
        let request = try RequestBuilder.build(endpoint, configuration: configuration, accept: accept)
        let authentication = endpoint.requiresAuthorization ? configuration.authentication : .none
        if case .none = authentication {} else {
            try checkAuthorized(endpoint)
        }
        let metrics = CallMetrics()
        let context = MiddlewareContext(endpoint: endpoint, requiresAuthorization: endpoint.requiresAuthorization, metrics: metrics)
        let response = try await MiddlewareChain.run(
            configuration.middleware + endpoint.middleware, request: request, context: context
        ) { request throws(CourierError) in
            try await self.sendWithRetries(request, with: authentication, metrics: metrics)
        }
        guard endpoint.acceptableStatusCodes.contains(response.statusCode) else {
            throw .response(response)
        }
        return response
    }

    /// Below the middleware: sends, and sends again while ``Configuration/retryPolicy`` says so,
    /// waiting on ``Configuration/clock``. Each attempt is signed anew.
    private nonisolated func sendWithRetries(_ request: TransportRequest, with authentication: Authentication,
                                             metrics: CallMetrics) async throws(CourierError) -> Response {
        let policy = configuration.retryPolicy
        var request = request
        if let key = policy.idempotencyKey(for: request), let name = HTTPField.Name(policy.idempotencyKeyHeader) {
            request.head.headerFields[name] = key
        }
        var attempt = 1
        while true {
            let outcome: Result<Response, CourierError>
            do {
                outcome = .success(try await sendAuthenticated(request, with: authentication, attempt: attempt, metrics: metrics))
            } catch {
                outcome = .failure(error)
            }
            guard case .retry(let delay) = policy.decision(after: attempt, request: request, outcome: outcome, now: Date()) else {
                return try outcome.get()
            }
            do {
                try await configuration.clock.sleep(for: delay)
            } catch {
                throw .cancelled
            }
            if Task.isCancelled { throw .cancelled }
            attempt += 1
        }
    }

    /// The innermost step of the pipeline: attaches credentials and sends.
    private nonisolated func sendAuthenticated(_ request: TransportRequest, with authentication: Authentication, attempt: Int,
                                               metrics: CallMetrics) async throws(CourierError) -> Response {
        if Task.isCancelled { throw .cancelled }
        var request = request
        switch authentication {
        case .none:
            return try await send(request, attempt: attempt, metrics: metrics)
        case .basic(let credential):
            request.head.headerFields[.authorization] = try credential.authorizationValue()
            return try await send(request, attempt: attempt, metrics: metrics)
        case .bearer(let refresher):
            return try await sendWithBearer(&request, refresher: refresher, attempt: attempt, metrics: metrics)
        }
    }

    /// Signs with the refresher's credential; after a 401 to that credential, replays once with
    /// the replacement (a newer credential, or the result of one coalesced refresh).
    private nonisolated func sendWithBearer(_ request: inout TransportRequest, refresher: TokenRefresher, attempt: Int,
                                            metrics: CallMetrics) async throws(CourierError) -> Response {
        let credential = try await refresher.validCredential()
        request.head.headerFields[.authorization] = credential.authorizationValue
        let response = try await send(request, attempt: attempt, metrics: metrics)
        guard response.statusCode == 401,
              let replacement = try await refresher.replacement(forRejected: credential),
              request.body?.isReplayable ?? true else {
            // A single-use stream body cannot be sent twice: the 401 is the answer, and the next
            // call goes out with the refreshed credential.
            return response
        }
        request.head.headerFields[.authorization] = replacement.authorizationValue
        return try await send(request, attempt: attempt, metrics: metrics)
    }

    // MARK: - Pause and drain

    /// Holds new calls, waits until every call in flight has ended, runs `action` alone, then
    /// lets the held calls go, in the order they arrived (Conduit's `awaitsOutgoingCompletion`).
    ///
    /// ```swift
    /// // Rotate the API key with no request in flight, and none starting meanwhile:
    /// try await client.runExclusively { try await keychain.rotateAPIKey() }
    /// ```
    /// Exclusive actions run one after another, in the order they were asked for; the calls they
    /// hold wait for all of them. A held call whose task is cancelled leaves at once with
    /// ``CourierError/cancelled``. Calls made from inside `action` through this client would
    /// wait for `action` itself: use another client (or the transport) there.
    /// - Throws: whatever `action` throws, after the held calls have been released.
    public func runExclusively<T: Sendable>(_ action: @Sendable () async throws -> T) async throws -> T {
        await withCheckedContinuation { gate.requestExclusive($0) }
        await withCheckedContinuation { gate.awaitDrain($0) }
        let result: Result<T, any Error>
        do {
            result = .success(try await action())
        } catch {
            result = .failure(error)
        }
        gate.finishExclusive()
        return try result.get()
    }

    /// Lets a call through, or holds it while an exclusive action waits or runs.
    private func admit() async throws(CourierError) {
        if gate.arrive() { return }
        nextHeldID += 1
        let id = nextHeldID
        let admission = await withTaskCancellationHandler {
            await withCheckedContinuation { gate.hold(id, $0) }
        } onCancel: {
            Task { await self.cancelHeld(id) }
        }
        if case .cancelled = admission { throw .cancelled }
    }

    private func cancelHeld(_ id: UInt64) {
        gate.cancel(id)
    }

    private func depart() {
        gate.depart()
    }

    /// The number of calls held by an exclusive action, for tests.
    var heldCallCount: Int { gate.heldCount }
    /// Whether new calls are being held, for tests.
    var isPausedForTests: Bool { gate.isPaused }

    /// Credentials go only to the hosts the configuration lists.
    private nonisolated func checkAuthorized(_ endpoint: some Requestable) throws(CourierError) {
        let host = try endpoint.baseURL().host
        guard configuration.authorizes(host) else {
            throw .authentication(.hostNotAuthorized(host: host))
        }
    }

    private nonisolated func send(_ request: TransportRequest, attempt: Int, metrics: CallMetrics) async throws(CourierError) -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await configuration.transport.send(request)
            await metrics.record(CallMetrics.Attempt(duration: ContinuousClock.now - started, statusCode: response.statusCode,
                                               bytesSent: request.body?.count, bytesReceived: response.body.count))
            configuration.logger.debug("\(request.head.method.rawValue) \(configuration.redaction.redact(url: request.url)) \(response.statusCode) in \(ContinuousClock.now - started), attempt \(attempt)")
            return response
        } catch {
            await metrics.record(CallMetrics.Attempt(duration: ContinuousClock.now - started, statusCode: nil,
                                               bytesSent: request.body?.count, bytesReceived: 0))
            configuration.logger.error("\(request.head.method.rawValue) \(configuration.redaction.redact(url: request.url)) failed after \(ContinuousClock.now - started), attempt \(attempt): \(error)")
            throw error
        }
    }
}
