/// A ``TokenStore`` that keeps the credential in memory only: it is gone when the process ends.
///
/// Use it for tests, for short-lived tools, or when the app persists credentials itself.
/// It never throws.
///
/// ```swift
/// let store = InMemoryTokenStore(TokenCredential(accessToken: "at-1", refreshToken: "rt-1"))
/// let credential = await store.load()   // the credential above
/// await store.remove()
/// ```
public actor InMemoryTokenStore: TokenStore {
    private var credential: TokenCredential?

    /// Creates a store holding `credential`, or an empty store.
    public init(_ credential: TokenCredential? = nil) {
        self.credential = credential
    }

    /// The stored credential, or `nil` if there is none. Never throws.
    ///
    /// ```swift
    /// if let credential = await store.load() { use(credential) }
    /// ```
    public func load() -> TokenCredential? {
        credential
    }

    /// Replaces the stored credential. Never throws.
    ///
    /// ```swift
    /// await store.save(TokenCredential(accessToken: "at-2"))
    /// ```
    public func save(_ credential: TokenCredential) {
        self.credential = credential
    }

    /// Forgets the stored credential; removing from an empty store does nothing. Never throws.
    ///
    /// ```swift
    /// await store.remove()
    /// ```
    public func remove() {
        credential = nil
    }
}

extension InMemoryTokenStore: CustomStringConvertible, CustomReflectable {
    /// `InMemoryTokenStore`; never the credential.
    public nonisolated var description: String { "InMemoryTokenStore" }

    /// A mirror without children, so `dump(store)` and reflection-based loggers never reach the
    /// credential.
    public nonisolated var customMirror: Mirror {
        Mirror(self, children: [], displayStyle: .class)
    }
}
