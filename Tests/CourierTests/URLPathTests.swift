import Courier
import Testing

@Suite("URLPath validation and encoding")
struct URLPathTests {
    @Test(
        "accepts paths of RFC 3986 pchar segments",
        arguments: [
            "/", "/users", "/users/", "/v1/users/42", "/a:b@c", "/a%20b", "/%E2%9C%93",
            "/~user/._-", "/!$&'()*+,;=", "/a/b/c/", "/.well-known/openid-configuration", "/a..b", "/...",
        ])
    func acceptsValidPaths(path: String) throws {
        #expect(try URLPath(path).rawValue == path)
    }

    @Test(
        "rejects invalid paths naming the rule",
        arguments: [
            ("", "start with"),
            ("users", "start with"),
            ("//", "empty segment"),
            ("/a//b", "empty segment"),
            ("/.", "dot segment"),
            ("/..", "dot segment"),
            ("/a/./b", "dot segment"),
            ("/a/../b", "dot segment"),
            ("/a/..", "dot segment"),
            ("/a/%2e%2E/b", "dot segment"),
            ("/%2E", "dot segment"),
            ("/a?b=c", "\"?\""),
            ("/a#frag", "fragment"),
            ("/a%2", "percent-escape"),
            ("/a%zz", "percent-escape"),
            ("/a%", "percent-escape"),
            ("/a b", "\" \""),
            ("/a\"b", "not allowed"),
            ("/a[1]", "not allowed"),
            ("/a\\b", "not allowed"),
            ("/caf\u{E9}", "non-ASCII"),
            ("/e\u{301}", "U+301"),
            ("/a\r\nHost: evil", "not allowed"),
        ])
    func rejectsInvalidPaths(path: String, mention: String) {
        #expect {
            _ = try URLPath(path)
        } throws: { error in
            guard case .invalidRequest(.invalidPath(let named, let reason)) = error as? CourierError else { return false }
            return named == path && reason.localizedCaseInsensitiveContains(mention)
        }
    }

    @Test(
        "segments are percent-encoded one by one",
        arguments: [
            (["users", "42"], "/users/42"),
            (["a/b"], "/a%2Fb"),
            (["a b", "c?d#e"], "/a%20b/c%3Fd%23e"),
            (["100%"], "/100%25"),
            (["caf\u{E9}"], "/caf%C3%A9"),
            (["..."], "/..."),
            (["a+b&c=d"], "/a%2Bb%26c%3Dd"),
            ([], "/"),
        ])
    func encodesSegments(segments: [String], expected: String) throws {
        let path = try URLPath(segments: segments)
        #expect(path.rawValue == expected)
        #expect(try URLPath(path.rawValue) == path)  // what segments produce is always a valid path
    }

    @Test("segments reject empty and dot segments", arguments: [[""], ["."], [".."], ["a", "", "b"], ["a", ".."]])
    func rejectsBadSegments(segments: [String]) {
        #expect(throws: CourierError.self) { _ = try URLPath(segments: segments) }
    }

    /// Issue 49: `URLPath(segments: ["../x"])` was `/..%2Fx`, which nginx decodes and climbs out of
    /// (`/private/..%2Fsmall.json` answered with `/small.json`); Tomcat and Spring drop a `;`
    /// parameter, so `..;x` is `..` to them.
    @Test(
        "a raw segment that holds a dot segment once a slash, a backslash or a parameter is read is refused",
        arguments: [
            ["../x"], ["x/.."], ["a/../b"], ["./x"], ["..\\x"], ["x\\.."], ["..;jsessionid=1"], [".;x"], ["a", "../../etc"],
            ["../../../../small.json"],
        ])
    func rejectsSegmentsThatClimb(segments: [String]) {
        #expect {
            _ = try URLPath(segments: segments)
        } throws: { error in
            guard case .invalidRequest(.invalidPath(_, let reason)) = error as? CourierError else { return false }
            return reason.contains("dot segment")
        }
    }

    @Test(
        "a percent-encoded path whose segment climbs once %2F, %5C or a ; parameter is read is refused, in any case",
        arguments: [
            "/private/..%2Fsmall.json", "/a/..%2f", "/a/%2F..", "/a/b%2F..%2Fc", "/a/..%5Cadmin", "/a/..%5cx",
            "/api/..;/admin", "/api/..%3B/admin", "/api/.;x/y", "/a/%2E%2E%2Fb", "/a/%2e%2f", "/a/x%2F.%2Fy",
        ])
    func rejectsEncodedClimbs(path: String) {
        #expect {
            _ = try URLPath(path)
        } throws: { error in
            guard case .invalidRequest(.invalidPath(let named, let reason)) = error as? CourierError else { return false }
            return named == path && reason.contains("dot segment")
        }
    }

    @Test(
        "slashes, backslashes and parameters that make no dot segment stay allowed",
        arguments: ["/a%2Fb", "/...%2F....", "/a;b", "/..a", "/a..", "/%2F%2F", "/a%5Cb", "/a/...;x", "/a/b;..", "/.well-known/x"])
    func keepsHarmlessSegments(path: String) throws {
        #expect(try URLPath(path).rawValue == path)
    }

    @Test("appending encodes the new segments and keeps one slash")
    func appending() throws {
        #expect(try URLPath("/v1").appending("users", "a b").rawValue == "/v1/users/a%20b")
        #expect(try URLPath("/v1/").appending("users").rawValue == "/v1/users")
        #expect(try URLPath.root.appending("x").rawValue == "/x")
        #expect(throws: CourierError.self) { _ = try URLPath.root.appending("..") }
    }
}
