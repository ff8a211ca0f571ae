#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The session configuration a ``URLSessionTransport`` is made from: a copy of the caller's,
/// with the settings Courier relies on (see ``URLSessionTransport/init(configuration:keepsURLCache:pinning:)``).
struct SessionSettings {
    /// The copy the session is made from.
    let configuration: URLSessionConfiguration
    /// The cookie storage whose cookies the transport attaches itself; `nil` when no cookies
    /// are sent.
    let cookieStorage: CookieJar?
    /// Whether the caller's configuration is a background one (it has an `identifier`).
    let isBackground: Bool

    /// The session's own idle timeout: a week, so that each request's timeout (the call's)
    /// decides. On Apple platforms a session value more restrictive than the request's wins.
    static let sessionRequestTimeout: TimeInterval = 7 * 24 * 60 * 60

    /// Why a background configuration is refused.
    static let backgroundRefusal =
        "URLSessionTransport cannot use a background session configuration (one with an identifier): background sessions do not run the data tasks it sends requests with"

    init(_ configuration: URLSessionConfiguration, keepsURLCache: Bool) {
        let copy = configuration.copy() as? URLSessionConfiguration ?? .default
        copy.urlCredentialStorage = nil
        if !keepsURLCache {
            copy.urlCache = nil
        }
        copy.timeoutIntervalForRequest = Self.sessionRequestTimeout
        // Courier attaches the stored cookies itself, on every platform: corelibs replaces a
        // request's own Cookie header with the stored cookies (Swift 6.3.1, measured) and ignores
        // URLRequest.httpShouldHandleCookies, and the HTTP cache must see the cookies a request
        // is sent with to key its response by them. With the flag off, Apple's URLSession may also
        // stop storing what responses set ("sent with and set for"): Courier stores every
        // response's Set-Cookie itself, redirects' included (SessionDelegate).
        if copy.httpShouldSetCookies, let storage = copy.httpCookieStorage {
            copy.httpShouldSetCookies = false
            cookieStorage = CookieJar(storage: storage, acceptPolicy: copy.httpCookieAcceptPolicy)
        } else {
            cookieStorage = nil
        }
        isBackground = copy.identifier != nil
        // A refused background configuration never makes a session (on Apple platforms one would
        // register with the system's background transfer service); this one is never used.
        self.configuration = isBackground ? .ephemeral : copy
    }

}

/// A session's cookie storage. `@unchecked Sendable`: `HTTPCookieStorage` is documented as
/// thread-safe, and this box only calls it.
struct CookieJar: @unchecked Sendable {
    let storage: HTTPCookieStorage
    /// The configuration's `httpCookieAcceptPolicy`: which cookies responses may store.
    var acceptPolicy: HTTPCookie.AcceptPolicy = .always

    /// The `Cookie` value of the cookies the storage holds for `url`, or `nil` when it holds none.
    /// Their paths must path-match the URL's and a `Secure` one goes only over `https` (RFC 6265
    /// §5.4): corelibs' `cookies(for:)` checks neither (Swift 6.3.1, measured).
    func cookieHeader(for url: URL) -> String? {
        let path = url.path.isEmpty ? "/" : url.path
        let secure = url.scheme?.lowercased() == "https"
        guard let cookies = storage.cookies(for: url)?.filter({ Self.path($0.path, matches: path) && (secure || !$0.isSecure) }),
            !cookies.isEmpty, let value = HTTPCookie.requestHeaderFields(with: cookies)["Cookie"], !value.isEmpty
        else { return nil }
        return value
    }

    /// Whether a cookie's `path` path-matches a request's `path` (RFC 6265 §5.1.4): the same, or
    /// a prefix of it that ends with `/` or is followed by `/`.
    static func path(_ cookiePath: String, matches path: String) -> Bool {
        let cookiePath = cookiePath.isEmpty ? "/" : cookiePath
        guard path.hasPrefix(cookiePath) else { return false }
        return path.count == cookiePath.count || cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).first == "/"
    }

    /// Stores the cookies `response` sets (its `Set-Cookie` fields) for its URL, as the
    /// configuration's accept policy allows: a redirect's too, before the next hop reads the
    /// storage. A cookie whose `Domain` does not domain-match the URL's host (RFC 6265 §5.3: a
    /// server setting cookies for another site) is dropped.
    func store(from response: HTTPURLResponse) {
        guard acceptPolicy != .never, let url = response.url, let host = url.host?.lowercased(),
            let value = response.value(forHTTPHeaderField: "Set-Cookie"), !value.isEmpty
        else { return }
        for cookie in HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": value], for: url)
        where Self.domain(cookie.domain, matches: host) {
            storage.setCookie(cookie)
        }
    }

    /// Whether a cookie's `domain` (with or without its leading dot) domain-matches `host`
    /// (RFC 6265 §5.1.3): the same name, or a name `host` ends with after a dot, never for an IP
    /// address.
    static func domain(_ domain: String, matches host: String) -> Bool {
        let domain = domain.lowercased()
        let bare = domain.hasPrefix(".") ? String(domain.dropFirst()) : domain
        if bare == host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) { return true }
        let isAddress = host.contains(":") || host.split(separator: ".").last.map { $0.allSatisfy(\.isNumber) } == true
        return !bare.isEmpty && !isAddress && host.hasSuffix("." + bare)
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
