import Foundation
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The pure decision behind ``URLSessionTransport``'s redirect handling: which redirected requests
/// keep `Authorization` and `Cookie`.
@Suite("Redirect policy")
struct RedirectPolicyTests {
    static func request(
        _ url: String,
        headers: [String: String] = [
            "Authorization": "Bearer secret-token",
            "Cookie": "session=abc",
            "Proxy-Authorization": "Basic cHJveHk6cGFzcw==",
            "Accept": "application/json",
        ]
    ) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }

    /// The headers of `new` after the policy, from `original`.
    static func redirect(from original: String, to new: String, previous: String? = nil) -> URLRequest {
        RedirectPolicy.request(request(new), after: request(original), from: previous.flatMap(URL.init(string:)))
    }

    static func expectKept(_ request: URLRequest, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer secret-token", sourceLocation: sourceLocation)
        #expect(request.value(forHTTPHeaderField: "Cookie") == "session=abc", sourceLocation: sourceLocation)
        #expect(request.value(forHTTPHeaderField: "Proxy-Authorization") == "Basic cHJveHk6cGFzcw==", sourceLocation: sourceLocation)
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json", sourceLocation: sourceLocation)
    }

    static func expectStripped(_ request: URLRequest, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil, sourceLocation: sourceLocation)
        #expect(request.value(forHTTPHeaderField: "Cookie") == nil, sourceLocation: sourceLocation)
        // The proxy's credential goes too (a proxy that forwards it would leak it); ordinary
        // headers survive.
        #expect(request.value(forHTTPHeaderField: "Proxy-Authorization") == nil, sourceLocation: sourceLocation)
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json", sourceLocation: sourceLocation)
    }

    @Test(arguments: [
        ("https://api.example.com/a", "https://api.example.com/b?x=1"),
        ("https://api.example.com/a", "https://api.example.com:443/b"),  // default port written out
        ("https://api.example.com:443/a", "https://api.example.com/b"),
        ("http://api.example.com/a", "http://api.example.com:80/b"),
        ("http://api.example.com:8080/a", "http://api.example.com:8080/b"),
        ("https://API.Example.COM/a", "https://api.example.com/b"),  // hosts compare case-insensitively
        ("https://api.example.com/a", "HTTPS://api.EXAMPLE.com/b"),  // and so do schemes
        ("http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b"),
        ("http://[::1]:8080/a", "http://[::1]:8080/b"),
    ])
    func aSameOriginRedirectKeepsCredentials(original: String, new: String) {
        Self.expectKept(Self.redirect(from: original, to: new))
    }

    @Test(arguments: [
        ("https://api.example.com/a", "https://evil.example.net/b"),  // host
        ("https://api.example.com/a", "https://example.com/b"),  // parent domain is another host
        ("https://api.example.com/a", "https://sub.api.example.com/b"),  // and so is a subdomain
        ("https://api.example.com/a", "https://api.example.com:8443/b"),  // port
        ("http://127.0.0.1:8080/a", "http://127.0.0.1:8081/b"),
        ("http://api.example.com:80/a", "http://api.example.com:443/b"),
        ("https://api.example.com/a", "http://api.example.com/b"),  // downgrade
        ("https://api.example.com:443/a", "http://api.example.com:443/b"),  // downgrade, same port number
        ("http://api.example.com/a", "https://api.example.com/b"),  // upgrade is another origin too
        ("http://127.0.0.1/a", "http://localhost/b"),  // same machine, another origin
    ])
    func aCrossOriginRedirectStripsAuthorizationAndCookie(original: String, new: String) {
        Self.expectStripped(Self.redirect(from: original, to: new))
    }

    /// A → B → A: the hop back to A comes from B, so it is stripped even if the proposed request
    /// were to carry credentials again.
    @Test func returningToTheOriginalOriginDoesNotRegainCredentials() {
        let request = Self.redirect(
            from: "https://api.example.com/a", to: "https://api.example.com/c",
            previous: "https://evil.example.net/b")
        Self.expectStripped(request)
    }

    @Test func aSameOriginHopInsideTheOriginKeepsCredentials() {
        let request = Self.redirect(
            from: "https://api.example.com/a", to: "https://api.example.com/c",
            previous: "https://API.example.com:443/b")
        Self.expectKept(request)
    }

    @Test func headerNamesMatchCaseInsensitively() {
        let original = Self.request("https://api.example.com/a")
        let new = Self.request(
            "https://other.example.com/b",
            headers: ["authorization": "Bearer secret-token", "COOKIE": "session=abc", "accept": "*/*"])
        let result = RedirectPolicy.request(new, after: original)
        #expect(result.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(result.value(forHTTPHeaderField: "Cookie") == nil)
        #expect(result.value(forHTTPHeaderField: "Accept") == "*/*")
        #expect(result.allHTTPHeaderFields?.keys.map { $0.lowercased() } == ["accept"])
    }

    @Test func anUnknownOriginalRequestIsTreatedAsAnotherOrigin() {
        let result = RedirectPolicy.request(Self.request("https://api.example.com/b"), after: nil)
        Self.expectStripped(result)
    }

    @Test func everythingButTheStrippedHeadersIsLeftAlone() {
        var new = Self.request("https://other.example.com/b?q=1")
        new.httpMethod = "PUT"
        new.httpBody = Data("payload".utf8)
        new.timeoutInterval = 7
        let result = RedirectPolicy.request(new, after: Self.request("https://api.example.com/a"))
        #expect(result.url == new.url)
        #expect(result.httpMethod == "PUT")
        #expect(result.httpBody == Data("payload".utf8))
        #expect(result.timeoutInterval == 7)
    }

    @Test(arguments: [
        ("http://h.example/a", "http://h.example:80/a", true),
        ("https://h.example/a", "https://h.example:443/a", true),
        ("http://H.EXAMPLE/a", "http://h.example/a", true),
        ("http://h.example/a", "https://h.example/a", false),
        ("http://h.example:80/a", "http://h.example:8080/a", false),
    ])
    func originsNormaliseDefaultPortsAndCase(left: String, right: String, same: Bool) throws {
        let left = try #require(RedirectPolicy.Origin(URL(string: left)!))
        let right = try #require(RedirectPolicy.Origin(URL(string: right)!))
        #expect((left == right) == same)
    }

    /// Where URLSession would send a redirected body empty (Linux), a redirect that repeats the body
    /// is not followed; one that drops it (a GET, or a POST turned into a GET) is.
    @Test func aRedirectThatWouldLoseItsBodyIsNotFollowedWhereURLSessionDropsBodies() {
        var repeatsBody = Self.request("https://api.example.com/b")
        repeatsBody.httpMethod = "POST"
        repeatsBody.httpBody = Data("payload".utf8)
        var streams = Self.request("https://api.example.com/b")
        streams.httpMethod = "PUT"
        streams.httpBodyStream = InputStream(data: Data("payload".utf8))
        var becameGet = Self.request("https://api.example.com/b")
        becameGet.httpMethod = "GET"
        var emptyBody = Self.request("https://api.example.com/b")
        emptyBody.httpMethod = "POST"
        emptyBody.httpBody = Data()

        #expect(!RedirectPolicy.canFollow(repeatsBody, dropsBodies: true))
        #expect(!RedirectPolicy.canFollow(streams, dropsBodies: true))
        #expect(RedirectPolicy.canFollow(becameGet, dropsBodies: true))
        #expect(RedirectPolicy.canFollow(emptyBody, dropsBodies: true))
        #expect(RedirectPolicy.canFollow(repeatsBody, dropsBodies: false))
    }

    /// A stream body was read to send the first request: no platform's URLSession can send it
    /// again on a 307/308 (Apple's would fail with `requestBodyStreamExhausted`), so the 3xx is the
    /// response, where bodies are dropped and where they are not.
    @Test(arguments: [true, false])
    func aRedirectThatWouldSendAStreamBodyAgainIsNotFollowed(dropsBodies: Bool) {
        var streams = Self.request("https://api.example.com/b")
        streams.httpMethod = "PUT"
        streams.httpBodyStream = InputStream(data: Data("payload".utf8))
        #expect(!RedirectPolicy.canFollow(streams, dropsBodies: dropsBodies))
    }

    @Test func aURLWithoutHostHasNoOrigin() {
        #expect(RedirectPolicy.Origin(URL(string: "file:///etc/passwd")!) == nil)
        #expect(RedirectPolicy.Origin(URL(string: "mailto:someone@example.com")!) == nil)
    }

    @Test(
        "a cross-origin redirect strips every header the redaction treats as secret, and Proxy-Authorization",
        arguments: ["X-Api-Key", "X-Auth-Token", "Proxy-Authorization"])
    func aCrossOriginRedirectStripsSecretHeaders(name: String) {
        let original = Self.request("https://api.example.com/a")
        let new = Self.request("https://other.example.com/b", headers: [name: "secret-value", "Accept": "*/*"])
        let result = RedirectPolicy.request(new, after: original)
        #expect(result.value(forHTTPHeaderField: name) == nil)
        #expect(result.value(forHTTPHeaderField: "Accept") == "*/*")
        // The same header survives a same-origin redirect.
        let sameOrigin = RedirectPolicy.request(Self.request("https://api.example.com/b", headers: [name: "secret-value"]), after: original)
        #expect(sameOrigin.value(forHTTPHeaderField: name) == "secret-value")
    }

    @Test("a header the app adds to its redaction is stripped on a cross-origin redirect")
    func aCrossOriginRedirectStripsTheAppsOwnSecretHeaders() {
        var redaction = Redaction.default
        redaction.headers.insert("X-Tenant-Signature")
        let new = Self.request("https://other.example.com/b", headers: ["X-Tenant-Signature": "sig", "Accept": "*/*"])
        let result = RedirectPolicy.request(new, after: Self.request("https://api.example.com/a"), redaction: redaction)
        #expect(result.value(forHTTPHeaderField: "X-Tenant-Signature") == nil)
        #expect(result.value(forHTTPHeaderField: "Accept") == "*/*")
    }

    @Test(
        "a redirect from https to http, or to a scheme that is not HTTP, is never followed",
        arguments: [
            ("https://api.example.com/a", "http://api.example.com/b", false),
            ("https://api.example.com/a", "http://other.example.com/b", false),
            ("HTTPS://api.example.com/a", "http://api.example.com:443/b", false),
            ("https://api.example.com/a", "ftp://api.example.com/b", false),
            ("http://api.example.com/a", "file:///etc/passwd", false),
            ("https://api.example.com/a", "https://other.example.com/b", true),
            ("http://api.example.com/a", "http://other.example.com/b", true),
            ("http://api.example.com/a", "https://api.example.com/b", true),
        ])
    func downgradesAreNotFollowed(previous: String, new: String, allowed: Bool) {
        #expect(RedirectPolicy.allowsFollowing(from: URL(string: previous), to: URL(string: new)) == allowed)
    }

    /// A body is sent again (Apple's URLSession, which does not drop it) only on the origin, or
    /// when the request opts in; never with ``RedirectMode/never``, which follows nothing.
    @Test(
        "a redirect carrying the body follows only on the origin, or opted in; .never follows nothing",
        arguments: [
            ("https://api.example.com/b", RedirectMode.follow, true, true),
            ("https://other.example.com/b", .follow, true, false),
            ("https://api.example.com:8443/b", .follow, true, false),
            ("https://other.example.com/b", .followSendingBodyToOtherOrigins, true, true),
            ("https://other.example.com/b", .follow, false, true),  // no body: only headers are stripped
            ("https://api.example.com/b", .never, false, false),
            ("https://api.example.com/b", .never, true, false),
        ])
    func bodiesStayOnTheOrigin(new: String, mode: RedirectMode, carriesBody: Bool, follows: Bool) {
        var proposed = Self.request(new)
        if carriesBody { proposed.httpBody = Data("refresh_token=RT&client_secret=S".utf8) }
        let original = Self.request("https://api.example.com/a")
        #expect(
            RedirectPolicy.canFollow(proposed, after: original, from: original.url, mode: mode, dropsBodies: false) == follows)
    }
}

@Suite("Origins compare hosts lower-cased and without IPv6 brackets")
struct OriginHostTests {
    @Test(
        "a host is lower-cased and unbracketed byte by byte, and non-ASCII falls back to Unicode lower-casing",
        arguments: [
            ("api.example.com", "api.example.com"), ("API.Example.COM", "api.example.com"), ("[::1]", "::1"),
            ("[FE80::1]", "fe80::1"), ("::1", "::1"), ("B\u{FC}cher.example", "b\u{FC}cher.example"), ("", ""),
        ])
    func normalized(host: String, expected: String) {
        #expect(RedirectPolicy.Origin.normalized(host: host) == expected)
    }
}
