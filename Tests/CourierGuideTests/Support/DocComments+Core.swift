// What the doc-comment examples of Courier's Auth, Pipeline, Errors and Transport files use
// without declaring it (see Scaffolding.swift): members of their generated `Doc…Guide` enums.

import Courier
import Crypto
import Foundation

#if AsyncHTTPClientLinked
    import NIOSSL
#endif

extension DocCourierAuthCoordinatedTokenStoreGuide {
    /// The app's own storage, shared by several processes.
    struct Database: Sendable {
        struct Lock: Sendable { func release() {} }
        func lock(_ name: String) async throws -> Lock { Lock() }
    }
    static let database = Database()
}

/// The example's "load(), save(_:), remove() as for any TokenStore".
extension DocCourierAuthCoordinatedTokenStoreGuide.SharedStore {
    func load() async throws -> TokenCredential? { nil }
    func save(_ credential: TokenCredential) async throws {}
    func remove() async throws {}
}

extension DocCourierAuthRequestSignerGuide {
    /// Documentation/Authentication.md's HMAC signer, and its key.
    typealias HMACSigner = AuthenticationGuide.HMACSigner
    static let key = SymmetricKey(size: .bits256)
}

extension DocCourierAuthOAuth2OAuth2TokenEndpointGuide {
    static let expiredCredential = credential
    /// An authorization code the app received.
    static let code = "authorization-code"
}

extension DocCourierAuthOAuth2OAuth2TokenEndpointGrantsGuide {
    static let typedPassword = password
}

extension DocCourierAuthTokenRefresherGuide {
    static let signedInCredential = credential

    struct SessionService: Sendable {
        func renew(_ credential: TokenCredential?) async throws -> TokenCredential { TokenCredential(accessToken: "renewed") }
    }
    static let mySessionService = SessionService()
}

extension DocCourierAuthStoresInMemoryTokenStoreGuide {
    static let store = InMemoryTokenStore()
    static func use(_ credential: TokenCredential) {}
}

#if EncryptedTokenStore
    extension DocCourierAuthStoresFileTokenStoreGuide {
        static let url = tokenFile
        static let secretFromEnvironment = passphrase
        static let store = try! FileTokenStore(url: tokenFile, key: key)
        static func signIn() async {}
        static func use(_ credential: TokenCredential) {}
    }

    extension DocCourierAuthStoresFileTokenStoreLockGuide {
        static let store = try! FileTokenStore(url: tokenFile, key: key)
        /// Whatever the app changes in a stored credential.
        static func adjusted(_ credential: TokenCredential) -> TokenCredential { credential }
    }
#endif

#if canImport(Security)
    extension DocCourierAuthStoresKeychainTokenStoreGuide {
        static let store = KeychainTokenStore(service: "com.example.myapp.oauth")
        static func signIn() async {}
        static func use(_ credential: TokenCredential) {}
    }
#endif

extension DocCourierPipelineCacheHTTPCacheGuide {
    static let cachesFolder = URL(fileURLWithPath: "/tmp/courier-guide/caches")
}

extension DocCourierPipelineConstraintGuide {
    /// The app's session, which a constraint starts when there is none.
    actor SessionStore {
        var sessionID: String?
        func startSession() async throws { sessionID = "session" }
    }
    static let sessionStore = SessionStore()

    actor Privacy {
        var hasConsent = false
        func askForConsent() async throws { hasConsent = true }
    }
    static let privacy = Privacy()

    static let session = Constraint(
        name: "session", isSatisfied: { await sessionStore.sessionID != nil }, satisfy: { try await sessionStore.startSession() })
    static let response = Response(status: HTTPResponse.Status(code: 440), url: URL(string: "https://api.example.com/orders")!)
    static let failure = ConstraintFailure(name: "session", reason: .timedOut(after: .seconds(30)))
    static func showRetryButton() {}
}

extension DocCourierPipelineRetryPolicyGuide {
    nonisolated(unsafe) static var policy = RetryPolicy.default
}

extension DocCourierErrorsAuthenticationFailureGuide {
    typealias GetProfile = AuthenticationGuide.GetProfile
    typealias Profile = AuthenticationGuide.Profile
    static func showSignIn(reason: String?) {}
}

extension DocCourierErrorsAuthorizationFailureGuide {
    nonisolated(unsafe) static var credential: TokenCredential?
    static let authorize = URL(string: "https://auth.example.com/authorize")!
}

#if EncryptedTokenStore
    extension DocCourierErrorsTokenStoreErrorGuide {
        static let store = try! FileTokenStore(url: tokenFile, key: key)
        static let log = logger
        static func showDiskFull() {}
    }
#endif

extension DocCourierErrorsTransportFailureGuide {
    static let error = CourierError.transport(TransportFailure(URLError(.timedOut), url: URL(string: "https://h/p?token=t")))
    static let failure = TransportFailure(URLError(.timedOut), url: URL(string: "https://h/p?token=t"))
    static let request = TransportRequest(head: HTTPRequest(method: .get, scheme: "https", authority: "h", path: "/p"), timeout: .seconds(30))
}

extension DocCourierTransportTLSPinningPolicyGuide {
    static let current = try! PinningPolicy.Pin(sha256Base64: "r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=")
    static let backup = try! PinningPolicy.Pin(sha256Base64: "YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=")
}

extension DocCourierTransportTransportGuide {
    static let request = TransportRequest(head: HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/users"), timeout: .seconds(30))
}

#if AsyncHTTPClientLinked
    extension DocCourierTransportAsyncHTTPClientAsyncHTTPClientTransportGuide {
        static let privateCA = TLSConfiguration.makeClientConfiguration()
        static let pins = PinningPolicy(["api.example.com": [DocCourierTransportTLSPinningPolicyGuide.current]])
    }
#endif
