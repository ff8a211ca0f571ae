public import Courier

extension TokenRefresher {
    /// Signs out like `signOut()` and then asks the authorization server to revoke the
    /// credential's tokens (RFC 7009): the refresh token first, then the access token. The local
    /// sign-out comes **first** and does not wait for the server. Revocation is best effort,
    /// bounded by `timeout`: its outcome is returned, never thrown.
    ///
    /// ```swift
    /// let outcome = try await refresher.signOut(revokingAt: revocation)
    /// if !outcome.isComplete { logger.warning("sign-out: \(outcome)") }
    /// ```
    /// - Parameters:
    ///   - endpoint: the revocation endpoint.
    ///   - timeout: how long revocation may take in all, measured on `ContinuousClock`.
    /// - Returns: what happened to each token; ``RevocationOutcome/isComplete`` when all were revoked.
    /// - Throws: `AuthenticationFailure.storeFailed(_:)` if the store cannot remove the credential
    ///   (revocation is attempted all the same). Never a revocation failure.
    @discardableResult
    public func signOut(
        revokingAt endpoint: OAuth2RevocationEndpoint, timeout: Duration = .seconds(5)
    ) async throws(CourierError) -> RevocationOutcome {
        // When this method begins, the credential is already forgotten, every waiting and later call
        // fails with .missingCredential, AuthEvent.signedOut is sent and the removal from the store is
        // submitted. Servers usually drop the access tokens issued with a refresh token when it is
        // revoked. A revocation request still running when the time is up is cancelled (a transport
        // that ignores cancellation can make this method wait for it). Before the credential was ever
        // loaded, the stored one is read first, in store order, so that it can be revoked. The timeout
        // should fit at least the endpoint's own request timeout.
        let (held, removal) = signOutLocallyKeepingCredential()
        let outcome = await Self.revoke(await held.value, at: endpoint, within: timeout)
        if let failure = await removal.value {
            throw .authentication(.storeFailed(failure))
        }
        return outcome
    }

    /// Revokes the refresh token, then the access token, within `timeout` in all.
    private static func revoke(
        _ credential: TokenCredential?, at endpoint: OAuth2RevocationEndpoint, within timeout: Duration
    ) async -> RevocationOutcome {
        guard let credential else { return RevocationOutcome(refreshToken: nil, accessToken: nil) }
        let refreshToken = credential.refreshToken.flatMap { $0.isEmpty ? nil : $0 }
        let progress = LockedState(
            RevocationOutcome(
                refreshToken: refreshToken == nil ? nil : .timedOut,
                accessToken: credential.accessToken.isEmpty ? nil : .timedOut))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                if let refreshToken {
                    let result = await revokeOne(refreshToken, hint: .refreshToken, at: endpoint)
                    progress.withLock { $0.refreshToken = result }
                }
                if !credential.accessToken.isEmpty, !Task.isCancelled {
                    let result = await revokeOne(credential.accessToken, hint: .accessToken, at: endpoint)
                    progress.withLock { $0.accessToken = result }
                }
            }
            group.addTask {
                try? await Task.sleep(for: min(timeout, Duration.longestWait))  // a longer one traps
            }
            await group.next()
            group.cancelAll()
        }
        return progress.withLock { $0 }
    }

    private static func revokeOne(
        _ token: String, hint: OAuth2RevocationEndpoint.TokenTypeHint, at endpoint: OAuth2RevocationEndpoint
    ) async -> RevocationOutcome.Result {
        do {
            try await endpoint.revoke(token, hint: hint)
            return .revoked
        } catch .cancelled {
            return .timedOut
        } catch .authentication(.revocationFailed(let failure)) {
            return .failed(failure.revocationDescription, underlyingError: .authentication(.revocationFailed(failure)))
        } catch {
            return .failed(error.description, underlyingError: error)
        }
    }
}
