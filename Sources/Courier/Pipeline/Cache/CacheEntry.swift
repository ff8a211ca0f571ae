import Foundation
import HTTPTypes

/// One stored response: the key it was stored under, the request field values its `Vary`
/// selected, the response's status and header fields, its body, and when it was asked for and
/// received (RFC 9111 §4.2.3's `request_time` and `response_time`).
struct CacheEntry: Equatable, Sendable {
    /// The primary key: the target URI and the credential partition.
    var key: CacheKey
    /// The secondary key: the request's values of the fields the response's `Vary` names.
    var variant: CacheVariant
    /// The stored response, its header fields already stripped of what must not be stored
    /// (RFC 9111 §3.1).
    var response: HTTPResponse
    /// The content.
    var body: Data
    /// When the request that produced (or last revalidated) this response was sent.
    var requestTime: Date
    /// When that response was received.
    var responseTime: Date

    /// The bytes this entry is counted as in a storage's bound: body, fields, key and variant.
    var cost: Int {
        var total = body.count + key.url.utf8.count + key.partition.utf8.count + 64
        for field in response.headerFields {
            total += field.name.rawName.utf8.count + field.value.utf8.count + 4
        }
        for value in variant.values {
            total += value.name.utf8.count + (value.value?.utf8.count ?? 0) + 4
        }
        return total
    }

    /// The key under which a storage keeps this entry beside the other variants of its URI.
    var storageKey: CacheStorageKey {
        CacheStorageKey(key: key, variant: variant)
    }
}

/// A storage's identity for an entry: the primary key and the variant.
struct CacheStorageKey: Hashable, Sendable {
    var key: CacheKey
    var variant: CacheVariant
}
