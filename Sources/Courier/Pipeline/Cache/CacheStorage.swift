/// Where a cache keeps its entries: in memory (``MemoryCacheStorage``) or in a folder
/// (``DiskCacheStorage``). Both are bounded by bytes and evict the least recently used entry
/// first; every variant of a URI (one per ``CacheVariant``) is an entry of its own.
///
/// Storage never fails loudly: an entry that cannot be stored (too large, a full disk) is simply
/// not stored, and one that cannot be read back is a miss, and is removed.
protocol CacheStorage: Sendable {
    /// The stored variants for `key`, most recently stored first. Marks them used.
    func entries(for key: CacheKey) -> [CacheEntry]
    /// Stores `entry`, replacing the entry with the same key and variant, and evicting the least
    /// recently used entries to stay within the bound, if `sessionIsCurrent` (called under the
    /// storage's lock) says the session of the call that got it has not ended: ending a session
    /// (``endPartition(_:)``, which takes the same lock) and storing into it cannot interleave.
    /// - Returns: whether it was stored.
    @discardableResult func store(_ entry: CacheEntry, if sessionIsCurrent: () -> Bool) -> Bool
    /// Removes the entry with this key and variant, if any.
    func remove(_ key: CacheStorageKey)
    /// Removes every entry of the normalised URI `url` (``CacheKey/url``), in every partition.
    func removeAll(url: String)
    /// Removes every entry stored under the credential partition `partition` or within it
    /// (``CachePartition/isWithin(_:_:)``): its session has ended. A response still on its way
    /// for it is refused by the `sessionIsCurrent` of ``store(_:if:)``.
    func endPartition(_ partition: String)
    /// Removes everything.
    func removeAll()
}

extension CacheStorage {
    /// Stores `entry` whatever its session (``store(_:if:)``): for entries without a session
    /// that can end, and for tests.
    @discardableResult func store(_ entry: CacheEntry) -> Bool {
        store(entry, if: { true })
    }
}

/// An LRU order of keys: O(1) insert, touch, remove and pop of the least recently used, with a
/// doubly linked list threaded through arrays (no per-node allocation, no reference cycles).
struct CacheLRUList<Key: Hashable & Sendable>: Sendable {
    private var slots: [Key?] = []
    private var previous: [Int] = []
    private var next: [Int] = []
    private var freeSlots: [Int] = []
    private var slotOfKey: [Key: Int] = [:]
    /// Least recently used.
    private var head = -1
    /// Most recently used.
    private var tail = -1

    var count: Int { slotOfKey.count }

    func contains(_ key: Key) -> Bool { slotOfKey[key] != nil }

    /// Makes `key` the most recently used, adding it if absent.
    mutating func touch(_ key: Key) {
        if let slot = slotOfKey[key] {
            unlink(slot)
            linkAtTail(slot)
            return
        }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = key
        } else {
            slot = slots.count
            slots.append(key)
            previous.append(-1)
            next.append(-1)
        }
        slotOfKey[key] = slot
        linkAtTail(slot)
    }

    mutating func remove(_ key: Key) {
        guard let slot = slotOfKey.removeValue(forKey: key) else { return }
        unlink(slot)
        slots[slot] = nil
        freeSlots.append(slot)
    }

    /// The least recently used key, without removing it.
    var leastRecentlyUsed: Key? { head < 0 ? nil : slots[head] }

    /// Keys from least to most recently used.
    var keysInOrder: [Key] {
        var result: [Key] = []
        result.reserveCapacity(count)
        var slot = head
        while slot >= 0 {
            if let key = slots[slot] { result.append(key) }
            slot = next[slot]
        }
        return result
    }

    mutating func removeAll() { self = CacheLRUList() }

    /// Makes room for `capacity` keys without regrowing (opening a large index).
    mutating func reserveCapacity(_ capacity: Int) {
        slots.reserveCapacity(capacity)
        previous.reserveCapacity(capacity)
        next.reserveCapacity(capacity)
        slotOfKey.reserveCapacity(capacity)
    }

    private mutating func unlink(_ slot: Int) {
        let before = previous[slot]
        let after = next[slot]
        if before >= 0 { next[before] = after } else { head = after }
        if after >= 0 { previous[after] = before } else { tail = before }
        previous[slot] = -1
        next[slot] = -1
    }

    private mutating func linkAtTail(_ slot: Int) {
        previous[slot] = tail
        next[slot] = -1
        if tail >= 0 { next[tail] = slot } else { head = slot }
        tail = slot
    }
}
