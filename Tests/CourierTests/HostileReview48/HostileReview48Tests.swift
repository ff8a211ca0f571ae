import Foundation
import PropertyBased
import Testing

@testable import Courier

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Hostile review of issue 48 (commits a60165b and c34adbb): URLSessionTransport's own cookie
// handling (CookieJar), String(strictUTF8:), KeychainPendingSave and AppGroupContainer.
//
// The suite "defects" holds one test per defect the review found, each failing before its fix:
// "WRONG" says what the code did, "CORRECT" what it does now. The suite "invariants" holds
// property tests of the promises. (The review's own reading of a return to an origin the chain
// left, and of `.onlyFromMainDocumentDomain`, was replaced by the decisions the Transports guide
// states.)

/// A cookie jar over a fresh in-memory storage, as `URLSessionTransport` makes from an ephemeral
/// configuration.
private func freshJar(_ policy: HTTPCookie.AcceptPolicy = .always) -> CookieJar {
    CookieJar(storage: URLSessionConfiguration.ephemeral.httpCookieStorage!, acceptPolicy: policy)
}

/// What `SessionDelegate` does with a response from `url` that carries `setCookies` (one
/// `Set-Cookie` field each; URLSession folds repeated fields with ", ").
private func respond(_ jar: CookieJar, from url: String, setting setCookies: [String]) {
    let response = HTTPURLResponse(
        url: URL(string: url)!, statusCode: 200, httpVersion: "HTTP/1.1",
        headerFields: ["Set-Cookie": setCookies.joined(separator: ", ")])!
    jar.store(from: response)
}

/// The `Cookie` value the jar gives `url`.
private func sent(_ jar: CookieJar, to url: String) -> String? {
    jar.cookieHeader(for: URL(string: url)!)
}

