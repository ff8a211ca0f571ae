import Foundation
import FuzzSupport

// `Retry-After` (`RetryAfter(parsing:receivedAt:)` and `delay(from:)`).
//
// The first 8 bytes choose "now" (any second from 1900 to 9999, so the RFC 850 two-digit-year
// window meets every century); the rest is the field value. Invariants: never traps; `.seconds` only for an all-digit value, equal to its
// decimal number or saturated at UInt64.max; reading the same value with spaces and tabs
// around it gives the same result; a delay is never negative; a parsed date is a whole second.
@testable import Courier

/// The process's entry point: SwiftPM names it `FuzzRetryAfter_main` (see `runLibFuzzer`).
@_cdecl("FuzzRetryAfter_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(start, count))
    // A clock anywhere from 1900 to 9999. (A clock before year 0 makes `HTTPDate.fullYear` pick
    // a year outside the RFC 850 window, because `%` of a negative year is negative; no clock
    // says that, so the target does not ask.)
    let earliest: Int64 = -2_208_988_800, latest: Int64 = 253_402_300_799
    let nowSeconds = earliest + Int64(reader.uint64() % UInt64(latest - earliest + 1))
    let now = Date(timeIntervalSince1970: TimeInterval(nowSeconds))
    let value = String(decoding: reader.rest(), as: UTF8.self)

    let parsed = RetryAfter(parsing: value, receivedAt: now)
    let trimmed = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
    switch parsed {
    case .seconds(let seconds)?:
        check(
            !trimmed.isEmpty && trimmed.utf8.allSatisfy { (0x30...0x39).contains($0) },
            "seconds from a value that is not all digits")
        if let exact = UInt64(trimmed) {
            check(seconds == exact, "\(trimmed) read as \(seconds)")
        } else {
            check(seconds == .max, "an overflowing number did not saturate")
        }
        check(parsed == RetryAfter(parsing: String(seconds), receivedAt: now), "seconds do not round-trip")
    case .date(let date)?:
        check(date.timeIntervalSince1970.isFinite, "a non-finite date")
        check(date.timeIntervalSince1970.rounded(.towardZero) == date.timeIntervalSince1970, "a fractional date")
    case nil:
        break
    }
    check(RetryAfter(parsing: " \t\(value)\t ", receivedAt: now) == parsed, "surrounding whitespace changed the result")
    if let parsed {
        for reference in [now, Date(timeIntervalSince1970: 0), .distantPast, .distantFuture] {
            check(parsed.delay(from: reference) >= .zero, "a negative delay")
        }
    }
    // The two-digit-year window on its own, for every year of the clock.
    let year = HTTPDate.fullYear(Int(nowSeconds.magnitude % 100), near: now)
    let nowYear = HTTPDate.year(of: now)
    check(year > nowYear - 50 && year <= nowYear + 50, "year \(year) outside the window around \(nowYear)")
    return 0
}
