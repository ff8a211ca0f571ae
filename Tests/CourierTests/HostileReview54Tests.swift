import CourierOAuth
import CourierTesting
import Foundation
import HTTPTypes
import Logging
import Testing

@testable import Courier

// Hostile review 54 (item 1): RefreshFailure.grantType, the "token request failed (X grant): …"
// descriptions with their cause hints, and ResponseHead.note (a 401 to a credential with no
// refresh token). The attacker is the authorization server (or the API host's redirect): it
// chooses `error`, `error_description`, the token response and the 401.
//
// Every test states a promise as an invariant. Nothing leaves the process: every transport is a
// RecordingTransport.

// MARK: - Support

private let h54ClientSecret = "CLIENT-S3CR3T"

/// GET https://api.example.com/me, requiring the credential (unless told otherwise).
private struct H54Me: Requestable {
    var host = "api.example.com"
    var requiresAuthorization = true
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: host) }
    func path() throws(CourierError) -> URLPath { try URLPath("/me") }
}

/// A JSON body holding `object`.
private func h54JSON(_ object: [String: Any]) -> Data {
    (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
}

/// A token endpoint (Basic client auth with ``h54ClientSecret``) whose every answer is `status`
/// with `body`.
private func h54Endpoint(status: Int, body: Data) throws -> OAuth2TokenEndpoint {
    let transport = RecordingTransport(status: status, headers: HTTPFields(["Content-Type": "application/json"]), body: body)
    return OAuth2TokenEndpoint(
        baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/token"),
        clientAuthentication: .basic(clientID: "app", clientSecret: h54ClientSecret), configuration: Configuration(transport: transport))
}

private func h54Error(_ body: () async throws(CourierError) -> TokenCredential) async -> CourierError? {
    do throws(CourierError) {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

/// Every way an app may print an error.
private func h54Renderings(_ error: CourierError) -> [String] {
    [String(describing: error), String(reflecting: error), error.localizedDescription, "\(error)"]
}

/// The scalars of `text` that can end a line, move the cursor, recolour a terminal or reorder
/// what is shown: C0, DEL, C1, U+2028/2029 and the bidi embedding/override/isolate controls.
private func h54Unprintable(_ text: String) -> [String] {
    text.unicodeScalars.compactMap { scalar in
        let v = scalar.value
        let bad =
            v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029 || (0x202A...0x202E).contains(v)
            || (0x2066...0x2069).contains(v)
        return bad ? String(format: "U+%04X", v) : nil
    }
}

/// Hostile values an authorization server may put in `error` / `error_description`.
private let h54HostilePayloads: [(String, String)] = [
    ("newline forging a log line", "bad grant\n[error] 2026-12-07 login succeeded for admin\r\n"),
    ("terminal escape sequences", "bad \u{1B}[2J\u{1B}[1;31mRED\u{1B}]0;pwned title\u{07}"),
    ("bidi override", "bad grant \u{202E}nimda rof dedeeccus nigol\u{202C}"),
    ("NUL, DEL and C1", "bad\u{0}grant\u{7F}\u{85}\u{9B}31m"),
]

private let h54EchoCases: [String] = [
    "refresh token echoed in error_description (400)",
    "password echoed in error_description (400)",
    "client secret echoed in the error code (401)",
    "client secret echoed in a 200 error body without access_token",
    "refresh token echoed in error_description of a 503",
    "JWT assertion echoed in error_description (400)",
]

// MARK: - Tests

@Suite("Hostile review 54: token-request failure descriptions and the 401 note")
struct HostileReview54Tests {

    // MARK: Control characters and size

    @Test(
        "a hostile error_description never puts a control, line-breaking or bidi character into the error's description",
        arguments: h54HostilePayloads.map(\.0))
    func descriptionIsOnePrintableLine(payload: String) async throws {
        let text = try #require(h54HostilePayloads.first { $0.0 == payload }?.1)
        let endpoint = try h54Endpoint(status: 400, body: h54JSON(["error": "invalid_grant", "error_description": text]))
        let error = try #require(
            await h54Error { () async throws(CourierError) in try await endpoint.password(username: "ada", password: "pw") })
        for rendering in h54Renderings(error) {
            let bad = h54Unprintable(rendering)
            #expect(bad.isEmpty, "\(payload): the description carries \(bad) straight from the server: \(rendering.debugDescription)")
        }
    }

    @Test("a hostile `error` code (not only the description) never puts a control character into the description", arguments: h54HostilePayloads.map(\.0))
    func errorCodeIsOnePrintableLine(payload: String) async throws {
        let text = try #require(h54HostilePayloads.first { $0.0 == payload }?.1)
        let endpoint = try h54Endpoint(status: 401, body: h54JSON(["error": "invalid_client" + text]))
        let error = try #require(await h54Error { () async throws(CourierError) in try await endpoint.clientCredentials() })
        let rendering = String(describing: error)
        let bad = h54Unprintable(rendering)
        #expect(bad.isEmpty, "\(payload): \(bad) in \(rendering.debugDescription)")
    }

    @Test("a 1 MB error_description does not make a 1 MB error description (bounded at 4 KiB)")
    func hugeDescriptionIsBounded() async throws {
        let huge = String(repeating: "A", count: 1_000_000)
        let endpoint = try h54Endpoint(status: 400, body: h54JSON(["error": "invalid_grant", "error_description": huge]))
        let error = try #require(
            await h54Error { () async throws(CourierError) in try await endpoint.refresh(TokenCredential(accessToken: "at", refreshToken: "rt")) })
        let rendering = String(describing: error)
        #expect(rendering.utf8.count <= 4096, "the description is \(rendering.utf8.count) bytes long: \(rendering.prefix(120))…")
    }

    @Test("a 1 MB `error` code does not make a 1 MB error description (bounded at 4 KiB)")
    func hugeCodeIsBounded() async throws {
        let huge = String(repeating: "e", count: 1_000_000)
        let endpoint = try h54Endpoint(status: 400, body: h54JSON(["error": huge]))
        let error = try #require(await h54Error { () async throws(CourierError) in try await endpoint.clientCredentials() })
        let rendering = String(describing: error)
        #expect(rendering.utf8.count <= 4096, "the description is \(rendering.utf8.count) bytes long")
    }

    @Test("error_uri is never printed, whatever it holds")
    func errorURINeverPrinted() async throws {
        let endpoint = try h54Endpoint(
            status: 400, body: h54JSON(["error": "invalid_grant", "error_uri": "https://evil.example/\u{1B}[2Jphish?u=X-URI-MARKER"]))
        let error = try #require(
            await h54Error { () async throws(CourierError) in try await endpoint.password(username: "ada", password: "pw") })
        for rendering in h54Renderings(error) { #expect(!rendering.contains("X-URI-MARKER"), "\(rendering)") }
    }

    /// The log lines of a call whose refresh the token endpoint rejects with `description`.
    private func logLines(whenTheRefreshIsRejectedWith description: String) async throws -> [String] {
        let captured = CapturedLines()
        let transport = RecordingTransport { request throws(CourierError) in
            if request.head.path == "/oauth/token" {
                return Response(
                    status: .badRequest, headers: [.contentType: "application/json"],
                    body: h54JSON(["error": "invalid_grant", "error_description": description]), url: request.url)
            }
            return Response(status: .ok, url: request.url)
        }
        var configuration = Configuration(transport: transport)
        configuration.logger = Logger(label: "h54") { _ in CapturingHandler(captured: captured) }
        configuration.authentication = .bearer(TokenRefresher(store: Tokens.expiredStore(), tokenEndpoint: try Tokens.endpoint()))
        configuration.authorizedHosts = ["api.example.com"]
        _ = try? await Client(configuration: configuration).enqueue(H54Me()).resume()
        return captured.all.map(\.1)
    }

    @Test(
        "the call's log lines, when a refresh is rejected with a hostile error_description, are single printable lines",
        arguments: h54HostilePayloads.map(\.0))
    func logLinesArePrintable(payload: String) async throws {
        let text = try #require(h54HostilePayloads.first { $0.0 == payload }?.1)
        let lines = try await logLines(whenTheRefreshIsRejectedWith: text)
        #expect(!lines.isEmpty, "the failed call is logged")
        for line in lines {
            let bad = h54Unprintable(line)
            #expect(bad.isEmpty, "\(payload): a log line carries \(bad): \(line.debugDescription)")
        }
    }

    @Test("the call's error log line, when a refresh is rejected with a 1 MB error_description, is bounded (4 KiB)")
    func logLineIsBounded() async throws {
        let lines = try await logLines(whenTheRefreshIsRejectedWith: String(repeating: "B", count: 1_000_000))
        let longest = lines.map(\.utf8.count).max() ?? 0
        #expect(longest <= 4096, "the longest log line is \(longest) bytes")
    }

    // MARK: Secrets echoed by the server

    @Test("a secret the client sent and the server echoes back is never printed in the failure", arguments: h54EchoCases)
    func echoedSecretIsNotPrinted(name: String) async throws {
        let refreshToken = "rt-S3CR3T-REFRESH-77"
        let password = "pw-S3CR3T-PASSWORD-88"
        let assertion = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJTM0NSM1QifQ.S3CR3T-SIG"
        let (secret, status, body): (String, Int, Data) =
            switch name {
            case h54EchoCases[0]: (refreshToken, 400, h54JSON(["error": "invalid_grant", "error_description": "refresh token \(refreshToken) was revoked"]))
            case h54EchoCases[1]: (password, 400, h54JSON(["error": "invalid_grant", "error_description": "password \(password) is wrong for ada"]))
            case h54EchoCases[2]: (h54ClientSecret, 401, h54JSON(["error": "invalid_client: secret \(h54ClientSecret) unknown"]))
            case h54EchoCases[3]: (h54ClientSecret, 200, h54JSON(["error": "invalid_client", "error_description": "client_secret=\(h54ClientSecret)"]))
            case h54EchoCases[4]: (refreshToken, 503, h54JSON(["error": "temporarily_unavailable", "error_description": "retry \(refreshToken) later"]))
            default: (assertion, 400, h54JSON(["error": "invalid_grant", "error_description": "assertion \(assertion) expired"]))
            }
        let endpoint = try h54Endpoint(status: status, body: body)
        let error = try #require(
            await h54Error { () async throws(CourierError) in
                switch name {
                case h54EchoCases[1]: try await endpoint.password(username: "ada", password: password)
                case h54EchoCases[2], h54EchoCases[3]: try await endpoint.clientCredentials()
                case h54EchoCases[5]: try await endpoint.jwtBearer(assertion: assertion)
                default: try await endpoint.refresh(TokenCredential(accessToken: "at", refreshToken: refreshToken))
                }
            })
        for rendering in h54Renderings(error) {
            #expect(!rendering.contains(secret), "\(name): the failure prints the secret the client sent: \(rendering)")
        }
    }

    @Test("a 2xx token response that is malformed never quotes a value, so an echoed secret is never printed")
    func malformedResponseNeverQuotes() async throws {
        let bodies: [[String: Any]] = [
            ["access_token": 12, "token_type": h54ClientSecret],
            ["access_token": "at\u{1B}\(h54ClientSecret)", "token_type": "Bearer"],
            ["access_token": "at", "token_type": "Bearer \(h54ClientSecret)"],
            ["access_token": "at", "token_type": "Bearer", "expires_in": h54ClientSecret],
            ["access_token": "at", "token_type": "Bearer", "scope": ["a": h54ClientSecret]],
        ]
        for body in bodies {
            let endpoint = try h54Endpoint(status: 200, body: h54JSON(body))
            let error = try #require(await h54Error { () async throws(CourierError) in try await endpoint.clientCredentials() })
            for rendering in h54Renderings(error) { #expect(!rendering.contains(h54ClientSecret), "\(rendering)") }
        }
    }

    @Test("a scope with control characters from the token endpoint does not reach the credential's description as they are")
    func scopeControlCharactersNotPrinted() async throws {
        let endpoint = try h54Endpoint(
            status: 200, body: h54JSON(["access_token": "at-new", "token_type": "Bearer", "scope": "read\u{1B}[2J\u{202E}write"]))
        let credential = try await endpoint.clientCredentials()
        let bad = h54Unprintable(String(describing: credential))
        #expect(bad.isEmpty, "\(bad) in \(String(describing: credential).debugDescription)")
    }

    @Test("dump(RefreshFailure) never prints the underlying error (documented: \"never printed\")")
    func dumpNeverPrintsUnderlyingError() async throws {
        struct H54AppError: Error, CustomStringConvertible {
            let token = "UNDERLYING-S3CR3T"
            var description: String { "session service refused" }
        }
        let refresher = TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "at", expiresAt: Date(timeIntervalSince1970: 1)))) { _ in
            throw H54AppError()
        }
        let error = await h54Error { () async throws(CourierError) in try await refresher.validCredential() }
        guard case .authentication(.refreshFailed(let failure))? = error else {
            Issue.record("expected refreshFailed, got \(String(describing: error))")
            return
        }
        var dumped = ""
        dump(failure, to: &dumped)
        #expect(!String(describing: failure).contains("UNDERLYING-S3CR3T"))
        #expect(!String(reflecting: failure).contains("UNDERLYING-S3CR3T"))
        #expect(!dumped.contains("UNDERLYING-S3CR3T"), "dump(failure) walks the default mirror: \(dumped)")
    }

    // MARK: Which request failed

    @Test("a rejected device authorization request (RFC 8628 §3.1, no token request at all) is not described as a failed refresh")
    func deviceAuthorizationFailureIsNotARefresh() async throws {
        let tokens = try h54Endpoint(status: 400, body: h54JSON(["error": "invalid_client"]))
        let flow = DeviceAuthorizationFlow(
            deviceAuthorizationEndpoint: URL(string: "https://auth.example.com/oauth/device")!, tokenEndpoint: tokens)
        do throws(CourierError) {
            _ = try await flow.start()
            Issue.record("the device authorization request succeeded")
        } catch {
            let text = String(describing: error)
            #expect(!text.contains("refresh failed"), "a device authorization request failure reads as a refresh: \(text)")
        }
    }

    // MARK: ==

    @Test("RefreshFailure == ignores grantType, and AuthenticationFailure == follows, though the descriptions differ (by design)")
    func equalityIgnoresGrantType() {
        let asRefresh = RefreshFailure(
            reason: .rejected, oauth2Error: OAuth2Error(code: "invalid_grant"), statusCode: 400, isPermanent: true, grantType: "refresh_token")
        var asPassword = asRefresh
        asPassword.grantType = "password"
        var asNone = asRefresh
        asNone.grantType = nil
        #expect(asRefresh == asPassword && asPassword == asNone)
        #expect(AuthenticationFailure.refreshFailed(asRefresh) == .refreshFailed(asPassword))
        #expect(CourierError.authentication(.refreshFailed(asRefresh)).description != CourierError.authentication(.refreshFailed(asPassword)).description)
        // Still a real ==: another code, status or permanence is another failure.
        var other = asRefresh
        other.oauth2Error = OAuth2Error(code: "invalid_client")
        #expect(asRefresh != other)
        other = asRefresh
        other.isPermanent = false
        #expect(asRefresh != other)
    }

    @Test("ResponseHead == and Response == ignore the note (by design), and nothing else")
    func equalityIgnoresNote() throws {
        let url = try #require(URL(string: "https://api.example.com/me"))
        var noted = ResponseHead(status: .unauthorized, url: url)
        noted.note = "the server refused the access token and the credential has no refresh token to renew it: sign in again"
        let plain = ResponseHead(status: .unauthorized, url: url)
        #expect(noted == plain)
        #expect(ResponseHead(status: .forbidden, url: url) != plain)
        var response = Response(status: .unauthorized, url: url)
        response.head.note = noted.note
        #expect(response == Response(status: .unauthorized, url: url))
        #expect(String(describing: response) != String(describing: Response(status: .unauthorized, url: url)))
    }

    // MARK: The note

    /// A client whose API answers every call with `answer` (the token endpoint with a token).
    private func noteClient(
        credential: TokenCredential, authorizedHosts: Set<String> = ["api.example.com"],
        answer: @escaping @Sendable (TransportRequest) -> Response
    ) throws -> (Client, RecordingTransport) {
        let transport = RecordingTransport { request throws(CourierError) in
            if request.head.path == "/oauth/token" {
                return Response(status: .ok, headers: [.contentType: "application/json"], body: Data(Tokens.json.utf8), url: request.url)
            }
            return answer(request)
        }
        var configuration = Configuration(transport: transport)
        configuration.authentication = .bearer(TokenRefresher(store: InMemoryTokenStore(credential), tokenEndpoint: try Tokens.endpoint()))
        configuration.authorizedHosts = authorizedHosts
        return (Client(configuration: configuration), transport)
    }

    private func outcome(_ client: Client, _ endpoint: H54Me) async -> Result<Response, CourierError> {
        do throws(CourierError) {
            return .success(try await client.enqueue(endpoint).resume())
        } catch {
            if case .response(let response) = error { return .success(response) }
            return .failure(error)
        }
    }

    @Test("the note is only on a 401 from the origin that received the token: not on one from where a redirect led (the token was stripped)")
    func noNoteOnA401FromAnotherOrigin() async throws {
        // What a transport that followed a cross-origin redirect reports: the 401 comes from
        // login.elsewhere.example, which never saw the token (RedirectPolicy strips Authorization).
        let (client, _) = try noteClient(credential: TokenCredential(accessToken: "at-old", expiresAt: .distantFuture)) { _ in
            Response(status: .unauthorized, url: URL(string: "https://login.elsewhere.example/sso")!)
        }
        let response = try await outcome(client, H54Me()).get()
        #expect(response.statusCode == 401)
        #expect(response.head.note == nil, "a 401 from login.elsewhere.example is described as a refusal of our token: \(response)")
    }

    @Test("a 401 from an origin the token never reached (cross-origin redirect) does not spend a refresh")
    func noRefreshForA401FromAnotherOrigin() async throws {
        let (client, transport) = try noteClient(credential: TokenCredential(accessToken: "at-old", refreshToken: "rt-1", expiresAt: .distantFuture)) {
            request in
            Response(status: .unauthorized, url: URL(string: "https://login.elsewhere.example/sso")!)
        }
        _ = await outcome(client, H54Me())
        let paths = await transport.requests.map { $0.head.path ?? "" }
        #expect(!paths.contains("/oauth/token"), "a redirect target's 401 spent the refresh token: \(paths)")
    }

    @Test("no note on a 401 to a call that does not require authorization (authorized host or not)", arguments: ["api.example.com", "public.example.org"])
    func noNoteWithoutAuthorization(host: String) async throws {
        let (client, transport) = try noteClient(credential: TokenCredential(accessToken: "at-old", expiresAt: .distantFuture)) { request in
            Response(status: .unauthorized, url: request.url)
        }
        let response = try await outcome(client, H54Me(host: host, requiresAuthorization: false)).get()
        #expect(response.statusCode == 401)
        #expect(response.head.note == nil, "\(response)")
        #expect(!String(describing: response).contains("refresh token"))
        #expect(await transport.requests.allSatisfy { $0.head.headerFields[.authorization] == nil })
    }

    @Test("a call to a host outside authorizedHosts fails before sending, so there is no 401 and no note")
    func noNoteForAnUnauthorizedHost() async throws {
        let (client, transport) = try noteClient(credential: TokenCredential(accessToken: "at-old", expiresAt: .distantFuture)) { request in
            Response(status: .unauthorized, url: request.url)
        }
        let result = await outcome(client, H54Me(host: "evil.example.org"))
        guard case .failure(.authentication(.hostNotAuthorized)) = result else {
            Issue.record("expected hostNotAuthorized, got \(result)")
            return
        }
        #expect(await transport.count == 0)
    }

    @Test("no note when the credential has a refresh token: the refresh answers the 401 (and a rejected refresh is the error)")
    func noNoteWithARefreshToken() async throws {
        let (client, _) = try noteClient(credential: TokenCredential(accessToken: "at-old", refreshToken: "rt-1", expiresAt: .distantFuture)) {
            request in Response(status: .unauthorized, url: request.url)
        }
        let result = await outcome(client, H54Me())
        switch result {
        case .success(let response):
            #expect(response.statusCode == 401)
            #expect(response.head.note == nil, "\(response)")
        case .failure(let error):
            #expect(!String(describing: error).contains("no refresh token"), "\(error)")
        }
    }

    @Test(
        "an empty refresh token is no refresh token (as OAuth2TokenEndpoint.refresh says): the 401 stands with its note, or the expired token is sent; the refresher is not killed",
        arguments: [Date.distantFuture, Date(timeIntervalSince1970: 1)])
    func emptyRefreshTokenIsNoRefreshToken(expiresAt: Date) async throws {
        let (client, transport) = try noteClient(credential: TokenCredential(accessToken: "at-old", refreshToken: "", expiresAt: expiresAt)) {
            request in Response(status: .unauthorized, url: request.url)
        }
        let result = await outcome(client, H54Me())
        switch result {
        case .success(let response):
            #expect(response.statusCode == 401)
            #expect(response.head.note?.contains("no refresh token") == true, "\(response)")
        case .failure(let error):
            Issue.record("a credential with refreshToken \"\" fails as \(error) instead of the 401 a nil refresh token gives")
        }
        #expect(await transport.requests.map { $0.head.path ?? "" } == ["/me"])
    }
}
