import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// Hostile review of issue 37: a hostile `Vary` cannot make the cache's lookups unbounded.
@Suite("HostileReview: the variants of one URI are bounded")
struct HostileReviewVariantTests {
    /// A hostile server answers `Vary: X-Request-ID` to a client whose middleware tags every
    /// call: each call stores one more variant of the same URI, and every lookup of it reads
    /// (on disk: opens, reads and decodes) every one of them.
    @Test("the variants of one URI are bounded: a Vary on a per-call field cannot make every lookup read thousands of entries", arguments: [false, true])
    func variantsOfOneURIAreBounded(onDisk: Bool) throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage: any CacheStorage =
            onDisk ? DiskCacheStorage(directory: directory, capacity: 64 << 20, indexWriteInterval: 1 << 20) : MemoryCacheStorage(capacity: 64 << 20)
        for number in 0..<300 {
            let variant = CacheVariant(values: [CacheVariant.Value(name: "x-request-id", value: "id-\(number)")], matchesNothing: false)
            storage.store(cacheEntry([("Cache-Control", "max-age=60"), ("Vary", "X-Request-ID")], variant: variant))
        }
        let found = storage.entries(for: CacheKey(url: "https://example.com/a", partition: ""))
        #expect(found.count <= CacheVariant.maximumStoredPerKey)
        #expect(found.first?.variant.values.first?.value == "id-299", "the newest variant is kept")
    }

    /// An index (of an earlier version, or crafted) naming thousands of variants of one URI:
    /// evicting them one by one on open was quadratic (5 000 variants took 18 s, 20 000 took
    /// over two minutes, in a debug build), and each lookup read them all.
    @Test("opening an index with thousands of variants of one key keeps the newest few, quickly")
    func indexWithThousandsOfVariants() throws {
        let directory = cacheTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let records = (0..<2_000).map { number in
            (
                CacheStorageKey(
                    key: CacheKey(url: "https://example.com/a", partition: ""),
                    variant: CacheVariant(values: [CacheVariant.Value(name: "x-request-id", value: "id-\(number)")], matchesNothing: false)),
                DiskCacheStorage.Record(id: UInt64(number + 1), size: 100)
            )
        }
        try CacheIndexCoding.encode(records, isClean: true).write(to: directory.appendingPathComponent(DiskCacheStorage.indexName))
        let storage = DiskCacheStorage(directory: directory, capacity: 1 << 20)
        #expect(storage.count == CacheVariant.maximumStoredPerKey)
        #expect(storage.keysByRecency.last?.variant.values.first?.value == "id-1999", "the most recently used are kept")
    }
}