/// A folder of its own under the temporary directory, removed by the caller.
private func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hostile48-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// The folder `path` really is (`realpath`), once it exists.
private func realPath(_ url: URL) -> String? {
    guard let resolved = realpath(url.path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
}

@Suite("Hostile review 48: defects")
struct HostileReview48DefectTests {
    // MARK: - Storing: which Set-Cookie a response may store

    /// WRONG: `CookieJar.domain(_:matches:)` accepts any suffix of the host, so `evil.example.com`
    /// can set `Domain=com` (corelibs stores it as `.com`) and the jar then sends that cookie to
    /// every `.com` site: a cookie "for another site", which the commit promises never happens.
    /// CORRECT: RFC 6265 §5.3 step 5: a Domain that is a public suffix is ignored (the cookie is
    /// rejected unless the host is that suffix itself); a bare top-level label (`com`, `com.`) is
    /// a public suffix under every list. The cookie must not be stored, and `bank.com` must get
    /// nothing.
    @Test(
        "a Set-Cookie for a top-level domain (a public suffix) is not stored nor sent to other sites",
        arguments: [
            // Reserved names only (RFC 2606, RFC 6761): nothing is ever requested.
            ("http://evil.shop.test/", "test", "https://bank.test/"),
            ("http://evil.shop.test./", "test.", "https://bank.test./"),
            ("http://a.b.evil.example/", ".example", "https://other.example/"),
        ])
    func publicSuffixDomainCookieIsSentToEverySiteUnderTheSuffix(origin: String, domain: String, victim: String) {
        let jar = freshJar()
        respond(jar, from: origin, setting: ["tracker=1; Path=/; Domain=\(domain)"])
        #expect(sent(jar, to: victim) == nil)
        #expect(jar.storage.cookies?.isEmpty == true)
    }

    /// WRONG: `domain(_:matches:)` accepts `Domain=<the host>` for a host that is an IPv4 address
    /// in a short form (`127.1`, `127.0.1`: inet_aton forms that libcurl connects to). corelibs'
    /// parser does not see those as addresses (inet_pton) and stores the domain as `.127.1`, a
    /// suffix domain; the jar then sends the cookie to every address ending in `.127.1`
    /// (`192.168.127.1`, `10.0.127.1`, `127.0.127.1`…), other machines altogether.
    /// CORRECT: RFC 6265 §5.1.3: a domain string never suffix-matches when the string is an IP
    /// address; a cookie set by an address is host-only (sent to that address only). The commit
    /// promises "never for an IP by suffix".
    /// (Latent on Linux: corelibs URLSession answers such a URL with badURL, so no response from
    /// one reaches the jar; Apple's URLSession connects to it. The jar's rule is wrong either way.)
    @Test(
        "a cookie set by a short-form IPv4 host is never sent to other addresses by suffix",
        arguments: [
            ("http://127.1/", "127.1", "http://192.168.127.1/"),
            ("http://127.0.1/", "127.0.1", "http://10.127.0.1/"),
        ])
    func cookieFromShortFormIPv4HostIsSentToOtherAddressesBySuffix(origin: String, domain: String, victim: String) {
        let jar = freshJar()
        respond(jar, from: origin, setting: ["sid=1; Path=/; Domain=\(domain)"])
        #expect(sent(jar, to: victim) == nil)
    }

    /// WRONG: a `Secure` cookie set by a plain-`http` response is stored; it is then sent over
    /// `https` to the real site. Anyone on the path of one `http` request (public Wi-Fi) can so
    /// plant a session cookie that the `https` site trusts (session fixation).
    /// CORRECT: RFC 6265bis (draft-ietf-httpbis-rfc6265bis) §5.7, Storage Model: "If the
    /// scheme component of the request-uri does not denote a secure protocol and the cookie's
    /// secure-only-flag is true, abort these steps and ignore the cookie entirely."
    @Test func secureCookieSetOverPlainHTTPIsStored() {
        let jar = freshJar()
        respond(jar, from: "http://api.example.com/", setting: ["sid=planted; Path=/; Secure"])
        #expect(jar.storage.cookies?.isEmpty == true)
        #expect(sent(jar, to: "https://api.example.com/") == nil)
    }

    /// WRONG: a plain-`http` response overwrites a `Secure` cookie of the same name, domain and
    /// path that an `https` response set: the attacker replaces the real session.
    /// CORRECT: RFC 6265bis §5.7 ("Leave Secure Cookies Alone"): a non-secure response cannot
    /// set a cookie whose name matches a stored secure-only cookie whose domain and path match.
    @Test func plainHTTPResponseOverwritesASecureCookie() {
        let jar = freshJar()
        respond(jar, from: "https://api.example.com/", setting: ["sid=genuine; Path=/; Secure"])
        respond(jar, from: "http://api.example.com/", setting: ["sid=planted; Path=/"])
        #expect(sent(jar, to: "https://api.example.com/") == "sid=genuine")
    }

    /// WRONG: a cookie whose value holds control characters (here U+0001, U+007F, a bare CR) is
    /// stored as it is and later put into the `Cookie` header of requests (to every host the
    /// cookie's domain covers), where a bare CR splits or corrupts the request head.
    /// CORRECT: RFC 6265bis §5.6 step 2 (Set-Cookie parsing): a cookie-name or cookie-value that
    /// contains %x00-08 / %x0A-1F / %x7F is ignored entirely; RFC 9110 §5.5: CR, LF and NUL in
    /// a field value are invalid and dangerous.
    @Test("a cookie value with control characters is not stored", arguments: ["a=x\u{1}y", "a=x\u{7F}y", "a=x\ry"])
    func cookieValueWithControlCharactersIsStored(setCookie: String) {
        let jar = freshJar()
        respond(jar, from: "http://api.example.com/", setting: [setCookie + "; Path=/"])
        #expect(jar.storage.cookies?.isEmpty == true)
    }

    /// WRONG: a 64 KB cookie is stored and then sent with every later request to the host (and
    /// its subdomains): a server, or a sibling subdomain, makes all of them fail (431) for good.
    /// CORRECT: RFC 6265bis §5.6 step 5: a Set-Cookie whose name and value together exceed 4096
    /// octets is ignored entirely (RFC 6265 §6.1 names 4096 bytes per cookie as the size user
    /// agents keep).
    @Test func cookieLargerThan4096BytesIsStored() {
        let jar = freshJar()
        respond(jar, from: "http://api.example.com/", setting: ["big=" + String(repeating: "x", count: 64 * 1024) + "; Path=/"])
        #expect(jar.storage.cookies?.isEmpty == true)
        #expect((sent(jar, to: "http://api.example.com/")?.utf8.count ?? 0) <= 4096)
    }

    /// WRONG: the jar keeps every cookie a server sets: 6,000 cookies from one host are all kept
    /// and all sent back, a `Cookie` header of ~60 KB on every later request.
    /// CORRECT: RFC 6265 §5.3 step 12 and RFC 6265bis §5.7: cookies beyond an implementation
    /// bound per domain (50 suggested; browsers keep about 150-180) are evicted. The test asks
    /// for at most 180 cookies per host.
    @Test func jarKeepsAnUnboundedNumberOfCookiesPerHost() {
        let jar = freshJar()
        respond(jar, from: "http://api.example.com/", setting: (0..<6_000).map { "c\($0)=v; Path=/" })
        let count = jar.storage.cookies(for: URL(string: "http://api.example.com/")!)?.count ?? 0
        #expect(count <= 180)
    }

    /// WRONG: storing N cookies took time quadratic in N (each `HTTPCookieStorage.setCookie` of
    /// corelibs filters every stored cookie, and a persistent storage rewrites its whole file),
    /// on the session's one serial delegate queue: 12,000 cookies in one response took ~4 s,
    /// stalling every other request of the transport.
    /// CORRECT: bounded work per response (RFC 6265 §5.3 step 12): one response stores its first
    /// ``SetCookie/maximumPerResponse`` cookies and reads no further. Checked by what is stored,
    /// not by a clock (a ratio of timings failed on a busy machine).
    @Test func oneResponseStoresABoundedNumberOfCookies() {
        let jar = freshJar()
        respond(jar, from: "http://api.example.com/", setting: (0..<2_000).map { "k\($0)=v" })
        let names = Set((jar.storage.cookies ?? []).map(\.name))
        #expect(names == Set((0..<SetCookie.maximumPerResponse).map { "k\($0)" }))
    }

    /// Found by FuzzSetCookie: `Domain=..leabc` kept a leading dot after the one §5.2.3 removes,
    /// and the jar's domain-match, which strips a stored cookie's dot, then read it as `leabc`.
    @Test("a Domain with an empty label is a cookie for no host", arguments: ["..example.com", "example..com", "example.com.."])
    func aDomainWithAnEmptyLabelIsIgnored(_ domain: String) {
        #expect(SetCookie(parsing: "a=b; Domain=\(domain)"[...], now: Date()) == nil)
        let jar = freshJar()
        respond(jar, from: "http://x.example.com/", setting: ["a=b; Domain=\(domain)"])
        #expect(jar.storage.cookies?.isEmpty ?? true)
    }

    /// Found re-reading the parser: each comma of a folded `Set-Cookie` looked for the next `=`
    /// as far as the end of the field, so a field of commas and no `=` cost its length squared
    /// (300 KiB of them, which libcurl lets through, ~4.5 × 10¹⁰ steps on the delegate queue).
    /// Linear now: 300,000 commas (as many as libcurl lets through) are split at once. With the
    /// quadratic split put back, 2,000,000 did not end within 200 s (checked).
    @Test("a Set-Cookie of millions of commas is split in one pass", .timeLimit(.minutes(1)))
    func aFieldOfCommasIsSplitInOnePass() {
        let folded = "a=1" + String(repeating: ",", count: 300_000) + "b=2"
        let values = SetCookie.values(in: folded)
        #expect(values.count == 2)
        #expect(values.last == "b=2")
    }

    /// WRONG: `Max-Age` is ignored (corelibs honours it only for "version 1" cookies, never for a
    /// Set-Cookie header), so a server's deletion `Set-Cookie: sid=x; Max-Age=0` (Go's
    /// `http.Cookie{MaxAge: -1}` sends exactly that) stores a session cookie instead of removing
    /// it, and `Max-Age=60` never expires while the process runs.
    /// CORRECT: RFC 6265 §5.2.2 and §5.3 step 3: Max-Age sets the expiry-time (and wins over
    /// Expires); a Max-Age of zero or less is the earliest time, and §5.3 step 11 removes the
    /// expired cookie: nothing is sent.
    @Test func maxAgeZeroDoesNotDeleteTheCookie() {
        let jar = freshJar()
        respond(jar, from: "http://api.example.com/", setting: ["sid=abc; Path=/"])
        respond(jar, from: "http://api.example.com/", setting: ["sid=abc; Path=/; Max-Age=0"])
        #expect(sent(jar, to: "http://api.example.com/") == nil)
    }

    /// WRONG: a Set-Cookie without a Path attribute (or with one that does not start with "/")
    /// is stored with the path "/" (corelibs' default), so a cookie that
    /// `/account/settings/login` sets goes to every path of the host.
    /// CORRECT: RFC 6265 §5.3 step 7 and §5.2.4: the cookie-path is then the default-path of the
    /// request-uri (§5.1.4): "/account/settings" here, which "/public" does not path-match.
    @Test(
        "a Set-Cookie without a usable Path gets the default-path of its URL",
        arguments: ["sid=1", "sid=1; Path=relative"])
    func cookieWithoutPathIsSentToEveryPathOfTheHost(setCookie: String) {
        let jar = freshJar()
        respond(jar, from: "http://api.example.com/account/settings/login", setting: [setCookie])
        #expect(sent(jar, to: "http://api.example.com/public") == nil)
        #expect(sent(jar, to: "http://api.example.com/account/settings/profile") == "sid=1")
    }

    /// WRONG: an empty Domain attribute (`Domain=`) makes corelibs store the domain ".", which
    /// `domain(_:matches:)` refuses: the whole cookie is dropped.
    /// CORRECT: RFC 6265 §5.2.3: "If the attribute-value is empty ... the user agent SHOULD
    /// ignore the cookie-av entirely": the cookie is stored host-only.
    @Test func emptyDomainAttributeDropsTheWholeCookie() {
        let jar = freshJar()
        respond(jar, from: "http://api.example.com/", setting: ["sid=1; Path=/; Domain="])
        #expect(sent(jar, to: "http://api.example.com/") == "sid=1")
    }

    // MARK: - Sending: which stored cookies a URL gets

    /// WRONG: `cookieHeader(for:)` path-matches on `URL.path`, which strips a trailing "/": a
    /// cookie with `Path=/docs/` is never sent to `/docs/` itself.
    /// CORRECT: RFC 6265 §5.1.4: a cookie-path path-matches a request-path that is identical to
    /// it; `/docs/` must get the cookie.
    @Test func cookieWithTrailingSlashPathIsNotSentToThatVeryPath() {
        let jar = freshJar()
        respond(jar, from: "http://api.example.com/docs/login", setting: ["sid=1; Path=/docs/"])
        #expect(sent(jar, to: "http://api.example.com/docs/") == "sid=1")
    }

    /// WRONG: path-matching uses `URL.path`, which is percent-decoded and not normalised: the
    /// request `/a%2Fb` (a resource of its own: `URLPath(segments: ["a/b"])` makes it) gets the
    /// cookies of `/a/b`, and `/a/../b` (sent as `/b`: libcurl removes dot segments, RFC 3986
    /// §5.2.4; a redirect's Location may carry it) gets the cookies of `/a`.
    /// CORRECT: RFC 6265 §5.1.4 and §5.4: match against the path the request is sent with (the
    /// request-uri's path, as sent, after dot-segment removal).
    @Test(
        "path-matching uses the path the request is sent with",
        arguments: [("/a/b", "http://api.example.com/a%2Fb"), ("/a", "http://api.example.com/a/../b")])
    func pathMatchUsesTheDecodedUnnormalisedPath(cookiePath: String, request: String) {
        let jar = freshJar()
        respond(jar, from: "http://api.example.com\(cookiePath)/login", setting: ["sid=1; Path=\(cookiePath)"])
        #expect(sent(jar, to: request) == nil)
    }

    /// WRONG: the stored cookies are listed in the storage's (hash) order, so for two cookies of
    /// the same name the server, which reads the first, gets an arbitrary one.
    /// CORRECT: RFC 6265 §5.4 step 2: cookies with longer paths are listed before cookies with
    /// shorter paths.
    @Test func cookiesAreNotListedLongestPathFirst() {
        let jar = freshJar()
        let paths = ["/", "/a", "/a/b", "/a/b/c", "/a/b/c/d", "/a/b/c/d/e", "/a/b/c/d/e/f"]
        for (index, path) in paths.enumerated() {
            respond(jar, from: "http://api.example.com\(path)", setting: ["c\(index)=\(index); Path=\(path)"])
        }
        let expected = paths.indices.reversed().map { "c\($0)=\($0)" }.joined(separator: "; ")
        #expect(sent(jar, to: "http://api.example.com/a/b/c/d/e/f/g") == expected)
    }

    // MARK: - App Group containers

    /// The layout of an App Group container, under `root`, and a link `root/link` to it.
    private static func appGroupBehindALink(in root: URL) throws -> (container: URL, link: URL) {
        let container = root.appendingPathComponent("Containers/Shared/AppGroup/0B7F8A0E-1C2D-4E5F-8A9B-0C1D2E3F4A5B", isDirectory: true)
        try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
        let link = root.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: container)
        return (container, link)
    }

    /// WRONG: HTTPCache(directory:) checks `directory.resolvingSymlinksInPath().path`, which
    /// resolves nothing when the folder does not exist yet (the first open): a folder under a
    /// link to an App Group container passes the check, is then created (through the link) in
    /// the container and locked there, the 0xdead10cc termination the refusal is for.
    /// CORRECT: the refusal applies to the folder as it is really opened (SecureFileIO's
    /// `realpath` after creating it, `folder.resolved`), or to the nearest existing ancestor
    /// resolved; the check as HTTPCache does it must refuse this path.
    @Test func appGroupRefusalIsBypassedByALinkWhenTheCacheFolderIsNew() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let (_, link) = try Self.appGroupBehindALink(in: root)
        let directory = link.appendingPathComponent("api-cache", isDirectory: true)

        // Exactly what HTTPCache(directory:) checks, with the refusal of iOS, tvOS, watchOS, visionOS.
        let refusal = AppGroupContainer.refusal(for: directory, refusesLocks: true)

        // Where the cache's folder really is once opened (Linux does not refuse, so it opens).
        _ = try HTTPCache(directory: directory)
        let opened = try #require(realPath(directory))
        #expect(AppGroupContainer.contains(opened))
        #expect(refusal != nil, "the folder was opened in \(opened), an App Group container, yet the check passed")
    }

    /// WRONG: FileTokenStore's check has the same hole: a token file that does not exist yet (the
    /// first sign-in) under a link to an App Group container passes, and the store then locks
    /// it there across every refresh.
    /// CORRECT: resolve the nearest existing ancestor (or the file's folder with `realpath`)
    /// before checking; the check as FileTokenStore does it must refuse this path.
    @Test func fileTokenStoreAppGroupRefusalIsBypassedByALinkWhenTheFileIsNew() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let (container, link) = try Self.appGroupBehindALink(in: root)
        let file = link.appendingPathComponent("tokens.json")

        // Exactly what FileTokenStore.validate(_:) checks.
        let refusal = AppGroupContainer.refusal(for: file, refusesLocks: true)

        #expect(AppGroupContainer.contains(try #require(realPath(container))))
        #expect(refusal != nil, "\(file.path) is a file of an App Group container, yet the check passed")
    }
}

