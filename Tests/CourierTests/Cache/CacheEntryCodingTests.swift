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

    @Test("an index decodes to itself with its clean flag, and refuses truncation, corruption and trailing bytes")
    func index() {
        let keys = (0..<3).map { index in
            CacheStorageKey(
                key: CacheKey(url: "https://example.com/\(index)", partition: "p"),
                variant: index == 1 ? CacheVariant(values: [.init(name: "accept", value: nil)], matchesNothing: false) : .none)
        }
        let records = keys.map { ($0, DiskCacheStorage.Record(id: DiskCacheStorage.fileID(for: $0), size: 100)) }
        let data = CacheIndexCoding.encode(records, isClean: true)
        let decoded = CacheIndexCoding.decode(data)
        #expect(decoded?.records.map(\.0) == keys)
        #expect(decoded?.records.map(\.1) == records.map(\.1))
        #expect(decoded?.isClean == true)
        #expect(CacheIndexCoding.decode(CacheIndexCoding.encode(records, isClean: false))?.isClean == false)
        for length in 0..<data.count {
            #expect(CacheIndexCoding.decode(data.prefix(length)) == nil)
        }
        for offset in [0, 6, 10, 40, data.count - 20, data.count - 1] {
            var flipped = data
            flipped[offset] ^= 1
            #expect(CacheIndexCoding.decode(flipped) == nil, "offset \(offset)")
        }
        #expect(CacheIndexCoding.decode(data + [0]) == nil)
    }

    @Test("the index's clean flag is outside its checksum: cleared in place, the index still reads, as not clean")
    func indexCleanFlag() {
        let key = CacheStorageKey(key: CacheKey(url: "https://example.com/", partition: ""), variant: .none)
        var data = CacheIndexCoding.encode([(key, DiskCacheStorage.Record(id: 7, size: 1))], isClean: true)
        data[CacheIndexCoding.cleanFlagOffset] = CacheIndexCoding.notClean[0]
        #expect(CacheIndexCoding.decode(data)?.isClean == false)
        #expect(CacheIndexCoding.decode(data)?.records.map(\.1) == [DiskCacheStorage.Record(id: 7, size: 1)])
        data[CacheIndexCoding.cleanFlagOffset] = 0x7F
        #expect(CacheIndexCoding.decode(data)?.isClean == false)
    }

    @Test("entry file names: 16 lowercase hex digits of the key's id and .entry, and only those read back as ids")
    func entryFileNames() {
        #expect(DiskCacheStorage.fileName(id: 0xab) == "00000000000000ab.entry")
        #expect(DiskCacheStorage.entryFileID("00000000000000ab.entry") == 0xab)
        for name in ["00000000000000AB.entry", "0000000000000ab.entry", "00000000000000ab.entr", "index", "lock", "../x.entry"] {
            #expect(DiskCacheStorage.entryFileID(name) == nil, "\(name)")
        }
    }
}
