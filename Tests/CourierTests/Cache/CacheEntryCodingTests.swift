import Foundation
import HTTPTypes
import Testing

@testable import Courier

@Suite("Cache entry and index files: binary form, and refusal of anything damaged")
struct CacheEntryCodingTests {
    static let sample: CacheEntry = {
        var entry = cacheEntry(
            partition: "user-7", status: 404,
            [("Content-Type", "text/plain; charset=utf-8"), ("ETag", "W/\"x\""), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")],
            body: "not here, é",
            variant: CacheVariant(values: [.init(name: "accept", value: "text/plain"), .init(name: "x-absent", value: nil)], matchesNothing: false))
        entry.response.status = .init(code: 404, reasonPhrase: "Nicht gefunden")
        entry.requestTime = Date(timeIntervalSinceReferenceDate: 123_456.789_012_345)
        return entry
    }()

    @Test("an entry decodes to itself: status, reason, repeated fields, variant, partition, body and exact times")
    func roundTrip() {
        let data = CacheEntryCoding.encode(Self.sample)
        #expect(CacheEntryCoding.decode(data) == Self.sample)
        let empty = cacheEntry(body: "")
        #expect(CacheEntryCoding.decode(CacheEntryCoding.encode(empty)) == empty)
    }

    @Test("every truncation of an entry file is refused")
    func truncated() {
        let data = CacheEntryCoding.encode(Self.sample)
        for length in 0..<data.count {
            #expect(CacheEntryCoding.decode(data.prefix(length)) == nil, "length \(length)")
        }
    }

    @Test("any flipped byte or trailing byte is refused, never decoded as another entry")
    func corrupted() {
        let data = CacheEntryCoding.encode(Self.sample)
        for index in data.indices {
            var copy = data
            copy[index] ^= 0x20
            #expect(CacheEntryCoding.decode(copy) == nil, "byte \(index)")
        }
        #expect(CacheEntryCoding.decode(data + [0]) == nil)
    }

    @Test("a foreign version, a huge claimed length, or an invalid field name is refused")
    func hostile() {
        var data = CacheEntryCoding.encode(Self.sample)
        data[3] = 2
        #expect(CacheEntryCoding.decode(data) == nil)

        var writer = CacheBinaryWriter()
        writer.bytes(CacheEntryCoding.magic)
        writer.u64(0)
        writer.u64(0)
        writer.u32(UInt32.max)  // a url "of 4 GiB"
        writer.u64(CacheBinaryWriter.checksum(writer.data))
        #expect(CacheEntryCoding.decode(writer.data) == nil)

        var badName = CacheBinaryWriter()
        badName.bytes(CacheEntryCoding.magic)
        badName.u64(0)
        badName.u64(0)
        badName.string("https://example.com/")
        badName.string("")
        badName.variant(.none)
        badName.u16(200)
        badName.string("")
        badName.u32(1)
        badName.string("bad name")
        badName.string("v")
        badName.u64(0)
        badName.u64(CacheBinaryWriter.checksum(badName.data))
        #expect(CacheEntryCoding.decode(badName.data) == nil)
    }

    @Test("an index decodes to itself, and refuses truncation, corruption and a file name not made from its key")
    func index() {
        let keys = (0..<3).map { index in
            CacheStorageKey(key: CacheKey(url: "https://example.com/\(index)", partition: "p"), variant: .none)
        }
        let records = keys.map { ($0, DiskCacheStorage.Record(fileName: DiskCacheStorage.fileName(for: $0), size: 100)) }
        let data = CacheIndexCoding.encode(records)
        let decoded = CacheIndexCoding.decode(data)
        #expect(decoded?.map(\.0) == keys)
        #expect(decoded?.map(\.1) == records.map(\.1))
        for length in 0..<data.count {
            #expect(CacheIndexCoding.decode(data.prefix(length)) == nil)
        }
        var flipped = data
        flipped[10] ^= 1
        #expect(CacheIndexCoding.decode(flipped) == nil)
        let escaping = [(keys[0], DiskCacheStorage.Record(fileName: "../../etc/passwd", size: 1))]
        #expect(CacheIndexCoding.decode(CacheIndexCoding.encode(escaping)) == nil)
    }
}
