import Foundation
import HTTPTypes

/// The credential partitions of ``HTTPCache`` entries: a response to a call that carries a
/// credential is stored, and found, only under that credential's partition, so that it is never
/// served to another.
enum CachePartition {
    // The partitions:
    // - Basic: a keyed SHA-256 of the user name and password.
    // - Bearer: the TokenRefresher's session, a random value that a reset or a sign-out replaces
    //   (a refresh keeps it: the new token belongs to the same user). Ending a session purges its
    //   entries from the caches that stored them.
    // - A RequestSigner: a random value per client.
    // - Secret header fields the request has above the authentication stage (an `Authorization` in
    //   the endpoint's headerItems, a cookie or API key a middleware adds): a keyed SHA-256 of them,
    //   within the partition above.
    //
    // Every partition is made with a key or a value drawn in this process, so it means nothing to
    // another process: a disk cache drops credentialed entries when it opens (a later process cannot
    // tell whether its credential belongs to the same user without keeping something derived from a
    // secret on disk).

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
    /// cookie or an API key that the endpoint or a middleware set) and the secret query items
    /// `queryItems` (`name=value`, as sent), within `base`.
    static func secrets(fields: [HTTPField], queryItems: [Substring] = [], within base: String) -> String {
        var hasher = SHA256.Hasher()
        hasher.update(processKey)
        for field in fields {
            hasher.update(Array(field.name.canonicalName.utf8))
            hasher.update([0])
            hasher.update(Array(field.value.utf8))
            hasher.update([0])
        }
        hasher.update([1])
        for item in queryItems {
            hasher.update(Array(item.utf8))
            hasher.update([0])
        }
        return base + subpartitionSeparator + "secrets:" + hex(hasher.finalize())
    }

    /// What separates a partition from the secret-value partitions within it: ending a session
    /// removes both (``isWithin(_:_:)``).
    static let subpartitionSeparator = "|"

    /// Whether `partition` is `base` or one of the secret-value partitions within it.
    static func isWithin(_ partition: String, _ base: String) -> Bool {
        guard partition.hasPrefix(base) else { return false }
        let rest = partition.utf8.dropFirst(base.utf8.count)
        return rest.isEmpty || rest.starts(with: subpartitionSeparator.utf8)
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

/// Which header fields and query items partition the cache: those that carry a credential.
///
/// `Authorization`, `Proxy-Authorization` and `Cookie` always do, and so does every name that
/// ``Redaction/default`` or the client's own ``Configuration/redaction`` treats as secret: a
/// redaction that shows more in the logs never lets one user's responses reach another.
/// Names are remembered: the cache stage asks for every field of every call, and most calls
/// send the same few names.
final class CacheSecrets: Sendable {
    private let headerMatchers: [SecretNameMatcher]
    private let queryMatchers: [SecretNameMatcher]
    private let knownHeaders = LockedState<[HTTPField.Name: Bool]>([:])
    /// Names remembered at most (a hostile caller cannot grow the table without bound).
    private static let capacity = 512
    /// The fields that carry a credential whatever any redaction says.
    static let alwaysSecretFields: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie]
    /// What a secret value is replaced with in what the storage keeps (a key, a variant).
    static let placeholder = "<partitioned>"

    init(_ redaction: Redaction) {
        headerMatchers = [Redaction.default.headerMatcher, redaction.headerMatcher]
        queryMatchers = [Redaction.default.queryItemMatcher, redaction.queryItemMatcher]
    }

    /// The fields of `fields` that carry a credential, in order.
    func secretFields(of fields: HTTPFields) -> [HTTPField] {
        guard !fields.isEmpty else { return [] }
        return knownHeaders.withLock { known in
            var secret: [HTTPField] = []
            for field in fields {
                let isSecret: Bool
                if let remembered = known[field.name] {
                    isSecret = remembered
                } else {
                    let name = field.name.canonicalName
                    isSecret =
                        Self.alwaysSecretFields.contains(field.name) || headerMatchers.contains { $0.isSecret(headerName: name) }
                    if known.count < Self.capacity { known[field.name] = isSecret }
                }
                if isSecret { secret.append(field) }
            }
            return secret
        }
    }

    /// `url` (a ``CacheKey/url``) with the value of every secret item replaced by
    /// ``placeholder``, and those items as they were (`name=value`, in order); `url` itself and
    /// no items when it has none. Items are what ``Redaction`` hides: query items separated by
    /// `&` or `;`, and path parameters (`/a;jsessionid=…/b`).
    func splittingSecretQueryItems(of url: String) -> (url: String, secrets: [Substring]) {
        let bytes = url.utf8
        guard bytes.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: ";") }),
            let schemeEnd = url.range(of: "://"),
            let pathStart = url[schemeEnd.upperBound...].utf8.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") })
        else { return (url, []) }
        var secrets: [Substring] = []
        var result = ""
        var copied = url.startIndex
        var inQuery = false
        var itemStart: String.Index?
        func close(_ end: String.Index) {
            guard let start = itemStart, start < end else { return }
            let item = url[start..<end]
            let name = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? item[...]
            guard !name.isEmpty,
                queryMatchers.contains(where: { $0.isSecret(parameter: Redaction.decodedName(name)) })
            else { return }
            secrets.append(item)
            result += url[copied..<name.endIndex]
            result += "=" + Self.placeholder
            copied = end
        }
        var index = pathStart
        while index < bytes.endIndex {
            let byte = bytes[index]
            let next = bytes.index(after: index)
            if inQuery {
                if byte == UInt8(ascii: "&") || byte == UInt8(ascii: ";") {
                    close(index)
                    itemStart = next
                }
            } else if byte == UInt8(ascii: "?") {
                close(index)
                inQuery = true
                itemStart = next
            } else if byte == UInt8(ascii: "/") {
                close(index)
                itemStart = nil
            } else if byte == UInt8(ascii: ";") {
                close(index)
                itemStart = next
            }
            index = next
        }
        close(bytes.endIndex)
        guard !secrets.isEmpty else { return (url, []) }
        result += url[copied...]
        return (result, secrets)
    }
}

