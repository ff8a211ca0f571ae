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
}
