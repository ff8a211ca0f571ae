import HTTPTypes

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

// Every rule that decides who may receive a credential; all but the last are in this file:
// - the configured credential (`Configuration.authentication`) goes only to the endpoint's
//   declared origin when its host is in `authorizedHosts`, or to an origin listed there in full
//   (`Configuration.authorizes`; the authentication stage asks it for every attempt, redirects
//   included);
// - a redirect that leaves the origin of the request the caller sent, or of the hop that
//   answered, drops `Authorization`, `Proxy-Authorization`, `Cookie` and every header the
//   redaction calls secret (`RedirectPolicy.keepsCredentials`, `stripped`); an `https` → `http`
//   redirect changes the scheme, so it always counts as another origin (and is never followed,
//   `RedirectPolicy.allowsFollowing`);
// - an OAuth2 endpoint (token, revocation, device authorization, discovery) that receives a
//   client secret or a refresh token must be `https`, or `http` to a loopback host
//   (`OAuth2Exchange.endpointProblem`);
// - a request to an authorization server carries none of the API's credentials: the client it
//   goes through has no authentication and leaves out the configuration's `Authorization`,
//   `Cookie` and every header either redaction calls secret (`OAuth2Exchange.client(_:postsForm:)`,
//   where it is built).

extension Configuration {
    /// Whether credentials may be sent to `url`, for an endpoint that declared `declaredOrigin`
    /// (see ``authorizedHosts``).
    func authorizes(_ url: URL, declaredOrigin: RedirectPolicy.Origin?) -> Bool {
        Self.authorizes(url, declaredOrigin: declaredOrigin, hosts: authorizedHosts)
    }

    /// ``authorizes(_:declaredOrigin:)`` for an origin already worked out.
    func authorizes(_ origin: RedirectPolicy.Origin, declaredOrigin: RedirectPolicy.Origin?) -> Bool {
        Self.authorizes(origin, declaredOrigin: declaredOrigin, hosts: authorizedHosts)
    }

    /// ``authorizes(_:declaredOrigin:)`` against `hosts` (an ``authorizedHosts`` list).
    static func authorizes(_ url: URL, declaredOrigin: RedirectPolicy.Origin?, hosts: Set<String>) -> Bool {
        guard let origin = RedirectPolicy.Origin(url) else { return false }
        return authorizes(origin, declaredOrigin: declaredOrigin, hosts: hosts)
    }

    /// ``authorizes(_:declaredOrigin:)`` for an origin already worked out, against `hosts`.
    static func authorizes(_ origin: RedirectPolicy.Origin, declaredOrigin: RedirectPolicy.Origin?, hosts: Set<String>) -> Bool {
        for entry in hosts {
            if entry.utf8.contains(UInt8(ascii: ":")), entry.range(of: "://", options: .literal) != nil {
                if let entryURL = URL(string: entry), RedirectPolicy.Origin(entryURL) == origin { return true }
            } else if origin == declaredOrigin, origin.matches(host: entry) {
                return true
            }
        }
        return false
    }
}

extension RedirectPolicy {
    /// Header names (compared case-insensitively) always removed from a redirect that leaves the
    /// origin, whatever the redaction says.
    static let strippedHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// The request to send for a redirect.
    /// - Parameters:
    ///   - new: the request URLSession proposes for the redirect.
    ///   - original: the request the caller sent (the task's `originalRequest`); `nil` when unknown,
    ///     which is treated as a different origin.
    ///   - previous: the URL that answered with the redirect (the previous hop), if known.
    ///   - redaction: which other headers carry secrets.
    /// - Returns: `new`, without ``strippedHeaders`` and the redaction's secret headers when its
    ///   origin differs from the original's or from the previous hop's.
    static func request(
        _ new: URLRequest, after original: URLRequest?, from previous: URL? = nil,
        redaction: Redaction = .default
    ) -> URLRequest {
        keepsCredentials(to: new.url, original: original?.url, previous: previous) ? new : stripped(new, redaction: redaction)
    }

    /// Whether a redirected request to `new` may keep the credentials of the request the caller
    /// sent to `original`: only when both, and the hop that answered with the redirect
    /// (`previous`, when known), share one origin.
    static func keepsCredentials(to new: URL?, original: URL?, previous: URL?) -> Bool {
        guard let new, let original, let target = Origin(new), target == Origin(original) else { return false }
        return previous.map { Origin($0) == target } ?? true
    }

    /// `fields` without ``strippedHeaders`` and without the headers `redaction` treats as secret.
    static func stripped(_ fields: HTTPFields, redaction: Redaction = .default) -> HTTPFields {
        HTTPFields(
            fields.filter { field in
                !strippedHeaders.contains(field.name.canonicalName) && !redaction.isSecret(headerName: field.name.rawName)
            })
    }

    /// `request` without ``strippedHeaders`` and without the headers `redaction` treats as secret.
    static func stripped(_ request: URLRequest, redaction: Redaction = .default) -> URLRequest {
        var request = request
        for name in (request.allHTTPHeaderFields ?? [:]).keys
        where strippedHeaders.contains(name.lowercased()) || redaction.isSecret(headerName: name) {
            request.setValue(nil, forHTTPHeaderField: name)
        }
        return request
    }
}
