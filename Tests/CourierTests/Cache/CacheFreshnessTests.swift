import Foundation
import HTTPTypes
import Testing

@testable import Courier

@Suite("Cache freshness: lifetime, age and reuse (RFC 9111 §4.2, RFC 5861)")
struct CacheFreshnessTests {
    struct LifetimeCase: CustomTestStringConvertible, Sendable {
        var rule: String
        var status = 200
        var fields: [(String, String)]
        var expected: TimeInterval
        var testDescription: String { rule }
    }

    static let lifetimeCases: [LifetimeCase] = [
        LifetimeCase(rule: "§4.2.1 max-age", fields: [("Cache-Control", "max-age=60")], expected: 60),
        LifetimeCase(
            rule: "§4.2.1 max-age beats Expires", fields: [("Cache-Control", "max-age=60"), ("Date", cacheDate(0)), ("Expires", cacheDate(3600))], expected: 60),
        LifetimeCase(
            rule: "§4.2.1 s-maxage is ignored by a private cache",
            fields: [("Cache-Control", "s-maxage=600"), ("Date", cacheDate(0)), ("Expires", cacheDate(30))], expected: 30),
        LifetimeCase(rule: "§4.2.1 Expires minus Date", fields: [("Date", cacheDate(0)), ("Expires", cacheDate(120))], expected: 120),
        LifetimeCase(rule: "§4.2.1 Expires minus the response time without Date", fields: [("Expires", cacheDate(90))], expected: 90),
        LifetimeCase(
            rule: "§4.2.1 Expires minus the response time when Date is invalid", fields: [("Date", "yesterday"), ("Expires", cacheDate(90))], expected: 90),
        LifetimeCase(rule: "§5.3 an invalid Expires (0) is already expired", fields: [("Expires", "0"), ("Last-Modified", cacheDate(-100_000))], expected: 0),
        LifetimeCase(rule: "§5.3 an Expires before Date is already expired", fields: [("Date", cacheDate(0)), ("Expires", cacheDate(-5))], expected: 0),
        // Issue 50 (cache-tests freshness-expires-*): names in any case are a date; two spaces
        // where one belongs are not, and an invalid Expires is already expired.
        LifetimeCase(
            rule: "§5.3 an Expires in lower case is a date", fields: [("Date", cacheDate(0)), ("Expires", cacheDate(120).lowercased())], expected: 120),
        LifetimeCase(
            rule: "§5.3 an Expires with two spaces is invalid: expired",
            fields: [("Date", cacheDate(0)), ("Expires", cacheDate(120).replacingOccurrences(of: " ", with: "  "))], expected: 0),
        LifetimeCase(
            rule: "§4.2.1 an invalid max-age is stale even with a future Expires", fields: [("Cache-Control", "max-age=abc"), ("Expires", cacheDate(900))],
            expected: 0),
        LifetimeCase(rule: "§1.2.2 a huge max-age saturates at 2^31 s", fields: [("Cache-Control", "max-age=184467440737095516160")], expected: 2_147_483_648),
        LifetimeCase(
            rule: "§4.2.2 heuristic: 10% of Date − Last-Modified", fields: [("Date", cacheDate(0)), ("Last-Modified", cacheDate(-10_000))], expected: 1_000),
        LifetimeCase(
            rule: "§4.2.2 heuristic: capped at 24 h", fields: [("Date", cacheDate(0)), ("Last-Modified", cacheDate(-100 * 86_400))], expected: 86_400),
        LifetimeCase(rule: "§4.2.2 heuristic: 404 is heuristically cacheable", status: 404, fields: [("Last-Modified", cacheDate(-1_000))], expected: 100),
        LifetimeCase(rule: "§4.2.2 heuristic: not for a 302", status: 302, fields: [("Last-Modified", cacheDate(-1_000))], expected: 0),
        LifetimeCase(rule: "§4.2.2 heuristic: not without Last-Modified", fields: [("Date", cacheDate(0))], expected: 0),
        LifetimeCase(rule: "§4.2.2 heuristic: not with an invalid Last-Modified", fields: [("Last-Modified", "last week")], expected: 0),
        LifetimeCase(rule: "§4.2.2 heuristic: not with a Last-Modified in the future", fields: [("Last-Modified", cacheDate(50))], expected: 0),
    ]

    @Test("the freshness lifetime follows §4.2.1 and §4.2.2", arguments: lifetimeCases)
    func lifetime(_ testCase: LifetimeCase) {
        let response = cacheResponse(testCase.status, testCase.fields)
        let lifetime = CacheFreshness.lifetime(
            of: response, cacheControl: CacheControl(response.headerFields), responseTime: cacheEpoch)
        #expect(lifetime == testCase.expected)
    }

