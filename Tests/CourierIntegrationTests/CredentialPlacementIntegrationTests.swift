import Courier
import CourierTesting
import FlyingFox
import Foundation
import HTTPTypes
import Testing

/// Credentials reach only the origin they were meant for, against two real servers on 127.0.0.1
/// (two ports, two origins).
@Suite("Credentials stay with their origin", .loopback, .timeLimit(.minutes(1)))
struct CredentialPlacementIntegrationTests {
    static let secrets = [
        HeaderItem(name: "X-Api-Key", value: "key-SECRET"),
        HeaderItem(name: "X-Auth-Token", value: "token-SECRET"),
        HeaderItem(name: "Private-Token", value: "private-SECRET"),
        HeaderItem(name: "Proxy-Authorization", value: "Basic cHJveHk6U0VDUkVU"),
        HeaderItem(name: "X-Trace", value: "trace-1"),  // an ordinary header, which must survive
    ]

    static func redirect(_ code: Int, to location: String) -> FlyingFox.HTTPResponse {
        FlyingFox.HTTPResponse(
            statusCode: HTTPStatusCode(code, phrase: "Redirect"),
            headers: [HTTPHeader("Location"): location])
    }

    @Test("a cross-origin redirect carries no API key, token or proxy credential", arguments: [301, 302, 303, 307, 308])
    func aCrossOriginRedirectStripsEverySecretHeader(code: Int) async throws {
        try await TestServer.run { a in
            try await TestServer.run { b in
                let atB = Recorder<ReceivedRequest>()
                let target = b.url("/landing")
                await a.route("GET /start") { _ in Self.redirect(code, to: target) }
                await b.route("GET /landing") { request in
                    await atB.record(try await ReceivedRequest(request))
                    return FlyingFox.HTTPResponse(statusCode: .ok, body: Data("from-b".utf8))
                }
                let endpoint = try a.endpoint("/start").with { $0.headerItems = Self.secrets }
                let response = try await a.client().enqueue(endpoint).resume()

                #expect(response.body == Data("from-b".utf8))
                let landed = try #require(await atB.values.first)
                for name in ["X-Api-Key", "X-Auth-Token", "Private-Token", "Proxy-Authorization"] {
                    #expect(landed.header(name) == nil, "\(name) reached the other origin")
                }
                #expect(landed.header("X-Trace") == "trace-1")
            }
        }
    }

    @Test("the response reports the URL its body came from, after redirects")
    func theResponseURLIsTheFinalOne() async throws {
        try await TestServer.run { a in
            try await TestServer.run { b in
                let target = b.url("/landing?step=2")
                await a.route("GET /start") { _ in Self.redirect(302, to: target) }
                await a.route("GET /moved") { _ in Self.redirect(301, to: "/here") }
                await a.route("GET /here") { _ in FlyingFox.HTTPResponse(statusCode: .ok) }
                await b.route("GET /landing") { _ in FlyingFox.HTTPResponse(statusCode: .ok) }

                let crossOrigin = try await a.client().enqueue(a.endpoint("/start")).resume()
                #expect(crossOrigin.url.absoluteString == target)
                let sameOrigin = try await a.client().enqueue(a.endpoint("/moved")).resume()
                #expect(sameOrigin.url.absoluteString == a.url("/here"))
                let direct = try await a.client().enqueue(a.endpoint("/here")).resume()
                #expect(direct.url.absoluteString == a.url("/here"))
            }
        }
    }

    /// An endpoint on `server` that requires authorization.
    struct Authorized: Requestable {
        var base: BaseURL
        var middleware: [any Middleware] = []
        func baseURL() throws(CourierError) -> BaseURL { base }
        func path() throws(CourierError) -> URLPath { try URLPath("/me") }
    }

    /// Points the request at another port, as a careless middleware might.
    struct MovingToPort: Middleware {
        let port: Int
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            var request = request
            var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)!
            components.port = port
            request.url = components.url!
            request.head.authority = "127.0.0.1:\(port)"
            return try await next(request)
        }
    }

    @Test("a middleware that moves a signed request to another port sends nothing there")
    func aMiddlewareCannotCarryTheCredentialToAnotherPort() async throws {
        try await TestServer.run { a in
            try await TestServer.run { b in
                let atB = Recorder<ReceivedRequest>()
                await b.route("GET /me") { request in
                    await atB.record(try await ReceivedRequest(request))
                    return FlyingFox.HTTPResponse(statusCode: .ok)
                }
                var configuration = Configuration(transport: TransportKind.platformDefault.make())
                configuration.authentication = .basic(BasicCredential(username: "alice", password: "SECRET"))
                configuration.authorizedHosts = ["127.0.0.1"]
                let client = Client(configuration: configuration)
                let endpoint = Authorized(base: try a.endpoint("/").base, middleware: [MovingToPort(port: b.port)])

                let result = await client.enqueue(endpoint).result()
                guard case .failure(.authentication(.hostNotAuthorized(let host))) = result else {
                    Issue.record("expected hostNotAuthorized, got \(result)")
                    return
                }
                #expect(host == "127.0.0.1:\(b.port)")
                #expect(await atB.values.isEmpty)
            }
        }
    }
}

/// Framing is Courier's: a hand-set `Content-Length` never reaches a real server, and cookies
/// travel as one `Cookie` field.
@Suite("Request framing on the wire", .loopback, .timeLimit(.minutes(1)))
struct RequestFramingIntegrationTests {
    @Test("a Content-Length that disagrees with the body is refused and nothing reaches the server")
    func aWrongContentLengthIsNeverSent() async throws {
        try await TestServer.run { server in
            let received = Recorder<ReceivedRequest>()
            await server.route("POST /upload") { request in
                await received.record(try await ReceivedRequest(request))
                return FlyingFox.HTTPResponse(statusCode: .ok)
            }
            let endpoint = try server.endpoint("/upload").with {
                $0.method = .post
                $0.headerItems = [HeaderItem(name: "Content-Length", value: "3")]
                $0.body = .data(Data("0123456789".utf8))
            }
            let result = await server.client().enqueue(endpoint).result()
            guard case .failure(.invalidRequest(.reservedHeader)) = result else {
                Issue.record("expected reservedHeader, got \(result)")
                return
            }
            // The same connection still serves a well-formed request, and it is the only one seen.
            let fine = try server.endpoint("/upload").with {
                $0.method = .post
                $0.body = .data(Data("0123456789".utf8))
            }
            _ = try await server.client().enqueue(fine).resume()
            let seen = await received.values
            #expect(seen.count == 1)
            #expect(seen.first?.body == Data("0123456789".utf8))
        }
    }

    @Test("two Cookie items arrive as one field joined with '; '")
    func cookiesAreJoinedWithSemicolons() async throws {
        try await TestServer.run { server in
            let received = Recorder<ReceivedRequest>()
            await server.route("GET /cookies") { request in
                await received.record(try await ReceivedRequest(request))
                return FlyingFox.HTTPResponse(statusCode: .ok)
            }
            let endpoint = try server.endpoint("/cookies").with {
                $0.headerItems = [HeaderItem(name: "Cookie", value: "a=1"), HeaderItem(name: "Cookie", value: "b=2")]
            }
            _ = try await server.client().enqueue(endpoint).resume()
            #expect(await received.values.first?.header("Cookie") == "a=1; b=2")
        }
    }
}
