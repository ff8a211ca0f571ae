import HTTPTypes

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// What Courier does to a redirect URLSession is about to follow: follow it, but never carry
/// credentials to another origin, and never follow `https` to `http`.
enum RedirectPolicy {
    // URLSession builds the redirected request by copying the request that got the 3xx and changing
    // its URL (and, for 301/302 POST and 303, its method and body). corelibs-foundation copies every
    // header, `Authorization` and `Cookie` included, whatever the new host; so, without this policy,
    // a server could send a caller's bearer token to any host just by answering a redirect.
    //
    // The policy compares origins (RFC 6454: scheme, host, port) and, when the redirect leaves the
    // origin of the request the caller sent, removes the headers in `strippedHeaders`. A downgrade
    // from `https` to `http` changes the scheme, so it is always cross-origin.
    //
    // Once stripped, credentials stay stripped: in a chain A → B → A the final request to A carries
    // none. Two things make sure of it. URLSession derives each hop from the previous one, so a
    // header removed at A → B is not there to keep at B → A; and, should a platform ever derive hops
    // from the original request instead, a hop whose *previous* origin differs from its own is
    // stripped too. Putting credentials back would be a confused deputy: B chose the path, query and
    // (with 307/308) the method on A, and A would see them as the caller's authenticated request.
    //
    // What is stripped: `Authorization`, `Proxy-Authorization`, `Cookie`, and every header the
    // request's Redaction treats as secret (`isSecret(headerName:)`: `X-Api-Key`, `X-Auth-Token`,
    // `Private-Token`, …), since an application may use any of them as a credential under its own
    // name. `Proxy-Authorization` goes too: a proxy normally consumes it, but a misconfigured or
    // absent proxy would forward it to the new origin, and a proxied redirect that loses it fails
    // loudly (407) rather than leaking.
    //
    // A redirect from `https` to `http` is never followed (allowsFollowing(from:to:)): the 3xx
    // itself, with its `Location`, becomes the response.

    /// The statuses that redirect: 301, 302, 303, 307, 308 (300 and 304 are answers).
    static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    /// Whether following `status` for `method` turns the request into a body-less `GET`
    /// (RFC 9110 §15.4: 303 always, except for HEAD; 301 and 302 for POST, as browsers and
    /// URLSession do).
    static func becomesGet(status: Int, method: String) -> Bool {
        switch status {
        case 303: method != "HEAD"
        case 301, 302: method == "POST"
        default: false
        }
    }

    /// The most redirects one call follows.
    static let maximumRedirects = 10

    /// Whether a redirect from `previous` to `new` may be followed at all: never from `https` to
    /// anything else (a downgrade exposes the request, and whatever the server put in `Location`,
    /// to anyone on the path), nor to a URL without an HTTP(S) scheme.
    static func allowsFollowing(from previous: URL?, to new: URL?) -> Bool {
        guard let scheme = new?.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        if previous?.scheme?.lowercased() == "https" { return scheme == "https" }
        return true
    }

    /// Whether URLSession sends a redirected request without the body it carries.
    ///
    /// On Linux it does, whatever the delegate answers: a 307 or 308 `POST`, or a 301/302 `PUT`,
    /// would arrive at the new location with `Content-Length: 0`. Apple's URLSession sends the
    /// body again.
    #if canImport(FoundationNetworking)
        static let urlSessionDropsRedirectedBodies = true
    #else
        static let urlSessionDropsRedirectedBodies = false
    #endif

    /// Whether a redirect can be followed without sending something other than what was asked.
    ///
    /// It cannot when URLSession proposes to send a **stream** body again (307/308, or 301/302
    /// for a method other than POST), on any platform: the stream was read to send the first
    /// request, so Apple's URLSession would fail with `requestBodyStreamExhausted` (or ask for a new
    /// stream mid-redirect) and corelibs would send it empty. Nor when URLSession would send a
    /// `Data` body empty (``urlSessionDropsRedirectedBodies``). Not following it makes the 3xx,
    /// with its `Location`, the response: the caller sees exactly what happened and can send the
    /// request again to the new location itself. Redirects that turn the request into a `GET`
    /// without a body (303, and 301/302 for POST) are followed.
    static func canFollow(_ new: URLRequest, dropsBodies: Bool = urlSessionDropsRedirectedBodies) -> Bool {
        if new.httpBodyStream != nil { return false }
        guard dropsBodies else { return true }
        return new.httpBody?.isEmpty ?? true
    }

