// The XML tree parser (`XMLTreeDocument(data:charset:preservingWhitespace:)`) and its writer.
//
// The first byte picks the `Content-Type` charset and whether whitespace is kept; the rest is
// the document. Invariants: never traps (deep nesting included: parsing and freeing a tree must
// not overflow the stack); errors are typed `XMLParsingError`s; a NUL byte in a document served
// as UTF-8, US-ASCII or ISO-8859-1 (no wide byte-order mark) is refused, since XML text has no
// NUL and accepting one means the document was read in another charset than it was checked in;
// a parsed tree can be written, and the written text parses to the same tree.
import CourierXML
import Foundation
import FuzzSupport

/// The process's entry point: SwiftPM names it `FuzzXMLTree_main` (see `runLibFuzzer`).
@_cdecl("FuzzXMLTree_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(start, count))
    let options = reader.byte()
    let charset = fuzzCharsets[Int(options >> 1) % fuzzCharsets.count]
    let preservingWhitespace = options & 1 == 1
    let body = reader.rest()

    let document: XMLTreeDocument
    do {
        document = try XMLTreeDocument(data: Data(body), charset: charset, preservingWhitespace: preservingWhitespace)
    } catch {
        _ = error.description  // typed: XMLParsingError
        return 0
    }
    check(!hasForbiddenNUL(body, charset: charset), "accepted a NUL byte in a document served as \(charset ?? "nil")")

    let written: String
    do {
        written = try document.xmlString()
    } catch {
        check(false, "a parsed document cannot be written: \(error)")
        return 0
    }
    do {
        let reread = try XMLTreeDocument(string: written, preservingWhitespace: preservingWhitespace)
        check(reread.root == document.root, "writing and reading again changed the tree")
        check(reread.declaration?.version == document.declaration?.version, "the version changed")
        check(reread.declaration?.standalone == document.declaration?.standalone, "standalone changed")
    } catch {
        check(false, "the written document does not parse: \(error)")
    }
    _ = try? document.xmlString(.prettyPrinted)
    return 0
}
