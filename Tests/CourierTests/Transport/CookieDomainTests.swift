import Testing

@testable import Courier

@Suite("CookieJar: which Set-Cookie domains a response may store")
struct CookieDomainTests {
    @Test(
        "a domain matches its own host and the hosts below it",
        arguments: [
            ("api.example.com", "api.example.com"), (".example.com", "api.example.com"), ("example.com", "a.b.example.com"),
            ("EXAMPLE.com", "api.example.com"), ("127.0.0.1", "127.0.0.1"), ("::1", "[::1]"),
        ])
    func matches(_ domain: String, _ host: String) {
        #expect(CookieJar.domain(domain, matches: host))
    }

    @Test(
        "another site, a sibling, a suffix that is not a label, or a part of an address does not",
        arguments: [
            ("example.com", "api.other.com"), ("api.example.com", "www.example.com"), ("ample.com", "example.com"),
            ("0.0.1", "127.0.0.1"), (".1", "127.0.0.1"), ("", "example.com"), ("api.example.com", "example.com"),
        ])
    func doesNotMatch(_ domain: String, _ host: String) {
        #expect(!CookieJar.domain(domain, matches: host))
    }

    @Test(
        "a cookie's path matches itself and the paths below it",
        arguments: [("/", "/"), ("/", "/a/b"), ("/a", "/a"), ("/a", "/a/b"), ("/a/", "/a/b"), ("", "/x")])
    func pathMatches(_ cookiePath: String, _ path: String) {
        #expect(CookieJar.path(cookiePath, matches: path))
    }

    @Test(
        "but not a sibling or a longer name",
        arguments: [("/a", "/b"), ("/a", "/ab"), ("/a/b", "/a"), ("/a/", "/a")])
    func pathDoesNotMatch(_ cookiePath: String, _ path: String) {
        #expect(!CookieJar.path(cookiePath, matches: path))
    }
}
