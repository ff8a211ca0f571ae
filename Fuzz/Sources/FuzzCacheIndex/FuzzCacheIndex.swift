import Foundation
import FuzzSupport

// A disk cache's index file (`CacheIndexCoding.decode`): the bytes are the file, which a crash
// or anyone who can write to the cache's folder may have damaged.
//
// Invariants: never traps; every accepted record's file name has the entry form (16 hex digits
// and `.entry`, so an index can never name a file outside the folder); accepted records encode
// and decode back to themselves.
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
    guard let records = CacheIndexCoding.decode(data) else { return 0 }
    for (key, record) in records {
        check(DiskCacheStorage.isEntryFileName(record.fileName), "a file name not of the entry form")
        check(!record.fileName.contains("/") && !record.fileName.hasPrefix("."), "a file name that could leave the folder")
        _ = key
        check(record.size >= 0, "a negative size")
    }
    let again = CacheIndexCoding.decode(CacheIndexCoding.encode(records))
    check(again?.map(\.0) == records.map(\.0) && again?.map(\.1) == records.map(\.1), "the index does not survive encoding")
    return 0
}
