/// Cache entries in memory, bounded by the bytes they cost (``CacheEntry/cost``), least
/// recently used evicted first. Every operation is O(1) in the number of entries (O(variants of
/// one URI) for lookups and URI removal).
final class MemoryCacheStorage: CacheStorage {
    private struct State: Sendable {
        var entries: [CacheStorageKey: CacheEntry] = [:]
        /// The stored keys of each URI, across partitions and variants, newest last.
        var keysOfURL: [String: [CacheStorageKey]] = [:]
        var order = CacheLRUList<CacheStorageKey>()
        var totalCost = 0

        /// Removes the entry of `key` and returns it.
        @discardableResult
        mutating func remove(_ key: CacheStorageKey) -> CacheEntry? {
            guard let entry = entries.removeValue(forKey: key) else { return nil }
            totalCost -= entry.cost
            order.remove(key)
            keysOfURL[key.key.url]?.removeAll { $0 == key }
            if keysOfURL[key.key.url]?.isEmpty == true { keysOfURL[key.key.url] = nil }
            return entry
        }
    }

    /// The bound, in bytes.
    let capacity: Int
    private let state = LockedState(State())

    /// An empty storage holding at most `capacity` bytes of entries.
    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The bytes the stored entries cost.
    var totalCost: Int { state.withLock { $0.totalCost } }

    /// The stored keys, least recently used first.
    var keysByRecency: [CacheStorageKey] { state.withLock { $0.order.keysInOrder } }

    func entries(for key: CacheKey) -> [CacheEntry] {
        state.withLock { state in
            let stored = state.keysOfURL[key.url] ?? []
            if stored.count == 1 {
                // The usual case, one response for the URI: no arrays built but the answer.
                guard stored[0].key == key, let entry = state.entries[stored[0]] else { return [] }
                state.order.touch(stored[0])
                return [entry]
            }
            let keys = stored.filter { $0.key == key }
            for storageKey in keys { state.order.touch(storageKey) }
            return keys.reversed().compactMap { state.entries[$0] }
        }
    }

    @discardableResult
    func store(_ entry: CacheEntry, if sessionIsCurrent: () -> Bool) -> Bool {
        let cost = entry.cost
        let key = entry.storageKey
        // What the store drops is released after the lock, not under it.
        let (stored, dropped) = state.withLock { state -> (Bool, CacheEntry?) in
            guard cost <= capacity, sessionIsCurrent() else {
                return (false, state.remove(key))
            }
            let replaced = state.entries.updateValue(entry, forKey: key)
            if let replaced {
                // The same variant again (a `304`'s update, a new response): replaced in place,
                // and the newest of its URI.
                state.totalCost += cost - replaced.cost
                if state.keysOfURL[key.key.url]?.last != key {
                    state.keysOfURL[key.key.url]?.removeAll { $0 == key }
                    state.keysOfURL[key.key.url, default: []].append(key)
                }
            } else {
                if let keys = state.keysOfURL[key.key.url], keys.count >= CacheVariant.maximumStoredPerKey {
                    // Bounded variants of one key: the oldest goes (newest last).
                    let variants = keys.filter { $0.key == key.key }
                    for oldest in variants.prefix(max(0, variants.count + 1 - CacheVariant.maximumStoredPerKey)) {
                        state.remove(oldest)
                    }
                }
                state.keysOfURL[key.key.url, default: []].append(key)
                state.totalCost += cost
            }
            state.order.touch(key)
            while state.totalCost > capacity, let oldest = state.order.leastRecentlyUsed, oldest != key {
                state.remove(oldest)
            }
            return (true, replaced)
        }
        withExtendedLifetime(dropped) {}
        return stored
    }

    func remove(_ key: CacheStorageKey) {
        _ = state.withLock { $0.remove(key) }  // the entry is released after the lock
    }

    func removeAll(url: String) {
        state.withLock { state in
            for key in state.keysOfURL[url] ?? [] { state.remove(key) }
        }
    }

    func endPartition(_ partition: String) {
        state.withLock { state in
            for key in state.entries.keys where CachePartition.isWithin(key.key.partition, partition) { state.remove(key) }
        }
    }

    func removeAll() {
        // The entries are released after the lock, not under it.
        let removed = state.withLock { state in
            let removed = state
            state = State()
            return removed
        }
        withExtendedLifetime(removed) {}
    }
}
