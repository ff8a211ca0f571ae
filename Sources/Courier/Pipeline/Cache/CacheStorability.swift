import HTTPTypes

/// Whether a response may be stored by a private cache (RFC 9111 §3), and which of its fields.
enum CacheStorability {
    /// Final statuses whose semantics this cache understands (RFC 9110 §15), apart from `206`
    /// (ranges bypass the cache) and `304` (which updates a stored response, §4.3.4): what a
    /// response with `must-understand` may have.
    static let understoodStatuses: Set<Int> = [
        200, 201, 202, 203, 204, 205, 300, 301, 302, 303, 307, 308,
        400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 426,
        500, 501, 502, 503, 504, 505,
    ]

    /// Whether `response` to `request` may be stored (§3):
    /// - the method is `GET`, and the request has no `Range` (nor is the response a `206`);
    /// - the status is final (`200`–`599`), neither `206` nor `304`, and, when the response says
    ///   `must-understand`, understood (§3: only then must the cache understand it; `299` with
    ///   `max-age` is stored);
    /// - neither side says `no-store` (unless the response also says `must-understand`, which
    ///   overrides it for an understood status, §5.2.2.3), and the response's `Cache-Control` was
    ///   readable;
    /// - the response's `Vary` is not `*` (such a response could never be used, §4.1);
    /// - the response says `public` or `private`, has `max-age` or `Expires`, has a heuristically
    ///   cacheable status, or has a validator (a quoted `ETag`, `Last-Modified`): a response that
    ///   is stale at once can still be revalidated cheaply;
    /// - with credentials (`Authorization` on the request, or `hasCredentials` when the caller
    ///   adds them elsewhere, like a signer), only with an explicit `public`, `private`,
    ///   `max-age` or `must-revalidate` (§3.5, widened to what a private cache may rely on):
    ///   never by heuristic or validators alone.
    static func isStorable(request: HTTPRequest, response: HTTPResponse, hasCredentials: Bool = false) -> Bool {
        guard request.method == .get, request.headerFields[.range] == nil else { return false }
        let code = response.status.code
        guard (200...599).contains(code), code != 206, code != 304 else { return false }
        let requestControl = CacheControl(request.headerFields)
        let responseControl = CacheControl(response.headerFields)
        if responseControl.mustUnderstand && !understoodStatuses.contains(code) { return false }
        if requestControl.noStore || responseControl.isOverLimit { return false }
        if responseControl.noStore && !responseControl.mustUnderstand { return false }
        if CacheVariant(request: request.headerFields, response: response.headerFields).matchesNothing { return false }
        if hasCredentials || request.headerFields[.authorization] != nil {
            return responseControl.isPublic || responseControl.isPrivate || responseControl.maxAge != nil
                || responseControl.mustRevalidate
        }
        return responseControl.isPublic || responseControl.isPrivate
            || CacheFreshness.hasExplicitExpiration(response, cacheControl: responseControl)
            || CacheFreshness.heuristicallyCacheableStatuses.contains(code)
            || hasEntityTag(response.headerFields) || response.headerFields[.lastModified] != nil
    }

    /// Whether `fields` carry an `ETag` that is a validator: a quoted entity-tag (RFC 9110
    /// §8.8.3). An unquoted one is never sent back, so it makes nothing worth storing.
    private static func hasEntityTag(_ fields: HTTPFields) -> Bool {
        guard let tag = fields[.eTag] else { return false }
        return CacheValidation.isEntityTag(tag.trimmingSpaceAndTab())
    }

    /// Fields a cache never stores nor updates from a `304` (§3.1, §3.2): the connection's
    /// own, the proxy's, and `Set-Cookie`: a cookie is the session of the user it was sent to,
    /// and a stored response answers other clients and users of the cache (only the network's
    /// answer hands it out).
    static let unstoredFields: Set<HTTPField.Name> = [
        .connection, .proxyAuthenticate, .proxyAuthenticationInfo, .proxyAuthorization, .setCookie, .te,
        .transferEncoding, .upgrade, HTTPField.Name("Keep-Alive")!, HTTPField.Name("Proxy-Connection")!,
    ]

    /// `fields` without the ones never stored (§3.1), nor those that `Connection` names.
    static func storableFields(_ fields: HTTPFields) -> HTTPFields {
        // Usually there is nothing to remove (`Connection` is among the unstored fields itself).
        guard fields.contains(where: { unstoredFields.contains($0.name) }) else { return fields }
        let named = Set(
            fields[values: .connection].flatMap { $0.split(separator: ",") }
                .compactMap { HTTPField.Name($0.trimmingSpaceAndTab()) })
        var result = HTTPFields()
        for field in fields where !unstoredFields.contains(field.name) && !named.contains(field.name) {
            result.append(field)
        }
        return result
    }
}
