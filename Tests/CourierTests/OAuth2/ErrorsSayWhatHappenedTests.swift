import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

// Issue 54, item 4: a failed token request names its grant and, for the usual OAuth2 error
// codes, the cause; a 401 that stands because the credential has nothing to renew it with says so.

/// An API endpoint that requires the bearer token.
private struct Profile: Requestable {
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath("/me") }
}

@Suite("Errors say what happened: the grant, the cause, a credential with nothing to renew it")
struct ErrorsSayWhatHappenedTests {
    static func rejecting(_ code: String, status: Int = 400) -> RecordingTransport {
        Tokens.server(
            tokenAnswer: Response(
                status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
                body: Data(#"{"error":"\#(code)"}"#.utf8), url: URL(string: "https://auth.example.com/oauth/token")!))
    }

    static func failure(_ body: () async throws(CourierError) -> TokenCredential) async -> (RefreshFailure, String)? {
        do throws(CourierError) {
            _ = try await body()
            return nil
        } catch {
            guard case .authentication(.refreshFailed(let failure)) = error else { return nil }
            return (failure, String(describing: error))
        }
    }

    @Test("a wrong password is a rejected password grant, not a failed refresh")
    func wrongPassword() async throws {
        let endpoint = try Tokens.endpoint(configuration: Configuration(transport: Self.rejecting("invalid_grant")))
        let (failure, text) = try #require(
            await Self.failure { () async throws(CourierError) in
                try await endpoint.password(username: "ada", password: "wrong")
            })
        #expect(failure.grantType == "password")
        #expect(failure.reason == .rejected && failure.isPermanent)
        #expect(text.contains("token request failed (password grant)"), "\(text)")
        #expect(text.contains("the username or password is wrong"), "\(text)")
        #expect(!text.contains("refresh failed"), "\(text)")
        #expect(!text.contains("wrong\""), "the password itself is never printed")
    }

    @Test(
        "each grant and OAuth2 error code names its cause",
        arguments: [
            ("refresh_token", "invalid_grant", "refresh failed", "the refresh token expired or was revoked"),
            ("client_credentials", "invalid_client", "token request failed (client_credentials grant)", "the client ID"),
            ("client_credentials", "unauthorized_client", "(client_credentials grant)", "may not use the client_credentials grant"),
            ("password", "unsupported_grant_type", "(password grant)", "does not support the password grant"),
            ("client_credentials", "invalid_scope", "(client_credentials grant)", "the requested scope was refused"),
            ("password", "temporarily_unavailable", "(password grant)", "temporarily_unavailable"),
        ])
    func causes(grant: String, code: String, prefix: String, cause: String) async throws {
        let endpoint = try Tokens.endpoint(configuration: Configuration(transport: Self.rejecting(code)))
        let (failure, text) = try #require(
            await Self.failure { () async throws(CourierError) in
                switch grant {
                case "refresh_token": try await endpoint.refresh(TokenCredential(accessToken: "at", refreshToken: "rt-1"))
                case "password": try await endpoint.password(username: "ada", password: "pw")
                default: try await endpoint.clientCredentials()
                }
            })
        #expect(failure.grantType == grant)
        #expect(text.contains(prefix), "\(text)")
        #expect(text.contains(cause), "\(text)")
    }

    @Test("a token request that gets no response names its grant too")
    func transportFailureNamesTheGrant() async throws {
        let endpoint = try Tokens.endpoint(
            configuration: Configuration(
                transport: RecordingTransport { _ throws(CourierError) in
                    throw .transport(TransportFailure(kind: .cannotConnect, message: "refused"))
                }))
        let (failure, text) = try #require(
            await Self.failure { () async throws(CourierError) in
                try await endpoint.clientCredentials()
            })
        #expect(failure.grantType == "client_credentials")
        #expect(text.contains("(client_credentials grant)"), "\(text)")
    }

    @Test(
        "a 401 to a credential without a refresh token stands, and says why",
        arguments: [(Date(timeIntervalSince1970: 1), "the access token expired"), (.distantFuture, "the server refused the access token")])
    func noRefreshToken(expiresAt: Date, reason: String) async throws {
        let api = RecordingTransport(status: 401)
        let store = InMemoryTokenStore(TokenCredential(accessToken: "at-old", refreshToken: nil, expiresAt: expiresAt))
        var configuration = Configuration(transport: api)
        configuration.authentication = .bearer(TokenRefresher(store: store, tokenEndpoint: try Tokens.endpoint()))
        configuration.authorizedHosts = ["api.example.com"]
        let error = await #expect(throws: CourierError.self) { try await Client(configuration: configuration).enqueue(Profile()).resume() }
        guard case .response(let response) = error else {
            Issue.record("expected the 401 itself, got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 401)
        let text = String(describing: error!)
        #expect(text.contains(reason) && text.contains("no refresh token to renew it"), "\(text)")
        #expect(await api.requests.map { $0.head.path ?? "" } == ["/me"], "no token request: there was nothing to send")
        #expect(response == Response(status: .unauthorized, url: response.url), "the note is not part of ==")
    }

    @Test("a 401 that a refresh answers carries no note")
    func refreshedCallHasNoNote() async throws {
        let api = RecordingTransport(script: [.status(401), .status(401)])
        var configuration = Configuration(transport: api)
        configuration.authentication = .bearer(TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint()))
        configuration.authorizedHosts = ["api.example.com"]
        let error = await #expect(throws: CourierError.self) { try await Client(configuration: configuration).enqueue(Profile()).resume() }
        #expect(!String(describing: error!).contains("refresh token to renew"), "\(String(describing: error))")
    }
}
