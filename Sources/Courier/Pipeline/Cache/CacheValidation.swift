import Foundation
import HTTPTypes

/// Validation of stored responses (RFC 9111 §4.3) and invalidation by unsafe methods (§4.4).
enum CacheValidation {
    /// `request` made conditional on the stored `entries` (§4.3.1): `If-None-Match` with every
    /// entity tag they have, `If-Modified-Since` with the `Last-Modified` of the first that has a
    /// valid one. A request that is already conditional is the caller's own and is returned as
    /// it is; `nil` when the entries give no validator (the request is then sent unconditionally).
    static func conditionalRequest(for request: HTTPRequest, entries: [CacheEntry]) -> HTTPRequest? {
        if request.headerFields[.ifNoneMatch] != nil || request.headerFields[.ifModifiedSince] != nil {
            return request
        }
        var tags = entries.first?.facts.validEntityTags ?? []
        for entry in entries.dropFirst() {
            for tag in entry.facts.validEntityTags where !tags.contains(tag) { tags.append(tag) }
        }
        let lastModified = entries.first { $0.facts.lastModifiedIsValid }?.facts.lastModified
        guard !tags.isEmpty || lastModified != nil else { return nil }
        var conditional = request
        if !tags.isEmpty { conditional.headerFields[.ifNoneMatch] = tags.count == 1 ? tags[0] : tags.joined(separator: ", ") }
        if let lastModified { conditional.headerFields[.ifModifiedSince] = lastModified }
        return conditional
    }

    /// `entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE` (RFC 9110 §8.8.3).
    static func isEntityTag(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if bytes.starts(with: "W/".utf8) { bytes = bytes.dropFirst(2) }
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else { return false }
        return bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }
    }

    /// The indices of the stored `entries` that a `304 Not Modified` updates (§4.3.4):
    /// - with a strong `ETag`: every entry with that strong tag, and no other;
    /// - otherwise with a weak `ETag` or a `Last-Modified`: the most recent entry whose tag
    ///   matches weakly, or whose `Last-Modified` is the same;
    /// - otherwise, with no validator at all: the only entry, if there is one. §4.3.4 asks that it
    ///   lack a validator too, but the conditional request was built from that one response, so
    ///   a `304` answering it says that response is still good (§4.3.3), as browsers read it; a
    ///   validator that contradicts the stored one (above) is what discards it.
    static func entriesUpdated(by notModified: HTTPResponse, among entries: [CacheEntry]) -> [Int] {
        let tag = notModified.headerFields.firstValue(for: .eTag)?.trimmingSpaceAndTab()
        let lastModified = notModified.headerFields.firstValue(for: .lastModified)?.trimmingSpaceAndTab()
        func storedTag(_ entry: CacheEntry) -> String? { entry.facts.entityTag }
        if let tag, isEntityTag(tag), !tag.hasPrefix("W/") {
            return entries.indices.filter { storedTag(entries[$0]) == tag }
        }
        if tag != nil || lastModified != nil {
            let opaque = tag.map(opaqueTag)
            let matching = entries.indices.filter { index in
                let entry = entries[index]
                if let opaque, let stored = storedTag(entry), opaqueTag(stored) == opaque { return true }
                if tag == nil, let lastModified, entry.facts.lastModified == lastModified {
                    return true
                }
                return false
            }
            guard let newest = matching.max(by: { entries[$0].responseTime < entries[$1].responseTime }) else {
                return []
            }
            return [newest]
        }
        return entries.count == 1 ? [0] : []
    }

    /// The tag without its weakness indicator, for the weak comparison (RFC 9110 §8.8.3.2).
    private static func opaqueTag(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }

    /// `entry` updated by a `304` (§3.2, §4.3.4): every field of the `304` replaces the stored
    /// field of that name, except `Content-Length` and the fields never stored (§3.1); the
    /// request and response times become those of the validation. A field whose value changed
    /// moves after the fields the `304` left alone.
    static func updated(_ entry: CacheEntry, with notModified: HTTPResponse, requestTime: Date, responseTime: Date)
        -> CacheEntry
    {
        let incoming = CacheStorability.storableFields(notModified.headerFields)
        let stored = entry.response.headerFields
        // Usually only `Date` changes: the fields with the same values stay as they are.
        var changed: [HTTPField.Name] = []
        for (index, field) in incoming.enumerated() where field.name != .contentLength {
            // Each name once: at its first field.
            guard !incoming.prefix(index).contains(where: { $0.name == field.name }) else { continue }
            if !haveSameValues(field.name, stored, incoming) { changed.append(field.name) }
        }
        var response = entry.response
        if !changed.isEmpty {
            response.headerFields = merged(stored, replacing: changed, with: incoming)
        }
        // What `Cache-Control`, `ETag` and `Last-Modified` said is still true when they did not change.
        let keepsDirectivesAndValidators = !changed.contains { [.cacheControl, .eTag, .lastModified].contains($0) }
        return CacheEntry(
            key: entry.key, variant: entry.variant, response: response, body: entry.body, requestTime: requestTime,
            responseTime: responseTime, reusing: keepsDirectivesAndValidators ? entry.facts : nil)
    }

    /// Whether `first` and `second` hold the same values, in the same order, for `name`.
    private static func haveSameValues(_ name: HTTPField.Name, _ first: HTTPFields, _ second: HTTPFields) -> Bool {
        first.lazy.filter { $0.name == name }.map(\.value).elementsEqual(second.lazy.filter { $0.name == name }.map(\.value))
    }

    /// `stored` without the fields named in `names`, then the fields of `incoming` with those names.
    private static func merged(_ stored: HTTPFields, replacing names: [HTTPField.Name], with incoming: HTTPFields) -> HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(stored.count + incoming.count)
        for field in stored where !names.contains(field.name) {
            fields.append(field)
        }
        for field in incoming where names.contains(field.name) {
            fields.append(field)
        }
        return fields
    }

    /// Methods that do not invalidate (RFC 9110 §9.2.1: the safe ones).
    private static let safeMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .trace]

    /// The normalised URIs (``CacheKey/url``) whose stored responses, in every partition, must be
    /// invalidated after `response` to `request` (§4.4): for an unsafe method and a non-error
    /// (`2xx` or `3xx`) response, the target URI, and the `Location` and `Content-Location` URIs
    /// when they have the same origin (relative references are resolved against the target).
    static func invalidatedURLs(request: HTTPRequest, response: HTTPResponse) -> [String] {
        guard !safeMethods.contains(request.method), (200..<400).contains(response.status.code),
            let target = CacheKey(request, partition: "")
        else { return [] }
        var urls = [target.url]
        guard let base = URL(string: target.url) else { return urls }
        for name in [HTTPField.Name.location, .contentLocation] {
            guard let value = response.headerFields.firstValue(for: name)?.trimmingSpaceAndTab(),
                let resolved = URL(string: value, relativeTo: base)?.absoluteURL,
                let components = URLComponents(url: resolved, resolvingAgainstBaseURL: true),
                let scheme = components.scheme, let host = components.percentEncodedHost
            else { continue }
            let authority = components.port.map { "\(host):\($0)" } ?? host
            var path = components.percentEncodedPath
            if let query = components.percentEncodedQuery { path += "?\(query)" }
            guard let key = CacheKey(scheme: scheme, authority: authority, path: path, partition: ""),
                key.origin == target.origin, !urls.contains(key.url)
            else { continue }
            urls.append(key.url)
        }
        return urls
    }
}
