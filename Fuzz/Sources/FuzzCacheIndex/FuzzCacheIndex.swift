import Foundation
import FuzzSupport

// A disk cache's index file (`CacheIndexCoding.decode`) and the open that trusts it
// (`DiskCacheStorage.init`): the bytes are the file, which a crash or anyone who could write to
// the cache's folder may have damaged.
//
// Two kinds of input, told apart by the first byte (`builtMarker`, 0xFB, for a built one):
// - raw: the bytes are the index file, decoded as they are (a checksum guards it, so most
//   inputs stop there);
// - built: the bytes describe records that are each well-formed, and the index is encoded from
//   them with a valid checksum, so what is tested is records that are individually valid but
//   together hostile (sizes adding up past Int.max, duplicate ids and keys, 256+ Vary fields,
//   invalid names), opened by a real storage with a capacity from the input.
//
// Invariants: never traps; every accepted record has a non-negative size and a file name of the
// entry form (16 hex digits and `.entry`, made from its id, so an index can never name a file
// outside the folder); accepted indexes encode and decode back to themselves, clean flag
// included; a storage opened on any index keeps at most its capacity and at most the records
// it was given, and the index it writes back decodes.
@testable import Courier

/// The first byte of an input that describes what to build rather than the file itself.
private let builtMarker: UInt8 = 0xFB

/// The process's entry point: SwiftPM names it `FuzzCacheIndex_main` (see `runLibFuzzer`).
@_cdecl("FuzzCacheIndex_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    if bytes.first == builtMarker {
        var reader = FuzzReader(Array(bytes.dropFirst()))
        openBuilt(&reader)
    } else {
        checkDecoded(Data(bytes))
    }
    return 0
}

/// Decodes `data` as an index and checks what it accepted.
private func checkDecoded(_ data: Data) {
    guard let decoded = CacheIndexCoding.decode(data) else { return }
    let records = decoded.records
    for (_, record) in records {
        check(DiskCacheStorage.entryFileID(record.fileName) == record.id, "a file name not of the entry form")
        check(record.size >= 0, "a size out of bounds")
    }
    let again = CacheIndexCoding.decode(CacheIndexCoding.encode(records, isClean: decoded.isClean))
    check(again?.records.map(\.0) == records.map(\.0) && again?.records.map(\.1) == records.map(\.1), "the index does not survive encoding")
    check(again?.isClean == decoded.isClean, "the clean flag does not survive encoding")
}

/// The folder the built indexes are opened in: one per process, emptied before each input.
private let folder: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-cache-index-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    return url
}()

/// Builds an index of well-formed but hostile records from `reader`, opens a storage on it, and
/// checks the storage's bounds and the index it writes back.
private func openBuilt(_ reader: inout FuzzReader) {
    let capacities = [Int.max, 0, 1 << 20, Int.max / 2, 4096]
    let capacity = capacities[reader.choice(capacities.count)]
    let sizes = [0, 1, 100, 4096, Int.max / 2, Int.max / 2 + 1, Int.max]
    let names = ["accept", "x-a", "cookie", "", "bad name", "x-\u{e9}"]
    var records: [(CacheStorageKey, DiskCacheStorage.Record)] = []
    for _ in 0..<reader.choice(48) {
        let url = reader.bool() ? "https://example.com/\(reader.choice(4))" : reader.string(maximumLength: 40)
        let partition = reader.bool() ? "" : reader.string(maximumLength: 8)
        let valueCounts = [0, 1, 2, 256, 257, 300]
        let values = (0..<valueCounts[reader.choice(valueCounts.count)]).map { index in
            CacheVariant.Value(name: index < 2 ? names[reader.choice(names.count)] : "x-\(index)", value: reader.bool() ? nil : "v")
        }
        let key = CacheStorageKey(
            key: CacheKey(url: url, partition: partition), variant: CacheVariant(values: values, matchesNothing: reader.bool()))
        let id = reader.bool() ? UInt64(reader.choice(4)) : reader.uint64()
        let size = reader.bool() ? sizes[reader.choice(sizes.count)] : Int(truncatingIfNeeded: reader.uint64() >> 1)
        records.append((key, DiskCacheStorage.Record(id: id, size: max(0, size))))
    }
    let isClean = reader.bool()
    let index = CacheIndexCoding.encode(records, isClean: isClean)
    checkDecoded(index)
    for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where name != DiskCacheStorage.lockName {
        try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
    }
    guard (try? index.write(to: folder.appendingPathComponent(DiskCacheStorage.indexName))) != nil else { return }
    do {
        let storage = DiskCacheStorage(directory: folder, capacity: capacity)
        check(storage.isActive, "the folder's lock was not released by the last storage")
        check(storage.totalSize >= 0 && storage.totalSize <= capacity, "total size \(storage.totalSize) outside 0...\(capacity)")
        check(storage.count <= records.count, "more entries than records")
        for (key, _) in records.prefix(4) {
            _ = storage.entries(for: key.key)
        }
        storage.flush()
    }
    let written = try? Data(contentsOf: folder.appendingPathComponent(DiskCacheStorage.indexName))
    check(written.map { CacheIndexCoding.decode($0) != nil } ?? true, "the storage wrote an index it cannot read")
}
