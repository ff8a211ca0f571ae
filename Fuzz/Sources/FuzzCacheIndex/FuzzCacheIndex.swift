import Foundation
import FuzzSupport

// A disk cache's index file (`CacheIndexCoding.decode`): the bytes are the file, which a crash
// or anyone who can write to the cache's folder may have damaged.
//
// Invariants: never traps; every accepted record has a non-negative size and a
// file name of the entry form (16 hex digits and `.entry`, made from its id, so an index can
// never name a file outside the folder); accepted indexes encode and decode back to themselves,
// clean flag included.
@testable import Courier

/// The process's entry point: SwiftPM names it `FuzzCacheIndex_main` (see `runLibFuzzer`).
@_cdecl("FuzzCacheIndex_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(fuzzBytes(start, count))
    guard let decoded = CacheIndexCoding.decode(data) else { return 0 }
    let records = decoded.records
    let isClean = decoded.isClean
    for (_, record) in records {
        check(DiskCacheStorage.entryFileID(record.fileName) == record.id, "a file name not of the entry form")
        check(record.size >= 0, "a size out of bounds")
    }
    let again = CacheIndexCoding.decode(CacheIndexCoding.encode(records, isClean: isClean))
    check(again?.records.map(\.0) == records.map(\.0) && again?.records.map(\.1) == records.map(\.1), "the index does not survive encoding")
    check(again?.isClean == isClean, "the clean flag does not survive encoding")
    return 0
}
