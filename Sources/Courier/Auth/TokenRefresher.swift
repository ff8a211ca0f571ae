public import Foundation

/// The single owner of a bearer credential, and the one place it is refreshed.
///
/// Every call that needs the credential asks ``validCredential()``. When the token is within the
/// leeway of its expiry, the first caller starts **one** refresh and every other caller, however
/// many, awaits that same refresh. The new credential is saved to the store *before* the refresh
/// is cleared, so a caller that arrives while the store is being written joins the refresh in
/// flight instead of starting a second one with a refresh token that was just spent.
///
/// ```swift
/// let endpoint = OAuth2TokenEndpoint(baseURL: try BaseURL(host: "auth.example.com"),
///                                    path: try URLPath("/oauth/token"),
///                                    clientAuthentication: .basic(clientID: "app", clientSecret: secret))
/// let refresher = TokenRefresher(store: InMemoryTokenStore(signedInCredential), tokenEndpoint: endpoint)
/// var configuration = Configuration(authentication: .bearer(refresher))
/// configuration.authorizedHosts = ["api.example.com"]
/// ```
///
/// Failures:
/// - **Permanent** (the token endpoint answers 400 or 401, e.g. `invalid_grant`): every waiting
///   call and every later call fails at once with ``AuthenticationFailure/refreshFailed(_:)``,
///   with no further traffic to the token endpoint, until ``reset(to:)`` or ``signOut()``.
/// - **Transient** (network, timeout, 5xx, malformed body): the waiting calls fail; a later call
///   may refresh again once the backoff (``Policy/initialBackoff``, doubling up to
///   ``Policy/maximumBackoff``) has passed. Calls before then fail at once with
///   ``RefreshFailure/Reason/backingOff(retryAfter:)``.
/// - **Loop**: more than ``Policy/maximumRefreshes`` refreshes within ``Policy/refreshWindow``
///   (a server that rejects every fresh token) stops refreshing with
///   ``AuthenticationFailure/refreshLoopDetected(refreshes:window:)`` until ``reset(to:)``.
///
/// A caller whose task is cancelled stops waiting with ``CourierError/cancelled``; the refresh
/// goes on for the others and its result is stored.
public actor TokenRefresher {
    typealias Refresh = @Sendable (TokenCredential?) async throws(CourierError) -> TokenCredential
    private typealias Waiter = CheckedContinuation<Result<TokenCredential, CourierError>, Never>

    private enum Phase {
        case ready
        case refreshing(generation: UInt64)
        case failed(RefreshFailure)
        case loopDetected(refreshes: Int, window: Duration)
        case signedOut
    }

    private let store: any TokenStore
    private let policy: Policy
    private let now: @Sendable () -> Date
    private let refresh: Refresh
    private let canRefresh: @Sendable (TokenCredential?) -> Bool

    private var loadState: LoadState = .notLoaded
    private var credential: TokenCredential?
    private var phase = Phase.ready
    private var generation: UInt64 = 0
    private var schedule: RefreshSchedule
    private var waiters: [UInt64: Waiter] = [:]
    private var nextWaiterID: UInt64 = 0
    private var eventContinuations: [UInt64: AsyncStream<AuthEvent>.Continuation] = [:]
    private var nextEventID: UInt64 = 0

    private enum LoadState {
        case notLoaded
        case loading(Task<Result<TokenCredential?, CourierError>, Never>)
        case loaded
    }

    /// A refresher that renews the credential with your own code, for schemes that are not OAuth2.
    ///
    /// ```swift
    /// let refresher = TokenRefresher(store: InMemoryTokenStore()) { current in
    ///     try await mySessionService.renew(current)        // nil when there is none yet
    /// }
    /// ```
    /// The closure's errors become ``AuthenticationFailure/refreshFailed(_:)``: a ``RefreshFailure``
    /// or a `CourierError.authentication(.refreshFailed(…))` it throws is kept as it is (so it
    /// can declare itself permanent); a `CourierError.transport` becomes a transient
    /// ``RefreshFailure/Reason/transport(_:)``; anything else a transient
    /// ``RefreshFailure/Reason/custom(_:)``.
    public init(
        store: any TokenStore,
        policy: Policy = Policy(),
        now: @escaping @Sendable () -> Date = { Date() },
        refresh: @escaping @Sendable (TokenCredential?) async throws -> TokenCredential
    ) {
        self.init(store: store, policy: policy, now: now, canRefresh: { _ in true }) { credential throws(CourierError) in
            do {
                return try await refresh(credential)
            } catch let error as CourierError {
                throw error
            } catch let failure as RefreshFailure {
                throw .authentication(.refreshFailed(failure))
            } catch {
                throw .authentication(.refreshFailed(RefreshFailure(reason: .custom(String(describing: error)), isPermanent: false)))
            }
        }
    }

    init(
        store: any TokenStore,
        policy: Policy,
        now: @escaping @Sendable () -> Date,
        canRefresh: @escaping @Sendable (TokenCredential?) -> Bool,
        refresh: @escaping Refresh
    ) {
        self.store = store
        self.policy = policy
        self.now = now
        self.canRefresh = canRefresh
        self.refresh = refresh
        self.schedule = RefreshSchedule(policy: policy)
    }

    // MARK: - Using the credential

    /// A credential that is not about to expire: the current one, or a new one from the refresh
    /// this call starts or joins.
    /// - Throws: ``CourierError/authentication(_:)`` with ``AuthenticationFailure/missingCredential``
    ///   when there is none and none can be obtained, ``AuthenticationFailure/refreshFailed(_:)``,
    ///   ``AuthenticationFailure/refreshLoopDetected(refreshes:window:)`` or
    ///   ``AuthenticationFailure/storeFailed(_:)``; ``CourierError/cancelled`` when the calling
    ///   task is cancelled while waiting.
    public func validCredential() async throws(CourierError) -> TokenCredential {
        try await loadIfNeeded()
        try checkUsable()
        if case .refreshing = phase { return try await awaitRefresh() }
        if let credential, !credential.needsRefresh(at: now(), leeway: policy.leeway) {
            return credential
        }
        guard canRefresh(credential) else {
            // An expiring token that cannot be renewed is still sent: the server decides.
            if let credential { return credential }
            throw .authentication(.missingCredential)
        }
        return try await startRefresh()
    }

    /// Refreshes now, or joins the refresh in flight, whatever the token's expiry.
    /// - Throws: as ``validCredential()``.
    public func forceRefresh() async throws(CourierError) -> TokenCredential {
        try await loadIfNeeded()
        try checkUsable()
        if case .refreshing = phase { return try await awaitRefresh() }
        guard canRefresh(credential) else { throw .authentication(.missingCredential) }
        return try await startRefresh()
    }

    /// What to sign the replay of a request with, after the server answered 401 to a request
    /// signed with `rejected`: a newer credential if there is one (no refresh), else the result
    /// of one coalesced refresh. `nil` when the credential cannot be renewed, so the 401 stands.
    func replacement(forRejected rejected: TokenCredential) async throws(CourierError) -> TokenCredential? {
        try await loadIfNeeded()
        try checkUsable()
        if case .refreshing = phase { return try await awaitRefresh() }
        if let credential, credential.accessToken != rejected.accessToken { return credential }
        guard canRefresh(credential) else { return nil }
        return try await startRefresh()
    }

    /// The credential as it is now, without refreshing; `nil` if there is none.
    /// - Throws: ``AuthenticationFailure/storeFailed(_:)`` if the store cannot be read.
    public func currentCredential() async throws(CourierError) -> TokenCredential? {
        try await loadIfNeeded()
        return credential
    }

    // MARK: - Managing the credential

    /// Replaces the credential (after the user signs in again), saves it, and clears every
    /// failure, backoff and loop-guard state. Calls waiting on a refresh get this credential.
    /// - Throws: ``AuthenticationFailure/storeFailed(_:)`` if the store cannot save it; the
    ///   credential is used from memory all the same.
    public func reset(to newCredential: TokenCredential) async throws(CourierError) {
        generation &+= 1   // a refresh in flight now belongs to the past: its result is dropped
        credential = newCredential
        loadState = .loaded
        phase = .ready
        schedule = RefreshSchedule(policy: policy)
        resumeWaiters(with: .success(newCredential))
        emit(.credentialReset)
        do {
            try await store.save(newCredential)
        } catch {
            throw .authentication(.storeFailed(String(describing: error)))
        }
    }

    /// Forgets the credential, removes it from the store, and fails every waiting and later call
    /// that needs authorization with ``AuthenticationFailure/missingCredential`` until
    /// ``reset(to:)``.
    /// - Throws: ``AuthenticationFailure/storeFailed(_:)`` if the store cannot remove it.
    public func signOut() async throws(CourierError) {
        generation &+= 1
        credential = nil
        loadState = .loaded
        phase = .signedOut
        resumeWaiters(with: .failure(.authentication(.missingCredential)))
        emit(.signedOut)
        do {
            try await store.remove()
        } catch {
            throw .authentication(.storeFailed(String(describing: error)))
        }
    }

    /// A new stream of what happens to the credential from now on. Each call returns its own
    /// stream; it ends when the refresher is deallocated or the consumer stops iterating. The
    /// newest 100 events are buffered for a slow consumer.
    public func events() -> AsyncStream<AuthEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: AuthEvent.self, bufferingPolicy: .bufferingNewest(100))
        let id = nextEventID
        nextEventID += 1
        eventContinuations[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeEventContinuation(id) }
        }
        return stream
    }

    // MARK: - Internals

    /// Whether a refresh is in flight (for tests and diagnostics).
    var isRefreshInFlight: Bool {
        if case .refreshing = phase { return true }
        return false
    }

    private func removeEventContinuation(_ id: UInt64) {
        eventContinuations[id] = nil
    }

    private func emit(_ event: AuthEvent) {
        for continuation in eventContinuations.values {
            continuation.yield(event)
        }
    }

    /// Loads the stored credential once; concurrent first callers share one load.
    private func loadIfNeeded() async throws(CourierError) {
        switch loadState {
        case .loaded:
            return
        case .loading(let task):
            try await finishLoading(task)
        case .notLoaded:
            let store = self.store
            let task = Task { () -> Result<TokenCredential?, CourierError> in
                do {
                    return .success(try await store.load())
                } catch {
                    return .failure(.authentication(.storeFailed(String(describing: error))))
                }
            }
            loadState = .loading(task)
            try await finishLoading(task)
        }
    }

    private func finishLoading(_ task: Task<Result<TokenCredential?, CourierError>, Never>) async throws(CourierError) {
        let result = await task.value
        // Another caller, or reset/signOut, may have finished loading while this one waited.
        guard case .loading = loadState else { return }
        switch result {
        case .success(let stored):
            credential = stored
            loadState = .loaded
        case .failure(let error):
            loadState = .notLoaded   // the next call tries the store again
            throw error
        }
    }

    private func checkUsable() throws(CourierError) {
        switch phase {
        case .ready, .refreshing:
            return
        case .failed(let failure):
            throw .authentication(.refreshFailed(failure))
        case .loopDetected(let refreshes, let window):
            throw .authentication(.refreshLoopDetected(refreshes: refreshes, window: window))
        case .signedOut:
            throw .authentication(.missingCredential)
        }
    }

    /// Starts the one refresh, after the backoff and loop-guard checks, and waits for it.
    private func startRefresh() async throws(CourierError) -> TokenCredential {
        switch schedule.permission(at: now()) {
        case .backingOff(let retryAfter, let last):
            throw .authentication(.refreshFailed(RefreshFailure(
                reason: .backingOff(retryAfter: retryAfter), oauth2Error: last.oauth2Error,
                statusCode: last.statusCode, isPermanent: false)))
        case .loopDetected(let refreshes, let window):
            phase = .loopDetected(refreshes: refreshes, window: window)
            throw .authentication(.refreshLoopDetected(refreshes: refreshes, window: window))
        case .allowed:
            break
        }
        schedule.recordAttempt(at: now())
        generation &+= 1
        let generation = self.generation
        phase = .refreshing(generation: generation)
        let previous = credential
        Task { await self.runRefresh(from: previous, generation: generation) }
        return try await awaitRefresh()
    }

    /// Performs the refresh, stores the result, and only then clears the refresh and releases
    /// every waiter.
    private func runRefresh(from previous: TokenCredential?, generation: UInt64) async {
        let result: Result<TokenCredential, CourierError>
        do {
            result = .success(try await refresh(previous))
        } catch {
            result = .failure(error)
        }
        guard generation == self.generation else { return }   // reset or signOut happened meanwhile
        switch result {
        case .success(let fresh):
            // Saved before the refresh is cleared: callers arriving during the save still see
            // `.refreshing` and join this refresh.
            var storeError: String?
            do {
                try await store.save(fresh)
            } catch {
                storeError = String(describing: error)
            }
            guard generation == self.generation else { return }
            credential = fresh
            phase = .ready
            schedule.recordSuccess()
            resumeWaiters(with: .success(fresh))
            if let storeError { emit(.storeFailed(storeError)) }
            emit(.refreshed(fresh))
        case .failure(let error):
            let failure = Self.refreshFailure(from: error)
            if failure.isPermanent {
                phase = .failed(failure)
            } else {
                phase = .ready
                schedule.recordTransientFailure(failure, at: now())
            }
            resumeWaiters(with: .failure(.authentication(.refreshFailed(failure))))
            emit(.refreshFailed(failure))
        }
    }

    private static func refreshFailure(from error: CourierError) -> RefreshFailure {
        switch error {
        case .authentication(.refreshFailed(let failure)):
            return failure
        case .authentication(.missingCredential):
            return RefreshFailure(reason: .custom("no credential to refresh"), isPermanent: true)
        case .transport(let failure):
            return RefreshFailure(reason: .transport(failure), isPermanent: false)
        default:
            return RefreshFailure(reason: .custom(error.description), isPermanent: false)
        }
    }

    /// Waits for the refresh in flight. A cancelled caller leaves at once; the refresh goes on.
    private func awaitRefresh() async throws(CourierError) -> TokenCredential {
        let id = nextWaiterID
        nextWaiterID &+= 1
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: Waiter) in
                if Task.isCancelled {
                    waiter.resume(returning: .failure(.cancelled))
                } else {
                    waiters[id] = waiter
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
        return try result.get()
    }

    private func cancelWaiter(_ id: UInt64) {
        waiters.removeValue(forKey: id)?.resume(returning: .failure(.cancelled))
    }

    private func resumeWaiters(with result: Result<TokenCredential, CourierError>) {
        let released = waiters
        waiters.removeAll()
        for waiter in released.values {
            waiter.resume(returning: result)
        }
    }

    deinit {
        for continuation in eventContinuations.values {
            continuation.finish()
        }
    }
}
