public import Courier
public import Foundation

extension AuthorizationCodeFlow {
    /// Signs in with the authorization code grant through the system browser and a
    /// ``LoopbackRedirectReceiver``: the whole flow for a command-line or desktop tool
    /// (RFC 8252 §7.3).
    ///
    /// It starts a receiver on `127.0.0.1`, builds a flow whose redirect URI is
    /// `http://127.0.0.1:<port><callbackPath>`, calls `openBrowser` with the authorization URL,
    /// waits for the redirect (the browser is answered at once), checks it (see
    /// ``authorizationCode(from:)``) and exchanges the code at the token endpoint. The receiver
    /// stops listening as soon as the redirect came, or on failure, timeout or cancellation.
    ///
    /// ```swift
    /// // A command-line tool: open the default browser, or print the URL for the user.
    /// let credential = try await AuthorizationCodeFlow.signIn(
    ///     authorizationEndpoint: URL(string: "https://auth.example.com/authorize")!,
    ///     tokenEndpoint: OAuth2TokenEndpoint(
    ///         baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/token"),
    ///         clientAuthentication: .publicClient(clientID: "my-cli")),
    ///     scope: "openid offline_access",
    ///     timeout: .seconds(300)
    /// ) { url in
    ///     print("Opening \(url.host ?? "the sign-in page") in your browser…")
    ///     let open = Process()
    ///     open.executableURL = URL(fileURLWithPath: "/usr/bin/open")   // xdg-open on Linux
    ///     open.arguments = [url.absoluteString]
    ///     try open.run()
    /// }
    /// try await refresher.reset(to: credential)
    /// ```
    ///
    /// `openBrowser` runs while the receiver already waits, so it may return at once (after
    /// starting a browser) or only when the browser is done. The sign-in does not wait for it
    /// once the redirect came; it is cancelled if the flow fails, times out or is cancelled. The
    /// authorization URL it gets carries `state` and the PKCE challenge: open it, do not log it.
    ///
    /// - Parameters:
    ///   - authorizationEndpoint: the authorization endpoint.
    ///   - tokenEndpoint: the token endpoint; its client authentication gives `client_id`
    ///     (usually `OAuth2ClientAuthentication.publicClient(clientID:)` for a native app).
    ///   - scope: the scope to ask for; `nil` sends none.
    ///   - additionalParameters: extra authorization request parameters (see
    ///     ``init(authorizationEndpoint:tokenEndpoint:redirectURI:scope:additionalParameters:issuer:requiresIssuer:)``).
    ///   - issuer: the expected RFC 9207 `iss`; `nil` ignores it.
    ///   - requiresIssuer: refuse a redirect without `iss`; needs `issuer`.
    ///   - callbackPath: the redirect URI's path.
    ///   - successHTML: the page the browser shows after a redirect that passed every check.
    ///   - failureHTML: the page it shows after any other.
    ///   - timeout: how long to wait for the redirect, from the moment the receiver listens.
    ///   - openBrowser: opens the authorization URL. A `CourierError` it throws is rethrown as
    ///     it is, a `CancellationError` becomes `CourierError.cancelled`, and any other error
    ///     `AuthorizationFailure.unavailable(_:underlyingError:)`.
    /// - Returns: the credential the token endpoint issued.
    /// - Throws: `CourierError.authentication(_:)` with `AuthenticationFailure.authorizationFailed(_:)`:
    ///   `AuthorizationFailure.timedOut` (a callback without this flow's `state` never ends the
    ///   wait: it gets the failure page, and the browser's redirect is still awaited),
    ///   `AuthorizationFailure.denied(_:)`, `AuthorizationFailure.issuerMismatch(expected:received:)`,
    ///   `AuthorizationFailure.malformedResponse(_:)` or `AuthorizationFailure.unavailable(_:underlyingError:)`
    ///   (no loopback socket, or `openBrowser` failed), in every case without a token request;
    ///   `CourierError.cancelled`; the errors of the initializers; and those of the token
    ///   endpoint (see `OAuth2TokenEndpoint`).
    ///
    /// Not available on watchOS, where normal apps cannot use BSD sockets (Apple's TN3135).
    @available(watchOS, unavailable)
    public static func signIn(
        authorizationEndpoint: URL,
        tokenEndpoint: OAuth2TokenEndpoint,
        scope: String? = nil,
        additionalParameters: [QueryItem] = [],
        issuer: String? = nil,
        requiresIssuer: Bool = false,
        callbackPath: String = "/callback",
        successHTML: String = LoopbackRedirectReceiver.defaultSuccessHTML,
        failureHTML: String = LoopbackRedirectReceiver.defaultFailureHTML,
        timeout: Duration = .seconds(300),
        openBrowser: @escaping @Sendable (URL) async throws -> Void
    ) async throws(CourierError) -> TokenCredential {
        guard timeout > .zero else { throw .invalidRequest(.invalidTimeout(timeout)) }
        let receiver = try LoopbackRedirectReceiver(callbackPath: callbackPath, successHTML: successHTML, failureHTML: failureHTML)
        defer { receiver.close() }
        let flow = try AuthorizationCodeFlow(
            authorizationEndpoint: authorizationEndpoint, tokenEndpoint: tokenEndpoint, redirectURI: receiver.redirectURI,
            scope: scope, additionalParameters: additionalParameters, issuer: issuer, requiresIssuer: requiresIssuer)
        let code = try await flow.receiveCode(with: receiver, timeout: timeout, openBrowser: openBrowser)
        return try await flow.exchange(code)
    }

