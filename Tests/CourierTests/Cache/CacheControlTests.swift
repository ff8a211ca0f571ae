import HTTPTypes
import Testing

@testable import Courier

@Suite("Cache-Control: parsing request and response directives (RFC 9111 §5.2)")
struct CacheControlTests {
    private static func control(_ build: (inout CacheControl) -> Void) -> CacheControl {
        var value = CacheControl()
        build(&value)
        return value
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var rule: String
        var lines: [String]
        var expected: CacheControl
        var testDescription: String { "\(rule): \(lines)" }
    }

    static let cases: [Case] = [
        Case(rule: "§5.2.2.1 max-age", lines: ["max-age=60"], expected: control { $0.maxAge = 60 }),
        Case(
            rule: "§5.2 names are case-insensitive", lines: ["Max-Age=60, NO-CACHE"],
            expected: control {
                $0.maxAge = 60; $0.noCache = true
            }),
        Case(rule: "§5.2 quoted-string argument accepted", lines: [#"max-age="60""#], expected: control { $0.maxAge = 60 }),
        Case(
            rule: "§5.2 several field lines are one list", lines: ["no-store", "max-age=5, private"],
            expected: control {
                $0.noStore = true; $0.maxAge = 5; $0.isPrivate = true
            }),
        Case(
            rule: "§4.2.1 duplicate directive: the first wins", lines: ["max-age=10, max-age=20"],
            expected: control { $0.maxAge = 10 }),
        Case(
            rule: "§4.2.1 duplicate across lines: the first wins", lines: ["max-age=10", "max-age=20"],
            expected: control { $0.maxAge = 10 }),
        Case(rule: "§4.2.1 invalid max-age is stale (0)", lines: ["max-age=ten"], expected: control { $0.maxAge = 0 }),
        Case(rule: "§4.2.1 negative max-age is stale (0)", lines: ["max-age=-5"], expected: control { $0.maxAge = 0 }),
        Case(rule: "§4.2.1 max-age without argument is stale (0)", lines: ["max-age"], expected: control { $0.maxAge = 0 }),
        Case(
            rule: "§4.2.1 max-age with garbage after it is stale (0)", lines: ["max-age=1 2, public"],
            expected: control {
                $0.maxAge = 0; $0.isPublic = true
            }),
        Case(
            rule: "§1.2.2 delta-seconds saturate at 2^31", lines: ["max-age=99999999999999999999999"],
            expected: control { $0.maxAge = 2_147_483_648 }),
        Case(rule: "§1.2.2 2^31 - 1 is kept", lines: ["max-age=2147483647"], expected: control { $0.maxAge = 2_147_483_647 }),
        Case(
            rule: "§5.2.1.2 max-stale without argument: any staleness", lines: ["max-stale"],
            expected: control { $0.maxStale = 2_147_483_648 }),
        Case(rule: "§5.2.1.2 max-stale with argument", lines: ["max-stale=30"], expected: control { $0.maxStale = 30 }),
        Case(rule: "§5.2.1.2 invalid max-stale is ignored", lines: ["max-stale=soon"], expected: CacheControl()),
        Case(rule: "§5.2.1.3 min-fresh", lines: ["min-fresh=5"], expected: control { $0.minFresh = 5 }),
        Case(rule: "§5.2.1.3 invalid min-fresh is ignored", lines: ["min-fresh=5.5"], expected: CacheControl()),
        Case(rule: "§5.2.1.7 only-if-cached", lines: ["only-if-cached"], expected: control { $0.onlyIfCached = true }),
        Case(
            rule: "§5.2.2.4 qualified no-cache reads as no-cache", lines: [#"no-cache="Set-Cookie, Foo""#],
            expected: control { $0.noCache = true }),
        Case(
            rule: "§5.2.2.7 qualified private reads as private", lines: [#"private="X-Secret""#],
            expected: control { $0.isPrivate = true }),
        Case(
            rule: "§5.2.2 must-revalidate, public, must-understand, proxy-revalidate, no-transform",
            lines: ["must-revalidate, public, must-understand, proxy-revalidate, no-transform"],
            expected: control {
                $0.mustRevalidate = true; $0.isPublic = true; $0.mustUnderstand = true; $0.proxyRevalidate = true
                $0.noTransform = true
            }),
        Case(
            rule: "§5.2.2.10 s-maxage is parsed (and ignored by a private cache)", lines: ["s-maxage=9"],
            expected: control { $0.sharedMaxAge = 9 }),
        Case(
            rule: "RFC 5861 stale-while-revalidate and stale-if-error", lines: ["stale-while-revalidate=30, stale-if-error=600"],
            expected: control {
                $0.staleWhileRevalidate = 30; $0.staleIfError = 600
            }),
        Case(
            rule: "§5.2.3 unknown extensions are ignored", lines: [#"community="UCI", immutable, foo=bar"#],
            expected: CacheControl()),
        Case(
            rule: "RFC 9110 §5.6.1 empty list elements and spaces", lines: [" , ,max-age=3 ,, no-store , "],
            expected: control {
                $0.maxAge = 3; $0.noStore = true
            }),
        Case(
            rule: "RFC 9110 §5.6.4 escaped quote inside a quoted argument", lines: [#"foo="a\"b,c", no-store"#],
            expected: control { $0.noStore = true }),
        Case(
            rule: "an unterminated quoted string ends the field", lines: [#"no-cache, foo="abc, no-store"#],
            expected: control { $0.noCache = true }),
        Case(rule: "a malformed public is not honoured (it would loosen)", lines: ["public x"], expected: CacheControl()),
        Case(rule: "a malformed no-store is honoured (it restricts)", lines: ["no-store x"], expected: control { $0.noStore = true }),
        Case(
            rule: "an element not starting with a token is skipped", lines: [#""quoted", max-age=1"#],
            expected: control { $0.maxAge = 1 }),
        Case(rule: "an empty field has no directives", lines: [""], expected: CacheControl()),
    ]

    @Test("each directive reads as the RFC says", arguments: cases)
    func parses(_ testCase: Case) {
        #expect(CacheControl(lines: testCase.lines) == testCase.expected)
    }

    @Test("directives are read from every Cache-Control line of HTTPFields")
    func readsFields() {
        let fields = cacheFields([("Cache-Control", "max-age=5"), ("Content-Type", "text/plain"), ("cache-control", "no-cache")])
        let control = CacheControl(fields)
        #expect(control.maxAge == 5)
        #expect(control.noCache)
    }

    @Test("more directives than the limit: over limit, read as no-store and no-cache")
    func tooManyDirectives() {
        let line = (0...CacheControl.maximumDirectives).map { "x\($0)" }.joined(separator: ", ")
        let control = CacheControl(lines: [line, "max-age=60"])
        #expect(control.isOverLimit && control.noStore && control.noCache)
        #expect(control.maxAge == nil)
        #expect(!CacheControl(lines: [(1..<CacheControl.maximumDirectives).map { "x\($0)" }.joined(separator: ",")]).isOverLimit)
    }

    @Test("a field larger than the byte limit: over limit, read as no-store and no-cache")
    func tooManyBytes() {
        let control = CacheControl(lines: ["max-age=60, foo=\"" + String(repeating: "a", count: CacheControl.maximumFieldBytes) + "\""])
        #expect(control.isOverLimit && control.noStore && control.noCache)
    }

    @Test("delta-seconds: digits only, saturated at 2^31")
    func deltaSeconds() {
        #expect(CacheControl.deltaSeconds("0") == 0)
        #expect(CacheControl.deltaSeconds("2147483648") == 2_147_483_648)
        #expect(CacheControl.deltaSeconds("2147483649") == 2_147_483_648)
        #expect(CacheControl.deltaSeconds("") == nil)
        #expect(CacheControl.deltaSeconds("+1") == nil)
        #expect(CacheControl.deltaSeconds("1e3") == nil)
        #expect(CacheControl.deltaSeconds("١٢") == nil)
    }
}
