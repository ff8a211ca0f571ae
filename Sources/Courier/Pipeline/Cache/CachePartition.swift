import Foundation
import HTTPTypes

/// The credential partitions of ``HTTPCache`` entries: a response to a call that carries a
/// credential is stored, and found, only under that credential's partition, so that it is never
/// served to another.
///
/// - Basic: a keyed SHA-256 of the user name and password.
/// - Bearer: the ``TokenRefresher``'s session, a random value that a reset or a sign-out replaces
///   (a refresh keeps it: the new token belongs to the same user). Ending a session purges its
///   entries from the caches that stored them.
/// - A ``RequestSigner``: a random value per client.
/// - Secret header fields the request has above the authentication stage (an `Authorization` in
///   the endpoint's ``Requestable/headerItems``, a cookie or API key a middleware adds): a keyed
///   SHA-256 of them, within the partition above.
///
/// Every partition is made with a key or a value drawn in this process, so it means nothing to
/// another process: a disk cache drops credentialed entries when it opens (a later process cannot
/// tell whether its credential belongs to the same user without keeping something derived from a
/// secret on disk).
enum CachePartition {
    /// The key of this process's partitions.
    private static let processKey: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }()

    /// A new random partition of `kind`.
    static func random(_ kind: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return kind + ":" + hex(bytes)
    }

    /// The partition of a Basic credential.
    static func basic(_ credential: BasicCredential) -> String {
        var hasher = SHA256.Hasher()
        hasher.update(processKey)
        hasher.update(Array(credential.username.utf8))
        hasher.update([0])
        hasher.update(Array(credential.password.utf8))
        return "basic:" + hex(hasher.finalize())
    }

    /// The partition of a request carrying the secret header `fields` (an `Authorization`, a
    /// cookie or an API key that the endpoint or a middleware set), within `base`.
    static func secretFields(_ fields: [HTTPField], within base: String) -> String {
        var hasher = SHA256.Hasher()
        hasher.update(processKey)
        for field in fields {
            hasher.update(Array(field.name.canonicalName.utf8))
            hasher.update([0])
            hasher.update(Array(field.value.utf8))
            hasher.update([0])
        }
        return base + "|fields:" + hex(hasher.finalize())
    }

    /// The partition for a client's calls with `authentication`, fixed for the client's life;
    /// `nil` for a ``TokenRefresher``, whose session is read per call
    /// (``TokenRefresher/cachePartition``).
    static func fixed(for authentication: Authentication) -> String? {
        switch authentication {
        case .none: ""
        case .basic(let credential): basic(credential)
        case .bearer: nil
        case .signed: random("signed")
        }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// Which header fields the redaction treats as secret, remembered by name: the cache stage asks
/// for every field of every call, and most calls send the same few names.
final class SecretFieldNames: Sendable {
    private let matcher: SecretNameMatcher
    private let known = LockedState<[HTTPField.Name: Bool]>([:])
    /// Names remembered at most (a hostile caller cannot grow the table without bound).
    private static let capacity = 512

    init(_ redaction: Redaction) {
        matcher = redaction.headerMatcher
    }

    /// The fields of `fields` whose names are secret, in order.
    func secretFields(of fields: HTTPFields) -> [HTTPField] {
        guard !fields.isEmpty else { return [] }
        return known.withLock { known in
            var secret: [HTTPField] = []
            for field in fields {
                let isSecret: Bool
                if let remembered = known[field.name] {
                    isSecret = remembered
                } else {
                    isSecret = matcher.isSecret(headerName: field.name.canonicalName)
                    if known.count < Self.capacity { known[field.name] = isSecret }
                }
                if isSecret { secret.append(field) }
            }
            return secret
        }
    }
}

/// A ``TokenRefresher``'s cache session: its partition, and how to purge it from each cache
/// that a client of this refresher stores into.
struct CacheSession: Sendable {
    var partition = CachePartition.random("bearer")
    var purges: [ObjectIdentifier: @Sendable (String) -> Void] = [:]
}

extension Authentication {
    /// The partition of a call with this authentication now.
    var cachePartition: String {
        switch self {
        case .bearer(let refresher): refresher.cachePartition
        default: CachePartition.fixed(for: self) ?? ""
        }
    }
}

extension TokenRefresher {
    /// The partition of the current session's cache entries.
    nonisolated var cachePartition: String {
        cacheSession.withLock { $0.partition }
    }

    /// Makes the end of every session (``reset(to:)``, ``signOut()``) remove that session's
    /// entries from `cache`. Registering one cache twice registers it once.
    nonisolated func purgesEntries(in cache: HTTPCache) {
        cacheSession.withLock { session in
            session.purges[ObjectIdentifier(cache)] = { [weak cache] partition in
                cache?.storage.removeAll(partition: partition)
            }
        }
    }

    /// Starts a new session and purges the old one's entries.
    nonisolated func endCacheSession() {
        let (ended, purges) = cacheSession.withLock { session in
            let ended = session.partition
            session.partition = CachePartition.random("bearer")
            return (ended, Array(session.purges.values))
        }
        for purge in purges { purge(ended) }
    }
}
