import Foundation
import FuzzSupport

// `ServerSentEventParser` (the `text/event-stream` parser behind `Call.events()`), fed a stream
// split at random points.
//
// Byte 0 chooses the line limit and byte 1 the event data limit (small ones, so that the limits
// are reached; or the defaults); bytes 2–9 seed the random split points; the rest is the stream.
// Invariants: never traps; whole, byte-by-byte and randomly split feeding give the same events and
// the same failure; a failure is a `responseTooLarge` transport failure, and happens only when a
// limit can have been passed (a line longer than the line limit, or more bytes in all than the
// data limit); a failed parser stays failed; each event's type is non-empty, its ID has no NUL,
// and its fields hold no more scalars than their limits allow (each byte decodes to at most one
// scalar; the default type "message" is not read from a line).
@testable import Courier

/// The process's entry point: SwiftPM names it `FuzzServerSentEvents_main` (see `runLibFuzzer`).
@_cdecl("FuzzServerSentEvents_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// The small limits, then the parser's defaults (1 MiB and 8 MiB).
let lineLimits = [1, 4, 16, 64, 1 << 20]
let eventLimits = [1, 4, 16, 64, 8 << 20]

/// What feeding a stream gave: the events, in order, and whether the parser failed.
struct Outcome: Equatable {
    var events: [ServerSentEvent] = []
    var failed = false
}

/// Feeds `stream` cut at `splits` (ascending offsets), then finishes.
func feed(_ stream: [UInt8], splits: [Int], lineLimit: Int, eventLimit: Int) -> Outcome {
    var parser = ServerSentEventParser(maximumLineLength: lineLimit, maximumEventSize: eventLimit)
    var outcome = Outcome()
    var start = 0
    for end in splits + [stream.count] where end >= start {
        do {
            try parser.parse(Data(stream[start..<end]), into: &outcome.events)
        } catch {
            guard case .transport(let failure) = error, failure.kind == .responseTooLarge else {
                check(false, "not a responseTooLarge failure: \(error)")
                return outcome
            }
            var more: [ServerSentEvent] = []
            check((try? parser.parse(Data("data: x\n\n".utf8), into: &more)) == nil, "a failed parser parsed again")
            check(more.isEmpty, "a failed parser dispatched")
            outcome.failed = true
            return outcome
        }
        start = end
    }
    parser.finish()
    return outcome
}

/// The longest line of `stream`, however it ends (CR, LF, CRLF or the end of the stream).
func longestLine(_ stream: [UInt8]) -> Int {
    var longest = 0, current = 0
    for byte in stream {
        if byte == 0x0A || byte == 0x0D {
            current = 0
        } else {
            current += 1
            longest = max(longest, current)
        }
    }
    return longest
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(start, count))
    let lineLimit = lineLimits[reader.choice(lineLimits.count)]
    let eventLimit = eventLimits[reader.choice(eventLimits.count)]
    var seed = reader.uint64()
    let stream = reader.rest()

    let whole = feed(stream, splits: [], lineLimit: lineLimit, eventLimit: eventLimit)
    let byteByByte = feed(stream, splits: Array(0..<stream.count), lineLimit: lineLimit, eventLimit: eventLimit)
    var splits: [Int] = []
    var offset = 0
    while offset < stream.count {
        // SplitMix64: reproducible from the input.
        seed &+= 0x9E37_79B9_7F4A_7C15
        var z = seed
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        offset += Int((z ^ (z >> 31)) % 8)
        splits.append(Swift.min(offset, stream.count))
    }
    let random = feed(stream, splits: splits, lineLimit: lineLimit, eventLimit: eventLimit)
    check(byteByByte == whole, "byte by byte: \(byteByByte) whole: \(whole)")
    check(random == whole, "split at \(splits): \(random) whole: \(whole)")

    if longestLine(stream) <= lineLimit && stream.count <= eventLimit {
        check(!whole.failed, "failed within both limits")
    }
    for event in whole.events {
        check(!event.type.isEmpty, "an empty type")
        check(event.type == "message" || event.type.unicodeScalars.count <= lineLimit, "a type longer than a line")
        check(event.data.unicodeScalars.count < eventLimit, "data past the event limit")
        check(!(event.id?.unicodeScalars.contains("\0") ?? false), "an ID with NUL")
        check(event.id?.isEmpty != true, "an empty ID instead of nil")
        check(event.id.map { $0.unicodeScalars.count <= lineLimit } ?? true, "an ID longer than a line")
    }
    return 0
}
