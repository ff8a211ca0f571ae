import Foundation
import FuzzSupport

// OAuth2 error responses (`OAuth2Error.lenientlyParsing`, RFC 6749 §5.2), as the token endpoint
// reads them from any 4xx/5xx or a 2xx without an access token.
//
// Invariants: never traps; a parsed error has a non-empty code; the result does not depend on a
// leading UTF-8 byte-order mark; encoding the parsed error as JSON and reading it again gives
// the same error; its description is one line of bounded length with no control or bidi
// character; read with a secret (the body's own first word), the description never shows it.
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
        let description = error.description
        check(description.utf8.count <= 8 * (128 + 512) + 16, "an unbounded description")
        check(
            !description.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value) },
            "a control or bidi character in the description")
    }
    // A word the server echoes back, taken as a secret the request sent.
    if let text = String(data: body, encoding: .utf8) {
        let word = text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).first { $0.utf8.count >= 4 }
        if let word, let scrubbed = OAuth2Error.lenientlyParsing(body, secrets: [String(word)]) {
            let bytes = Array(scrubbed.description.utf8)
            let secret = Array(word.utf8)
            check(!bytes.indices.contains { bytes[$0...].starts(with: secret) }, "a secret the request sent is shown")
        }
    }
    if !body.starts(with: [0xEF, 0xBB, 0xBF]) {
        check(OAuth2Error.lenientlyParsing(Data([0xEF, 0xBB, 0xBF]) + body) == error, "a byte-order mark changed the result")
    }
    return 0
}
