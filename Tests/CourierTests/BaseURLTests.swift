import Foundation
import PropertyBased
import Testing

@testable import Courier

@Suite("BaseURL host and port validation")
struct BaseURLTests {
    @Test(
        "accepts RFC 1123 names, dotted quads and bracketed IPv6",
        arguments: [
            "api.example.com", "localhost", "a", "x-1.example", "EXAMPLE.com", "1st.example.com",
            "example.123abc", "xn--bcher-kva.example",
            String(repeating: "a", count: 63) + ".com",
            "127.0.0.1", "0.0.0.0", "255.255.255.255", "192.0.2.1",
            "[::1]", "[::]", "[2001:db8::1]", "[2001:0db8:0000:0000:0000:ff00:0042:8329]",
            "[fe80::]", "[::ffff:192.0.2.1]", "[1:2:3:4:5:6:7::]", "[::2:3:4:5:6:7:8]",
        ])
    func acceptsValidHosts(host: String) throws {
        let base = try BaseURL(host: host)
        #expect(base.host == host.lowercased())
    }

    @Test(
        "rejects invalid hosts with an error naming the host",
        arguments: [
            ("", "empty"),
            ("https://api.example.com", "scheme"),
            ("api.example.com/v1", "/"),
            ("user@api.example.com", "user-info"),
            ("api.example.com:8080", "port"),
            ("api example.com", "white space"),
            ("api.example.com?x", "query"),
            ("api.example.com#x", "fragment"),
            ("api..example.com", "empty label"),
            (".example.com", "empty label"),
            ("example.com.", "empty label"),
            ("-api.example.com", "hyphen"),
            ("api-.example.com", "hyphen"),
            ("api_v1.example.com", "\"_\""),
            (String(repeating: "a", count: 64) + ".com", "63"),
            (Array(repeating: String(repeating: "a", count: 50), count: 6).joined(separator: "."), "253"),
            ("bücher.example", "punycode"),
            ("e\u{301}xample.com", "U+301"),  // combining acute accent after an ASCII letter
            ("ex\u{200B}ample.com", "U+200B"),  // zero-width space
            ("аpple.com", "U+430"),  // Cyrillic а, looks like Latin a
            ("example.ｃom", "U+FF43"),  // full-width c
            ("256.1.1.1", "IPv4"),
            ("1.2.3", "IPv4"),
            ("1.2.3.4.5", "IPv4"),
            ("example.123", "IPv4"),
            ("01.2.3.4", "leading zero"),
            ("1.2.3.-4", "hyphen"),
            ("[::1", "bracketed"),
            ("[1::2::3]", "IPv6"),
            ("[12345::]", "IPv6"),
            ("[1:2:3:4:5:6:7:8:9]", "IPv6"),
            ("[1:2:3:4:5:6:7]", "IPv6"),
            ("[fe80::1%25eth0]", "zone"),
            ("[::ffff:300.0.0.1]", "IPv6"),
            ("[g::1]", "IPv6"),
            ("ex%41mple.com", "percent"),
        ])
    func rejectsInvalidHosts(host: String, mention: String) {
        #expect {
            _ = try BaseURL(host: host)
        } throws: { error in
            guard case .invalidRequest(.invalidHost(let named, let reason)) = error as? CourierError else { return false }
            // User-info is never kept in the error (it is often a token); everything else is.
            let kept = host.contains("@") ? "<redacted>@api.example.com" : host
            return named == kept && reason.localizedCaseInsensitiveContains(mention)
        }
    }

    @Test("a combining mark cannot hide behind a Character that looks like ASCII")
    func combiningMarkIsCheckedAsAUnicodeScalar() {
        let host = "a\u{308}pi.example.com"  // "äpi" as a + combining diaeresis
        #expect(host.count == 15)  // 15 Characters, 16 scalars
        #expect(throws: CourierError.self) { _ = try BaseURL(host: host) }
    }

    @Test("ports 1–65535 are accepted", arguments: [1, 80, 443, 8080, 65535])
    func acceptsPorts(port: Int) throws {
        let base = try BaseURL(scheme: .http, host: "127.0.0.1", port: port)
        #expect(base.authority == "127.0.0.1:\(port)")
        #expect(base.url.absoluteString == "http://127.0.0.1:\(port)")
    }

    @Test("ports outside 1–65535 are rejected", arguments: [0, -1, 65536, 100_000])
    func rejectsPorts(port: Int) {
        #expect {
            _ = try BaseURL(host: "api.example.com", port: port)
        } throws: { error in
            if case .invalidRequest(.invalidPort(port)) = error as? CourierError { return true }
            return false
        }
    }

    @Test("IPv6 with a port keeps the brackets in the authority")
    func ipv6Authority() throws {
        let base = try BaseURL(scheme: .http, host: "[::1]", port: 8080)
        #expect(base.authority == "[::1]:8080")
        #expect(base.description == "http://[::1]:8080")
    }

    @Test(
        "init(string:) reads scheme, host and port",
        arguments: [
            ("https://api.example.com", BaseURL.Scheme.https, "api.example.com", nil as Int?),
            ("http://127.0.0.1:8080", .http, "127.0.0.1", 8080),
            ("http://127.0.0.1:8080/", .http, "127.0.0.1", 8080),
            ("HTTP://API.example.com", .http, "api.example.com", nil),
            ("http://[::1]:9000", .http, "[::1]", 9000),
            ("https://[2001:db8::1]", .https, "[2001:db8::1]", nil),
        ])
    func parsesStrings(string: String, scheme: BaseURL.Scheme, host: String, port: Int?) throws {
        let base = try BaseURL(string: string)
        #expect(base.scheme == scheme)
        #expect(base.host == host)
        #expect(base.port == port)
    }

    @Test(
        "init(string:) refuses anything it would have to drop",
        arguments: [
            "api.example.com", "ftp://api.example.com", "https://api.example.com/v1",
            "https://api.example.com?x=1", "https://alice.example:pw@api.example.com", "http://127.0.0.1:", "http://127.0.0.1:80a",
            "https://api.example.com#top",
        ])
    func rejectsStrings(string: String) {
        #expect(throws: CourierError.self) { _ = try BaseURL(string: string) }
    }

    @Test("an out-of-range port in a string is reported as a port error")
    func stringWithBadPort() {
        #expect {
            _ = try BaseURL(string: "http://127.0.0.1:70000")
        } throws: { error in
            if case .invalidRequest(.invalidPort(70000)) = error as? CourierError { return true }
            return false
        }
    }

    /// Issue 51: the one-pass check decides every host it is given exactly as the full rules do
    /// (a host it cannot prove valid goes to them, so it may only say "valid" when they do, and
    /// must say it for every valid name and dotted quad, or it saves nothing).
    @Test("the one-pass host check agrees with the full rules on random hosts")
    func onePassHostCheckAgrees() async {
        let pieces = [
            "a", "Z", "0", "1", "9", "25", "255", "256", "300", "00", "012", "-", ".", ".", ".", "ab-c", "xn--bcher-kva", "_", "@", ":",
            " ", "\u{E9}", "[", "]", "%", "::1", String(repeating: "a", count: 63), String(repeating: "b", count: 64),
        ]
        await propertyCheck(count: 5_000, input: Gen.int(in: 0...(pieces.count - 1)).array(of: 1...12)) { indices in
            let host = indices.map { pieces[$0] }.joined()
            let full = HostValidation.problemByEveryRule(with: host)
            #expect(HostValidation.isPlainNameOrIPv4(host.utf8) == (full == nil && !host.hasPrefix("[")), "\(host.debugDescription)")
            #expect(HostValidation.problem(with: host) == full, "\(host.debugDescription)")
        }
    }

    /// Issue 51: the byte parser of `init(string:)` reads every string as the Foundation-based
    /// one it replaced did: the same parts, or the same error.
    @Test("init(string:) agrees with the string-search parser it replaced on random strings")
    func stringParserAgrees() async {
        let pieces = [
            "http", "HTTPS", "hTtP", "ftp", "://", "://", ":", "/", "?", "#", "@", "[", "]", "::1", "127.0.0.1", "api", ".", "example",
            "8080", "65536", "99999999999999999999", "\u{E9}", "0", "-",
        ]
        await propertyCheck(count: 5_000, input: Gen.int(in: 0...(pieces.count - 1)).array(of: 1...10)) { indices in
            let string = indices.map { pieces[$0] }.joined()
            #expect(Self.outcome { try BaseURL(string: string) } == Self.outcome { try ReferenceBaseURL.parse(string) }, "\(string.debugDescription)")
        }
    }

    /// A base URL's parts, or its error, as text to compare.
    private static func outcome(_ make: () throws -> BaseURL) -> String {
        do {
            let base = try make()
            return "\(base.scheme) \(base.host) \(base.port.map(String.init) ?? "-") \(base.authority)"
        } catch {
            return String(describing: error)
        }
    }
}

