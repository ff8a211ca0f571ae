import Foundation
import FuzzSupport
import HTTPTypes

// `Cache-Control` (`CacheControl(lines:)`), and what the cache's rules make of it
// (`CacheStorability.isStorable`, `CacheFreshness.decide`, `mayServeStaleOnError`).
//
// The first byte picks the elapsed time since the response (its value squared, in seconds); the
// rest is split at line feeds into field lines: all but the last are the response's
// `Cache-Control` lines, the last is the request's. Invariants: never traps; every delta-seconds
// value is within 0...2^31; an over-limit field reads as no-store and no-cache and makes the
// response unstorable; an invalid `max-age` never leaves a response fresh; the same lines parse
// the same way twice.
@testable import Courier

/// The process's entry point: SwiftPM names it `FuzzCacheControl_main` (see `runLibFuzzer`).
@_cdecl("FuzzCacheControl_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(start, count))
    let elapsed = TimeInterval(Int(reader.byte()) * Int(reader.byte()))
    let text = String(decoding: reader.rest(), as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let requestLine = lines.popLast() ?? ""

    let control = CacheControl(lines: lines)
    check(control == CacheControl(lines: lines), "parsing is not deterministic")
    for value in [
        control.maxAge, control.maxStale, control.minFresh, control.sharedMaxAge,
        control.staleWhileRevalidate, control.staleIfError,
    ] {
        if let value { check((0...CacheControl.maximumDeltaSeconds).contains(value), "delta-seconds \(value)") }
    }
    if control.isOverLimit { check(control.noStore && control.noCache, "over limit but not conservative") }

    // The rules, on messages that carry these lines (those HTTPTypes accepts as values).
    var responseFields = HTTPFields()
    for line in lines where HTTPField.isValidValue(line) {
        responseFields.append(HTTPField(name: .cacheControl, value: line))
    }
    var requestFields = HTTPFields()
    if HTTPField.isValidValue(requestLine) { requestFields[.cacheControl] = requestLine }
    let request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/", headerFields: requestFields)
    let response = HTTPResponse(status: .ok, headerFields: responseFields)
    let responseControl = CacheControl(responseFields)
    if responseControl.isOverLimit {
        check(!CacheStorability.isStorable(request: request, response: response), "an over-limit response was storable")
    }
    let now = Date(timeIntervalSince1970: 1_000_000_000)
    let entry = CacheEntry(
        key: CacheKey(url: "https://example.com/", partition: ""), variant: .none, response: response, body: Data(),
        requestTime: now, responseTime: now)
    let decision = CacheFreshness.decide(
        entry: entry, requestControl: CacheControl(requestFields), now: now.addingTimeInterval(elapsed),
        allowStaleWhileRevalidate: true)
    if responseControl.maxAge == 0, CacheControl(requestFields).maxStale == nil {
        check(decision != .useStored, "max-age=0 (or invalid) used without max-stale")
    }
    _ = CacheFreshness.mayServeStaleOnError(entry: entry, requestControl: CacheControl(requestFields), now: now)
    return 0
}