    struct AgeCase: CustomTestStringConvertible, Sendable {
        var rule: String
        var fields: [(String, String)]
        var requestTime: TimeInterval
        var now: TimeInterval
        var expected: TimeInterval
        var testDescription: String { rule }
    }

    static let ageCases: [AgeCase] = [
        AgeCase(rule: "§4.2.3 resident time only", fields: [("Date", cacheDate(0))], requestTime: 0, now: 30, expected: 30),
        AgeCase(rule: "§4.2.3 Age plus response delay", fields: [("Date", cacheDate(0)), ("Age", "100")], requestTime: -2, now: 10, expected: 112),
        AgeCase(rule: "§4.2.3 apparent age from an old Date", fields: [("Date", cacheDate(-50))], requestTime: 0, now: 0, expected: 50),
        AgeCase(
            rule: "§4.2.3 the larger of apparent and corrected age", fields: [("Date", cacheDate(-50)), ("Age", "20")], requestTime: 0, now: 5, expected: 55),
        AgeCase(rule: "§4.2.3 a Date in the future gives no negative age", fields: [("Date", cacheDate(500))], requestTime: 0, now: 0, expected: 0),
        // Issue 50 (cache-tests age-parse-*): RFC 9111 §5.1 takes a list's first member, and an
        // invalid value makes the response stale (it was read as 0: fresh).
        AgeCase(rule: "§5.1 an invalid Age makes it stale", fields: [("Date", cacheDate(0)), ("Age", "-3")], requestTime: 0, now: 1, expected: 2_147_483_649),
        AgeCase(rule: "§5.1 a list's first member counts", fields: [("Date", cacheDate(0)), ("Age", "7200, 0")], requestTime: 0, now: 0, expected: 7200),
        AgeCase(
            rule: "§5.1 a list's first member counts, invalid", fields: [("Date", cacheDate(0)), ("Age", "abc, 0")], requestTime: 0, now: 0,
            expected: 2_147_483_648),
        AgeCase(
            rule: "§5.1 a decimal Age is invalid: stale", fields: [("Date", cacheDate(0)), ("Age", "1.5")], requestTime: 0, now: 0, expected: 2_147_483_648),
        AgeCase(rule: "§1.2.2 a huge Age saturates", fields: [("Age", "999999999999999999999")], requestTime: 0, now: 0, expected: 2_147_483_648),
    ]

    @Test("the current age follows §4.2.3", arguments: ageCases)
    func age(_ testCase: AgeCase) {
        let age = CacheFreshness.currentAge(
            of: cacheResponse(200, testCase.fields), requestTime: cacheEpoch.addingTimeInterval(testCase.requestTime),
            responseTime: cacheEpoch, now: cacheEpoch.addingTimeInterval(testCase.now))
        #expect(age == testCase.expected)
    }

    struct DecisionCase: CustomTestStringConvertible, Sendable {
        var rule: String
        var response: [(String, String)]
        var request: [String] = []
        var elapsed: TimeInterval
        var staleWhileRevalidate = false
        var expected: CacheFreshness.Decision
        var testDescription: String { rule }
    }

