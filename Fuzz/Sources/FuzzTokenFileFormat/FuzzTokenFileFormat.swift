import Foundation
import FuzzSupport

// The encrypted token file's layout (`TokenFileFormat.parse`), before any cryptography.
//
// Invariants: never traps; a parsed file is exactly its header followed by its sealed box; the
// header is the one `header(for:)` writes for the derivation read (so the additional data
// authenticated is what was parsed); the box holds at least a nonce and a tag; a file over the
// size limit is never handed to parse by the store, but parse must survive it too.
@testable import Courier

/// The process's entry point: SwiftPM names it `FuzzTokenFileFormat_main` (see `runLibFuzzer`).
@_cdecl("FuzzTokenFileFormat_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    do {
        let file = try TokenFileFormat.parse(Data(bytes))
        check(file.header + file.sealedBox == bytes, "header and box are not the file")
        check(file.header == TokenFileFormat.header(for: file.derivation), "the header does not match its derivation")
        check(file.sealedBox.count >= TokenFileFormat.sealedBoxOverhead, "a box shorter than nonce and tag")
        check(bytes.starts(with: TokenFileFormat.magic) && bytes[4] == TokenFileFormat.version, "bad magic or version accepted")
    } catch {
        // Typed throws: `error` is a TokenStoreError. Its description must not trap either.
        _ = error.description
        switch error {
        case .corrupted, .unsupportedVersion:
            break
        default:
            check(false, "parse threw \(error), which is not about the file's layout")
        }
    }
    return 0
}