// MARK: - Invariants that hold

@Suite("Hostile review 48: invariants")
struct HostileReview48InvariantTests {
    // MARK: String(strictUTF8:)

    /// Pieces of byte strings biased toward multi-byte UTF-8 and its edge cases: boundaries of
    /// each length, surrogates, overlong forms, truncated sequences, stray continuations and the
    /// bytes that never appear in UTF-8.
    static let pieces: [[UInt8]] = [
        [0x00], [0x41], [0x7F],
        [0xC2, 0x80], [0xDF, 0xBF], [0xC3, 0xA9],
        [0xE0, 0xA0, 0x80], [0xE2, 0x82, 0xAC], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF], [0xEF, 0xBB, 0xBF],
        [0xF0, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
        // surrogates, overlong, beyond U+10FFFF
        [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xE0, 0x9F, 0xBF],
        [0xF0, 0x80, 0x80, 0xAF], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
        // truncated, stray, never valid
        [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0x80], [0xBF], [0xFE], [0xFF], [0xF8, 0x88, 0x80, 0x80, 0x80],
    ]

    /// A byte string of `choices`: a piece of `pieces` or, past their count, one random byte.
    static func bytes(_ choices: [Int]) -> [UInt8] {
        choices.flatMap { $0 < pieces.count ? pieces[$0] : [UInt8(truncatingIfNeeded: $0)] }
    }

