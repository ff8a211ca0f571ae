// SOAP decoding (`SOAPBodyDecoder`, `Response.soapFault`, `Response.soapPayload()`).
//
// The first byte picks the `Content-Type` (SOAP 1.1 or 1.2, with a charset or not); the rest is
// the body. Invariants: never traps; the decoder throws only a `SOAPFault`, a `DecodingError`
// or a `CourierError`; when `Response.soapFault` finds a fault, the decoder throws that same
// fault; a fault's description and reason can be read.
import Courier
import CourierXML
import Foundation
import FuzzSupport

private struct PriceResponse: Decodable {
    var Price: Decimal?
    var Currency: String?
    var Items: [String]?
}

/// The process's entry point: SwiftPM names it `FuzzSOAP_main` (see `runLibFuzzer`).
@_cdecl("FuzzSOAP_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(start, count))
    let contentType = [
        "text/xml", "application/soap+xml", "text/xml; charset=utf-8",
        "application/soap+xml; charset=utf-16", "text/xml; charset=iso-8859-1",
    ][reader.choice(5)]
    let body = reader.rest()
    guard let url = URL(string: "https://fuzz.example/StockService") else { return 0 }
    let response = Response(status: .ok, headers: HTTPFields([HTTPField(name: .contentType, value: contentType)]), body: Data(body), url: url)

    let fault = response.soapFault
    if let fault {
        _ = fault.description
        _ = fault.reason
        _ = fault.reason(preferring: "en")
        _ = fault.category
    }
    do {
        _ = try SOAPBodyDecoder().decode(PriceResponse.self, from: response)
        check(fault == nil, "decoded a payload although the response holds a fault")
    } catch let thrown as SOAPFault {
        check(fault == thrown, "the decoder threw another fault than Response.soapFault reads")
    } catch is DecodingError {
        check(fault == nil, "a DecodingError although the response holds a fault")
    } catch is CourierError {
        check(fault == nil, "a CourierError although the response holds a fault")
    } catch {
        check(false, "SOAPBodyDecoder threw \(type(of: error))")
    }
    if let payload = try? response.soapPayload() {
        _ = try? XMLTreeDocument(root: payload, declaration: nil).xmlString()
    }
    return 0
}
