import Foundation
import Testing

@testable import Courier
@testable import CourierOAuth

@Suite("Authorization code flow: the loopback receiver's request parser and routing")
struct AuthorizationCodeLoopbackTests {
    static func parse(_ text: String) -> LoopbackRequestHead.Parse {
        LoopbackRequestHead.parse(Array(text.utf8))
    }

    @Test("a browser's request head gives its method and target")
    func browserRequest() {
        let head =
            "GET /callback?code=c&state=s HTTP/1.1\r\nHost: 127.0.0.1:53682\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\n"
            + "Accept: text/html,*/*;q=0.8\r\nAccept-Language: fr-CH, fr;q=0.9\r\nCookie: a=b\r\n\r\n"
        #expect(Self.parse(head) == .complete(LoopbackRequestHead(method: "GET", target: "/callback?code=c&state=s")))
        #expect(Self.parse("GET / HTTP/1.0\n\n") == .complete(LoopbackRequestHead(method: "GET", target: "/")))
        #expect(Self.parse("GET / HTTP/1.1\r\n\r\nbody bytes are ignored") == .complete(LoopbackRequestHead(method: "GET", target: "/")))
        #expect(Self.parse("GET / HTTP/1.1\r\nX: caf\u{E9}\r\n\r\n") == .complete(LoopbackRequestHead(method: "GET", target: "/")))
    }

    @Test(
        "a head without its empty line yet is incomplete",
        arguments: ["", "G", "GET /callback", "GET / HTTP/1.1\r\n", "GET / HTTP/1.1\r\nHost: x\r\n", "GET / HTTP/1.1\r\n\r"])
    func incomplete(text: String) {
        #expect(Self.parse(text) == .incomplete)
    }

    @Test(
        "a head that is not HTTP/1.x is malformed",
        arguments: [
            "\r\n\r\n", "GET\r\n\r\n", "GET /\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1 \r\n\r\n", "GET / HTTP/2.0\r\n\r\n",
            "GET / http/1.1\r\n\r\n", "G(T / HTTP/1.1\r\n\r\n", "GET /a\u{7F} HTTP/1.1\r\n\r\n", "GET /\u{E9} HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nNoColon\r\n\r\n", "GET / HTTP/1.1\r\n: empty name\r\n\r\n", "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
            "GET / HTTP/1.1\r\nX: a\u{0}b\r\n\r\n", "GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n",
            "VERYLONGMETHODNAME1 / HTTP/1.1\r\n\r\n",
        ])
    func malformed(text: String) {
        #expect(Self.parse(text) == .malformed)
    }

    @Test("a head is read up to 8 KiB; without its end by then it is too large")
    func sizeLimit() {
        let start = "GET /callback HTTP/1.1\r\nX-Pad: "
        let end = "\r\n\r\n"
        let fits = start + String(repeating: "a", count: LoopbackRequestHead.maximumSize - start.utf8.count - end.utf8.count) + end
        #expect(fits.utf8.count == LoopbackRequestHead.maximumSize)
        #expect(Self.parse(fits) == .complete(LoopbackRequestHead(method: "GET", target: "/callback")))
        let over = start + String(repeating: "a", count: LoopbackRequestHead.maximumSize - start.utf8.count - end.utf8.count + 1) + end
        #expect(Self.parse(over) == .tooLarge)
        #expect(Self.parse(String(repeating: "a", count: LoopbackRequestHead.maximumSize)) == .tooLarge)
        #expect(Self.parse(String(repeating: "a", count: LoopbackRequestHead.maximumSize - 1)) == .incomplete)
    }

    @Test(
        "routing: only a GET of the exact callback path is the redirect",
        arguments: [
            ("GET", "/callback?code=c&state=s", LoopbackRoute.redirect(target: "/callback?code=c&state=s")),
            ("GET", "/callback", .redirect(target: "/callback")),
            ("GET", "/favicon.ico", .notFound),
            ("GET", "/callback/", .notFound),
            ("GET", "/Callback?code=c", .notFound),
            ("GET", "/callback%2F?code=c", .notFound),
            ("GET", "/callbackx?code=c", .notFound),
            ("GET", "/", .notFound),
            ("POST", "/callback?code=c", .methodNotAllowed),
            ("HEAD", "/callback", .methodNotAllowed),
            ("get", "/callback", .methodNotAllowed),
            ("POST", "/other", .notFound),
            ("GET", "http://127.0.0.1:53682/callback?code=c", .badRequest),
            ("OPTIONS", "*", .badRequest),
        ])
    func routing(method: String, target: String, expected: LoopbackRoute) {
        #expect(LoopbackRoute(LoopbackRequestHead(method: method, target: target), callbackPath: "/callback") == expected)
    }

    @Test("responses are complete HTTP/1.1 messages that close the connection and load nothing")
    func responses() {
        let text = String(decoding: LoopbackResponse.make(status: 200, reason: "OK", html: "<p>hé</p>"), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("\r\nContent-Length: 10\r\n"))
        #expect(text.contains("\r\nConnection: close\r\n"))
        #expect(text.contains("\r\nCache-Control: no-store\r\n"))
        #expect(text.contains("\r\nReferrer-Policy: no-referrer\r\n"))
        #expect(text.contains("\r\nContent-Security-Policy: default-src 'none'"))
        #expect(text.hasSuffix("\r\n\r\n<p>hé</p>"))
        #expect(String(decoding: LoopbackResponse.methodNotAllowed, as: UTF8.self).contains("\r\nAllow: GET\r\n"))
        for page in [LoopbackRedirectReceiver.defaultSuccessHTML, LoopbackRedirectReceiver.defaultFailureHTML] {
            #expect(page.utf8.count < 512)
            #expect(!page.contains("http"), "no external resources")
            #expect(!page.contains("<script"))
        }
    }

