import Courier
import CourierEndpoints
import CourierTesting
import Foundation
import HTTPTypes
import Testing

// Hostile review 54 (item 2): API(string:headers:requiresAuthorization:) and
// API(base:path:headers:requiresAuthorization:). Promise under attack: with
// `requiresAuthorization: false` an API's endpoints never carry the client's credential (Basic or
// Bearer), whatever happens to the call (a middleware moving it to an authorized host, retries,
// endpoint middleware, a 401); `.authorized(true)` sends it only to `authorizedHosts`.
//
// Everything goes through a RecordingTransport: nothing leaves the process.

enum H54Auth: String, CaseIterable, Sendable {
    case basic, bearer
}

private let h54TokenJSON = #"{"access_token":"at-new","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-new"}"#

/// Answers the token endpoint with a token and everything else with `status`.
private func h54Transport(status: Int = 200) -> RecordingTransport {
    RecordingTransport { request throws(CourierError) in
        if request.head.path == "/oauth/token" {
            return Response(status: .ok, headers: [.contentType: "application/json"], body: Data(h54TokenJSON.utf8), url: request.url)
        }
        return Response(status: HTTPResponse.Status(code: status), url: request.url)
    }
}

/// `auth` on a client over `transport`, authorized for api.example.com; a bearer credential
/// is expired, so any use of it would start a refresh.
private func h54Configure(_ auth: H54Auth, _ transport: RecordingTransport) throws -> (inout Configuration) -> Void {
    let authentication: Authentication
    switch auth {
    case .basic:
        authentication = .basic(BasicCredential(username: "ada", password: "S3CR3T-PW"))
    case .bearer:
        let endpoint = OAuth2TokenEndpoint(
            baseURL: try BaseURL(host: "auth.example.com"), path: try URLPath("/oauth/token"),
            clientAuthentication: .basic(clientID: "app", clientSecret: "CLIENT-S3CR3T"))
        let store = InMemoryTokenStore(TokenCredential(accessToken: "at-old", refreshToken: "rt-1", expiresAt: Date(timeIntervalSince1970: 1)))
        authentication = .bearer(TokenRefresher(store: store, tokenEndpoint: endpoint))
    }
    return { configuration in
        configuration.authentication = authentication
        configuration.authorizedHosts = ["api.example.com"]
    }
}

private func h54Client(_ auth: H54Auth, _ transport: RecordingTransport, also: @escaping (inout Configuration) -> Void = { _ in }) throws -> Client {
    let configure = try h54Configure(auth, transport)
    return makeClient(transport) {
        configure(&$0)
        also(&$0)
    }
}

/// What reached the transport carried no credential, and no token request was made.
private func h54ExpectNoCredential(_ transport: RecordingTransport, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) async {
    let requests = await transport.requests
    for request in requests {
        #expect(
            request.header("Authorization") == nil, "\(what): \(request.url) carried \(request.header("Authorization") ?? "")", sourceLocation: sourceLocation)
    }
    #expect(!requests.contains { $0.head.path == "/oauth/token" }, "\(what): a token request was made for a public endpoint", sourceLocation: sourceLocation)
}

/// Moves every request to `url` (as a careless middleware, or a rewrite "redirect", might).
private struct H54Rewrite: Middleware {
    let url: String
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        var request = request
        request.url = URL(string: url)!
        let components = URLComponents(string: url)!
        request.head.scheme = components.scheme
        request.head.authority = components.port.map { "\(components.host!):\($0)" } ?? components.host
        request.head.path = components.path.isEmpty ? "/" : components.path
        return try await next(request)
    }
}

/// Records whether the context says the call is authorized and whether an Authorization is
/// visible to it.
private struct H54Peek: Middleware {
    let seen: LockedState<[String]>
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        seen.withLock { $0.append("requiresAuthorization=\(context.requiresAuthorization) authorization=\(request.header("Authorization") ?? "none")") }
        return try await next(request)
    }
}

private let h54PublicAPIKinds: [String] = ["string", "base"]

@Suite("Hostile review 54: API(…, requiresAuthorization: false) never carries the client's credential")
struct HostileReview54EndpointTests {
    private func publicAPI(_ kind: String, host: String = "api.example.com") throws -> API {
        kind == "string"
            ? API(string: "https://\(host)/v1", requiresAuthorization: false)
            : API(base: try BaseURL(host: host), path: try URLPath("/v1"), requiresAuthorization: false)
    }

    @Test("a public API on an authorized host sends no credential and starts no refresh", arguments: H54Auth.allCases, h54PublicAPIKinds)
    func publicAPIOnAnAuthorizedHost(auth: H54Auth, kind: String) async throws {
        let transport = h54Transport()
        let client = try h54Client(auth, transport)
        let api = try publicAPI(kind)
        for endpoint in [api.get("rates"), api.head("rates")] {
            _ = try await (client.enqueue(endpoint) as Call).resume()
        }
        _ = try await (client.enqueue(api.post("rates").json(["a": 1])) as Call).resume()
        _ = try await (client.enqueue(api.get("rates").returning([String: Int].self).accepting(statusCodes: Set(200...299))) as Call).resume()
        #expect(await transport.count == 4)
        await h54ExpectNoCredential(transport, "\(auth) \(kind)")
    }

    @Test("a public API's endpoints stay public through every modifier", arguments: H54Auth.allCases)
    func modifiersKeepItPublic(auth: H54Auth) async throws {
        let transport = h54Transport()
        let client = try h54Client(auth, transport)
        let api = try publicAPI("string")
        let endpoint = api.put("a", "b").query("q", "1").header("X-Trace", "1").timeout(.seconds(5)).json(["x": 1])
            .maximumResponseSize(1000).cachePolicy(.useProtocolRules).returning([String: Int].self)
        #expect(endpoint.requiresAuthorization == false)
        _ = try? await (client.enqueue(endpoint) as Call).resume()
        await h54ExpectNoCredential(transport, "\(auth)")
    }

