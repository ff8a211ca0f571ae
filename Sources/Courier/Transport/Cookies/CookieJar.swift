#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// A session's cookie storage, which ``URLSessionTransport`` reads and writes itself, on every
/// platform: URLSession's own cookie handling is off (it replaced a request's own `Cookie` on
/// Linux, and Apple's "sent with and set for" flag would stop storing too). Courier parses each
/// `Set-Cookie` (``SetCookie``), decides what to store by RFC 6265 §5.3 (with RFC 6265bis's
/// rules for `Secure` and its limits), and picks what to send by §5.4, so the rules are the same
/// on every platform and do not depend on corelibs' parser and storage, which ignore `Max-Age`,
/// paths and `Secure` (Swift 6.3.1, measured).
///
/// `@unchecked Sendable`: `HTTPCookieStorage` is documented as thread-safe, and this box only
/// calls it.
struct CookieJar: @unchecked Sendable {
    let storage: HTTPCookieStorage
    /// The configuration's `httpCookieAcceptPolicy`: which cookies responses may store.
    var acceptPolicy: HTTPCookie.AcceptPolicy = .always
    /// The configuration's `httpShouldSetCookies`: whether requests carry the stored cookies
    /// (responses' cookies are stored either way, as the accept policy says).
    var sendsCookies = true
    /// The most cookies kept for one domain (RFC 6265 §5.3 step 12; 50 is the least RFC 6265
    /// §6.1 asks an implementation to support): a new one beyond it is not stored.
    static let maximumPerDomain = 50

    /// The `Cookie` value of the cookies the storage holds for `url`, or `nil` when it holds none
    /// (§5.4): each domain-matches the host (a host-only cookie is the host's alone), path-matches
    /// the URL's path as sent (percent-encoded, trailing slash kept), goes over `https` only if
    /// `Secure`, has not expired; the longest paths first.
    func cookieHeader(for url: URL) -> String? {
        // The storage first: an empty one (most API clients) costs one lookup and nothing more.
        guard sendsCookies, let cookies = storage.cookies(for: url), !cookies.isEmpty, let host = url.host.map(Self.canonical) else {
            return nil
        }
        let path = Self.requestPath(of: url)
        let secure = url.scheme?.lowercased() == "https"
        let now = Date()
        let sent = cookies.filter { cookie in
            Self.sendsTo(cookie, host: host) && Self.path(cookie.path, matches: path) && (secure || !cookie.isSecure)
                && (cookie.expiresDate.map { $0 > now } ?? true)
        }
        .sorted { $0.path.utf8.count > $1.path.utf8.count }
        guard !sent.isEmpty else { return nil }
        return sent.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Stores the cookies `response` sets (its `Set-Cookie` fields) for its URL, as the
    /// configuration's accept policy allows (`.onlyFromMainDocumentDomain`: only for the domain of
    /// `mainDocument`, the URL the call was made for): a redirect's too, before the next hop reads
    /// the storage. RFC 6265 §5.3, with RFC 6265bis for `Secure`:
    /// - a `Domain` must domain-match the host, and not be a single label (`com`: a public
    ///   suffix) other than the host itself; on an IP address, it must be the address;
    /// - a `Secure` cookie only from `https`, and a plain `http` response never replaces one;
    /// - an expired one (`Max-Age=0`) deletes the cookie it names;
    /// - at most ``SetCookie/maximumPerResponse`` per response and ``maximumPerDomain`` per domain.
    func store(from response: HTTPURLResponse, mainDocument: URL? = nil) {
        guard acceptPolicy != .never, let url = response.url, let host = url.host.map(Self.canonical),
            let folded = response.value(forHTTPHeaderField: "Set-Cookie"), !folded.isEmpty
        else { return }
        let secureOrigin = url.scheme?.lowercased() == "https"
        let mainHost = (mainDocument ?? url).host.map(Self.canonical) ?? host
        let now = Date()
        for text in SetCookie.values(in: folded).prefix(SetCookie.maximumPerResponse) {
            guard let parsed = SetCookie(parsing: text, now: now), let cookie = Self.cookie(parsed, from: url, host: host, now: now)
            else { continue }
            if parsed.secure && !secureOrigin { continue }
            if acceptPolicy == .onlyFromMainDocumentDomain, !Self.domain(parsed.domain ?? host, matches: mainHost) { continue }
            let existing = (storage.cookies ?? []).filter { Self.isSameDomain($0.domain, cookie.domain) }
            if !secureOrigin, existing.contains(where: { $0.isSecure && $0.name == cookie.name && Self.path($0.path, matches: cookie.path) }) {
                continue  // RFC 6265bis §5.7 step 16: plain http leaves secure cookies alone
            }
            let replaced = existing.first { $0.name == cookie.name && $0.path == cookie.path }
            if let replaced { storage.deleteCookie(replaced) }
            if let expires = parsed.expires, expires <= now { continue }  // §5.3 step 11: deleted
            if replaced == nil, existing.count >= Self.maximumPerDomain { continue }
            storage.setCookie(cookie)
        }
    }

    /// The cookie `parsed` stores for `url`, or `nil` when §5.3 ignores it.
    private static func cookie(_ parsed: SetCookie, from url: URL, host: String, now: Date) -> HTTPCookie? {
        let bareHost = host
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: parsed.name, .value: parsed.value, .path: parsed.path ?? defaultPath(of: url), .originURL: url,
        ]
        if let domain = parsed.domain {
            guard domain == bareHost || (!isAddress(bareHost) && domain.contains(".") && Self.domain(domain, matches: bareHost)) else {
                return nil
            }
            // A domain cookie, for the domain and every host under it (the leading dot says so).
            properties[.domain] = domain == bareHost && isAddress(bareHost) ? bareHost : "." + domain
        } else {
            properties[.domain] = bareHost  // host-only
        }
        if parsed.secure { properties[.secure] = "TRUE" }
        if let expires = parsed.expires, expires > now {
            properties[.expires] = expires
        } else {
            properties[.discard] = "TRUE"
        }
        if parsed.httpOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        return HTTPCookie(properties: properties)
    }

