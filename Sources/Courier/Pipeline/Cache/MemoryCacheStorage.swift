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

        mutating func remove(_ key: CacheStorageKey) {
            guard let entry = entries.removeValue(forKey: key) else { return }
            totalCost -= entry.cost
            order.remove(key)
            keysOfURL[key.key.url]?.removeAll { $0 == key }
            if keysOfURL[key.key.url]?.isEmpty == true { keysOfURL[key.key.url] = nil }
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
            let keys = (state.keysOfURL[key.url] ?? []).filter { $0.key == key }
            for storageKey in keys { state.order.touch(storageKey) }
            return keys.reversed().compactMap { state.entries[$0] }
        }
    }

    @discardableResult
    func store(_ entry: CacheEntry) -> Bool {
        let cost = entry.cost
        let key = entry.storageKey
        return state.withLock { state in
            state.remove(key)
            guard cost <= capacity else { return false }
            while state.totalCost + cost > capacity, let oldest = state.order.leastRecentlyUsed {
                state.remove(oldest)
            }
            state.entries[key] = entry
            state.keysOfURL[key.key.url, default: []].append(key)
            state.order.touch(key)
            state.totalCost += cost
            return true
        }
    }

    func remove(_ key: CacheStorageKey) {
        state.withLock { $0.remove(key) }
    }

    func removeAll(url: String) {
        state.withLock { state in
            for key in state.keysOfURL[url] ?? [] { state.remove(key) }
        }
    }

    func removeAll(partition: String) {
        state.withLock { state in
            for key in state.entries.keys where key.key.partition == partition { state.remove(key) }
        }
    }

    func removeAll() {
        state.withLock { $0 = State() }
    }
}
