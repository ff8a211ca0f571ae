import HTTPTypes
import Testing

@testable import Courier

@Suite("Cache keys: the target URI, the credential partition and Vary (RFC 9111 §2, §4.1)")
struct CacheKeyTests {
    @Test(
        "the primary key is the normalised absolute URI",
        arguments: [
            ("https", "Example.COM", "/a?b=1", "https://example.com/a?b=1"),
            ("HTTPS", "example.com:443", "/a", "https://example.com/a"),
            ("http", "example.com:80", "/", "http://example.com/"),
            ("http", "example.com:8080", "/x", "http://example.com:8080/x"),
            ("http", "example.com:180", "/x", "http://example.com:180/x"),
            ("https", "example.com:8443", "/x", "https://example.com:8443/x"),
            ("http", "example.com:443", "/x", "http://example.com:443/x"),
            ("https", "example.com", "", "https://example.com/"),
            ("https", "example.com", "/p#frag", "https://example.com/p"),
            ("https", "[::1]:8443", "/p", "https://[::1]:8443/p"),
        ])
    func normalised(scheme: String, authority: String, path: String, expected: String) {
        #expect(CacheKey(scheme: scheme, authority: authority, path: path, partition: "")?.url == expected)
    }

    @Test("GET and HEAD of a URI share the key (HEAD is answered from GET); the query is part of it")
    func methodNormalised() {
        #expect(CacheKey(cacheRequest(.get), partition: "") == CacheKey(cacheRequest(.head), partition: ""))
        #expect(CacheKey(cacheRequest(path: "/a?x=1"), partition: "") != CacheKey(cacheRequest(path: "/a?x=2"), partition: ""))
    }

    @Test("different credential partitions give different keys for the same URI")
    func partitioned() {
        let alice = CacheKey(cacheRequest(), partition: "alice-hash")
        let bob = CacheKey(cacheRequest(), partition: "bob-hash")
        #expect(alice != bob)
        #expect(alice?.url == bob?.url)
    }

    @Test("a request without scheme or authority, or with userinfo, has no key")
    func noKey() {
        #expect(CacheKey(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/"), partition: "") == nil)
        #expect(CacheKey(scheme: "https", authority: "user@example.com", path: "/", partition: "") == nil)
    }

    @Test("§4.1 a request matches when every field Vary names has the same normalised value")
    func varyMatches() {
        let stored = cacheFields([("Accept", "text/html"), ("Accept-Language", " en "), ("Accept-Language", "fr")])
        let variant = CacheVariant(request: stored, response: cacheFields([("Vary", "accept, Accept-Language"), ("Vary", "X-Absent")]))
        #expect(variant.values.map(\.name) == ["accept", "accept-language", "x-absent"])
        #expect(variant.matches(cacheFields([("Accept-Language", "en, fr"), ("Accept", "text/html")])))
        #expect(variant.matches(cacheFields([("Accept", "text/html"), ("Accept-Language", "en"), ("Accept-Language", "fr\t")])))
        #expect(!variant.matches(cacheFields([("Accept", "application/json"), ("Accept-Language", "en, fr")])))
        #expect(!variant.matches(cacheFields([("Accept", "text/html")])))
        #expect(!variant.matches(cacheFields([("Accept", "text/html"), ("Accept-Language", "en, fr"), ("X-Absent", "")])))
    }

    @Test("§4.1 Vary: * (or an unreadable field name) never matches, even the same request")
    func varyStar() {
        let request = cacheFields([("Accept", "text/html")])
        #expect(!CacheVariant(request: request, response: cacheFields([("Vary", "*")])).matches(request))
        #expect(!CacheVariant(request: request, response: cacheFields([("Vary", "Accept, bad name")])).matches(request))
    }

    @Test("§4.1 no Vary: every request matches")
    func noVary() {
        let variant = CacheVariant(request: cacheFields([("Accept", "a")]), response: cacheFields([]))
        #expect(variant == .none)
        #expect(variant.matches(cacheFields([("Accept", "b")])))
    }

    @Test("§4.1 of several matching variants the most recent (by Date) is selected; others are left out")
    func selection() {
        let html = CacheVariant(values: [.init(name: "accept", value: "text/html")], matchesNothing: false)
        let json = CacheVariant(values: [.init(name: "accept", value: "application/json")], matchesNothing: false)
        let older = cacheEntry([("Date", cacheDate(-100))], body: "older", variant: html)
        let newer = cacheEntry([("Date", cacheDate(-10))], body: "newer", variant: .none)
        let other = cacheEntry([("Date", cacheDate(0))], body: "json", variant: json)
        let selected = CacheVariant.selected(for: cacheFields([("Accept", "text/html")]), among: [older, other, newer])
        #expect(selected.map(\.body) == [newer.body, older.body])
    }

    @Test("§4.1 a single stored variant is selected when it matches, and not otherwise")
    func singleSelection() {
        let html = CacheVariant(values: [.init(name: "accept", value: "text/html")], matchesNothing: false)
        let stored = cacheEntry([("Date", cacheDate(-10))], body: "html", variant: html)
        #expect(CacheVariant.selected(for: cacheFields([("Accept", "text/html")]), among: [stored]) == [stored])
        #expect(CacheVariant.selected(for: cacheFields([("Accept", "application/json")]), among: [stored]).isEmpty)
        let nothing = cacheEntry([], body: "any", variant: CacheVariant(values: [], matchesNothing: true))
        #expect(CacheVariant.selected(for: cacheFields([]), among: [nothing]).isEmpty)
    }

    @Test(
        "only GET and HEAD without Range may be answered from the cache",
        arguments: [
            (HTTPRequest.Method.get, false, true), (.head, false, true), (.get, true, false), (.post, false, false),
            (.options, false, false),
        ])
    func answerable(method: HTTPRequest.Method, range: Bool, expected: Bool) {
        let request = cacheRequest(method, range ? [("Range", "bytes=0-1")] : [])
        #expect(CacheKey.mayBeAnsweredFromCache(request) == expected)
    }
}
