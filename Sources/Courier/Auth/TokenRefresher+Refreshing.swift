import Foundation

/// How a ``TokenRefresher`` runs its one refresh and writes to its store: the network call, the
/// lock of a ``CoordinatedTokenStore``, the ordering of every save and removal, and how the
/// outcome reaches the waiting callers.
extension TokenRefresher {
    /// Starts the one refresh, after the backoff and loop-guard checks, and waits for it.
    func startRefresh() async throws(CourierError) -> TokenCredential {
        try tokenPath?.checkHasClient()
        switch schedule.permission(at: now()) {
        case .backingOff(let retryAfter, let last):
            throw .authentication(
                .refreshFailed(
                    RefreshFailure(
                        reason: .backingOff(retryAfter: retryAfter), oauth2Error: last.oauth2Error,
                        statusCode: last.statusCode, isPermanent: false)))
        case .loopDetected(let refreshes, let window):
            phase = .loopDetected(refreshes: refreshes, window: window)
            throw .authentication(.refreshLoopDetected(refreshes: refreshes, window: window))
        case .allowed:
            break
        }
        generation &+= 1
        let generation = self.generation
        phase = .refreshing(generation: generation)
        let previous = credential
        let inside = RefreshScope.refreshers.union([ObjectIdentifier(self)])
        refreshTask = Task { await RefreshScope.$refreshers.withValue(inside) { await self.runRefresh(from: previous, generation: generation) } }
        return try await awaitRefresh()
    }

    /// What one refresh came to.
    private enum RefreshOutcome: Sendable {
        /// Renewed and handed to the store; `storeError` says why the save failed, if it did.
        /// `renewedAnother`: what was renewed is a credential another holder stored, not this
        /// refresher's.
        case refreshed(TokenCredential, storeError: (any Error)?, renewedAnother: Bool = false)
        /// A coordinated store already held a newer, valid credential: no refresh was made.
        case adopted(TokenCredential)
        /// The refresh itself failed.
        case failed(CourierError)
        /// The store's lock or the re-read under it failed; no refresh was made.
        case storeFailed(any Error)
        /// A reset or sign-out happened before the result could be saved: nothing was written.
        case superseded
    }

    /// Performs the refresh, has the result stored, and only then clears the refresh and
    /// releases every waiter.
    private func runRefresh(from previous: TokenCredential?, generation: UInt64) async {
        let outcome: RefreshOutcome
        if let coordinated = store as? any CoordinatedTokenStore {
            // The whole read-refresh-write runs as one store operation, under the store's lock:
            // a reset or sign-out decided meanwhile is written after it.
            let operation = storeQueue.submit {
                await self.refreshUnderLock(of: coordinated, from: previous, generation: generation)
            }
            // The operation is a task of its own: pass on the cancellation of a reset or
            // sign-out, so that it stops waiting for the lock or the token endpoint.
            outcome = await withTaskCancellationHandler {
                await operation.value
            } onCancel: {
                operation.cancel()
            }
        } else {
            outcome = await refreshThenSave(from: previous, generation: generation)
        }
        finishRefresh(outcome, generation: generation)
    }

    /// A refresh for a plain store: the network call, then the save, queued behind every store
    /// operation decided before it.
    private func refreshThenSave(from previous: TokenCredential?, generation: UInt64) async -> RefreshOutcome {
        schedule.recordAttempt(at: now())
        let result = await Self.perform(refresh, from: previous)
        // Reset or signOut happened meanwhile: the result belongs to the past and is not saved.
        guard generation == self.generation else { return .superseded }
        switch result {
        case .success(let fresh):
            // Saved before the refresh is cleared: callers arriving during the save still see
            // `.refreshing` and join this refresh.
            let storeError = await submitWrite { try await $0.save(fresh) }.value
            return .refreshed(fresh, storeError: storeError)
        case .failure(let error):
            return .failed(error)
        }
    }

    /// A refresh for a ``CoordinatedTokenStore``, run as one store operation: take the lock,
    /// re-read, use a newer credential another holder stored or refresh, save, release.
    private nonisolated func refreshUnderLock(
        of store: any CoordinatedTokenStore, from previous: TokenCredential?, generation: UInt64
    ) async -> RefreshOutcome {
        let refresh = self.refresh
        do {
            return try await store.withExclusiveAccess { () async -> RefreshOutcome in
                let stored: TokenCredential?
                do {
                    stored = try await store.load()
                } catch {
                    return .storeFailed(error)
                }
                let renewed: TokenCredential?
                switch await self.coordinationDecision(stored: stored, previous: previous) {
                case .adopt(let newer):
                    return .adopted(newer)
                case .refresh(let credential):
                    renewed = credential
                }
                await self.recordRefreshAttempt()
                let result = await Self.perform(refresh, from: renewed)
                guard await self.isCurrent(generation) else { return .superseded }
                switch result {
                case .success(let fresh):
                    let renewedAnother = renewed != previous
                    do {
                        try await store.save(fresh)
                        return .refreshed(fresh, storeError: nil, renewedAnother: renewedAnother)
                    } catch {
                        return .refreshed(fresh, storeError: error, renewedAnother: renewedAnother)
                    }
                case .failure(let error):
                    return .failed(error)
                }
            }
        } catch {
            return .storeFailed(error)
        }
    }