    @Test func strictUTF8AgreesWithTheStandardLibraryOnBytesBiasedTowardMultiByteSequences() async {
        await propertyCheck(count: 3_000, input: Gen.int(in: 0...(Self.pieces.count + 255)).array(of: 0...24)) { choices in
            let bytes = Self.bytes(choices)
            let expected = String(validating: bytes, as: UTF8.self)
            #expect(String(strictUTF8: bytes) == expected)
            // The slice and raw-buffer forms the cache readers use.
            let padded = [0x41] + bytes + [0x42]
            #expect(String(strictUTF8: padded[1..<(padded.count - 1)]) == expected)
            let raw = padded.withUnsafeBytes { String(strictUTF8: UnsafeRawBufferPointer(rebasing: $0[1..<(padded.count - 1)])) }
            #expect(raw == expected)
            // Whatever it accepts it gives back byte for byte.
            if let string = String(strictUTF8: bytes) { #expect(Array(string.utf8) == bytes) }
        }
    }

    @Test func strictUTF8AgreesWithTheStandardLibraryOnUniformlyRandomBytes() async {
        await propertyCheck(count: 2_000, input: Gen.int(in: 0...255).array(of: 0...12)) { values in
            let bytes = values.map { UInt8($0) }
            #expect(String(strictUTF8: bytes) == String(validating: bytes, as: UTF8.self))
        }
    }

    // MARK: CookieJar

    static let labels = ["a", "b", "api", "example", "com", "org", "co", "uk", "x1", "EXAMPLE", "Com"]

    /// A cookie's domain matches a host only when the host is that name or ends with it after a
    /// dot (case-insensitively); it does match those (parents of at least two labels: a single
    /// label is the public-suffix defect above).
    @Test func aDomainMatchesOnlyItsHostOrHostsBelowIt() async {
        await propertyCheck(
            count: 1_000, input: Gen.int(in: 0...10).array(of: 1...4), Gen.int(in: 0...10).array(of: 1...3), Gen.bool, Gen.bool
        ) { hostLabels, domainLabels, dotted, suffixOfHost in
            let host = hostLabels.map { Self.labels[$0] }.joined(separator: ".").lowercased()
            let domainName =
                suffixOfHost
                ? hostLabels.suffix(domainLabels.count).map { Self.labels[$0] }.joined(separator: ".")
                : domainLabels.map { Self.labels[$0] }.joined(separator: ".")
            let domain = (dotted ? "." : "") + domainName
            let bare = domainName.lowercased()
            let matches = CookieJar.domain(domain, matches: host)
            // Sound: nothing but the host itself or a name it ends with after a dot.
            if matches { #expect(bare == host || host.hasSuffix("." + bare), "\(domain) vs \(host)") }
            // Complete for the host itself and for a parent of two labels or more.
            if bare == host || (host.hasSuffix("." + bare) && bare.contains(".")) { #expect(matches, "\(domain) vs \(host)") }
        }
    }

    @Test func anIPv4HostIsMatchedOnlyByItself() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...255).array(of: 4), Gen.int(in: 1...3), Gen.bool) { octets, drop, dotted in
            let host = octets.map(String.init).joined(separator: ".")
            let suffix = octets.dropFirst(drop).map(String.init).joined(separator: ".")
            #expect(CookieJar.domain(host, matches: host))
            #expect(!CookieJar.domain((dotted ? "." : "") + suffix, matches: host))
        }
    }