    /// What the loopback receiver does with a callback during ``signIn(authorizationEndpoint:tokenEndpoint:scope:additionalParameters:issuer:requiresIssuer:callbackPath:successHTML:failureHTML:timeout:openBrowser:)``:
    /// `success` with the checked code; `rejected` when it is not this flow's redirect (no
    /// `state`, another one, or a query too malformed to read it: any local process can request
    /// the callback, so it gets the failure page and the wait goes on); otherwise the check's
    /// error, which ends the sign-in.
    @available(watchOS, unavailable)
    func handleLoopbackRedirect(_ redirect: URL) -> LoopbackRedirectReceiver.Handled<String> {
        do throws(CourierError) {
            return .success(try authorizationCode(from: redirect))
        } catch {
            return carriesState(redirect) ? .error(error) : .rejected
        }
    }

    /// Waits on `receiver` for the redirect while `openBrowser` runs, and returns its checked
    /// code. A failure to open the browser ends the wait (the receiver closes its sockets).
    ///
    /// The browser runs in a task of its own that is **not awaited**: once the redirect came, the
    /// sign-in goes on without waiting for the closure to return, and the closure is left to
    /// finish (it has nothing left to do; opening a browser returns at once). It is cancelled
    /// only when the flow fails, times out or is cancelled. Cancelling it after the redirect would
    /// be unsafe on Linux: measured with corelibs URLSession as the "browser", cancelling a task
    /// inside `URLSession.data(from:)` while URLSession delivers that same response deadlocks the
    /// cancelling thread (the task's status lock, then URLSession's queue, taken in opposite
    /// orders by the two threads).
    @available(watchOS, unavailable)
    func receiveCode(
        with receiver: LoopbackRedirectReceiver,
        timeout: Duration,
        openBrowser: @escaping @Sendable (URL) async throws -> Void
    ) async throws(CourierError) -> String {
        let authorizationURL = authorizationURL
        let flow = self
        let browserFailure = LockedState<CourierError?>(nil)
        let browser = Task {
            do {
                try await openBrowser(authorizationURL)
            } catch {
                let failure: CourierError =
                    switch error {
                    case let error as CourierError: error
                    case is CancellationError: .cancelled
                    default: .authentication(.authorizationFailed(.unavailable("opening the browser failed: \(error)", underlyingError: error)))
                    }
                browserFailure.withLock { $0 = failure }
                receiver.close()  // ends the wait below with .cancelled
            }
        }
        let received = await receiver.receive(timeout: timeout) { redirect in flow.handleLoopbackRedirect(redirect) }
        switch received {
        case .success(let code):
            return code
        case .failure(.cancelled):
            browser.cancel()
            if Task.isCancelled { throw .cancelled }
            throw browserFailure.withLock { $0 } ?? .cancelled
        case .failure(let error):
            browser.cancel()
            throw error
        }
    }
}
