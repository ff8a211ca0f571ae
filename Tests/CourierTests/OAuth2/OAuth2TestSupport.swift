import Courier
import CourierTesting
import Foundation
import HTTPTypes

/// Fixtures shared by the OAuth2 token endpoint suites; namespaced so that other suites in the
/// target can use the same plain names.
enum OAuth2Fixtures {
    /// The fixed clock every endpoint in these suites reads.
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// The canonical 200 token response.
    static let tokenJSON = #"{"access_token":"at-new","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-new"}"#

    /// An endpoint at `https://auth.example.com/oauth/token` over `transport`, with the fixed clock.
    static func endpoint(
        _ transport: any Transport,
        authentication: OAuth2ClientAuthentication = .publicClient(clientID: "app"),
        timeout: Duration = .seconds(30)
    ) throws(CourierError) -> OAuth2TokenEndpoint {
        OAuth2TokenEndpoint(
            baseURL: try BaseURL(host: "auth.example.com"),
            path: try URLPath("/oauth/token"),
            clientAuthentication: authentication,
            configuration: Configuration(transport: transport),
            timeout: timeout,
            now: { OAuth2Fixtures.now }
        )
    }

    /// A transport answering every request with `status` and `body` (JSON content type).
    static func answering(
        _ status: Int = 200, _ body: String = tokenJSON,
        contentType: String = "application/json"
    ) -> RecordingTransport {
        RecordingTransport(status: status, headers: HTTPFields(["Content-Type": contentType]), body: Data(body.utf8))
    }

    /// A transport that fails every request with `error`, counting the attempts.
    static func failing(with error: CourierError) -> RecordingTransport {
        RecordingTransport { _ throws(CourierError) in throw error }
    }

    /// A credential whose access token has expired, with refresh token `rt-1`.
    static func expiredCredential(refreshToken: String? = "rt-1", scope: String? = nil) -> TokenCredential {
        TokenCredential(
            accessToken: "expired-access-token", refreshToken: refreshToken,
            expiresAt: now.addingTimeInterval(-60), scope: scope,
            issuedAt: now.addingTimeInterval(-3660))
    }

    /// The refresh failure inside `error`, if it is `.authentication(.refreshFailed(_))`.
    /// The failure inside a `.authentication(.revocationFailed(_))`, or `nil`.
    static func revocationFailure(_ error: CourierError?) -> RefreshFailure? {
        guard case .authentication(.revocationFailed(let failure))? = error else { return nil }
        return failure
    }

    static func refreshFailure(_ error: CourierError?) -> RefreshFailure? {
        if case .authentication(.refreshFailed(let failure))? = error { return failure }
        return nil
    }

    /// Runs `body` and returns the `CourierError` it threw, or `nil` if it returned.
    static func error(from body: () async throws(CourierError) -> TokenCredential) async -> CourierError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }
}

extension TransportRequest {
    /// The body as UTF-8 text.
    var bodyText: String? {
        bodyData.map { String(decoding: $0, as: UTF8.self) }
    }

    /// For `Authorization: Basic <base64>`, the decoded `id:secret` text; `nil` otherwise.
    var basicCredentials: String? {
        guard let value = header("Authorization"), value.hasPrefix("Basic "),
            let data = Data(base64Encoded: String(value.dropFirst("Basic ".count)))
        else { return nil }
        return String(data: data, encoding: .utf8)
    }
}

/// A transport that never answers on its own: it waits until the calling task is cancelled and
/// then throws `.cancelled`, as a real transport must.
actor OAuth2HangingTransport: Transport {
    private(set) var started = 0

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        started += 1
        do {
            try await suspendUntilCancelled()
        } catch {
            throw .cancelled
        }
        return StreamedResponse(statusCode: 200, body: Data(OAuth2Fixtures.tokenJSON.utf8), url: request.url)
    }
}

/// A token endpoint and an API on one stubbed transport, and an expired credential: the first
/// call through a client with a refresher refreshes.
enum Tokens {
    static let json = #"{"access_token":"at-new","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-new"}"#

    /// The token endpoint answers a token (or `tokenAnswer`), the API 200.
    static func server(tokenAnswer: Response? = nil) -> RecordingTransport {
        RecordingTransport { request throws(CourierError) in
            if request.head.path == "/oauth/token" {
                if let tokenAnswer { return tokenAnswer }
                return Response(status: .ok, headers: [.contentType: "application/json"], body: Data(json.utf8), url: request.url)
            }
            return Response(status: .ok, headers: [:], body: Data(), url: request.url)
        }
    }

    static func expiredStore() -> InMemoryTokenStore {
        InMemoryTokenStore(TokenCredential(accessToken: "at-old", refreshToken: "rt-1", expiresAt: Date(timeIntervalSince1970: 1)))
    }

    static func endpoint(configuration: Configuration? = nil) throws -> OAuth2TokenEndpoint {
        OAuth2TokenEndpoint(
            baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/token"),
            clientAuthentication: .basic(clientID: "app", clientSecret: "CLIENT-S3CR3T"), configuration: configuration)
    }
}