    /// RFC 6265 §5.1.4, written out on segments: identical, or the cookie-path's segments are a
    /// prefix of the request-path's (a cookie-path ending in "/" has an empty last segment).
    @Test func pathMatchIsRFC6265PathMatch() async {
        let segments = ["a", "ab", "b", ""]
        await propertyCheck(count: 1_000, input: Gen.int(in: 0...3).array(of: 0...4), Gen.int(in: 0...3).array(of: 0...4)) { c, r in
            let cookiePath = "/" + c.map { segments[$0] }.joined(separator: "/")
            let path = "/" + r.map { segments[$0] }.joined(separator: "/")
            let expected =
                cookiePath == path
                || (path.hasPrefix(cookiePath) && (cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).first == "/"))
            #expect(CookieJar.path(cookiePath, matches: path) == expected, "\(cookiePath) vs \(path)")
            // Never a longer sibling name: "/a" never matches "/ab…".
            if path.hasPrefix(cookiePath + "b") && !cookiePath.hasSuffix("/") { #expect(!CookieJar.path(cookiePath, matches: path)) }
        }
    }

    /// A Secure cookie never goes over http; a cookie for one host never goes to another name.
    @Test func aSecureCookieNeverGoesOverHTTPAndAHostOnlyCookieNeverLeavesItsHost() async {
        let hosts = ["api.example.com", "www.example.com", "example.com", "evil.com", "127.0.0.1"]
        await propertyCheck(count: 200, input: Gen.int(in: 0...4), Gen.int(in: 0...4), Gen.bool, Gen.bool) { setter, reader, secure, https in
            let jar = freshJar()
            respond(jar, from: "https://\(hosts[setter])/", setting: ["c=1; Path=/" + (secure ? "; Secure" : "")])
            let header = sent(jar, to: "\(https ? "https" : "http")://\(hosts[reader])/x")
            if secure && !https { #expect(header == nil) }
            if setter != reader { #expect(header == nil) }
            if setter == reader && (https || !secure) { #expect(header == "c=1") }
        }
    }

    /// A Domain that is another site, or a sibling, is never stored.
    @Test func aCookieForAnotherSiteOrASiblingIsNeverStored() async {
        let others = ["other.com", "www.example.com", "ample.com", "xample.com", "example.co", "0.0.1", "api.example.com.evil.com"]
        await propertyCheck(count: 100, input: Gen.int(in: 0...(others.count - 1)), Gen.bool) { index, dotted in
            let jar = freshJar()
            respond(jar, from: "http://api.example.com/", setting: ["c=1; Path=/; Domain=\(dotted ? "." : "")\(others[index])"])
            #expect(jar.storage.cookies?.isEmpty == true)
        }
    }

    @Test func theNeverPolicyStoresNothing() async {
        await propertyCheck(count: 50, input: Gen.int(in: 1...20)) { count in
            let jar = freshJar(.never)
            respond(jar, from: "http://api.example.com/", setting: (0..<count).map { "c\($0)=v; Path=/" })
            #expect(jar.storage.cookies?.isEmpty == true)
        }
    }

    /// The caller's own cookies come first and neither part is lost.
    @Test func theCallersCookieComesFirstAndNothingIsLost() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...3), Gen.int(in: 0...3)) { o, s in
            let own = o == 0 ? nil : (1...o).map { "o\($0)=1" }.joined(separator: "; ")
            let stored = s == 0 ? nil : (1...s).map { "s\($0)=1" }.joined(separator: "; ")
            let header = CookieJar.header(own: own, stored: stored)
            #expect(header == [own, stored].compactMap { $0 }.joined(separator: "; ").nilIfEmpty)
        }
    }