    // Every response is received at cacheEpoch with Date = cacheEpoch, sent 1 s before: so its
    // age is 1 + elapsed seconds.
    static let decisionCases: [DecisionCase] = [
        DecisionCase(rule: "§4.2 fresh: used", response: [("Cache-Control", "max-age=60")], elapsed: 10, expected: .useStored),
        DecisionCase(rule: "§4.2 stale: revalidated", response: [("Cache-Control", "max-age=60")], elapsed: 60, expected: .revalidate),
        DecisionCase(rule: "§4.2 age equal to lifetime is stale", response: [("Cache-Control", "max-age=60")], elapsed: 59, expected: .revalidate),
        DecisionCase(
            rule: "§5.2.2.4 response no-cache: always revalidated", response: [("Cache-Control", "max-age=60, no-cache")], elapsed: 0, expected: .revalidate),
        DecisionCase(
            rule: "§5.2.1.4 request no-cache: revalidated", response: [("Cache-Control", "max-age=60")], request: ["no-cache"], elapsed: 0,
            expected: .revalidate),
        DecisionCase(
            rule: "§5.2.1.5 request no-store does not stop reuse", response: [("Cache-Control", "max-age=60")], request: ["no-store"], elapsed: 0,
            expected: .useStored),
        DecisionCase(
            rule: "§5.2.1.1 request max-age older than the age: revalidated", response: [("Cache-Control", "max-age=60")], request: ["max-age=5"], elapsed: 10,
            expected: .revalidate),
        DecisionCase(
            rule: "§5.2.1.1 request max-age within the age: used", response: [("Cache-Control", "max-age=60")], request: ["max-age=20"], elapsed: 10,
            expected: .useStored),
        DecisionCase(
            rule: "§5.2.1.3 min-fresh not met: revalidated", response: [("Cache-Control", "max-age=60")], request: ["min-fresh=55"], elapsed: 10,
            expected: .revalidate),
        DecisionCase(
            rule: "§5.2.1.3 min-fresh met: used", response: [("Cache-Control", "max-age=60")], request: ["min-fresh=40"], elapsed: 10, expected: .useStored),
        DecisionCase(
            rule: "§5.2.1.2 max-stale covers the staleness: used", response: [("Cache-Control", "max-age=60")], request: ["max-stale=30"], elapsed: 80,
            expected: .useStored),
        DecisionCase(
            rule: "§5.2.1.2 max-stale too short: revalidated", response: [("Cache-Control", "max-age=60")], request: ["max-stale=10"], elapsed: 80,
            expected: .revalidate),
        DecisionCase(
            rule: "§5.2.1.2 max-stale without value: any staleness", response: [("Cache-Control", "max-age=60")], request: ["max-stale"], elapsed: 1e9,
            expected: .useStored),
        DecisionCase(
            rule: "§4.2.4 must-revalidate overrides max-stale", response: [("Cache-Control", "max-age=60, must-revalidate")], request: ["max-stale"],
            elapsed: 80, expected: .revalidate),
        DecisionCase(
            rule: "§5.2.1.7 only-if-cached, fresh: used", response: [("Cache-Control", "max-age=60")], request: ["only-if-cached"], elapsed: 0,
            expected: .useStored),
        DecisionCase(
            rule: "§5.2.1.7 only-if-cached, stale: 504", response: [("Cache-Control", "max-age=60")], request: ["only-if-cached"], elapsed: 100,
            expected: .unsatisfiable),
        DecisionCase(
            rule: "§5.2.1.7 only-if-cached, no-cache: 504", response: [("Cache-Control", "no-cache")], request: ["only-if-cached"], elapsed: 0,
            expected: .unsatisfiable),
        DecisionCase(
            rule: "RFC 5861 §3 stale-while-revalidate within the window, enabled", response: [("Cache-Control", "max-age=60, stale-while-revalidate=30")],
            elapsed: 80, staleWhileRevalidate: true, expected: .useStoredAndRevalidate),
        DecisionCase(
            rule: "RFC 5861 §3 stale-while-revalidate past the window", response: [("Cache-Control", "max-age=60, stale-while-revalidate=30")], elapsed: 95,
            staleWhileRevalidate: true, expected: .revalidate),
        DecisionCase(
            rule: "RFC 5861 §3 stale-while-revalidate ignored unless enabled", response: [("Cache-Control", "max-age=60, stale-while-revalidate=30")],
            elapsed: 80, expected: .revalidate),
        DecisionCase(
            rule: "RFC 5861 §3 stale-while-revalidate never under must-revalidate",
            response: [("Cache-Control", "max-age=60, stale-while-revalidate=30, must-revalidate")], elapsed: 80, staleWhileRevalidate: true,
            expected: .revalidate),
        DecisionCase(rule: "§4.2.1 invalid Expires: stale at once", response: [("Expires", "0")], elapsed: 0, expected: .revalidate),
        DecisionCase(
            rule: "§1.2.2 a huge max-age stays fresh for decades, without overflow", response: [("Cache-Control", "max-age=9999999999999999999999")],
            elapsed: 60 * 365 * 86_400, expected: .useStored),
    ]

    @Test("a stored response is used, revalidated or refused as §4 and §5.2.1 say", arguments: decisionCases)
    func decision(_ testCase: DecisionCase) {
        var fields = testCase.response
        fields.append(("Date", cacheDate(0)))
        let entry = cacheEntry(fields)
        let decision = CacheFreshness.decide(
            entry: entry, requestControl: CacheControl(lines: testCase.request),
            now: cacheEpoch.addingTimeInterval(testCase.elapsed), allowStaleWhileRevalidate: testCase.staleWhileRevalidate)
        #expect(decision == testCase.expected)
    }

    struct StaleIfErrorCase: CustomTestStringConvertible, Sendable {
        var rule: String
        var response: String
        var request: [String] = []
        var elapsed: TimeInterval
        var expected: Bool
        var testDescription: String { rule }
    }