    /// Whether a redirect that sends a body again (307/308, or 301/302 of a method other than
    /// POST) may be followed to `new`: only when it stays on the origin of the request the caller
    /// sent and of the hop that answered (as for credentials, ``keepsCredentials(to:original:previous:)``),
    /// or when the request opted in with ``RedirectMode/followSendingBodyToOtherOrigins``.
    ///
    /// Headers alone are not enough to strip: a form body carries secrets of its own (an OAuth2
    /// `refresh_token` and `client_secret`, a password), and the server that answered the 307 chose
    /// where they go. Not following makes the 3xx, with its `Location`, the response.
    static func mayResendBody(to new: URL?, original: URL?, previous: URL?, mode: RedirectMode) -> Bool {
        mode.sendsBodyToOtherOrigins || keepsCredentials(to: new, original: original, previous: previous)
    }

    /// Whether URLSession's proposed redirect `new` may be followed under `mode`: never with
    /// ``RedirectMode/never``; with a body only where ``canFollow(_:dropsBodies:)`` and
    /// ``mayResendBody(to:original:previous:mode:)`` allow it. A stream body the original request
    /// had counts even when `new` shows none (``resendsStreamBody(_:after:)``), and is never
    /// followed where URLSession would send it empty.
    static func canFollow(
        _ new: URLRequest, after original: URLRequest?, from previous: URL?, mode: RedirectMode,
        dropsBodies: Bool = urlSessionDropsRedirectedBodies
    ) -> Bool {
        guard mode.followsRedirects, canFollow(new, dropsBodies: dropsBodies) else { return false }
        let resendsStream = resendsStreamBody(new, after: original)
        if resendsStream && dropsBodies { return false }
        let carriesBody = !(new.httpBody?.isEmpty ?? true) || new.httpBodyStream != nil || resendsStream
        return !carriesBody || mayResendBody(to: new.url, original: original?.url, previous: previous, mode: mode)
    }

    /// Whether following `new` sends the stream body of `original` again: `original` had one and
    /// `new` keeps its method (307/308, or 301/302 of a method other than POST; a redirect that
    /// becomes a `GET` drops the body). Apple's URLSession may propose such a redirect without the
    /// stream and ask the delegate for it once the redirect is followed
    /// (`urlSession(_:task:needNewBodyStream:)`, which gives a replayable body again), so `new`
    /// alone does not show that a body crosses.
    static func resendsStreamBody(_ new: URLRequest, after original: URLRequest?) -> Bool {
        guard let original, original.httpBodyStream != nil else { return false }
        return (new.httpMethod ?? "GET").uppercased() == (original.httpMethod ?? "GET").uppercased()
    }

    /// An RFC 6454 origin: scheme and host lowercased, the port made explicit (80 for `http`,
    /// 443 for `https`), so `http://H:80` and `http://h` are the same origin.
    struct Origin: Hashable, Sendable {
        var scheme: String
        var host: String
        var port: Int?

        /// The URL's origin, or `nil` when it has no scheme or no host (such a URL has an opaque
        /// origin, the same as no other).
        init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else { return nil }
            self.scheme = scheme
            // Foundation reports an IPv6 host without brackets on some platforms and with them on
            // others: keep it bare, so both compare equal.
            self.host = Self.normalized(host: host)
            switch (url.port, scheme) {
            case (let port?, _): self.port = port
            case (nil, "http"), (nil, "ws"): self.port = 80
            case (nil, "https"), (nil, "wss"): self.port = 443
            case (nil, _): self.port = nil
            }
        }

        /// `host`, or `host:port` when the port is not the scheme's default; IPv6 in brackets.
        var authority: String {
            let host = self.host.contains(":") ? "[\(self.host)]" : self.host
            switch (scheme, port) {
            case ("http", 80?), ("https", 443?), (_, nil): return host
            case (_, let port?): return "\(host):\(port)"
            }
        }

        /// Whether `name` (a host as ``Configuration/authorizedHosts`` lists it, IPv6 with or
        /// without brackets) is this origin's host, case-insensitively.
        func matches(host name: String) -> Bool {
            Self.normalized(host: name) == host
        }

        /// `host` lower-cased, without the brackets of an IPv6 literal. Checked and lower-cased
        /// byte by byte when it is ASCII (as a validated host is): this runs for every signed
        /// request, and `lowercased()` plus `trimmingCharacters(in:)` allocated several times.
        static func normalized(host: String) -> String {
            var bytes = Substring(host).utf8
            if bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") {
                bytes = bytes.dropFirst().dropLast()
            }
            guard bytes.allSatisfy({ $0 < 0x80 }) else {
                return host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            }
            if !bytes.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }),
                bytes.count == host.utf8.count
            {
                return host
            }
            return String(decoding: bytes.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
    }
}
