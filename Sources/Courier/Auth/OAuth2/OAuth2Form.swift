/// The `application/x-www-form-urlencoded` body of a token request (RFC 6749 Appendix B).
///
/// Every name and value is percent-encoded from UTF-8, keeping only RFC 3986 unreserved
/// characters: a space is `%20` (never `+`, which some servers would read as a literal plus),
/// and `+`, `&`, `=`, `%` and `/` are encoded, so no value can change the body's structure.
package enum OAuth2Form {
    /// `name=value&name=value`, in order. A `nil` value gives `name=` (an empty value): form
    /// parsers treat a bare name the same way, and this keeps every pair explicit.
    package static func encode(_ items: [QueryItem]) -> String {
        items.map { item in
            PercentEncoding.encode(item.name) + "=" + PercentEncoding.encode(item.value ?? "")
        }.joined(separator: "&")
    }

    /// The values of `items` and the client authentication that an error body must not echo into
    /// a printed failure: every value but those of the parameters that are not secret (the grant
    /// type, the scope, the client id, the user name, the redirect URI, the audience, the
    /// resource and a revocation's token type hint), and the client's secret.
    package static func secretValues(of items: [QueryItem], clientAuthentication: OAuth2ClientAuthentication) -> [String] {
        let open: Set<String> = [
            "grant_type", "scope", "client_id", "username", "redirect_uri", "audience", "resource", "token_type_hint",
        ]
        return items.compactMap { open.contains($0.name) ? nil : $0.value } + clientAuthentication.secrets
    }

    /// Checks the caller's parameters against the names the grant and the client authentication
    /// set themselves: RFC 6749 §3.2 allows a parameter only once, and a second `grant_type` or
    /// `client_secret` would make the request mean something other than what was asked.
    /// Other names may repeat (RFC 8707 `resource`, RFC 8693 `audience`).
    /// - Throws: ``CourierError/invalidRequest(_:)`` with ``InvalidRequest/encodingFailed(_:underlyingError:)``
    ///   naming the parameter (never its value).
    package static func validate(_ items: [QueryItem], reserved: Set<String>) throws(CourierError) {
        for item in items {
            if item.name.isEmpty {
                throw .invalidRequest(.encodingFailed("an OAuth2 token request parameter has an empty name"))
            }
            if reserved.contains(item.name) {
                throw .invalidRequest(
                    .encodingFailed(
                        "the OAuth2 token request parameter \(item.name.debugDescription) is already set by the grant or the client authentication; RFC 6749 §3.2 allows it only once"
                    ))
            }
        }
    }
}
