import Foundation
import HTTPTypes
import Testing

@testable import Courier

@Suite("Memory cache storage: LRU bounded by bytes")
struct MemoryCacheStorageTests {
    private func entry(_ path: String, bytes: Int = 100, partition: String = "") -> CacheEntry {
        cacheEntry(path: path, partition: partition, body: String(repeating: "x", count: bytes))
    }

    @Test("a stored entry is found under its key, and only there")
    func storeAndFind() {
        let storage = MemoryCacheStorage(capacity: 10_000)
        let stored = entry("/a")
        #expect(storage.store(stored))
        #expect(storage.entries(for: stored.key) == [stored])
        #expect(storage.entries(for: CacheKey(url: stored.key.url, partition: "someone-else")).isEmpty)
        #expect(storage.entries(for: CacheKey(url: "https://example.com/b", partition: "")).isEmpty)
    }

    @Test("the least recently used entry is evicted first; a lookup counts as a use")
    func lruOrder() {
        let one = entry("/1")
        let storage = MemoryCacheStorage(capacity: 3 * one.cost)
        storage.store(one)
        storage.store(entry("/2"))
        storage.store(entry("/3"))
        _ = storage.entries(for: one.key)  // /1 is now the most recent
        storage.store(entry("/4"))
        #expect(storage.keysByRecency.map(\.key.url) == ["/3", "/1", "/4"].map { "https://example.com\($0)" })
        #expect(storage.entries(for: entry("/2").key).isEmpty)
    }

    @Test("the total cost never exceeds the capacity; an entry larger than it is not stored")
    func byteBound() {
        let storage = MemoryCacheStorage(capacity: 1_000)
        for index in 0..<50 {
            storage.store(entry("/\(index)", bytes: 150))
            #expect(storage.totalCost <= 1_000)
        }
        #expect(!storage.store(entry("/huge", bytes: 2_000)))
        #expect(storage.entries(for: entry("/huge").key).isEmpty)
        #expect(storage.totalCost <= 1_000)
    }

    @Test("storing the same key and variant replaces the entry; other variants stay, newest first")
    func replaceAndVariants() {
        let storage = MemoryCacheStorage(capacity: 100_000)
        let html = CacheVariant(values: [.init(name: "accept", value: "text/html")], matchesNothing: false)
        let json = CacheVariant(values: [.init(name: "accept", value: "application/json")], matchesNothing: false)
        storage.store(cacheEntry(body: "old", variant: html))
        storage.store(cacheEntry(body: "json", variant: json))
        storage.store(cacheEntry(body: "new", variant: html))
        let found = storage.entries(for: cacheEntry().key)
        #expect(found.map { String(decoding: $0.body, as: UTF8.self) } == ["new", "json"])
        #expect(storage.totalCost == found.map(\.cost).reduce(0, +))
    }

    @Test("removing a partition removes its entries and no other")
    func partitionRemoval() {
        let storage = MemoryCacheStorage(capacity: 100_000)
        storage.store(entry("/a", partition: "alice"))
        storage.store(entry("/b", partition: "alice"))
        storage.store(entry("/a", partition: "bob"))
        storage.store(entry("/a"))
        storage.endPartition("alice")
        #expect(Set(storage.keysByRecency) == [entry("/a", partition: "bob").storageKey, entry("/a").storageKey])
        #expect(storage.totalCost == entry("/a").cost + entry("/a", partition: "bob").cost)
    }

    @Test("removing a URI removes it in every partition and variant; removeAll empties the storage")
    func removal() {
        let storage = MemoryCacheStorage(capacity: 100_000)
        storage.store(entry("/a", partition: "alice"))
        storage.store(entry("/a", partition: "bob"))
        storage.store(entry("/b"))
        storage.removeAll(url: "https://example.com/a")
        #expect(storage.entries(for: entry("/a", partition: "alice").key).isEmpty)
        #expect(storage.entries(for: entry("/a", partition: "bob").key).isEmpty)
        #expect(storage.entries(for: entry("/b").key).count == 1)
        storage.remove(entry("/b").storageKey)
        #expect(storage.totalCost == 0)
        storage.store(entry("/c"))
        storage.removeAll()
        #expect(storage.keysByRecency.isEmpty && storage.totalCost == 0)
    }

    @Test("the LRU list keeps its order through many touches and removals")
    func lruList() {
        var list = CacheLRUList<Int>()
        for value in 0..<10 { list.touch(value) }
        list.touch(3)
        list.remove(0)
        list.remove(9)
        list.touch(11)
        list.touch(5)
        #expect(list.keysInOrder == [1, 2, 4, 6, 7, 8, 3, 11, 5])
        #expect(list.leastRecentlyUsed == 1)
        #expect(list.count == 9)
    }
}
