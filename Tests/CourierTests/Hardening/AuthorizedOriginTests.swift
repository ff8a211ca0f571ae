import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// The authorized-host check looks at the request actually being signed (scheme, host and port),
/// after the middleware, not at what the endpoint declared before it.
@Suite("Credentials go only to authorized origins, checked on the request signed")
struct AuthorizedOriginTests {
    /// Points every request at another URL, as a careless (or compromised) middleware might.
    private struct Rewriting: Middleware {
        let url: String
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            var request = request
            request.url = URL(string: url)!
            let components = URLComponents(string: url)!
            request.head.scheme = components.scheme
            request.head.authority = components.port.map { "\(components.host!):\($0)" } ?? components.host
            return try await next(request)
        }
    }

    private struct Endpoint: Requestable {
        var scheme: BaseURL.Scheme = .http
        var host = "127.0.0.1"
        var port: Int? = 18091
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(scheme: scheme, host: host, port: port) }
    }

    private func client(_ transport: RecordingTransport, hosts: Set<String>, rewriteTo url: String?) -> Client {
        makeClient(transport) {
            $0.authentication = .basic(BasicCredential(username: "alice", password: "secret"))
            $0.authorizedHosts = hosts
            if let url { $0.middleware = [Rewriting(url: url)] }
        }
    }

    @Test(
        "a middleware that moves the request to another port, host or scheme gets no credential sent",
        arguments: [
            "http://127.0.0.1:18092/", "http://localhost:18091/", "https://127.0.0.1:18091/", "http://127.0.0.2:18091/",
        ])
    func aRewrittenRequestIsNotSigned(url: String) async {
        let transport = RecordingTransport()
        await #expect {
            _ = try await client(transport, hosts: ["127.0.0.1", "localhost"], rewriteTo: url).enqueue(Endpoint()).resume()
        } throws: { error in
            expectAuthFailure(error) { if case .hostNotAuthorized = $0 { true } else { false } }
        }
        #expect(await transport.count == 0)
    }

    @Test("the endpoint's own origin is authorized by its host name")
    func theDeclaredOriginIsSigned() async throws {
        let transport = RecordingTransport()
        _ = try await client(transport, hosts: ["127.0.0.1"], rewriteTo: nil).enqueue(Endpoint()).resume()
        #expect(await transport.last?.header("Authorization")?.hasPrefix("Basic ") == true)
    }

    @Test(
        "an origin listed in authorizedHosts is signed when a middleware moves the request there",
        arguments: [
            ("http://127.0.0.1:18092", "http://127.0.0.1:18092/"),
            ("https://api.example.com", "https://api.example.com:443/"),
            ("HTTPS://API.example.com:443", "https://api.example.com/"),
        ])
    func anAuthorizedOriginIsSigned(entry: String, url: String) async throws {
        let transport = RecordingTransport()
        _ = try await client(transport, hosts: ["127.0.0.1", entry], rewriteTo: url).enqueue(Endpoint()).resume()
        #expect(await transport.last?.header("Authorization")?.hasPrefix("Basic ") == true)
    }

    @Test("an endpoint whose own origin is not authorized fails before any middleware, even one that would move it to an authorized origin")
    func theDeclaredOriginMustBeAuthorizedToo() async {
        let transport = RecordingTransport()
        await #expect(throws: CourierError.self) {
            _ = try await client(transport, hosts: ["http://127.0.0.1:18092"], rewriteTo: "http://127.0.0.1:18092/").enqueue(Endpoint()).resume()
        }
        #expect(await transport.count == 0)
    }

    @Test(
        "an origin entry authorizes only its own scheme and port",
        arguments: [
            ("http://127.0.0.1:18092", "http://127.0.0.1:18093/"),
            ("https://api.example.com", "http://api.example.com/"),
            ("https://api.example.com", "https://api.example.com:8443/"),
        ])
    func anOriginEntryIsExact(entry: String, url: String) async {
        let transport = RecordingTransport()
        await #expect(throws: CourierError.self) {
            _ = try await client(transport, hosts: ["127.0.0.1", entry], rewriteTo: url).enqueue(Endpoint()).resume()
        }
        #expect(await transport.count == 0)
    }

    @Test("an IPv6 host is authorized with or without brackets")
    func ipv6() async throws {
        for entry in ["[::1]", "::1"] {
            let transport = RecordingTransport()
            _ = try await client(transport, hosts: [entry], rewriteTo: nil).enqueue(Endpoint(host: "[::1]")).resume()
            #expect(await transport.last?.header("Authorization") != nil)
        }
    }

    @Test("the failure names the origin the request was moved to, with its port")
    func theFailureNamesTheOrigin() async {
        let transport = RecordingTransport()
        await #expect {
            _ = try await client(transport, hosts: ["127.0.0.1"], rewriteTo: "http://127.0.0.1:18092/").enqueue(Endpoint()).resume()
        } throws: { error in
            expectAuthFailure(error) { $0 == .hostNotAuthorized(host: "127.0.0.1:18092") }
        }
    }
}

/// A 401 on a request whose body cannot be sent again is the answer: no refresh is asked for.
@Suite("A 401 to a single-use body asks for no refresh")
struct UnreplayableBodyTests {
    @Test func a401ToAStreamedBodyDoesNotRefresh() async throws {
        let clock = WallClock(), mint = TokenMint(clock: clock)
        let refresher = TokenRefresher(store: InMemoryTokenStore(clock.credential("at-0", expiresIn: 3600)), now: clock.closure) { _ in
            mint.next()
        }
        let transport = RecordingTransport(status: 401)
        let client = makeClient(transport) {
            $0.authentication = .bearer(refresher)
            $0.authorizedHosts = ["api.example.com"]
        }
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("payload".utf8))
            continuation.finish()
        }
        let endpoint = TestEndpoint(method: .post, body: .stream(chunks))
        await #expect {
            _ = try await client.enqueue(endpoint).resume()
        } throws: { error in
            guard case .response(let response)? = error as? CourierError else { return false }
            return response.statusCode == 401
        }
        #expect(await transport.count == 1)
        #expect(mint.count.value == 0, "nobody would use a refreshed token")
        // A replayable body does get its refresh and its replay.
        _ = try? await client.enqueue(TestEndpoint(method: .post, body: .data(Data("x".utf8)))).resume()
        #expect(mint.count.value == 1)
        #expect(await transport.count == 3)
    }
}
