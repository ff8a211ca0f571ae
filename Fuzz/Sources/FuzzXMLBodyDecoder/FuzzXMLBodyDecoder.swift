// XML response decoding (`XMLBodyDecoder` into a small `Decodable`, `Response.xmlDocument()`).
//
// The first byte picks the `Content-Type` charset; the rest is the body. Invariants: never traps
// (XMLCoder recursing into a deep document included); every error is a `CourierError` or a
// `DecodingError`; a NUL byte in a body served as UTF-8, US-ASCII or ISO-8859-1 (no wide
// byte-order mark) is refused; a body the decoder accepts is also a well-formed tree.
import Courier
import CourierXML
import Foundation
import FuzzSupport

private struct Catalog: Decodable {
    struct Book: Decodable {
        var id: String?
        var title: String?
        var price: Double?
        var tags: [String]?
    }
    var name: String?
    var count: Int?
    var active: Bool?
    var book: [Book]?
    var meta: [String: String]?
}

/// The process's entry point: SwiftPM names it `FuzzXMLBodyDecoder_main` (see `runLibFuzzer`).
@_cdecl("FuzzXMLBodyDecoder_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(start, count))
    let charset = fuzzCharsets[reader.choice(fuzzCharsets.count)]
    let body = reader.rest()
    guard let url = URL(string: "https://fuzz.example/catalog") else { return 0 }
    let contentType = "application/xml" + (charset.map { "; charset=\($0)" } ?? "")
    let response = Response(status: .ok, headers: HTTPFields([HTTPField(name: .contentType, value: contentType)]), body: Data(body), url: url)

    var decoded = false
    do {
        _ = try XMLBodyDecoder().decode(Catalog.self, from: response)
        decoded = true
    } catch is DecodingError {
    } catch is CourierError {
    } catch {
        check(false, "XMLBodyDecoder threw \(type(of: error)), neither a CourierError nor a DecodingError")
    }
    _ = try? XMLBodyDecoder().decode([String: String].self, from: response)
    if decoded {
        check(!hasForbiddenNUL(body, charset: charset), "decoded a NUL byte in a body served as \(charset ?? "nil")")
        check((try? response.xmlDocument()) != nil, "decoded a body that is not a well-formed tree")
    }
    return 0
}
