public import Courier
public import Foundation

extension AuthorizationCodeFlow {
    /// Signs in with the authorization code grant through the system browser and a
    /// ``LoopbackRedirectReceiver``: the whole flow for a command-line or desktop tool
    /// (RFC 8252 §7.3). macOS, Mac Catalyst and Linux only: on iOS, tvOS, watchOS and visionOS
    /// the app is suspended while the browser is in front (use `ASWebAuthenticationSession`). A
    /// sandboxed macOS app needs the `com.apple.security.network.server` entitlement.
    ///
    /// - Parameters:
    ///   - authorizationEndpoint: the authorization endpoint.
    ///   - tokenEndpoint: the token endpoint; its client authentication gives `client_id`.
    ///   - scope: the scope to ask for; `nil` sends none.
    ///   - additionalParameters: extra authorization request parameters.
    ///   - issuer: the expected RFC 9207 `iss`; `nil` ignores it.
    ///   - requiresIssuer: refuse a redirect without `iss`; needs `issuer`.
    ///   - callbackPath: the redirect URI's path.
    ///   - successHTML: the page the browser shows after a redirect that passed every check.
    ///   - failureHTML: the page it shows after any other.
    ///   - timeout: how long to wait for the redirect, from the moment the receiver listens.
    ///   - openBrowser: opens the authorization URL (which carries `state` and the PKCE challenge:
    ///     do not log it). A `CancellationError` it throws becomes `CourierError.cancelled`.
    /// - Returns: the credential the token endpoint issued.
    /// - Throws: `CourierError.authentication(_:)` with `AuthenticationFailure.authorizationFailed(_:)`
    ///   (`.timedOut`, `.denied`, `.issuerMismatch`, `.malformedResponse`, `.unavailable`), always
    ///   without a token request; `CourierError.cancelled`; the errors of the token endpoint.
    @available(iOS, unavailable)
    @available(macCatalyst, introduced: 13.1)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    @available(visionOS, unavailable)
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
        // What it does: starts a receiver on `127.0.0.1`, builds a flow whose redirect URI is
        // `http://127.0.0.1:<port><callbackPath>`, calls `openBrowser` with the authorization URL,
        // waits for the redirect (the browser is answered at once), checks it (authorizationCode(from:))
        // and exchanges the code at the token endpoint. The receiver stops listening as soon as the
        // redirect came, or on failure, timeout or cancellation. Documentation/Authentication.md has a
        // full example.
        //
        // `openBrowser` runs while the receiver already waits, so it may return at once (after starting
        // a browser) or only when the browser is done. The sign-in does not wait for it once the
        // redirect came; it is cancelled if the flow fails, times out or is cancelled. A `CourierError`
        // it throws is rethrown as it is, any other error becomes `.unavailable(_:underlyingError:)`.
        //
        // A callback without this flow's `state` never ends the wait: it gets the failure page, and the
        // browser's redirect is still awaited (so the result is `.timedOut`, not `.stateMismatch`).
        // `.unavailable` means no loopback socket, or `openBrowser` failed. The initializers' errors
        // (a bad callback path or parameter) are thrown too. Unavailable on watchOS because normal apps
        // cannot use BSD sockets there (Apple's TN3135).
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
    @available(iOS, unavailable)
    @available(macCatalyst, introduced: 13.1)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    @available(visionOS, unavailable)
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
    @available(iOS, unavailable)
    @available(macCatalyst, introduced: 13.1)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    @available(visionOS, unavailable)
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
