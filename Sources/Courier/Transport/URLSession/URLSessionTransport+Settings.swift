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
    /// The cookie storage the transport reads and writes itself; `nil` when there is none.
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
        // Courier is the storage's only writer: URLSession's own storing is off too (the accept
        // policy `.never` on the copy), so the same rules apply on every platform (CookieJar).
        if let storage = copy.httpCookieStorage {
            cookieStorage = CookieJar(storage: storage, acceptPolicy: copy.httpCookieAcceptPolicy, sendsCookies: copy.httpShouldSetCookies)
            copy.httpShouldSetCookies = false
            copy.httpCookieAcceptPolicy = .never
        } else {
            cookieStorage = nil
        }
        isBackground = copy.identifier != nil
        // A refused background configuration never makes a session (on Apple platforms one would
        // register with the system's background transfer service); this one is never used.
        self.configuration = isBackground ? .ephemeral : copy
    }

}
