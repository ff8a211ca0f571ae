public import Foundation

/// A private HTTP cache (RFC 9111) for one or more clients: set ``Configuration/cache`` to use it.
///
/// Fresh stored responses answer `GET` (and `HEAD`) calls without a request; stale ones are
/// revalidated. Responses to calls that carry a credential are never served to another
/// credential, are removed when a ``TokenRefresher`` is reset or signed out, and a disk cache
/// keeps them only for the life of the process. Only calls that collect their body
/// (``Call/resume()``, ``Call/resume(expecting:)``) use the cache. Documentation/Caching.md
/// has the rules.
///
/// ```swift
/// let cache = try HTTPCache(directory: cachesFolder.appendingPathComponent("api"), capacity: 50 << 20)
/// let client = Client(configuration: Configuration(cache: cache))
/// ```
public final class HTTPCache: Sendable {
    // The cache sits in the pipeline above the transport, so it behaves the same over every
    // transport. Stale responses are revalidated with `If-None-Match`/`If-Modified-Since`, and a
    // `304` refreshes them. What is stored follows the response's `Cache-Control`, `Expires` and
    // `Vary`. Each call's Requestable.cachePolicy can reload, prefer stored responses or forbid the
    // network, and Response.source tells where a response came from. Streams, downloads, event
    // streams and range requests bypass the cache.
    let storage: any CacheStorage
    /// Whether a stale response within its `stale-while-revalidate` window answers while a
    /// background request revalidates it (RFC 5861 §3).
    let usesStaleWhileRevalidate: Bool
    /// Whether a stale response within its `stale-if-error` window answers when revalidating it
    /// fails (RFC 5861 §4).
    let usesStaleIfError: Bool
    /// The time that freshness is judged by.
    let now: @Sendable () -> Date
    /// Background revalidations in flight, so that one stored response is revalidated once.
    let revalidations = LockedState(Revalidations())

    struct Revalidations: Sendable {
        var keys: Set<CacheKey> = []
        var watchers = CountWatchers()
    }

    /// A cache in memory of at most `capacity` bytes, least recently used responses evicted first.
    /// - Parameters:
    ///   - capacity: the bound, in bytes of stored responses.
    ///   - staleWhileRevalidate: honour `stale-while-revalidate` (RFC 5861), on by default as in
    ///     browsers: the server opts in per response, and the answer is at most as stale as it
    ///     allowed while a background request refreshes it.
    ///   - staleIfError: honour `stale-if-error` (RFC 5861): answer with a stale response when
    ///     the server cannot be reached or answers `500`, `502`, `503` or `504`. Off by default:
    ///     an error then looks like success to the caller, with no background refresh after it.
    public convenience init(capacity: Int = 10 << 20, staleWhileRevalidate: Bool = true, staleIfError: Bool = false) {
        self.init(
            storage: MemoryCacheStorage(capacity: capacity), staleWhileRevalidate: staleWhileRevalidate,
            staleIfError: staleIfError)
    }

    /// A cache in `directory` of at most `capacity` bytes of files, least recently used responses
    /// evicted first. What an earlier run stored is used again; a file that is corrupt, cut short
    /// or not this user's own is a miss, and is removed.
    ///
    /// The folder must be this user's own (created owner-only; one others could write to is made
    /// owner-only and emptied). Choose a per-user caches folder, not a shared one like `/tmp`.
    /// - Parameters:
    ///   - directory: the folder, a file URL. It is locked while this cache is open: a second
    ///     cache on it stores and finds nothing, so share one cache between clients.
    ///   - capacity: the bound, in bytes of entry files.
    ///   - staleWhileRevalidate: honour `stale-while-revalidate` (RFC 5861); on by default.
    ///   - staleIfError: honour `stale-if-error` (RFC 5861); off by default.
    /// - Throws: ``CourierError/invalidRequest(_:)`` when `directory` is not a file URL, is not a
    ///   folder, belongs to another user, sits in a folder another user could change, cannot
    ///   be created or made owner-only, or is in an App Group container on iOS, tvOS, watchOS or
    ///   visionOS (the system terminates a suspended app that holds a lock there).
    public convenience init(
        directory: URL, capacity: Int = 100 << 20, staleWhileRevalidate: Bool = true, staleIfError: Bool = false
    ) throws(CourierError) {
        guard directory.isFileURL else {
            throw .invalidRequest(.invalidURL("a cache directory must be a file URL: \(directory.absoluteString)"))
        }
        if let refusal = AppGroupContainer.refusal(for: directory) {
            throw .invalidRequest(.invalidURL("unusable cache directory: \(refusal)"))
        }
        let folder: (trust: SecureFileIO.DirectoryTrust, resolved: URL)
        do {
            folder = try SecureFileIO.prepareOwnDirectory(directory)
        } catch {
            throw .invalidRequest(.invalidURL("unusable cache directory: \(error.description)"))
        }
        // Out of the user's backups on Apple platforms, on every open: also a folder the app made
        // itself, or one an older version of Courier made without the mark.
        CacheFolderBackup.excludeFromBackups(folder.resolved)
        self.init(
            storage: DiskCacheStorage(directory: folder.resolved, capacity: capacity, distrustingContents: folder.trust == .tightened),
            staleWhileRevalidate: staleWhileRevalidate, staleIfError: staleIfError)
    }

    init(
        storage: any CacheStorage, staleWhileRevalidate: Bool = false, staleIfError: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.storage = storage
        usesStaleWhileRevalidate = staleWhileRevalidate
        usesStaleIfError = staleIfError
        self.now = now
    }

    /// Removes every stored response.
    public func removeAll() {
        storage.removeAll()
    }

    /// Removes the entries of an ended credential session (``CacheStorage/endPartition(_:)``).
    func endPartition(_ partition: String) {
        storage.endPartition(partition)
    }

    /// Marks `key` as being revalidated in the background; `false` if it is already.
    func beginRevalidation(of key: CacheKey) -> Bool {
        revalidations.withLock { $0.keys.insert(key).inserted }
    }

    func endRevalidation(of key: CacheKey) {
        let due = revalidations.withLock { state in
            state.keys.remove(key)
            return state.watchers.take(at: state.keys.count)
        }
        for watcher in due { watcher.resume() }
    }
}
