import Courier
import CourierTesting
import FlyingFox
import Foundation
import Testing

/// Redirects are followed, but credentials never leave the origin of the request the caller sent.
///
/// Two servers on `127.0.0.1` with different ports are two origins (scheme, host, port). Without
/// the session delegate's redirect handling, corelibs-foundation (Swift 6.3.1) copies every header
/// of the original request, `Authorization` and `Cookie` included, into the redirected one,
/// whatever its origin: the cross-origin tests below fail without it.
@Suite("Redirects and credentials", .loopback, .timeLimit(.minutes(1)))
struct RedirectIntegrationTests {
    static let token = "Bearer secret-token"
    static let cookie = "session=abc123"
    static let credentials = [
        HeaderItem(name: "Authorization", value: token),
        HeaderItem(name: "Cookie", value: cookie),
        HeaderItem(name: "X-Trace", value: "trace-1"),  // an ordinary header, which must survive
    ]

    static func redirect(_ code: Int, to location: String) -> FlyingFox.HTTPResponse {
        FlyingFox.HTTPResponse(
            statusCode: HTTPStatusCode(code, phrase: "Redirect"),
            headers: [HTTPHeader("Location"): location],
            body: Data("redirect body, never returned".utf8)
        )
    }

    /// Answers 200 with `body` and records what arrived.
    static func land(
        on server: TestServer, at route: HTTPRoute, body: String, recorder: Recorder<ReceivedRequest>
    ) async {
        await server.route(route) { request in
            await recorder.record(try await ReceivedRequest(request))
            return FlyingFox.HTTPResponse(statusCode: .ok, body: Data(body.utf8))
        }
    }

    static func expectNoCredentials(_ request: ReceivedRequest?, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(request != nil, "the redirect target was never reached", sourceLocation: sourceLocation)
        #expect(request?.header("Authorization") == nil, sourceLocation: sourceLocation)
        #expect(request?.header("Cookie") == nil, sourceLocation: sourceLocation)
        #expect(request?.header("X-Trace") == "trace-1", sourceLocation: sourceLocation)
    }

    static func expectCredentials(_ request: ReceivedRequest?, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(request != nil, "the redirect target was never reached", sourceLocation: sourceLocation)
        #expect(request?.header("Authorization") == token, sourceLocation: sourceLocation)
        #expect(request?.header("Cookie") == cookie, sourceLocation: sourceLocation)
        #expect(request?.header("X-Trace") == "trace-1", sourceLocation: sourceLocation)
    }

    // MARK: - Cross-origin

    @Test(arguments: TransportKind.allCases, [301, 302, 303, 307, 308])
    func aCrossOriginRedirectDropsAuthorizationAndCookie(_ kind: TransportKind, code: Int) async throws {
        try await TestServer.run { a in
            try await TestServer.run { b in
                let atA = Recorder<ReceivedRequest>()
                let atB = Recorder<ReceivedRequest>()
                let target = b.url("/landing?from=a")
                await a.route("GET /start") { request in
                    await atA.record(try await ReceivedRequest(request))
                    return Self.redirect(code, to: target)
                }
                await Self.land(on: b, at: "GET /landing", body: "from-b", recorder: atB)

                let endpoint = try a.endpoint("/start").with { $0.headerItems = Self.credentials }
                let response = try await a.client(kind).enqueue(endpoint).resume()

                #expect(response.statusCode == 200)
                #expect(response.body == Data("from-b".utf8))
                Self.expectCredentials(await atA.values.first)  // the original request had them
                let landed = await atB.values
                #expect(landed.count == 1)
                #expect(landed.first?.method == "GET")
                #expect(landed.first?.rawQuery == "from=a")
                Self.expectNoCredentials(landed.first)
            }
        }
    }

