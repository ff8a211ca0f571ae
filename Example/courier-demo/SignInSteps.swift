import Courier
import CourierOAuth
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The interactive OAuth2 flows against the demo's authorization server, found by discovery.
extension Demo {
    /// The demo's OAuth2 client, as the token, device and revocation endpoints see it.
    static let clientAuthentication = OAuth2ClientAuthentication.basic(clientID: DemoClient.id, clientSecret: DemoClient.secret)

    /// The server's metadata (RFC 8414), its issuer checked against the API's origin.
    func discover() async -> Result<AuthorizationServerMetadata, CourierError> {
        guard let issuer = URL(string: "\(api.scheme.rawValue)://\(api.host)\(api.port.map { ":\($0)" } ?? "")") else {
            return .failure(.invalidRequest(.invalidURL("\(api)")))
        }
        do throws(CourierError) {
            return .success(try await AuthorizationServerMetadata.discover(issuer: issuer, timeout: .seconds(10)))
        } catch {
            return .failure(error)
        }
    }

    /// Discovery, then the device flow (RFC 8628): the device shows a user code, the demo plays
    /// the user approving it on a second screen, the flow's polling gets the token, and the token
    /// works on `GET /v1/me`.
    func deviceFlow() async -> Outcome {
        let metadata: AuthorizationServerMetadata
        switch await discover() {
        case .success(let found): metadata = found
        case .failure(let error): return unexpected(error, expected: "the authorization server's metadata")
        }
        let started = ContinuousClock.now
        do {
            let tokens = try metadata.tokenEndpoint(clientAuthentication: Self.clientAuthentication, timeout: .seconds(10))
            let flow = try metadata.deviceAuthorizationFlow(tokenEndpoint: tokens, scope: "profile")
            let shown = LockedState<String?>(nil)
            let credential = try await flow.run { [client, api] authorization in
                shown.withLock { $0 = authorization.userCode }
                // The user types the code on their phone; here the demo approves it directly.
                _ = try? await client.enqueue(DecideDevice(api: api, userCode: authorization.userCode)).resume()
            }
            let me = try await signedInUser(with: credential)
            return .passed(
                "issuer \(metadata.issuer) discovered; user code \(shown.withLock { $0 } ?? "?") approved, token after \(Self.format(ContinuousClock.now - started)); GET /v1/me → \(me.name)"
            )
        } catch {
            return unexpected(error, expected: "a token from the device flow")
        }
    }

    /// Authorization code + PKCE through a loopback redirect (RFC 8252), as a command-line tool
    /// signs in: the "browser" follows the authorization server's redirect to Courier's
    /// receiver on 127.0.0.1. Then a forged redirect (another `state`) is refused without a token
    /// request, and signing out revokes the session at the server (RFC 7009).
    func loopbackSignIn() async -> Outcome {
        let metadata: AuthorizationServerMetadata
        switch await discover() {
        case .success(let found): metadata = found
        case .failure(let error): return unexpected(error, expected: "the authorization server's metadata")
        }
        guard let authorizationEndpoint = metadata.authorizationEndpoint, metadata.revocationEndpoint != nil else {
            return .failed("the metadata names no authorization or revocation endpoint")
        }
        do {
            let tokens = try metadata.tokenEndpoint(clientAuthentication: Self.clientAuthentication, timeout: .seconds(10))
            let before = try await client.enqueue(GetAuthStats(api: api)).resume(expecting: AuthStats.self)
            let credential = try await AuthorizationCodeFlow.signIn(
                authorizationEndpoint: authorizationEndpoint, tokenEndpoint: tokens, scope: "profile",
                issuer: metadata.issuer, requiresIssuer: metadata.authorizationResponseIssParameterSupported,
                timeout: .seconds(30)
            ) { url in
                // The "browser": it follows the 302 to the loopback receiver and shows its page.
                // (A real tool opens the system browser here; see Documentation/Authentication.md.)
                _ = try await URLSession.shared.data(from: url)
            }
            let me = try await signedInUser(with: credential)

            // A redirect that did not come from this flow (another state) is refused before any token request.
            let flow = try AuthorizationCodeFlow(
                authorizationEndpoint: authorizationEndpoint, tokenEndpoint: tokens,
                redirectURI: URL(string: "http://127.0.0.1:9/callback")!)
            let forged = URL(string: "http://127.0.0.1:9/callback?code=stolen&state=forged")!
            var refused = false
            do throws(CourierError) {
                _ = try await flow.complete(with: forged)
            } catch .authentication(.authorizationFailed(.stateMismatch)) {
                refused = true
            }

            // Sign out with revocation: the server revokes the token family.
            let refresher = TokenRefresher(store: InMemoryTokenStore(credential), tokenEndpoint: tokens)
            let revocation = try metadata.revocationEndpoint(clientAuthentication: Self.clientAuthentication, timeout: .seconds(5))
            let outcome = try await refresher.signOut(revokingAt: revocation)
            let after = try await client.enqueue(GetAuthStats(api: api)).resume(expecting: AuthStats.self)
            let revokedTokenRefused: Bool
            do {
                _ = try await signedInUser(with: credential)
                revokedTokenRefused = false
            } catch .authentication {
                revokedTokenRefused = true  // 401, and the refresher has nothing to renew it with
            } catch {
                revokedTokenRefused = error.response?.statusCode == 401
            }
            // One code exchange; the forged redirect made no token request.
            let tokenRequests = after.tokenRequests - before.tokenRequests
            guard refused, tokenRequests == 1, outcome.isComplete, revokedTokenRefused else {
                return .failed(
                    "forged redirect refused: \(refused), \(tokenRequests) token requests (expected 1), revocation: \(outcome), revoked token refused: \(revokedTokenRefused)"
                )
            }
            return .passed(
                "PKCE code via 127.0.0.1 → \(me.name); forged state refused unsent; signed out, \(after.revocations - before.revocations) tokens revoked, old token → 401"
            )
        } catch {
            return unexpected(error, expected: "to sign in through the loopback redirect and sign out")
        }
    }

    /// `GET /v1/me` with `credential` as the bearer token.
    private func signedInUser(with credential: TokenCredential) async throws(CourierError) -> User {
        let authorized = Client(
            configuration: Configuration(
                timeout: .seconds(10),
                headers: client.configuration.headers,
                authentication: .bearer(
                    TokenRefresher(store: InMemoryTokenStore(credential)) { _ throws(CourierError) in
                        throw .authentication(.missingCredential)
                    }),
                authorizedHosts: [api.host]
            ))
        return try await authorized.enqueue(GetMe(api: api)).resume(expecting: User.self)
    }
}
