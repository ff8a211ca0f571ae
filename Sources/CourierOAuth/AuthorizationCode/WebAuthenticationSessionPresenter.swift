#if canImport(AuthenticationServices) && (os(iOS) || os(macOS) || os(visionOS))
    public import Courier
    public import AuthenticationServices
    public import Foundation

    /// Runs an ``AuthorizationCodeFlow`` in an `ASWebAuthenticationSession`: the system's
    /// in-app browser sheet, which shares cookies with Safari (unless ephemeral) and returns to
    /// the app through the redirect URI's private-use scheme (RFC 8252 §7.1). Only available on
    /// iOS, macOS and visionOS.
    ///
    /// <!-- guide: if canImport(AuthenticationServices) && (os(iOS) || os(macOS) || os(visionOS)) -->
    /// ```swift
    /// import AuthenticationServices
    ///
    /// @MainActor
    /// func signIn(over window: ASPresentationAnchor) async throws {   // e.g. view.window!
    ///     let flow = try AuthorizationCodeFlow(
    ///         authorizationEndpoint: URL(string: "https://auth.example.com/authorize")!,
    ///         tokenEndpoint: tokens, redirectURI: URL(string: "com.example.app:/oauth/callback")!)
    ///     let presenter = WebAuthenticationSessionPresenter(anchor: window)
    ///     try await refresher.reset(to: presenter.authorize(flow))
    /// }
    /// ```
    @MainActor
    public final class WebAuthenticationSessionPresenter: NSObject, ASWebAuthenticationPresentationContextProviding {
        /// The window the sheet is presented over.
        public let anchor: ASPresentationAnchor
        /// Whether the session keeps no cookies or data (no single sign-on with Safari).
        public let prefersEphemeralWebBrowserSession: Bool
        private var session: ASWebAuthenticationSession?

        /// A presenter over `anchor`.
        /// - Parameters:
        ///   - anchor: the window to present the sheet over.
        ///   - prefersEphemeralWebBrowserSession: `true` for a private session that shares
        ///     nothing with Safari.
        public init(anchor: ASPresentationAnchor, prefersEphemeralWebBrowserSession: Bool = false) {
            self.anchor = anchor
            self.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
            super.init()
        }

        /// Presents the flow's ``AuthorizationCodeFlow/authorizationURL`` and, once the server
        /// redirected to the flow's redirect URI, completes the flow with it
        /// (``AuthorizationCodeFlow/complete(with:)``).
        ///
        /// - Returns: the credential the token endpoint issued.
        /// - Throws: `CourierError.cancelled` when the user closes the sheet or the task is
        ///   cancelled; `AuthorizationFailure.unavailable(_:underlyingError:)` (inside
        ///   `CourierError.authentication(_:)`) for an `http`/`https` redirect URI, when a
        ///   session is already presented, or when the session cannot start or fails; and the
        ///   errors of ``AuthorizationCodeFlow/complete(with:)``.
        public func authorize(_ flow: AuthorizationCodeFlow) async throws(CourierError) -> TokenCredential {
            let scheme = try WebAuthenticationSessionSupport.callbackScheme(for: flow.redirectURI)
            let redirect = try await present(flow.authorizationURL, callbackURLScheme: scheme)
            return try await flow.complete(with: redirect)
        }

        /// The anchor, for the session.
        public func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
            anchor
        }

        /// Presents one session and returns what it called back with. Cancelling the calling task
        /// returns `CourierError.cancelled` at once and dismisses this call's session (never a
        /// later one: ``session`` is this call's until it returns).
        private func present(_ url: URL, callbackURLScheme: String) async throws(CourierError) -> URL {
            guard session == nil else {
                throw .authentication(.authorizationFailed(.unavailable("a web authentication session is already presented")))
            }
            let outcome = SessionOutcome<Result<URL, CourierError>>()
            let result = await withTaskCancellationHandler {
                await outcome.wait { deliver in
                    let session = Self.makeSession(url, callbackURLScheme: callbackURLScheme, resume: deliver)
                    session.presentationContextProvider = self
                    session.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
                    self.session = session
                    if !session.start() {
                        deliver(.failure(.authentication(.authorizationFailed(.unavailable("the web authentication session could not start")))))
                    }
                }
            } onCancel: {
                outcome.deliver(.failure(.cancelled))
            }
            if case .failure(.cancelled) = result { session?.cancel() }
            session = nil
            return try result.get()
        }

        /// The session, with a completion handler that is not isolated to the main actor (the
        /// system may call it on any queue).
        private nonisolated static func makeSession(
            _ url: URL,
            callbackURLScheme: String,
            resume: @escaping @Sendable (Result<URL, CourierError>) -> Void
        ) -> ASWebAuthenticationSession {
            ASWebAuthenticationSession(url: url, callbackURLScheme: callbackURLScheme) { callbackURL, error in
                let isCanceledLogin = (error as? ASWebAuthenticationSessionError)?.code == .canceledLogin
                resume(WebAuthenticationSessionSupport.outcome(callbackURL: callbackURL, error: error, isCanceledLogin: isCanceledLogin))
            }
        }
    }
#endif