    @Test(
        "poll timeouts round up to the next millisecond and saturate",
        arguments: [
            (Duration.zero, Int32(0)), (.nanoseconds(-5), 0), (.nanoseconds(1), 1), (.milliseconds(1), 1), (.microseconds(1500), 2),
            (.seconds(300), 300_000), (.seconds(Int64.max / 2), Int32.max),
        ])
    func milliseconds(duration: Duration, expected: Int32) {
        let now = ContinuousClock.now
        #expect(LoopbackReceiverLoop.milliseconds(from: now, to: now + duration) == expected)
    }

    @Test("the receiver refuses a callback path that could change the redirect URI", arguments: ["", "callback", "/a b", "/a?b", "/a#b", "/a%2Fb", "/é"])
    func badCallbackPaths(path: String) {
        #expect(throws: CourierError.self) { try LoopbackRedirectReceiver(callbackPath: path) }
    }

    @Test("a receiver listens on 127.0.0.1 only, on an ephemeral port, and says so")
    func receiverAddress() throws {
        let receiver = try LoopbackRedirectReceiver(callbackPath: "/oauth/callback")
        defer { receiver.close() }
        #expect(receiver.port > 0)
        #expect(receiver.redirectURI.absoluteString == "http://127.0.0.1:\(receiver.port)/oauth/callback")
        #expect(receiver.description == "LoopbackRedirectReceiver(http://127.0.0.1:\(receiver.port)/oauth/callback)")
    }

    @Test("a receiver closed before waiting, or waited on twice, fails as unavailable; a non-positive timeout is refused")
    func receiverMisuse() async throws {
        let closed = try LoopbackRedirectReceiver()
        closed.close()
        closed.close()
        let afterClose = await Self.error { () async throws(CourierError) in try await closed.waitForRedirect(timeout: .seconds(1)) }
        guard case .authentication(.authorizationFailed(.unavailable))? = afterClose else {
            Issue.record("expected unavailable, got \(String(describing: afterClose))")
            return
        }
        let receiver = try LoopbackRedirectReceiver()
        defer { receiver.close() }
        let zero = await Self.error { () async throws(CourierError) in try await receiver.waitForRedirect(timeout: .zero) }
        guard case .invalidRequest(.invalidTimeout)? = zero else {
            Issue.record("expected invalidTimeout, got \(String(describing: zero))")
            return
        }
    }

    @Test("a wait times out with timedOut, and a second wait is refused")
    func receiverTimesOut() async throws {
        let receiver = try LoopbackRedirectReceiver()
        let first = await Self.error { () async throws(CourierError) in try await receiver.waitForRedirect(timeout: .milliseconds(50)) }
        #expect(AuthorizationCodeFixtures.failure(first) == .timedOut)
        let second = await Self.error { () async throws(CourierError) in try await receiver.waitForRedirect(timeout: .seconds(1)) }
        guard case .authentication(.authorizationFailed(.unavailable))? = second else {
            Issue.record("expected unavailable, got \(String(describing: second))")
            return
        }
    }

    @Test("a cancelled wait ends at once with cancelled")
    func receiverCancelled() async throws {
        let receiver = try LoopbackRedirectReceiver()
        let waiting = Task { () async -> CourierError? in
            await Self.error { () async throws(CourierError) in try await receiver.waitForRedirect(timeout: .seconds(600)) }
        }
        waiting.cancel()
        let error = await waiting.value
        guard case .cancelled? = error else {
            Issue.record("expected cancelled, got \(String(describing: error))")
            return
        }
    }

    @Test("Apple's web authentication session: private-use schemes only; canceledLogin is cancelled")
    func webAuthenticationSupport() throws {
        #expect(try WebAuthenticationSessionSupport.callbackScheme(for: URL(string: "com.Example.App:/cb")!) == "com.example.app")
        #expect(throws: CourierError.self) { try WebAuthenticationSessionSupport.callbackScheme(for: URL(string: "https://app.example.com/cb")!) }
        #expect(throws: CourierError.self) { try WebAuthenticationSessionSupport.callbackScheme(for: URL(string: "http://127.0.0.1:1/cb")!) }
        let callback = URL(string: "com.example.app:/cb?code=c")!
        #expect(try WebAuthenticationSessionSupport.outcome(callbackURL: callback, error: nil, isCanceledLogin: false).get() == callback)
        guard case .failure(.cancelled) = WebAuthenticationSessionSupport.outcome(callbackURL: nil, error: CancellationError(), isCanceledLogin: true) else {
            Issue.record("canceledLogin must be cancelled")
            return
        }
        guard
            case .failure(.authentication(.authorizationFailed(.unavailable))) = WebAuthenticationSessionSupport.outcome(
                callbackURL: nil, error: CancellationError(), isCanceledLogin: false)
        else {
            Issue.record("another error must be unavailable")
            return
        }
        guard
            case .failure(.authentication(.authorizationFailed(.malformedResponse))) = WebAuthenticationSessionSupport.outcome(
                callbackURL: nil, error: nil, isCanceledLogin: false)
        else {
            Issue.record("no URL and no error must be malformedResponse")
            return
        }
    }

    static func error<T>(_ body: () async throws(CourierError) -> T) async -> CourierError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }
}
