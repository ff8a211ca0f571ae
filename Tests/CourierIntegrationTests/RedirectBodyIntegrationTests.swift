import Courier
import CourierOAuth
import CourierTesting
import FlyingFox
import Foundation
import Testing

/// No request body crosses to another origin on a 307/308 unless the endpoint opts in, and
/// OAuth2 requests that carry a secret follow no redirect at all (issue 22, item 2).
///
/// Before the fix, async-http-client followed a 307/308 to any origin and sent the body again
/// (only the secret headers were stripped): a token endpoint's 307 replayed
/// `grant_type=refresh_token&refresh_token=…&client_secret=…` to the other server, whose
/// `invalid_grant` became a permanent refresh failure.
@Suite("Redirects and request bodies", .loopback, .timeLimit(.minutes(1)))
struct RedirectBodyIntegrationTests {
    static func redirect(_ code: Int, to location: String) -> FlyingFox.HTTPResponse {
        FlyingFox.HTTPResponse(statusCode: HTTPStatusCode(code, phrase: "Redirect"), headers: [HTTPHeader("Location"): location])
    }

    /// Answers `invalid_grant` (what another server says to a token it never issued) and records
    /// what arrived.
    static func rejectGrants(on server: TestServer, at route: HTTPRoute, recorder: Recorder<ReceivedRequest>) async {
        await server.route(route) { request in
            await recorder.record(try await ReceivedRequest(request))
            return FlyingFox.HTTPResponse(
                statusCode: .badRequest, headers: [.contentType: "application/json"], body: Data(#"{"error":"invalid_grant"}"#.utf8))
        }
    }

    @Test(
        "a token endpoint's 307/308 is not followed, to another origin or its own: the form stays home, the failure is not permanent",
        arguments: TransportKind.allCases, [(307, true), (308, true), (307, false), (308, false)])
    func tokenEndpointRedirectIsNotFollowed(_ kind: TransportKind, redirect: (code: Int, crossOrigin: Bool)) async throws {
        let (code, crossOrigin) = redirect
        try await TestServer.run { a in
            try await TestServer.run { b in
                let elsewhere = Recorder<ReceivedRequest>()
                let target = crossOrigin ? b : a
                // The handler keeps the URL, not the server: a server whose own handler holds it
                // is a reference cycle that outlives the test (LeakSanitizer reports it).
                let stolen = target.url("/stolen")
                await a.route("POST /token") { _ in Self.redirect(code, to: stolen) }
                await Self.rejectGrants(on: target, at: "POST /stolen", recorder: elsewhere)
                let tokens = OAuth2TokenEndpoint(
                    baseURL: a.baseURL, path: try URLPath("/token"),
                    clientAuthentication: .requestBody(clientID: "app", clientSecret: "CLIENT-SECRET"), configuration: Configuration(transport: kind.make()))
                let credential = TokenCredential(accessToken: "AT", refreshToken: "RT-SECRET")

                let failure: RefreshFailure
                do throws(CourierError) {
                    _ = try await tokens.refresh(credential)
                    Issue.record("the refresh succeeded")
                    return
                } catch {
                    guard case .authentication(.refreshFailed(let refreshFailure)) = error else {
                        Issue.record("expected refreshFailed, got \(error)")
                        return
                    }
                    failure = refreshFailure
                }
                #expect(await elsewhere.values.isEmpty, "the form (refresh token, client secret) followed the redirect")
                #expect(failure.statusCode == code)
                #expect(failure.reason == .unexpectedStatus)
                #expect(!failure.isPermanent)
            }
        }
    }

    @Test("a revocation endpoint's 307/308 to another origin is not followed", arguments: TransportKind.allCases, [307, 308])
    func revocationRedirectIsNotFollowed(_ kind: TransportKind, code: Int) async throws {
        try await TestServer.run { a in
            try await TestServer.run { b in
                let elsewhere = Recorder<ReceivedRequest>()
                let revoke = b.url("/revoke")
                await a.route("POST /revoke") { _ in Self.redirect(code, to: revoke) }
                await Self.rejectGrants(on: b, at: "POST /revoke", recorder: elsewhere)
                let revocation = OAuth2RevocationEndpoint(
                    baseURL: a.baseURL, path: try URLPath("/revoke"),
                    clientAuthentication: .requestBody(clientID: "app", clientSecret: "CLIENT-SECRET"), configuration: Configuration(transport: kind.make()))
                let result: Result<Void, CourierError>
                do throws(CourierError) {
                    try await revocation.revoke("RT-SECRET", hint: .refreshToken)
                    result = .success(())
                } catch {
                    result = .failure(error)
                }
                #expect(await elsewhere.values.isEmpty, "the token and client secret followed the redirect")
                guard case .failure(.authentication(.revocationFailed(let failure))) = result else {
                    Issue.record("expected revocationFailed, got \(result)")
                    return
                }
                #expect(failure.statusCode == code)
                #expect(!failure.isPermanent)
            }
        }
    }

    @Test("a 307/308 of a POST to another origin is not followed: the 3xx is the response", arguments: TransportKind.allCases, [307, 308])
    func crossOriginBodyIsNotResent(_ kind: TransportKind, code: Int) async throws {
        try await TestServer.run { a in
            try await TestServer.run { b in
                let atB = Recorder<ReceivedRequest>()
                let target = b.url("/orders")
                await a.route("POST /orders") { _ in Self.redirect(code, to: target) }
                await b.route("POST /orders") { request in
                    await atB.record(try await ReceivedRequest(request))
                    return FlyingFox.HTTPResponse(statusCode: .ok, body: Data("created-at-b".utf8))
                }
                let endpoint = try a.endpoint("/orders").with {
                    $0.method = .post
                    $0.body = .form([QueryItem(name: "password", value: "hunter2")])
                }
                let result = await a.client(kind).enqueue(endpoint).result()
                guard case .failure(.response(let response)) = result else {
                    Issue.record("expected the \(code) as the response, got \(result)")
                    return
                }
                #expect(response.statusCode == code)
                #expect(response.headerValue(for: "Location") == target)
                #expect(await atB.values.isEmpty)
            }
        }
    }
}
