import Foundation
import FuzzSupport
import HTTPTypes

// `Content-Range` (`ContentRange.init`) and what a download does with a range answer
// (`RangeDecision.decide`).
//
// Options first: the status (200, 206, 416 or 304), the offset asked for (0 to 2^40), the
// validator (none, a strong ETag, a date), the announced `Content-Length` (none or 0 to 2^40),
// the total recorded for the transfer (none or 0 to 2^40) and the response's `ETag` (none, the
// same, another); the rest is the `Content-Range` value. Invariants: never traps; a parsed range
// has first ≤ last < complete, an unsatisfied form has a complete length; a parsed value written
// back as `bytes first-last/complete` parses to itself; a download writes after the bytes on
// disk only for a 206 that starts exactly there, runs to the end, agrees with the recorded total
// and the announced length, and names the same version; `.complete` only for a 416 naming
// exactly the size on disk.
@testable import Courier

/// The process's entry point: SwiftPM names it `FuzzContentRange_main` (see `runLibFuzzer`).
@_cdecl("FuzzContentRange_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// An optional length from the reader: `nil` or 0 to 2^40.
private func length(_ reader: inout FuzzReader) -> Int64? {
    reader.bool() ? Int64(reader.uint64() % (1 << 40)) : nil
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(start, count))
    let status = [200, 206, 416, 304][reader.choice(4)]
    let offset = Int64(reader.uint64() % (1 << 40))
    let validator = [nil, "\"v1\"", "Tue, 15 Nov 1994 08:12:31 GMT"][reader.choice(3)]
    let announced = length(&reader)
    let recorded = length(&reader)
    let eTag = [nil, "\"v1\"", "\"v2\""][reader.choice(3)]
    let value = String(decoding: reader.rest(), as: UTF8.self)

    let parsed = ContentRange(value)
    if let parsed {
        if let range = parsed.range {
            check(range.lowerBound >= 0 && range.lowerBound <= range.upperBound, "range \(range)")
            if let complete = parsed.complete { check(range.upperBound < complete, "\(range) past \(complete)") }
            let written = "bytes \(range.lowerBound)-\(range.upperBound)/\(parsed.complete.map(String.init) ?? "*")"
            check(ContentRange(written) == parsed, "\(written) does not read back as \(parsed)")
        } else {
            check(parsed.complete != nil, "an unsatisfied range without a complete length")
            check(ContentRange("bytes */\(parsed.complete!)") == parsed, "bytes */n does not read back")
        }
        check(parsed.complete.map { $0 >= 0 } ?? true, "a negative complete length")
    }

    var headers = HTTPFields()
    headers[.contentRange] = value.isEmpty ? nil : value
    if let eTag { headers[.eTag] = eTag }
    let decision = RangeDecision.decide(
        status: status, headers: headers, requestedOffset: offset, validator: validator, expectedLength: announced, recordedTotal: recorded)
    // What the decision read: HTTPTypes stores a value with control characters made into spaces.
    let seen = headers[.contentRange].flatMap(ContentRange.init)
    switch decision {
    case .write(let start, let total):
        if status == 206 {
            let range = seen?.range
            check(offset > 0 && start == offset, "a 206 written at \(start), asked at \(offset)")
            check(range?.lowerBound == offset, "a 206 written whose range does not start where asked")
            check(total == range.map { $0.upperBound + 1 }, "a 206 written whose total is not its end")
            check(recorded == nil || total == recorded, "a 206 ending at \(String(describing: total)) taken for a transfer of \(recorded!)")
            check(announced == nil || announced == range.map { $0.upperBound - $0.lowerBound + 1 }, "a 206 whose length differs from its range")
            check(!(validator == "\"v1\"" && eTag == "\"v2\""), "a 206 of another version written")
        } else {
            check(start == 0, "a \(status) written after \(start) bytes")
            check(total == announced, "a \(status) whose total is not its announced length")
        }
    case .complete:
        check(status == 416 && offset > 0, "complete without a 416")
        check(seen?.range == nil && seen?.complete == offset, "a 416 taken as complete for another size")
        check(recorded == nil || recorded == offset, "a 416 taken as complete against the recorded total")
    case .restart(let reason):
        check(!reason.isEmpty, "a restart without a reason")
    }
    return 0
}
