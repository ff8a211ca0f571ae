import Foundation
import FuzzSupport

// A disk cache's entry file (`CacheEntryCoding.decode`): the bytes are the file, which a crash,
// a full disk or anyone who can write to the cache's folder may have damaged.
//
// Two kinds of input, told apart by the first byte (`builtMarker`, 0xFB, for a built one): raw bytes decoded as an entry
// file, or an entry built from the bytes (any status, reason, fields, Vary values and body,
// most of them past the decoder's limits) and written as the disk cache writes it.
//
// Invariants: never traps; an accepted entry has a status in 200...599 and finite times; it
// encodes and decodes back to itself; a truncated copy of its encoding is refused; an entry
// `encodeIfReadable` writes is read back as itself (the cache never stores what it would then
// refuse).
@testable import Courier

/// The first byte of an input that describes what to build rather than the file itself.
private let builtMarker: UInt8 = 0xFB

/// The process's entry point: SwiftPM names it `FuzzCacheEntry_main` (see `runLibFuzzer`).
@_cdecl("FuzzCacheEntry_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    if bytes.first == builtMarker {
        var reader = FuzzReader(Array(bytes.dropFirst()))
        let entry = builtEntry(&reader)
        if let data = CacheEntryCoding.encodeIfReadable(entry) {
            check(CacheEntryCoding.decode(data) == entry, "an entry encodeIfReadable wrote does not read back")
        }
        return 0
    }
    let data = Data(bytes)
    guard let entry = CacheEntryCoding.decode(data) else { return 0 }
    check((200...599).contains(entry.response.status.code), "status \(entry.response.status.code)")
    check(entry.requestTime.timeIntervalSinceReferenceDate.isFinite && entry.responseTime.timeIntervalSinceReferenceDate.isFinite, "a time that is not finite")
    let encoded = CacheEntryCoding.encode(entry)
    check(CacheEntryCoding.decode(encoded) == entry, "the entry does not survive encoding")
    check(CacheEntryCoding.decode(encoded.dropLast()) == nil, "a truncated entry was accepted")
    return 0
}

/// An entry from `reader`: any status and reason, up to 300 fields and `Vary` values (some
/// strings far past the decoder's limits), a body of what is left.
private func builtEntry(_ reader: inout FuzzReader) -> CacheEntry {
    let codes = [100, 199, 200, 304, 599, 600, 999]
    let code = reader.bool() ? codes[reader.choice(codes.count)] : reader.choice(250) * 4
    let reason = reader.bool() ? "OK" : reader.string(maximumLength: 20)
    var fields = HTTPFields()
    let counts = [0, 1, 3, 256, 257, 300]
    // At most one value past the decoder's string limit: more would only make the input slow.
    let longAt = reader.choice(16) == 0 ? 0 : -1
    for index in 0..<counts[reader.choice(counts.count)] {
        let name = HTTPField.Name(reader.bool() ? "x-f\(index)" : reader.string(maximumLength: 12)) ?? .contentType
        let value = index == longAt ? String(repeating: "v", count: (1 << 20) + 1) : reader.string(maximumLength: 12)
        fields.append(HTTPField(name: name, value: value))
    }
    let values = (0..<counts[reader.choice(counts.count)]).map { index in
        CacheVariant.Value(name: "x-v\(index)", value: reader.bool() ? nil : reader.string(maximumLength: 8))
    }
    let url = reader.choice(32) == 0 ? "https://example.com/" + String(repeating: "a", count: 1 << 20) : "https://example.com/a"
    let time = Date(timeIntervalSinceReferenceDate: Double(reader.choice(1000)))
    return CacheEntry(
        key: CacheKey(url: url, partition: reader.bool() ? "" : reader.string(maximumLength: 8)),
        variant: CacheVariant(values: values, matchesNothing: reader.bool()),
        response: HTTPResponse(status: .init(code: code, reasonPhrase: reason), headerFields: fields),
        body: Data(reader.rest()), requestTime: time, responseTime: time)
}
