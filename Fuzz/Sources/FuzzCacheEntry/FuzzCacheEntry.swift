import Foundation
import FuzzSupport

// A disk cache's entry file (`CacheEntryCoding.decode`): the bytes are the file, which a crash,
// a full disk or anyone who can write to the cache's folder may have damaged.
//
// Invariants: never traps; an accepted entry has a status in 200...599 and finite times; it
// encodes and decodes back to itself; a truncated copy of its encoding is refused.
@testable import Courier

/// The process's entry point: SwiftPM names it `FuzzCacheEntry_main` (see `runLibFuzzer`).
@_cdecl("FuzzCacheEntry_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(fuzzBytes(start, count))
    guard let entry = CacheEntryCoding.decode(data) else { return 0 }
    check((200...599).contains(entry.response.status.code), "status \(entry.response.status.code)")
    check(entry.requestTime.timeIntervalSinceReferenceDate.isFinite && entry.responseTime.timeIntervalSinceReferenceDate.isFinite, "a time that is not finite")
    let encoded = CacheEntryCoding.encode(entry)
    check(CacheEntryCoding.decode(encoded) == entry, "the entry does not survive encoding")
    check(CacheEntryCoding.decode(encoded.dropLast()) == nil, "a truncated entry was accepted")
    return 0
}