    /// Once a hop leaves the origin (the policy strips the field), the caller's own cookie never
    /// comes back, whatever the later hops are.
    @Test func theCallersOwnCookieIsDroppedForGoodOnceAHopLeavesTheOrigin() async {
        await propertyCheck(count: 300, input: Gen.bool.array(of: 1...10)) { keptByPolicy in
            let exchange = Exchange(ownCookies: "theme=dark")
            var left = false
            for kept in keptByPolicy {
                left = left || !kept
                let same = URL(string: "https://api.example.com/next")!
                let header = exchange.redirectCookieHeader(keptByPolicy: kept, from: same, to: same, stored: { "s=1" })
                #expect(header == (left ? "s=1" : "theme=dark; s=1"))
            }
        }
    }

    // MARK: KeychainPendingSave

    /// Against a model: the kept credential is the last one refused while locked, until a write
    /// succeeds or the item is removed; another failure changes nothing; load returns it first.
    @Test func thePendingSaveFollowsItsModel() async {
        let statuses: [Int32] = [KeychainPendingSave.success, KeychainPendingSave.interactionNotAllowed, -25300, -34018]
        await propertyCheck(count: 300, input: Gen.int(in: 0...4).array(of: 0...12)) { steps in
            var pending = KeychainPendingSave()
            var model: TokenCredential?
            for (index, step) in steps.enumerated() {
                let credential = TokenCredential(accessToken: "at-\(index)", refreshToken: "rt-\(index)")
                if step == 4 {
                    pending.removed()
                    model = nil
                } else {
                    pending.wrote(credential, status: statuses[step])
                    if statuses[step] == KeychainPendingSave.success { model = nil }
                    if statuses[step] == KeychainPendingSave.interactionNotAllowed { model = credential }
                }
                #expect(pending.credential == model)
            }
            let item = TokenCredential(accessToken: "keychain", refreshToken: nil)
            let loaded = try? pending.loaded { item }
            #expect(loaded == (model ?? item))
        }
    }

