extension TokenRefresher {
    /// Timing and limits of refreshing.
    ///
    /// Any values are safe: the backoff and the loop window are computed with saturating
    /// arithmetic (no failure count or `Duration`, however large, can trap), and a negative
    /// backoff or window counts as zero.
    public struct Policy: Sendable, Equatable {
        /// Refresh this long before the token expires; never more than half the token's lifetime.
        /// Default: 30 seconds.
        public var leeway: Duration
        /// The wait after a first transient failure before another refresh may be tried; it
        /// doubles with each consecutive failure, up to ``maximumBackoff``. Default: 1 second.
        public var initialBackoff: Duration
        /// The longest backoff. Default: 60 seconds.
        public var maximumBackoff: Duration
        /// At most this many refreshes within ``refreshWindow``. Default: 10.
        public var maximumRefreshes: Int
        /// The window of the loop guard. Default: 60 seconds.
        public var refreshWindow: Duration

        /// Creates a policy; every parameter has a default.
        public init(
            leeway: Duration = .seconds(30),
            initialBackoff: Duration = .seconds(1),
            maximumBackoff: Duration = .seconds(60),
            maximumRefreshes: Int = 10,
            refreshWindow: Duration = .seconds(60)
        ) {
            self.leeway = leeway
            self.initialBackoff = initialBackoff
            self.maximumBackoff = maximumBackoff
            self.maximumRefreshes = maximumRefreshes
            self.refreshWindow = refreshWindow
        }
    }

    /// Which OAuth2 grant renews the credential.
    public enum Grant: Sendable, Equatable {
        /// `refresh_token` (RFC 6749 §6): needs a credential with a refresh token; without one,
        /// calls fail with ``AuthenticationFailure/missingCredential``.
        case refreshToken
        /// `client_credentials` (RFC 6749 §4.4): a client-level token, obtained when there is
        /// none yet and whenever it expires or is rejected.
        case clientCredentials(scope: String? = nil)
    }
}
