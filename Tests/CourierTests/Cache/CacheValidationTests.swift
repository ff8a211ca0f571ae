import Foundation
import HTTPTypes
import Testing

@testable import Courier

@Suite("Cache validation and invalidation (RFC 9111 §4.3, §4.4)")
struct CacheValidationTests {
    @Test("§4.3.1 the conditional request carries the stored ETags and Last-Modified")
    func conditional() throws {
        let entries = [
            cacheEntry([("ETag", "\"v2\""), ("Last-Modified", cacheDate(-10))]),
            cacheEntry([("ETag", "W/\"v1\"")]),
            cacheEntry([("ETag", "\"v2\"")]),
        ]
        let request = try #require(CacheValidation.conditionalRequest(for: cacheRequest(), entries: entries))
        #expect(request.headerFields[.ifNoneMatch] == "\"v2\", W/\"v1\"")
        #expect(request.headerFields[.ifModifiedSince] == cacheDate(-10))
        #expect(request.path == "/a")
    }

    @Test("§4.3.1 an invalid ETag or Last-Modified is not sent; no validator at all gives nil")
    func invalidValidators() {
        let entries = [cacheEntry([("ETag", "v1"), ("Last-Modified", "yesterday")])]
        #expect(CacheValidation.conditionalRequest(for: cacheRequest(), entries: entries) == nil)
        #expect(CacheValidation.conditionalRequest(for: cacheRequest(), entries: []) == nil)
    }

    @Test("§4.3.2 a request the caller made conditional is left as it is")
    func callersConditional() {
        let request = cacheRequest(.get, [("If-None-Match", "\"mine\"")])
        let result = CacheValidation.conditionalRequest(for: request, entries: [cacheEntry([("ETag", "\"v\"")])])
        #expect(result == request)
    }

    @Test(
        "RFC 9110 §8.8.3 entity-tag syntax",
        arguments: [
            ("\"abc\"", true), ("W/\"abc\"", true), ("\"\"", true), ("abc", false), ("\"a\"b\"", false), ("w/\"a\"", false), ("\"", false),
        ])
    func entityTag(text: String, valid: Bool) {
        #expect(CacheValidation.isEntityTag(text) == valid)
    }

    @Test("§4.3.4 a strong ETag selects every stored response with that tag, and nothing else")
    func strongSelection() {
        let entries = [
            cacheEntry([("ETag", "\"a\"")]), cacheEntry([("ETag", "\"b\"")]), cacheEntry([("ETag", "\"a\"")]),
            cacheEntry([("ETag", "W/\"a\"")]),
        ]
        #expect(CacheValidation.entriesUpdated(by: cacheResponse(304, [("ETag", "\"a\"")]), among: entries) == [0, 2])
        #expect(CacheValidation.entriesUpdated(by: cacheResponse(304, [("ETag", "\"c\"")]), among: entries) == [])
    }

    @Test("§4.3.4 a weak validator selects the most recent matching stored response")
    func weakSelection() {
        let entries = [
            cacheEntry([("ETag", "W/\"a\"")], receivedAt: cacheEpoch),
            cacheEntry([("ETag", "\"a\"")], receivedAt: cacheEpoch.addingTimeInterval(10)),
            cacheEntry([("ETag", "W/\"b\"")], receivedAt: cacheEpoch.addingTimeInterval(20)),
            cacheEntry([("Last-Modified", cacheDate(-5))], receivedAt: cacheEpoch.addingTimeInterval(5)),
        ]
        #expect(CacheValidation.entriesUpdated(by: cacheResponse(304, [("ETag", "W/\"a\"")]), among: entries) == [1])
        #expect(CacheValidation.entriesUpdated(by: cacheResponse(304, [("Last-Modified", cacheDate(-5))]), among: entries) == [3])
        #expect(CacheValidation.entriesUpdated(by: cacheResponse(304, [("ETag", "W/\"z\"")]), among: entries) == [])
    }

    /// Issue 50: §4.3.4 asks that the one stored response lack a validator too; the request was
    /// built from it, so browsers (and now Courier) update it (§4.3.3).
    @Test("§4.3.3 a 304 without validators updates the only stored response, validator or not; of several, none")
    func noValidatorSelection() {
        let notModified = cacheResponse(304, [("Cache-Control", "max-age=5")])
        #expect(CacheValidation.entriesUpdated(by: notModified, among: [cacheEntry([])]) == [0])
        #expect(CacheValidation.entriesUpdated(by: notModified, among: [cacheEntry([("ETag", "\"a\"")])]) == [0])
        #expect(CacheValidation.entriesUpdated(by: notModified, among: [cacheEntry([("Last-Modified", cacheDate(-5))])]) == [0])
        #expect(CacheValidation.entriesUpdated(by: notModified, among: [cacheEntry([]), cacheEntry([])]) == [])
    }