    // MARK: AppGroupContainer

    /// A path with Containers/Shared/AppGroup as consecutive components, however many slashes
    /// separate them, is recognised; one without them is not; no platform that does not suspend
    /// apps refuses anything.
    @Test func appGroupPathsAreRecognisedWhateverTheSlashes() async {
        let names = ["private", "var", "mobile", "Containers", "Shared", "AppGroup", "Data", "Library", "Caches", "X"]
        await propertyCheck(
            count: 500, input: Gen.int(in: 0...9).array(of: 0...6), Gen.int(in: 0...9).array(of: 0...3), Gen.int(in: 1...3)
        ) { before, after, slashes in
            let separator = String(repeating: "/", count: slashes)
            let head = before.map { names[$0] }
            let tail = after.map { names[$0] }
            let inside = separator + (head + ["Containers", "Shared", "AppGroup"] + tail).joined(separator: separator)
            #expect(AppGroupContainer.contains(inside))
            #expect(AppGroupContainer.refusal(for: URL(fileURLWithPath: inside), refusesLocks: true) != nil)
            #expect(AppGroupContainer.refusal(for: URL(fileURLWithPath: inside), refusesLocks: false) == nil)
            let components = head + tail
            let hasTriple =
                components.count >= 3
                && (0...(components.count - 3)).contains {
                    components[$0] == "Containers" && components[$0 + 1] == "Shared" && components[$0 + 2] == "AppGroup"
                }
            #expect(AppGroupContainer.contains(separator + components.joined(separator: separator)) == hasTriple)
        }
    }

    /// `..` and a link whose target exists are resolved before the check, as the callers do it.
    @Test func dotDotAndLinksToExistingFoldersAreResolvedBeforeTheCheck() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let container = root.appendingPathComponent("Containers/Shared/AppGroup/U", isDirectory: true)
        try FileManager.default.createDirectory(at: container.appendingPathComponent("cache"), withIntermediateDirectories: true)
        let link = root.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: container)
        for url in [
            link.appendingPathComponent("cache"),
            root.appendingPathComponent("Containers/Shared/Other/../AppGroup/U/new"),
            root.appendingPathComponent("Containers//Shared///AppGroup/U/new"),
        ] {
            #expect(AppGroupContainer.refusal(for: url, refusesLocks: true) != nil, "\(url.path)")
        }
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
