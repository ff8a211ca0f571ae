import Foundation
import FuzzSupport

// `Set-Cookie` (`SetCookie.values(in:)`, `SetCookie(parsing:now:)`, `SetCookie.cookieDate`), as
// URLSessionTransport's cookie jar reads what a server sends.
//
// The first 8 bytes choose "now"; the rest is the field value (several joined with ", ", as
// URLSession folds them). Invariants: never traps; the split loses nothing (its pieces joined with
// "," are the input); a parsed cookie has a non-empty name, no control character in its name or
// value, at most 4096 bytes of both, a lower-cased domain without a leading or trailing dot, a
// path that starts with "/"; at most the per-response bound is read; a cookie date is a whole
// second from 1601 on; parsing is deterministic.
@testable import Courier

/// The process's entry point: SwiftPM names it `FuzzSetCookie_main` (see `runLibFuzzer`).
@_cdecl("FuzzSetCookie_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(start, count))
    let now = Date(timeIntervalSince1970: TimeInterval(reader.uint64() % 8_000_000_000))
    let folded = String(decoding: reader.rest(), as: UTF8.self)
    let values = SetCookie.values(in: folded)
    check(values.map(String.init).joined(separator: ",") == folded, "splitting lost or added bytes")
    for value in values.prefix(SetCookie.maximumPerResponse) {
        guard let cookie = SetCookie(parsing: value, now: now) else { continue }
        check(!cookie.name.isEmpty, "an empty name")
        check(cookie.name.utf8.count + cookie.value.utf8.count <= SetCookie.maximumNameAndValueSize, "too long")
        for text in [cookie.name, cookie.value] {
            check(!text.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }, "a control character in \(text.debugDescription)")
        }
        if let domain = cookie.domain {
            check(!domain.isEmpty && !domain.hasPrefix(".") && !domain.hasSuffix(".") && domain == domain.lowercased(), "domain \(domain)")
        }
        if let path = cookie.path { check(path.hasPrefix("/"), "path \(path)") }
        check(SetCookie(parsing: value, now: now) == cookie, "parsing is not deterministic")
        let date = SetCookie.cookieDate(value)
        if let date {
            check(date.timeIntervalSince1970.rounded(.towardZero) == date.timeIntervalSince1970, "a fractional date")
            check(date.timeIntervalSince1970 >= -11_644_473_600, "a date before 1601")
        }
    }
    return 0
}
