import Foundation
import FuzzSupport

// OAuth2 error responses (`OAuth2Error.lenientlyParsing`, RFC 6749 §5.2), as the token endpoint
// reads them from any 4xx/5xx or a 2xx without an access token.
//
// Invariants: never traps; a parsed error has a non-empty code; the result does not depend on a
// leading UTF-8 byte-order mark; encoding the parsed error as JSON and reading it again gives
// the same error.
@testable import Courier

/// The process's entry point: SwiftPM names it `FuzzOAuth2ErrorBody_main` (see `runLibFuzzer`).
@_cdecl("FuzzOAuth2ErrorBody_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let body = Data(fuzzBytes(start, count))
    let error = OAuth2Error.lenientlyParsing(body)
    if let error {
        check(!error.code.isEmpty, "an empty error code")
        if let encoded = try? JSONEncoder().encode(error) {
            check(OAuth2Error.lenientlyParsing(encoded) == error, "an error does not round-trip through JSON")
        }
        _ = error.description
    }
    if !body.starts(with: [0xEF, 0xBB, 0xBF]) {
        check(OAuth2Error.lenientlyParsing(Data([0xEF, 0xBB, 0xBF]) + body) == error, "a byte-order mark changed the result")
    }
    return 0
}