    @Test("a public API's call that a middleware moves to an authorized host gets no credential", arguments: H54Auth.allCases)
    func rewrittenToAnAuthorizedHost(auth: H54Auth) async throws {
        let transport = h54Transport()
        let client = try h54Client(auth, transport) { $0.middleware = [H54Rewrite(url: "https://api.example.com/private")] }
        _ = try? await (client.enqueue(API(string: "https://rates.example.org", requiresAuthorization: false).get("x")) as Call).resume()
        #expect(await transport.count == 1)
        await h54ExpectNoCredential(transport, "\(auth)")
    }

    @Test("no attempt of a retried public call carries the credential", arguments: H54Auth.allCases)
    func retries(auth: H54Auth) async throws {
        let transport = RecordingTransport(script: [.status(503), .status(502), .status(200)])
        let client = try h54Client(auth, transport) {
            $0.retryPolicy = .default
            $0.clock = TestClock(sleepsReturnImmediately: true)
        }
        _ = try? await (client.enqueue(try publicAPI("base").get("rates")) as Call).resume()
        #expect(await transport.count == 3)
        await h54ExpectNoCredential(transport, "\(auth)")
    }

    @Test("endpoint middleware of a public endpoint sees requiresAuthorization false and no credential, and none is sent", arguments: H54Auth.allCases)
    func endpointMiddleware(auth: H54Auth) async throws {
        let transport = h54Transport()
        let seen = LockedState<[String]>([])
        let client = try h54Client(auth, transport) { $0.middleware = [H54Peek(seen: seen)] }
        let endpoint = try publicAPI("string").get("rates").middleware(H54Peek(seen: seen), H54Rewrite(url: "https://api.example.com/v1/me"))
        _ = try? await (client.enqueue(endpoint) as Call).resume()
        #expect(seen.withLock { $0 } == Array(repeating: "requiresAuthorization=false authorization=none", count: 2))
        await h54ExpectNoCredential(transport, "\(auth)")
    }

    @Test("a 401 to a public call is the answer: no refresh, no replay, no credential", arguments: H54Auth.allCases)
    func unauthorizedPublicCall(auth: H54Auth) async throws {
        let transport = h54Transport(status: 401)
        let client = try h54Client(auth, transport)
        let result = await (client.enqueue(try publicAPI("string").get("rates")) as Call).result()
        guard case .failure(.response(let response)) = result else {
            Issue.record("expected the 401, got \(result)")
            return
        }
        #expect(response.statusCode == 401)
        #expect(!String(describing: response).contains("refresh token"), "\(response)")
        #expect(await transport.count == 1)
        await h54ExpectNoCredential(transport, "\(auth)")
    }

    @Test(".authorized(true) on a public API's endpoint sends the credential to an authorized host only", arguments: H54Auth.allCases)
    func authorizedTrue(auth: H54Auth) async throws {
        let transport = h54Transport()
        let client = try h54Client(auth, transport)
        // Unlisted host: fails before anything is sent.
        let elsewhere = await (client.enqueue(API(string: "https://rates.example.org", requiresAuthorization: false).get("x").authorized(true)) as Call)
            .result()
        guard case .failure(.authentication(.hostNotAuthorized)) = elsewhere else {
            Issue.record("expected hostNotAuthorized, got \(elsewhere)")
            return
        }
        #expect(await transport.count == 0)
        // Listed host: carries it.
        _ = try await (client.enqueue(try publicAPI("base").get("me").authorized(true)) as Call).resume()
        let last = await transport.requests.last { $0.head.path != "/oauth/token" }
        #expect(last?.header("Authorization") != nil)
        // Listed host, moved by a middleware elsewhere: fails, nothing more sent to the API.
        let moving = try h54Client(auth, transport) { $0.middleware = [H54Rewrite(url: "https://rates.example.org/x")] }
        let before = await transport.requests.filter { $0.head.path != "/oauth/token" }.count
        let moved = await (moving.enqueue(try publicAPI("base").get("me").authorized(true)) as Call).result()
        guard case .failure(.authentication(.hostNotAuthorized)) = moved else {
            Issue.record("expected hostNotAuthorized, got \(moved)")
            return
        }
        #expect(await transport.requests.filter { $0.head.path != "/oauth/token" }.count == before)
    }

    @Test(".authorized(false) on an authorized API's endpoint sends no credential", arguments: H54Auth.allCases)
    func authorizedFalse(auth: H54Auth) async throws {
        let transport = h54Transport()
        let client = try h54Client(auth, transport)
        _ = try await (client.enqueue(API(string: "https://api.example.com/v1").get("status").authorized(false)) as Call).resume()
        await h54ExpectNoCredential(transport, "\(auth)")
    }

    @Test(
        "a base URL with a secret in it is refused, and the error does not print the secret",
        arguments: [
            "https://ada:S3CR3T-PW@api.example.com/v1",
            "https://ada:S3/CR3T-PW@api.example.com/v1",
            "https://api.example.com/v1?access_token=S3CR3T-PW",
            "https://api.example.com?token=S3CR3T-PW",
        ])
    func secretInTheString(string: String) async throws {
        let transport = h54Transport()
        let client = try h54Client(.basic, transport)
        let result = await (client.enqueue(API(string: string, requiresAuthorization: false).get("x")) as Call).result()
        guard case .failure(let error) = result else {
            Issue.record("\(string) was sent")
            return
        }
        #expect(!String(describing: error).contains("S3CR3T"), "\(error)")
        #expect(!String(describing: error).contains("CR3T-PW"), "\(error)")
        #expect(await transport.count == 0)
    }

}
