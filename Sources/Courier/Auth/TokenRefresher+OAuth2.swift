public import Foundation

extension TokenRefresher {
    /// A refresher that renews the credential at an OAuth2 token endpoint.
    /// - Parameters:
    ///   - store: where the credential lives; loaded on first use, written on every refresh.
    ///   - tokenEndpoint: the authorization server's token endpoint. Made without a
    ///     configuration, this refresher's token requests go through the path of the first
    ///     ``Client`` still alive created with it (its transport, middleware, logs, spans and
    ///     metrics, without its authentication and cache).
    ///   - grant: how to renew; `.refreshToken` by default.
    ///   - policy: leeway, backoff and loop guard.
    ///   - now: the wall clock, injectable for tests.
    public init(
        store: any TokenStore,
        tokenEndpoint: OAuth2TokenEndpoint,
        grant: Grant = .refreshToken,
        policy: Policy = Policy(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        // Its own path: the clients created with this refresher adopt it.
        let tokenEndpoint = tokenEndpoint.withOwnPath()
        switch grant {
        case .refreshToken:
            self.init(store: store, policy: policy, now: now, canRefresh: { !($0?.refreshToken ?? "").isEmpty }, tokenPath: tokenEndpoint.tokenPath) {
                credential throws(CourierError) in
                guard let credential else { throw .authentication(.missingCredential) }
                return try await tokenEndpoint.refresh(credential)
            }
        case .clientCredentials(let scope):
            self.init(store: store, policy: policy, now: now, canRefresh: { _ in true }, tokenPath: tokenEndpoint.tokenPath) { _ throws(CourierError) in
                try await tokenEndpoint.clientCredentials(scope: scope)
            }
        }
    }
}