    /// 307 and 308 repeat the method and the body. A body goes to another origin only when the
    /// endpoint opts in (``RedirectMode/followSendingBodyToOtherOrigins``): by default the 307/308,
    /// with its `Location`, is the response, and nothing reaches the other server (before issue 22,
    /// async-http-client sent the body there). Opted in, it goes without the credentials, except on
    /// Linux's URLSession, which would send it empty and so does not follow at all.
    @Test(
        arguments: TransportKind.allCases,
        [(307, RedirectMode.follow), (308, .follow), (307, .followSendingBodyToOtherOrigins), (308, .followSendingBodyToOtherOrigins)])
    func aCrossOriginRedirectThatRepeatsTheBodyNeverSendsAuthorization(_ kind: TransportKind, redirect: (code: Int, mode: RedirectMode)) async throws {
        let (code, mode) = redirect
        try await TestServer.run { a in
            try await TestServer.run { b in
                let atB = Recorder<ReceivedRequest>()
                let target = b.url("/orders")
                await a.route("POST /orders") { _ in Self.redirect(code, to: target) }
                await Self.land(on: b, at: "POST /orders", body: "created-at-b", recorder: atB)
                let payload = Data(#"{"item":"Zoë’s order","quantity":3}"#.utf8)

                let endpoint = try a.endpoint("/orders").with {
                    $0.method = .post
                    $0.headerItems = Self.credentials
                    $0.body = .data(payload, contentType: "application/json")
                    $0.redirectMode = mode
                }
                let result = await a.client(kind).enqueue(endpoint).result()

                let landed = await atB.values
                if kind.dropsRedirectedBodies || mode == .follow {
                    guard case .failure(.response(let response)) = result else {
                        Issue.record("expected the \(code) as the response, got \(result)")
                        return
                    }
                    #expect(response.statusCode == code)
                    #expect(response.headerValue(for: "Location") == target)
                    #expect(landed.isEmpty)
                } else {
                    #expect(try result.get().body == Data("created-at-b".utf8))
                    #expect(landed.count == 1)
                    #expect(landed.first?.method == "POST")
                    #expect(landed.first?.body == payload)
                    #expect(landed.first?.header("Content-Type") == "application/json")
                    Self.expectNoCredentials(landed.first)
                }
            }
        }
    }

    /// ``RedirectMode/never``: not even a same-origin `GET` redirect is followed.
    @Test(arguments: TransportKind.allCases, [301, 302, 303, 307, 308])
    func anEndpointThatFollowsNoRedirectGetsTheRedirect(_ kind: TransportKind, code: Int) async throws {
        try await TestServer.run { a in
            let atNew = Recorder<ReceivedRequest>()
            await a.route("GET /old") { _ in Self.redirect(code, to: "/new") }
            await Self.land(on: a, at: "GET /new", body: "new", recorder: atNew)
            let endpoint = try a.endpoint("/old").with {
                $0.redirectMode = .never
                $0.acceptableStatusCodes = [code]
            }
            let response = try await a.client(kind).enqueue(endpoint).resume()
            #expect(response.statusCode == code)
            #expect(await atNew.values.isEmpty)
        }
    }

    /// 301, 302 and 303 turn a POST into a GET without a body: followed, without credentials.
    @Test(arguments: TransportKind.allCases, [301, 302, 303])
    func aCrossOriginRedirectOfAPostThatBecomesAGetIsFollowedWithoutCredentials(_ kind: TransportKind, code: Int) async throws {
        try await TestServer.run { a in
            try await TestServer.run { b in
                let atB = Recorder<ReceivedRequest>()
                let target = b.url("/receipt")
                await a.route("POST /orders") { _ in Self.redirect(code, to: target) }
                await Self.land(on: b, at: "GET /receipt", body: "receipt", recorder: atB)

                let endpoint = try a.endpoint("/orders").with {
                    $0.method = .post
                    $0.headerItems = Self.credentials
                    $0.body = .data(Data("order".utf8), contentType: "text/plain")
                }
                let response = try await a.client(kind).enqueue(endpoint).resume()

                #expect(response.body == Data("receipt".utf8))
                let landed = await atB.values
                #expect(landed.count == 1)
                #expect(landed.first?.method == "GET")
                #expect(landed.first?.body.isEmpty == true)
                Self.expectNoCredentials(landed.first)
            }
        }
    }

    /// A → B → A: the credentials dropped on the way to B are not put back on the way home, where
    /// B chose the path and query (a confused deputy otherwise).
    @Test(arguments: TransportKind.allCases)
    func credentialsDroppedOnceStayDroppedWhenTheChainReturnsToTheOrigin(_ kind: TransportKind) async throws {
        try await TestServer.run { a in
            try await TestServer.run { b in
                let atB = Recorder<ReceivedRequest>()
                let atHome = Recorder<ReceivedRequest>()
                let bounce = b.url("/bounce")
                let home = a.url("/admin/delete-everything")
                await a.route("GET /start") { _ in Self.redirect(302, to: bounce) }
                await b.route("GET /bounce") { request in
                    await atB.record(try await ReceivedRequest(request))
                    return Self.redirect(302, to: home)
                }
                await Self.land(on: a, at: "GET /admin/delete-everything", body: "home", recorder: atHome)

                let endpoint = try a.endpoint("/start").with { $0.headerItems = Self.credentials }
                let response = try await a.client(kind).enqueue(endpoint).resume()

                #expect(response.body == Data("home".utf8))
                Self.expectNoCredentials(await atB.values.first)
                Self.expectNoCredentials(await atHome.values.first)
            }
        }
    }

    /// A → A → B: the same-origin hop keeps the credentials, the hop that leaves drops them.
    @Test(arguments: TransportKind.allCases)
    func aChainKeepsCredentialsUntilItLeavesTheOrigin(_ kind: TransportKind) async throws {
        try await TestServer.run { a in
            try await TestServer.run { b in
                let atSecond = Recorder<ReceivedRequest>()
                let atB = Recorder<ReceivedRequest>()
                let target = b.url("/landing")
                await a.route("GET /start") { _ in Self.redirect(301, to: "/second") }
                await a.route("GET /second") { request in
                    await atSecond.record(try await ReceivedRequest(request))
                    return Self.redirect(307, to: target)
                }
                await Self.land(on: b, at: "GET /landing", body: "from-b", recorder: atB)

                let endpoint = try a.endpoint("/start").with { $0.headerItems = Self.credentials }
                let response = try await a.client(kind).enqueue(endpoint).resume()

                #expect(response.body == Data("from-b".utf8))
                Self.expectCredentials(await atSecond.values.first)
                Self.expectNoCredentials(await atB.values.first)
            }
        }
    }

    /// `localhost` and `127.0.0.1` name the same machine but are different origins.
    @Test(arguments: TransportKind.allCases)
    func anotherHostNameForTheSameServerIsAnotherOrigin(_ kind: TransportKind) async throws {
        try await TestServer.run { a in
            let atLocalhost = Recorder<ReceivedRequest>()
            let target = "http://localhost:\(a.port)/landing"
            await a.route("GET /start") { _ in Self.redirect(302, to: target) }
            await Self.land(on: a, at: "GET /landing", body: "landed", recorder: atLocalhost)

            let endpoint = try a.endpoint("/start").with { $0.headerItems = Self.credentials }
            let result = await a.client(kind).enqueue(endpoint).result()

            // `localhost` may resolve to ::1 first, where nothing listens; libcurl then tries
            // 127.0.0.1. Either way, whatever reached the server carried no credentials.
            guard case .success(let response) = result else {
                Issue.record("expected the redirect to localhost to succeed, got \(result)")
                return
            }
            #expect(response.body == Data("landed".utf8))
            Self.expectNoCredentials(await atLocalhost.values.first)
        }
    }

    // MARK: - Same origin

    @Test(arguments: TransportKind.allCases, [301, 302, 303, 307, 308])
    func aSameOriginRedirectKeepsAuthorizationAndCookie(_ kind: TransportKind, code: Int) async throws {
        try await TestServer.run { a in
            let atOther = Recorder<ReceivedRequest>()
            let absolute = a.url("/other")
            await a.route("GET /absolute") { _ in Self.redirect(code, to: absolute) }
            await a.route("GET /relative") { _ in Self.redirect(code, to: "/other") }
            await Self.land(on: a, at: "GET /other", body: "other", recorder: atOther)
            let client = a.client(kind)

            for path in ["/absolute", "/relative"] {
                let endpoint = try a.endpoint(path).with { $0.headerItems = Self.credentials }
                let response = try await client.enqueue(endpoint).resume()
                #expect(response.body == Data("other".utf8))
            }

            let landed = await atOther.values
            #expect(landed.count == 2)
            for request in landed {
                Self.expectCredentials(request)
            }
        }
    }

    /// Same origin, credentials kept; on Linux a 307 that would repeat the body is not followed
    /// (URLSession would send it empty), on Apple platforms the body is sent again.
    @Test(arguments: TransportKind.allCases, [307, 308])
    func aSameOriginRedirectThatRepeatsTheBodyKeepsCredentials(_ kind: TransportKind, code: Int) async throws {
        try await TestServer.run { a in
            let atNew = Recorder<ReceivedRequest>()
            await a.route("PUT /old") { _ in Self.redirect(code, to: "/new") }
            await Self.land(on: a, at: "PUT /new", body: "stored", recorder: atNew)
            let payload = Data("document".utf8)

            let endpoint = try a.endpoint("/old").with {
                $0.method = .put
                $0.headerItems = Self.credentials
                $0.body = .data(payload, contentType: "text/plain")
            }
            let result = await a.client(kind).enqueue(endpoint).result()

            let landed = await atNew.values
            if kind.dropsRedirectedBodies {
                guard case .failure(.response(let response)) = result else {
                    Issue.record("expected the \(code) as the response, got \(result)")
                    return
                }
                #expect(response.statusCode == code)
                #expect(response.headerValue(for: "Location") == "/new")
                #expect(landed.isEmpty)
            } else {
                #expect(try result.get().body == Data("stored".utf8))
                #expect(landed.first?.body == payload)
                Self.expectCredentials(landed.first)
            }
        }
    }
}

extension TransportKind {
    /// Whether the transport sends a redirected 307/308 without its body, so that Courier does
    /// not follow it: corelibs URLSession on Linux (see `RedirectPolicy.urlSessionDropsRedirectedBodies`).
    var dropsRedirectedBodies: Bool {
        #if canImport(FoundationNetworking)
            self == .urlSession
        #else
            false
        #endif
    }
}

extension TestServer {
    /// A client over a new transport of `kind`.
    nonisolated func client(_ kind: TransportKind, timeout: Duration = generousTimeout) -> Client {
        Client(configuration: Configuration(transport: kind.make(), timeout: timeout))
    }

    /// `http://127.0.0.1:<port><path>`, e.g. for a `Location` header.
    nonisolated func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }
}