    /// Whether `cookie` goes to `host`: a host-only cookie (its domain without a leading dot) to
    /// that host alone, a domain cookie to every host its domain domain-matches.
    private static func sendsTo(_ cookie: HTTPCookie, host: String) -> Bool {
        let domain = cookie.domain.lowercased()
        return domain.hasPrefix(".") ? Self.domain(String(domain.dropFirst()), matches: host) : canonical(domain) == host
    }

    /// Whether two stored domains are the same, ignoring case.
    private static func isSameDomain(_ first: String, _ second: String) -> Bool {
        first.lowercased() == second.lowercased()
    }

    /// The path a request for `url` sends, percent-encoded as on the wire, dot segments resolved
    /// as the server resolves them, trailing slash kept (`URL.path` decodes `%2F` and drops it).
    static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url.standardized, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
        return path.isEmpty ? "/" : path
    }

    /// A host as cookies compare it: lower-cased, without the brackets of an IPv6 literal and
    /// without the trailing dot of a fully qualified name.
    static func canonical(_ host: String) -> String {
        var host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// RFC 6265 §5.1.4's default-path of `url`: its path up to, not including, the last `/`;
    /// `/` when that leaves nothing.
    static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// Whether `host` is an IP address (IPv4 dotted or IPv6), which only itself domain-matches.
    private static func isAddress(_ host: String) -> Bool {
        host.contains(":") || host.split(separator: ".").last.map { $0.allSatisfy(\.isNumber) } == true
    }

    /// Whether a cookie's `domain` (with or without its leading dot) domain-matches `host`
    /// (RFC 6265 §5.1.3): the same name, or a name `host` ends with after a dot, never for an IP
    /// address.
    static func domain(_ domain: String, matches host: String) -> Bool {
        let domain = domain.lowercased()
        let bare = canonical(domain.hasPrefix(".") ? String(domain.dropFirst()) : domain)
        let host = canonical(host)
        if bare == host { return true }
        return !bare.isEmpty && !isAddress(host) && host.hasSuffix("." + bare)
    }

    /// Whether a cookie's `path` path-matches a request's `path` (RFC 6265 §5.1.4): the same, or
    /// a prefix of it that ends with `/` or is followed by `/`.
    static func path(_ cookiePath: String, matches path: String) -> Bool {
        let cookiePath = cookiePath.isEmpty ? "/" : cookiePath
        guard path.hasPrefix(cookiePath) else { return false }
        return path.count == cookiePath.count || cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).first == "/"
    }

    /// One request's `Cookie` value: the caller's own cookies, then the storage's.
    static func header(own: String?, stored: String?) -> String? {
        switch (own, stored) {
        case (let own?, let stored?): "\(own); \(stored)"
        case (let own?, nil): own
        case (nil, let stored?): stored
        case (nil, nil): nil
        }
    }
}
