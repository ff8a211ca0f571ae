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
        let scope = CallScope.current
        if scope.isExclusive(on: self) {
            throw .invalidRequest(.wouldDeadlock(
                "a call through this client from inside its own runExclusively action waits for that action to end"))
        }
        try await admit()
        let result = await CallScope.$current.withValue(scope.entering(callOn: self)) {
            do throws(CourierError) {
                return Result<Response, CourierError>.success(try await performAdmitted(endpoint, accept: accept))
            } catch {
                return .failure(error)
            }
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
        // The origin the endpoint declared: a host listed in `authorizedHosts` is authorized there.
        let declaredOrigin = RedirectPolicy.Origin(request.url)
        if case .none = authentication {} else {
            // An endpoint whose own origin may not receive the credential fails before any
            // middleware runs; each attempt is checked again on the request actually signed.
            try checkAuthorized(request, declaredOrigin: declaredOrigin)
        }
        let metrics = CallMetrics()
        let context = MiddlewareContext(endpoint: endpoint, requiresAuthorization: endpoint.requiresAuthorization, metrics: metrics)
        let response = try await MiddlewareChain.run(
            configuration.middleware + endpoint.middleware, request: request, context: context
        ) { request throws(CourierError) in
            try await self.sendWithRetries(request, with: authentication, declaredOrigin: declaredOrigin, metrics: metrics)
        }
        guard endpoint.acceptableStatusCodes.contains(response.statusCode) else {
            throw .response(response)
        }
        return response
    }

    /// Below the middleware: sends, and sends again while ``Configuration/retryPolicy`` says so,
    /// waiting on ``Configuration/clock``. Each attempt is signed anew.
    private nonisolated func sendWithRetries(_ request: TransportRequest, with authentication: Authentication,
                                             declaredOrigin: RedirectPolicy.Origin?,
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
                outcome = .success(try await sendAuthenticated(request, with: authentication, declaredOrigin: declaredOrigin,
                                                               attempt: attempt, metrics: metrics))
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
    ///
    /// The authorized-host check runs here, on the request about to be signed, not on what the
    /// endpoint declared: a middleware may have pointed it elsewhere.
    private nonisolated func sendAuthenticated(_ request: TransportRequest, with authentication: Authentication,
                                               declaredOrigin: RedirectPolicy.Origin?, attempt: Int,
                                               metrics: CallMetrics) async throws(CourierError) -> Response {
        if Task.isCancelled { throw .cancelled }
        var request = request
        if case .none = authentication {
            return try await send(request, attempt: attempt, metrics: metrics)
        }
        try checkAuthorized(request, declaredOrigin: declaredOrigin)
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
        // A single-use stream body cannot be sent twice: the 401 is the answer, and no refresh is
        // asked for on its account (nobody would use it; the next call refreshes if it must).
        guard response.statusCode == 401, request.body?.isReplayable ?? true,
              let replacement = try await refresher.replacement(forRejected: credential) else {
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
    /// ``CourierError/cancelled``.
    ///
    /// What would wait for itself forever fails at once with
    /// ``InvalidRequest/wouldDeadlock(_:)`` instead: calling `runExclusively` from inside a call in
    /// flight on this client (a middleware, a constraint's `satisfy`) or from inside another
    /// exclusive action, and calls through this client from inside `action` (use another client,
    /// or the transport, there). Tasks started with `Task { }` from those places inherit the
    /// context and are refused too; `Task.detached` ones are not and would wait.
    /// - Throws: ``CourierError/invalidRequest(_:)`` with ``InvalidRequest/wouldDeadlock(_:)`` as
    ///   above; otherwise whatever `action` throws, after the held calls have been released.
    public func runExclusively<T: Sendable>(_ action: @Sendable () async throws -> T) async throws -> T {
        let scope = CallScope.current
        if scope.isInCall(on: self) {
            throw CourierError.invalidRequest(.wouldDeadlock(
                "runExclusively called from inside a call in flight on the same client waits for that call to end"))
        }
        if scope.isExclusive(on: self) {
            throw CourierError.invalidRequest(.wouldDeadlock(
                "runExclusively called from inside an exclusive action of the same client waits for that action to end"))
        }
        await withCheckedContinuation { gate.requestExclusive($0) }
        await withCheckedContinuation { gate.awaitDrain($0) }
        let result: Result<T, any Error> = await CallScope.$current.withValue(scope.entering(exclusiveOn: self)) {
            do {
                return .success(try await action())
            } catch {
                return .failure(error)
            }
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
    /// Cancellations remembered for calls not yet held, for tests (0 once every call was held).
    var pendingCancellationCountForTests: Int { gate.pendingCancellationCount }
    /// Whether new calls are being held, for tests.
    var isPausedForTests: Bool { gate.isPaused }

    /// Credentials go only to the hosts (or origins) the configuration lists, checked on the URL
    /// the transport will send to.
    private nonisolated func checkAuthorized(_ request: TransportRequest, declaredOrigin: RedirectPolicy.Origin?) throws(CourierError) {
        guard configuration.authorizes(request.url, declaredOrigin: declaredOrigin) else {
            throw .authentication(.hostNotAuthorized(host: RedirectPolicy.Origin(request.url)?.authority ?? "<no host>"))
        }
    }

    private nonisolated func send(_ request: TransportRequest, attempt: Int, metrics: CallMetrics) async throws(CourierError) -> Response {
        let started = ContinuousClock.now
        do throws(CourierError) {
            // The endpoint was checked when the request was built; what a middleware made of it
            // is checked here, the last moment before the wire.
            try RequestBuilder.checkSendable(request)
            let response = try await configuration.transport.send(request)
            if let limit = request.maximumResponseSize, response.body.count > limit {
                // A custom transport that does not enforce the limit still cannot hand it over.
                throw .transport(.responseTooLarge(limit: limit, url: request.url))
            }
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