    private func coordinationDecision(stored: TokenCredential?, previous: TokenCredential?) -> RefreshCoordination.Decision {
        RefreshCoordination.decide(stored: stored, current: previous, now: now(), leeway: policy.leeway)
    }

    /// Counts a refresh for the loop guard: only real refreshes count, not a credential taken
    /// from a coordinated store nor a lock that could not be taken.
    private func recordRefreshAttempt() {
        schedule.recordAttempt(at: now())
    }

    private func isCurrent(_ generation: UInt64) -> Bool {
        generation == self.generation
    }

    private static func perform(_ refresh: Refresh, from credential: TokenCredential?) async -> Result<TokenCredential, CourierError> {
        do {
            return .success(try await refresh(credential))
        } catch {
            return .failure(error)
        }
    }

    /// Applies a refresh's outcome, unless a reset or sign-out made it stale, and counts it.
    private func finishRefresh(_ outcome: RefreshOutcome, generation: UInt64) {
        refreshMetrics?.record(generation == self.generation ? Self.metricOutcome(outcome) : .superseded)
        guard generation == self.generation else { return }  // reset or signOut happened meanwhile
        refreshTask = nil
        switch outcome {
        case .refreshed(let fresh, let storeError, let renewedAnother):
            credential = fresh
            phase = .ready
            // Another holder's credential may be another user's (signed in elsewhere): the
            // cache session ends with the credential it was for.
            if renewedAnother { endCacheSession() }
            schedule.recordSuccess()
            resumeWaiters(with: .success(fresh))
            if let storeError { emit(.storeFailed(storeError)) }
            emit(.refreshed(fresh))
        case .adopted(let newer):
            credential = newer
            phase = .ready
            // As above: the adopted credential may be another user's.
            endCacheSession()
            schedule.recordSuccess()
            resumeWaiters(with: .success(newer))
            emit(.refreshed(newer))
        case .failed(let error):
            let failure = Self.refreshFailure(from: error)
            if failure.isPermanent {
                phase = .failed(failure)
                // The session is over: its cached private responses must not outlive it.
                endCacheSession()
            } else {
                phase = .ready
                schedule.recordTransientFailure(failure, at: now())
            }
            resumeWaiters(with: .failure(.authentication(.refreshFailed(failure))))
            emit(.refreshFailed(failure))
        case .storeFailed(let reason):
            // Not a refresh failure (nothing was asked of the server): no backoff; the next
            // call tries again.
            phase = .ready
            resumeWaiters(with: .failure(.authentication(.storeFailed(reason))))
            emit(.storeFailed(reason))
        case .superseded:
            return  // only produced once the generation moved on, which the guard caught
        }
    }

    /// How `courier_token_refreshes_total` counts `outcome`.
    private static func metricOutcome(_ outcome: RefreshOutcome) -> RefreshMetrics.Outcome {
        switch outcome {
        case .refreshed: .success
        case .adopted: .adopted
        case .failed(let error): refreshFailure(from: error).isPermanent ? .rejected : .failed
        case .storeFailed: .storeFailed
        case .superseded: .superseded
        }
    }

    /// Makes any refresh in flight stale, and cancels it: its result will not be used or saved,
    /// so there is no point in waiting for the token endpoint (or for another process's lock).
    func supersedeRefresh() {
        generation &+= 1
        refreshTask?.cancel()
        refreshTask = nil
    }

    /// Submits a save or removal in decision order; for a ``CoordinatedTokenStore``, under its
    /// lock. The task's value is the store's error, `nil` if it did not fail.
    func submitWrite(_ write: @escaping @Sendable (any TokenStore) async throws -> Void) -> Task<(any Error)?, Never> {
        let store = self.store
        return storeQueue.submit {
            do {
                if let coordinated = store as? any CoordinatedTokenStore {
                    try await coordinated.withExclusiveAccess { try await write(store) }
                } else {
                    try await write(store)
                }
                return nil
            } catch {
                return error
            }
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
}

/// The refreshers whose refresh the current task is part of: a token request's middleware, a
/// custom refresh closure or a store runs inside it. Such code asking the same refresher for a
/// credential would wait for the refresh it is part of, forever; it fails at once instead.
enum RefreshScope {
    @TaskLocal static var refreshers: Set<ObjectIdentifier> = []
}
