/// Which redirects a request follows.
///
/// Whatever the mode, a redirect that leaves the origin loses the request's credentials, and a
/// redirect from `https` to `http` is never followed (see `Documentation/Security.md`).
///
/// ```swift
/// struct Upload: Requestable {
///     func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "storage.example.com") }
///     func path() throws(CourierError) -> URLPath { try URLPath("/uploads") }
///     // The storage service answers 307 to a regional host of its own: let the body go there.
///     var redirectMode: RedirectMode { .followSendingBodyToOtherOrigins }
/// }
/// ```
public struct RedirectMode: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: UInt8, Sendable {
        case follow, followSendingBodyToOtherOrigins, never
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// Follows redirects, up to 10. A 307 or 308 sends the body again only to the origin the
    /// request was sent to: one to another origin is not followed, and the 3xx, with its
    /// `Location`, is the response. The default.
    public static let follow = RedirectMode(.follow)

    /// Follows redirects, and lets a 307 or 308 send the body again to another origin (without
    /// the credentials). For endpoints whose server is known to move uploads between hosts.
    public static let followSendingBodyToOtherOrigins = RedirectMode(.followSendingBodyToOtherOrigins)

    /// Follows no redirect: a 3xx is the response. Courier's OAuth2 requests that carry a secret
    /// (token, revocation, device authorization) use it.
    public static let never = RedirectMode(.never)

    /// Whether any redirect is followed.
    var followsRedirects: Bool { kind != .never }

    /// Whether a 307/308 may send the body again to another origin.
    var sendsBodyToOtherOrigins: Bool { kind == .followSendingBodyToOtherOrigins }

    /// `follow`, `followSendingBodyToOtherOrigins` or `never`.
    public var description: String {
        switch kind {
        case .follow: "follow"
        case .followSendingBodyToOtherOrigins: "followSendingBodyToOtherOrigins"
        case .never: "never"
        }
    }
}
