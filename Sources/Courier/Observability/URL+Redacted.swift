import Foundation

/// The URL forms that may be printed or kept in an error: never user-info, and secret query,
/// fragment and path-parameter values hidden (see ``Redaction``).
extension URL {
    /// Scheme, host, port and path, without user-info, query or fragment: safe to print.
    package var redactedForLogging: String {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else {
            return "<unprintable URL>"
        }
        let hadQuery = components.percentEncodedQuery != nil
        components.user = nil
        components.password = nil
        components.percentEncodedQuery = nil
        components.fragment = nil
        return (components.string ?? "<unprintable URL>") + (hadQuery ? "?…" : "")
    }

    /// This URL as a URL that may be kept where a `URL` must go and might be printed (a
    /// `URLError`'s failing URL): no user-info, and the values of secret query, fragment and
    /// path-parameter items (by ``Redaction/default``) replaced by `%3Credacted%3E`, which
    /// prints as `<redacted>` once decoded. A URL that cannot be taken apart becomes its
    /// scheme and host alone, or `about:blank`.
    var redactedForErrors: URL {
        let replacement = "%3Credacted%3E"
        let redaction = Redaction.default
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else {
            return URL(string: "about:blank") ?? URL(fileURLWithPath: "/")
        }
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        components.percentEncodedPath = redaction.redactPathParameters(components.percentEncodedPath, replacement: replacement)
        if let query = components.percentEncodedQuery {
            components.percentEncodedQuery = Redaction.redactParameters(
                query, isSecret: redaction.queryItemNameTest, replacement: replacement)
        }
        if let fragment = components.percentEncodedFragment {
            components.percentEncodedFragment = Redaction.redactParameters(
                fragment, isSecret: redaction.queryItemNameTest, replacement: replacement)
        }
        if let url = components.url { return url }
        var bare = URLComponents()
        bare.scheme = components.scheme
        bare.percentEncodedHost = components.percentEncodedHost
        return bare.url ?? URL(string: "about:blank") ?? URL(fileURLWithPath: "/")
    }
}
