import Foundation
import FuzzSupport
import HTTPTypes

// A download's state file (`.<name>.courier-download.json`), as `DownloadPaths.decodeState` reads
// it: the bytes are the file. Anyone who can write to the destination's folder may have written it.
//
// Invariants: never traps; accepted state has non-negative counts, at most the expected bytes
// received, a validator that is a valid `If-Range` value (visible ASCII, no CR or LF) and a file
// URL; it encodes and decodes back to itself; its description never shows an `access_token`.
@testable import Courier

/// The process's entry point: SwiftPM names it `FuzzDownloadState_main` (see `runLibFuzzer`).
@_cdecl("FuzzDownloadState_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(fuzzBytes(start, count))
    guard let state = DownloadPaths.decodeState(data) else { return 0 }
    check(state.receivedBytes >= 0, "negative received bytes")
    if let expected = state.expectedBytes { check(expected >= state.receivedBytes, "more received than expected") }
    if let validator = state.validator {
        check(!validator.isEmpty && validator.utf8.allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x09 }, "validator \(validator.debugDescription)")
        check(HTTPField.isValidValue(validator), "a validator HTTPTypes refuses: \(validator.debugDescription)")
    }
    check(state.temporaryFile.isFileURL, "a partial file that is not a file URL")
    let encoded = try! JSONEncoder().encode(state)
    check(DownloadPaths.decodeState(encoded) == state, "the state does not survive encoding")
    // A secret query value (here `access_token`'s, when it occurs once in the URL) is redacted.
    let items = URLComponents(url: state.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    for item in items where item.name == "access_token" {
        guard let value = item.value, value.count >= 4, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
            state.url.absoluteString.components(separatedBy: value).count == 2
        else { continue }
        check(!state.description.contains(value), "the description shows access_token's value")
    }
    return 0
}