/// A ``TokenRefresher``'s cache session: its partition, and the caches that a client of this
/// refresher stores into, which lose the session's entries when it ends.
struct CacheSession: Sendable {
    /// A cache, held weakly: a refresher that outlives its clients' caches keeps none of them.
    struct Registered: @unchecked Sendable {
        // `@unchecked`: Swift cannot check a `weak var`, but the referent (`HTTPCache`) is `Sendable`,
        // loading a weak reference is thread-safe, and the box is only mutated inside the
        // refresher's `LockedState<CacheSession>`.
        weak var cache: HTTPCache?
    }

    var partition = CachePartition.random("bearer")
    /// The caches to purge, each once; those deallocated are dropped whenever one registers.
    private(set) var caches: [Registered] = []

    /// Adds `cache` unless it is there already, dropping the caches that are gone.
    mutating func register(_ cache: HTTPCache) {
        caches.removeAll { $0.cache == nil }
        if !caches.contains(where: { $0.cache === cache }) { caches.append(Registered(cache: cache)) }
    }
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

extension Authentication {
    /// Whether `partition`, this authentication's partition when a call began, is still the
    /// current one: `false` once its session ended (only a bearer session ends). The storage
    /// asks under its lock (``CacheStorage/store(_:if:)``); ``TokenRefresher/endCacheSession()``
    /// moves the partition on before it takes that lock to remove the ended entries.
    func isCurrent(_ partition: String) -> Bool {
        guard case .bearer(let refresher) = self else { return true }
        return refresher.cachePartition == partition
    }
}

extension TokenRefresher {
    /// The partition of the current session's cache entries.
    nonisolated var cachePartition: String {
        cacheSession.withLock { $0.partition }
    }

    /// Makes the end of every session (``reset(to:)``, ``signOut()``, a refresh that failed for
    /// good) remove that session's entries from `cache`. Registering one cache twice registers
    /// it once.
    nonisolated func purgesEntries(in cache: HTTPCache) {
        cacheSession.withLock { $0.register(cache) }
    }

    /// Starts a new session and ends the old one in every registered cache: its entries are
    /// removed, and nothing is stored for it afterwards (a response still on its way included:
    /// its partition is no longer current, ``Authentication/isCurrent(_:)``).
    nonisolated func endCacheSession() {
        let (ended, caches) = cacheSession.withLock { session in
            let ended = session.partition
            session.partition = CachePartition.random("bearer")
            return (ended, session.caches.compactMap(\.cache))
        }
        for cache in caches { cache.endPartition(ended) }
    }
}