    static let staleIfErrorCases: [StaleIfErrorCase] = [
        StaleIfErrorCase(rule: "RFC 5861 §4 within the response's window", response: "max-age=60, stale-if-error=100", elapsed: 120, expected: true),
        StaleIfErrorCase(rule: "RFC 5861 §4 past the response's window", response: "max-age=60, stale-if-error=100", elapsed: 200, expected: false),
        StaleIfErrorCase(rule: "RFC 5861 §4 the request's window", response: "max-age=60", request: ["stale-if-error=300"], elapsed: 200, expected: true),
        StaleIfErrorCase(rule: "RFC 5861 §4 no window: no stale answer", response: "max-age=60", elapsed: 70, expected: false),
        StaleIfErrorCase(rule: "§4.2.4 never under must-revalidate", response: "max-age=60, stale-if-error=100, must-revalidate", elapsed: 70, expected: false),
        StaleIfErrorCase(rule: "§5.2.2.4 never under no-cache", response: "no-cache, stale-if-error=100", elapsed: 0, expected: false),
    ]

    @Test("a stale response answers a failed revalidation only within stale-if-error", arguments: staleIfErrorCases)
    func staleIfError(_ testCase: StaleIfErrorCase) {
        let entry = cacheEntry([("Cache-Control", testCase.response), ("Date", cacheDate(0))])
        let allowed = CacheFreshness.mayServeStaleOnError(
            entry: entry, requestControl: CacheControl(lines: testCase.request), now: cacheEpoch.addingTimeInterval(testCase.elapsed))
        #expect(allowed == testCase.expected)
    }

    @Test(
        "an entry's parsed facts follow its response and response time: changing either is seen by the next decision",
        arguments: [
            [("Cache-Control", "max-age=60"), ("Date", "Sun, 06 Nov 1994 08:49:30 GMT"), ("Age", "5")],
            [("Expires", "Sun, 06 Nov 1994 08:50:37 GMT"), ("Date", "Sun, 06 Nov 1994 08:49:37 GMT")],
            [("Last-Modified", "Sat, 05 Nov 1994 08:49:37 GMT"), ("ETag", " W/\"a\" "), ("ETag", "\"b\"")],
            [("Age", "x"), ("Date", "yesterday"), ("Last-Modified", "0"), ("ETag", "unquoted")],
        ])
    func factsFollowTheResponse(_ pairs: [(String, String)]) {
        var entry = cacheEntry(pairs)
        func expectFactsMatchTheResponse() {
            let response = entry.response
            #expect(entry.facts == CacheResponseFacts(response, responseTime: entry.responseTime))
            #expect(entry.facts.control == CacheControl(response.headerFields))
            #expect(
                entry.facts.lifetime
                    == CacheFreshness.lifetime(of: response, cacheControl: CacheControl(response.headerFields), responseTime: entry.responseTime))
            let now = cacheEpoch.addingTimeInterval(30)
            #expect(
                entry.currentAge(at: now)
                    == CacheFreshness.currentAge(of: response, requestTime: entry.requestTime, responseTime: entry.responseTime, now: now))
        }
        expectFactsMatchTheResponse()
        entry.response.headerFields[.cacheControl] = "no-cache"
        #expect(entry.facts.control.noCache)
        #expect(CacheFreshness.decide(entry: entry, requestControl: CacheControl(), now: cacheEpoch) == .revalidate)
        expectFactsMatchTheResponse()
        entry.responseTime = cacheEpoch.addingTimeInterval(-86_400)
        expectFactsMatchTheResponse()
    }
}

/// The lifetime and age of a stored response read straight from its fields (`HTTPFields[values:]`),
/// not through ``CacheResponseFacts``: the reference the facts must agree with.
extension CacheFreshness {
    static func lifetime(of response: HTTPResponse, cacheControl: CacheControl, responseTime: Date) -> TimeInterval {
        let fields = response.headerFields
        return lifetime(
            cacheControl: cacheControl, expires: fields[values: .expires].first, status: response.status.code,
            date: dateValue(of: response, responseTime: responseTime),
            lastModified: fields[values: .lastModified].first.flatMap { HTTPDate.parse($0.trimmingSpaceAndTab(), now: responseTime, ignoringCase: true) },
            responseTime: responseTime)
    }

    static func dateValue(of response: HTTPResponse, responseTime: Date) -> Date {
        response.headerFields[values: .date].first
            .flatMap { HTTPDate.parse($0.trimmingSpaceAndTab(), now: responseTime, ignoringCase: true) } ?? responseTime
    }

    static func currentAge(of response: HTTPResponse, requestTime: Date, responseTime: Date, now: Date) -> TimeInterval {
        // §5.1: the first member of a list; an invalid value makes the response stale.
        let ageValue =
            response.headerFields[values: .age].first.map { value in
                let first = value.split(separator: ",", omittingEmptySubsequences: false).first.map(String.init) ?? ""
                return CacheControl.deltaSeconds(first.trimmingSpaceAndTab()) ?? CacheControl.maximumDeltaSeconds
            } ?? 0
        return currentAge(
            date: dateValue(of: response, responseTime: responseTime), ageValue: ageValue, requestTime: requestTime,
            responseTime: responseTime, now: now)
    }
}