    @Test(
        "§3.2 a 304's fields replace the stored ones (after those it left alone), except Content-Length and hop-by-hop fields; times are renewed"
    )
    func merge() {
        let entry = cacheEntry([
            ("Content-Type", "text/plain"), ("Content-Length", "4"), ("Cache-Control", "max-age=1"), ("ETag", "\"a\""),
            ("X-Multi", "1"), ("X-Multi", "2"),
        ])
        let notModified = cacheResponse(
            304,
            [
                ("Cache-Control", "max-age=60"), ("Content-Length", "0"), ("Connection", "close"), ("X-Multi", "3"),
                ("Date", cacheDate(100)), ("Transfer-Encoding", "chunked"),
            ])
        let updated = CacheValidation.updated(
            entry, with: notModified, requestTime: cacheEpoch.addingTimeInterval(99), responseTime: cacheEpoch.addingTimeInterval(100))
        #expect(updated.response.status.code == 200)
        #expect(updated.body == entry.body)
        #expect(
            updated.response.headerFields
                == cacheFields([
                    ("Content-Type", "text/plain"), ("Content-Length", "4"), ("ETag", "\"a\""), ("Cache-Control", "max-age=60"),
                    ("X-Multi", "3"), ("Date", cacheDate(100)),
                ]))
        #expect(updated.requestTime == cacheEpoch.addingTimeInterval(99))
        #expect(updated.responseTime == cacheEpoch.addingTimeInterval(100))
    }

    @Test(
        "§4.3.4 after a 304's update the entry's parsed facts are those of its new fields, whether the 304 changed its directives and validators or not",
        arguments: [
            [("Date", "Sun, 06 Nov 1994 08:50:37 GMT"), ("ETag", "\"a\""), ("Cache-Control", "max-age=1")],
            [("Date", "Sun, 06 Nov 1994 08:50:37 GMT"), ("Cache-Control", "max-age=600, must-revalidate")],
            [("ETag", "W/\"b\""), ("Last-Modified", "Sat, 05 Nov 1994 08:49:37 GMT")],
            [("Age", "30"), ("Expires", "Sun, 06 Nov 1994 09:49:37 GMT")],
            [],
        ])
    func updateKeepsFactsTrue(_ fields: [(String, String)]) {
        let entry = cacheEntry([
            ("Cache-Control", "max-age=1"), ("ETag", "\"a\""), ("Last-Modified", "Fri, 04 Nov 1994 08:49:37 GMT"),
            ("Date", cacheDate(-5)),
        ])
        let updated = CacheValidation.updated(
            entry, with: cacheResponse(304, fields), requestTime: cacheEpoch.addingTimeInterval(59),
            responseTime: cacheEpoch.addingTimeInterval(60))
        #expect(updated.facts == CacheResponseFacts(updated.response, responseTime: updated.responseTime))
        for (name, value) in fields {
            #expect(updated.response.headerFields[values: HTTPField.Name(name)!] == [value])
        }
    }

    struct InvalidationCase: CustomTestStringConvertible, Sendable {
        var rule: String
        var method: HTTPRequest.Method
        var status: Int
        var response: [(String, String)] = []
        var expected: [String]
        var testDescription: String { rule }
    }

    static let invalidationCases: [InvalidationCase] = [
        InvalidationCase(rule: "§4.4 POST with 200 invalidates the target", method: .post, status: 200, expected: ["https://example.com/a"]),
        InvalidationCase(rule: "§4.4 PUT, DELETE, PATCH too", method: .delete, status: 204, expected: ["https://example.com/a"]),
        InvalidationCase(rule: "§4.4 a 3xx is a non-error response", method: .patch, status: 303, expected: ["https://example.com/a"]),
        InvalidationCase(rule: "§4.4 an error response invalidates nothing", method: .post, status: 500, expected: []),
        InvalidationCase(rule: "§4.4 a 4xx invalidates nothing", method: .put, status: 409, expected: []),
        InvalidationCase(rule: "§4.4 safe methods invalidate nothing", method: .get, status: 200, expected: []),
        InvalidationCase(
            rule: "§4.4 same-origin Location and Content-Location, relative or absolute", method: .post, status: 201,
            response: [("Location", "/items/7"), ("Content-Location", "https://EXAMPLE.com:443/items/7?v=1")],
            expected: ["https://example.com/a", "https://example.com/items/7", "https://example.com/items/7?v=1"]),
        InvalidationCase(
            rule: "§4.4 another origin's Location is not invalidated", method: .post, status: 201,
            response: [("Location", "https://other.example/items/7"), ("Content-Location", "http://example.com/a")],
            expected: ["https://example.com/a"]),
        InvalidationCase(
            rule: "§4.4 an unparsable Location is ignored", method: .post, status: 201,
            response: [("Location", "http://[broken")], expected: ["https://example.com/a"]),
    ]

    @Test("§4.4 unsafe methods invalidate the target and same-origin Location URIs", arguments: invalidationCases)
    func invalidation(_ testCase: InvalidationCase) {
        let urls = CacheValidation.invalidatedURLs(
            request: cacheRequest(testCase.method), response: cacheResponse(testCase.status, testCase.response))
        #expect(urls == testCase.expected)
    }
}
