import HTTPTypes
import Testing

@testable import Courier

@Suite("Cache storability: what a private cache may store (RFC 9111 §3)")
struct CacheStorabilityTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var rule: String
        var method: HTTPRequest.Method = .get
        var request: [(String, String)] = []
        var status = 200
        var response: [(String, String)]
        var hasCredentials = false
        var expected: Bool
        var testDescription: String { rule }
    }

    static let cases: [Case] = [
        Case(rule: "§3 GET with max-age", response: [("Cache-Control", "max-age=60")], expected: true),
        Case(rule: "§3 POST is never stored", method: .post, response: [("Cache-Control", "max-age=60")], expected: false),
        Case(rule: "§3 HEAD is not stored (answered from a stored GET)", method: .head, response: [("Cache-Control", "max-age=60")], expected: false),
        Case(rule: "§3 response no-store", response: [("Cache-Control", "max-age=60, no-store")], expected: false),
        Case(rule: "§5.2.1.5 request no-store", request: [("Cache-Control", "no-store")], response: [("Cache-Control", "max-age=60")], expected: false),
        Case(
            rule: "§5.2.2.3 must-understand with an understood status overrides no-store",
            response: [("Cache-Control", "max-age=60, no-store, must-understand")], expected: true),
        Case(
            rule: "§5.2.2.3 must-understand with a status not understood", status: 299, response: [("Cache-Control", "max-age=60, must-understand")],
            expected: false),
        Case(rule: "§5.2.2.7 private may be stored by a private cache", response: [("Cache-Control", "private")], expected: true),
        Case(rule: "§3 heuristically cacheable status without directives", response: [], expected: true),
        Case(rule: "§3 a 302 without explicit freshness or validator", status: 302, response: [], expected: false),
        Case(rule: "§3 a 302 with max-age", status: 302, response: [("Cache-Control", "max-age=60")], expected: true),
        Case(rule: "§3 a 500 with Expires", status: 500, response: [("Expires", cacheDate(60))], expected: true),
        Case(rule: "§3 a 303 with only a validator can be stored to be revalidated", status: 303, response: [("ETag", "\"v1\"")], expected: true),
        Case(rule: "§3 an unquoted ETag is no validator (RFC 9110 §8.8.3)", status: 303, response: [("ETag", "v1")], expected: false),
        Case(
            rule: "§3 a final status not understood, with explicit freshness (only must-understand asks to understand it)", status: 299,
            response: [("Cache-Control", "max-age=60")], expected: true),
        Case(rule: "§3 a status above 599 is not final", status: 600, response: [("Cache-Control", "max-age=60")], expected: false),
        Case(rule: "§3 an interim status", status: 103, response: [("Cache-Control", "max-age=60")], expected: false),
        Case(rule: "§3 206 partial content is never stored", status: 206, response: [("Cache-Control", "max-age=60")], expected: false),
        Case(rule: "§3 304 is not stored as a response", status: 304, response: [("Cache-Control", "max-age=60")], expected: false),
        Case(
            rule: "§3.3 a request with Range is never stored", request: [("Range", "bytes=0-9")], response: [("Cache-Control", "max-age=60")], expected: false),
        Case(
            rule: "§4.1 Vary: * is never stored (it could never be used)", response: [("Cache-Control", "max-age=60"), ("Vary", "Accept, *")], expected: false),
        Case(
            rule: "§5.2 an unreadably large Cache-Control is no-store",
            response: [("Cache-Control", "max-age=60, x=\"" + String(repeating: "a", count: 9_000) + "\"")], expected: false),
        Case(
            rule: "§3.5 Authorization: stored with max-age", request: [("Authorization", "Bearer t")], response: [("Cache-Control", "max-age=60")],
            expected: true),
        Case(
            rule: "§3.5 Authorization: stored with private", request: [("Authorization", "Bearer t")], response: [("Cache-Control", "private")], expected: true),
        Case(rule: "§3.5 Authorization: stored with public", request: [("Authorization", "Bearer t")], response: [("Cache-Control", "public")], expected: true),
        Case(
            rule: "§3.5 Authorization: stored with must-revalidate", request: [("Authorization", "Bearer t")],
            response: [("Cache-Control", "must-revalidate"), ("ETag", "\"a\"")], expected: true),
        Case(
            rule: "§3.5 Authorization: not by heuristic alone", request: [("Authorization", "Bearer t")], response: [("Last-Modified", cacheDate(-1000))],
            expected: false),
        Case(
            rule: "§3.5 Authorization: not by Expires alone", request: [("Authorization", "Bearer t")], response: [("Expires", cacheDate(60))], expected: false),
        Case(rule: "§3.5 credentials flagged by the caller: not by heuristic alone", response: [("ETag", "\"a\"")], hasCredentials: true, expected: false),
        Case(
            rule: "§3.5 credentials flagged by the caller: stored with max-age", response: [("Cache-Control", "max-age=5")], hasCredentials: true,
            expected: true),
    ]

    @Test("a response is storable exactly when §3 allows", arguments: cases)
    func storable(_ testCase: Case) {
        let request = cacheRequest(testCase.method, testCase.request)
        let response = cacheResponse(testCase.status, testCase.response)
        #expect(CacheStorability.isStorable(request: request, response: response, hasCredentials: testCase.hasCredentials) == testCase.expected)
    }

    @Test("§3.1 hop-by-hop fields, proxy fields and fields named by Connection are not stored")
    func storableFields() {
        let fields = cacheFields([
            ("Content-Type", "text/plain"), ("Connection", "close, X-Hop"), ("X-Hop", "1"), ("Keep-Alive", "timeout=5"),
            ("Transfer-Encoding", "chunked"), ("Proxy-Authenticate", "Basic"), ("ETag", "\"a\""), ("Upgrade", "h2c"), ("TE", "trailers"),
        ])
        #expect(CacheStorability.storableFields(fields) == cacheFields([("Content-Type", "text/plain"), ("ETag", "\"a\"")]))
    }
}
