import Foundation
import FuzzSupport

// RFC 9457 problem details (`Response.problemDetails`, `ProblemDetails(json:)`, `extensions(as:)`).
//
// Invariants: never traps; only an `application/problem+json` response has problem details
// (with any parameters and in any case of the media type); the parsed value keeps the whole body,
// has a non-nil `type` ("about:blank" when absent) and agrees with `ProblemDetails(json:)`;
// decoding extensions either succeeds or throws a `CourierError` (typed throws) without trapping.
@testable import Courier

private struct Extensions: Decodable {
    var balance: Int?
    var accounts: [String]?
    var nested: [String: Double]?
}

/// The process's entry point: SwiftPM names it `FuzzProblemDetails_main` (see `runLibFuzzer`).
@_cdecl("FuzzProblemDetails_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(start, count))
    let contentType = [
        "application/problem+json", "Application/Problem+JSON; charset=utf-8",
        "application/json", "text/plain",
    ][reader.choice(4)]
    let body = Data(reader.rest())
    guard let url = URL(string: "https://fuzz.example/transfer") else { return 0 }
    let response = Response(statusCode: 400, headers: ["Content-Type": contentType], body: body, url: url)

    let problem = response.problemDetails
    if !contentType.lowercased().hasPrefix("application/problem+json") {
        check(problem == nil, "problem details from \(contentType)")
    }
    check(problem == nil || problem == ProblemDetails(json: body), "Response and ProblemDetails(json:) disagree")
    if let problem = ProblemDetails(json: body) {
        check(problem.body == body, "the body was not kept")
        _ = try? problem.extensions(as: Extensions.self)
        _ = try? problem.extensions(as: [String: String].self)
        _ = problem.type.count + (problem.title?.count ?? 0) + (problem.detail?.count ?? 0)
    }
    return 0
}
