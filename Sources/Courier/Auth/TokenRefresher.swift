public import Foundation

/// The single owner of a bearer credential, and the one place it is refreshed.
///
/// Every call that needs the credential asks ``validCredential()``. When the token nears expiry,
/// the first caller starts **one** refresh and every other caller awaits that same refresh. A
/// permanent failure (the token endpoint answers 400 or 401) fails every later call with
/// ``AuthenticationFailure/refreshFailed(_:)`` until ``reset(to:)`` or ``signOut()``; transient
/// failures back off; a refresh loop stops with
/// ``AuthenticationFailure/refreshLoopDetected(refreshes:window:)``. The store always ends up
/// holding what the refresher decided last. Documentation/Authentication.md has the details.
///
/// ```swift
/// let refresher = TokenRefresher(store: InMemoryTokenStore(signedInCredential), tokenEndpoint: endpoint)
/// var configuration = Configuration(authentication: .bearer(refresher))
/// configuration.authorizedHosts = ["api.example.com"]
/// ```
public actor TokenRefresher {
    // The new credential is saved to the store *before* the refresh is cleared, so a caller that
    // arrives while the store is being written joins the refresh in flight instead of starting a
    // second one with a refresh token that was just spent. A caller whose task is cancelled stops
    // waiting with `.cancelled`; the refresh goes on for the others and its result is stored.
    //
    // Transient failures (network, timeout, 5xx, malformed body) fail the waiting calls; calls
    // before the backoff (Policy.initialBackoff, doubling up to Policy.maximumBackoff) has passed
    // fail at once with RefreshFailure.Reason.backingOff(retryAfter:). More than
    // Policy.maximumRefreshes refreshes within Policy.refreshWindow is a loop.
    //
    // Store order: one store operation at a time (load, save, remove), in the order they were
    // decided, so signOut() or reset(to:) always wins over a refresh that finished before it,
    // however slow that refresh's save is; a refresh that finishes after them is cancelled and
    // never written; a load that returns after a reset or sign-out is ignored. With a
    // CoordinatedTokenStore, refreshes, resets and sign-outs also hold the store's lock.
    //
    // Each refresh is counted once, however many callers it served, in the swift-metrics counter
    // `courier_token_refreshes_total` by `outcome` (Documentation/Observability.md), through the
    // metrics factory the process has when the refresher is created.
    typealias Refresh = @Sendable (TokenCredential?) async throws(CourierError) -> TokenCredential
    typealias Waiter = CheckedContinuation<Result<TokenCredential, CourierError>, Never>
    private typealias LoadTask = Task<Result<TokenCredential?, CourierError>, Never>

    // Members without `private` are internal only so that the refresh machinery in
    // TokenRefresher+Refreshing.swift can reach them; nothing else in the module touches them.

    enum Phase {
        case ready
        case refreshing(generation: UInt64)
        case failed(RefreshFailure)
        case loopDetected(refreshes: Int, window: Duration)
        case signedOut
    }

    let store: any TokenStore
    let policy: Policy
    let now: @Sendable () -> Date
    let refresh: Refresh
    private let canRefresh: @Sendable (TokenCredential?) -> Bool
    /// The path of the token endpoint it refreshes at, which the first ``Client`` using this
    /// refresher adopts (see ``OAuth2TokenEndpoint``); `nil` for a refresh closure of the app's.
    nonisolated let tokenPath: OAuth2TokenPath?

    private var load = CredentialLoad<LoadTask>()
    /// Every store operation goes through it, so they run one at a time in decision order.
    var storeQueue = StoreOperationQueue()
    var credential: TokenCredential?
    var phase = Phase.ready
    /// Bumped by every refresh, reset and sign-out: a refresh whose generation is no longer
    /// current belongs to the past, and its result is dropped.
    var generation: UInt64 = 0
    /// The refresh in flight, cancelled when a reset or sign-out makes it stale.
    var refreshTask: Task<Void, Never>?
    var schedule: RefreshSchedule
    /// The callers waiting for the refresh in flight. Whether a refresh is in flight is ``phase``;
    /// the registry's own run flag is not used.
    var waiters = SingleFlight<Waiter>()
    private var eventContinuations: [UInt64: AsyncStream<AuthEvent>.Continuation] = [:]
    private var nextEventID: UInt64 = 0
    /// Counts refreshes by outcome (`courier_token_refreshes_total`), when the process had a
    /// metrics backend as the refresher was created.
    let refreshMetrics = RefreshMetrics()
    /// The ``HTTPCache`` partition of the current session, and the caches to purge when it ends
    /// (see `Pipeline/Cache/CachePartition.swift`). The one state not on the actor: a cache's
    /// storage asks whether a partition is current under its own lock, synchronously, so that
    /// storing an entry and purging the session it belongs to cannot interleave.
    nonisolated let cacheSession = LockedState(CacheSession())

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
                throw .authentication(
                    .refreshFailed(RefreshFailure(reason: .custom(String(describing: error)), isPermanent: false, underlyingError: error)))
            }
        }
    }

    init(
        store: any TokenStore,
        policy: Policy,
        now: @escaping @Sendable () -> Date,
        canRefresh: @escaping @Sendable (TokenCredential?) -> Bool,
        tokenPath: OAuth2TokenPath? = nil,
        refresh: @escaping Refresh
    ) {
        self.store = store
        self.policy = policy
        self.now = now
        self.canRefresh = canRefresh
        self.tokenPath = tokenPath
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
    /// failure, backoff and loop-guard state. Calls waiting on a refresh get this credential; a
    /// refresh in flight is cancelled and its result is never used or stored.
    ///
    /// Returns once the save is done. It is written after every store operation decided before
    /// this call, so the store ends up holding this credential unless a later reset or sign-out
    /// replaces it.
    /// - Throws: ``AuthenticationFailure/storeFailed(_:)`` if the store cannot save it; the
    ///   credential is used from memory all the same.
    public func reset(to newCredential: TokenCredential) async throws(CourierError) {
        supersedeRefresh()
        credential = newCredential
        load.markLoaded()  // a load still in flight must not overwrite this credential
        phase = .ready
        schedule = RefreshSchedule(policy: policy)
        resumeWaiters(with: .success(newCredential))
        endCacheSession()
        emit(.credentialReset)
        if let failure = await submitWrite({ try await $0.save(newCredential) }).value {
            throw .authentication(.storeFailed(failure))
        }
    }

    /// Forgets the credential, removes it from the store, and fails every waiting and later call
    /// that needs authorization with ``AuthenticationFailure/missingCredential`` until
    /// ``reset(to:)``. A refresh in flight is cancelled and its result is never used or stored.
    ///
    /// Returns once the removal is done. It runs after every store operation decided before
    /// this call (a refresh's save still being written included), so nothing this refresher
    /// decided earlier can put a credential back.
    /// - Throws: ``AuthenticationFailure/storeFailed(_:)`` if the store cannot remove it.
    public func signOut() async throws(CourierError) {
        if let failure = await signOutLocally().value {
            throw .authentication(.storeFailed(failure))
        }
    }

    /// The synchronous part of ``signOut()``: forgets the credential, fails the waiters, emits
    /// ``AuthEvent/signedOut`` and submits the removal, whose task it returns (its value is why
    /// the removal failed, `nil` if it did not).
    func signOutLocally() -> Task<(any Error)?, Never> {
        supersedeRefresh()
        credential = nil
        load.markLoaded()
        phase = .signedOut
        resumeWaiters(with: .failure(.authentication(.missingCredential)))
        endCacheSession()
        emit(.signedOut)
        return submitWrite({ try await $0.remove() })
    }

    /// Whether the stored credential has been loaded (or replaced) already, so that
    /// ``credential`` is the one to use.
    var isCredentialLoaded: Bool { load.isLoaded }

    /// ``signOutLocally()`` for a sign-out that revokes the credential (CourierOAuth's
    /// `signOut(revokingAt:timeout:)`): also returns the credential being signed out, read from
    /// the store first, in store order, when it was never loaded.
    package func signOutLocallyKeepingCredential() -> (
        credential: Task<TokenCredential?, Never>, removal: Task<(any Error)?, Never>
    ) {
        let held: Task<TokenCredential?, Never>
        if isCredentialLoaded {
            let current = credential
            held = Task { current }
        } else {
            let store = self.store
            held = storeQueue.submit { try? await store.load() }
        }
        return (held, signOutLocally())
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

    func emit(_ event: AuthEvent) {
        for continuation in eventContinuations.values {
            continuation.yield(event)
        }
    }

    /// Loads the stored credential once; concurrent first callers share one load. A caller whose
    /// load failed gets that load's error (never goes on without a credential); see
    /// ``CredentialLoad``.
    private func loadIfNeeded() async throws(CourierError) {
        while true {
            let id: UInt64
            let task: LoadTask
            switch load.next() {
            case .proceed:
                return
            case .join(let joined, let handle):
                (id, task) = (joined, handle)
            case .start(let started):
                let store = self.store
                task = storeQueue.submit { () -> Result<TokenCredential?, CourierError> in
                    do {
                        return .success(try await store.load())
                    } catch {
                        return .failure(.authentication(.storeFailed(error)))
                    }
                }
                load.started(id: started, handle: task)
                id = started
            }
            let result = await task.value
            let succeeded = if case .success = result { true } else { false }
            switch (load.finish(id: id, succeeded: succeeded), result) {
            case (.install, .success(let stored)):
                credential = stored
                return
            case (.proceed, _):
                return
            case (.fail, .failure(let error)):
                throw error
            case (.install, .failure), (.fail, .success), (.retry, _):
                continue  // not produced by a real load; `CredentialLoad` documents why
            }
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

    /// Waits for the refresh in flight. A cancelled caller leaves (on the actor's next turn); the
    /// refresh goes on.
    ///
    /// Called on the actor only while ``phase`` is `.refreshing`. The waiter must be registered
    /// in the same turn on the actor, before ``resumeWaiters(with:)`` (on the actor too) can
    /// release the refresh's waiters: one registered after that would wait for a refresh that
    /// already ended. So the closures below must be isolated to the actor, and a closure in an
    /// actor method is only when it captures `self` (without the capture it runs on the global
    /// executor). Reading ``isRefreshInFlight`` synchronously in the body makes the compiler
    /// prove the isolation.
    func awaitRefresh() async throws(CourierError) -> TokenCredential {
        if RefreshScope.refreshers.contains(ObjectIdentifier(self)) {
            throw .invalidRequest(
                .wouldDeadlock(
                    "a credential asked for from inside this refresher's own refresh (its token request's middleware, say) waits for that refresh"
                ))
        }
        if Task.isCancelled { throw .cancelled }
        let id = waiters.makeID()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: Waiter) in
                assert(self.isRefreshInFlight, "a waiter registers only while a refresh is in flight")
                switch self.waiters.register(waiter, id: id) {
                case .startRun, .joinedRun:
                    // Whether it was first does not matter here: the refresh was started by the
                    // actor (`phase`). Resumed by `resumeWaiters(with:)` or `leave(_:)`.
                    break
                case .cancelled:
                    waiter.resume(returning: .failure(.cancelled))
                }
            }
        } onCancel: {
            // The handler is synchronous and off the actor: the waiter leaves on a later turn. The
            // id is made and registered in this one turn, so `leave` always comes after the
            // registration and finds the waiter, or finds it already released.
            Task { await self.leave(id) }
        }
        return try result.get()
    }

    /// A cancelled caller stops waiting; the refresh goes on for the others.
    private func leave(_ id: SingleFlight<Waiter>.ID) {
        waiters.cancel(id)?.resume(returning: .failure(.cancelled))
    }

    /// Releases every waiting caller with `result`, in the order they arrived. Callers set
    /// ``phase`` (and store the credential) first: a caller that arrives next sees the outcome.
    func resumeWaiters(with result: Result<TokenCredential, CourierError>) {
        for waiter in waiters.finish() {
            waiter.resume(returning: result)
        }
    }

    deinit {
        for continuation in eventContinuations.values {
            continuation.finish()
        }
    }
}

extension TokenRefresher: CustomReflectable {
    /// A mirror without children: `dump(refresher)` and reflection-based loggers never reach the
    /// credential, the store or the refresh closure.
    public nonisolated var customMirror: Mirror {
        Mirror(self, children: [], displayStyle: .class)
    }
}