/// `BaseURL(string:)` as it was before issue 51 (Foundation's `range(of:)`, `String` searches),
/// kept as the reference the byte parser must agree with.
private enum ReferenceBaseURL {
    static func parse(_ string: String) throws(CourierError) -> BaseURL {
        func fail(_ reason: String) -> CourierError {
            .invalidRequest(.invalidBaseURL(Redaction.default.redact(urlString: string), reason: reason))
        }
        guard let separator = string.range(of: "://") else { throw fail("expected scheme://host[:port]") }
        guard let scheme = BaseURL.Scheme(rawValue: string[..<separator.lowerBound].lowercased()) else {
            throw fail("the scheme must be http or https")
        }
        var rest = string[separator.upperBound...]
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains("/") || rest.contains("?") || rest.contains("#") {
            throw fail("a base URL has no path, query or fragment; put those in the endpoint")
        }
        if rest.contains("@") { throw fail("a base URL has no user-info; use Authentication for credentials") }
        var host = rest
        var port: Int?
        let hostEnd = rest.hasPrefix("[") ? (rest.firstIndex(of: "]").map { rest.index(after: $0) } ?? rest.endIndex) : rest.startIndex
        if let colon = rest[hostEnd...].lastIndex(of: ":") {
            let digits = rest[rest.index(after: colon)...]
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(digits) else {
                throw fail("the port must be a decimal number")
            }
            host = rest[..<colon]
            port = value
        }
        return try BaseURL(scheme: scheme, host: String(host), port: port)
    }
}
