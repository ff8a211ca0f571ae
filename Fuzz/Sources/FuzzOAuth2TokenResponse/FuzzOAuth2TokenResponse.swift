import Foundation
import FuzzSupport

// OAuth2 token responses (`OAuth2TokenResponse.parse`, RFC 6749 §5.1).
//
// Invariants: never traps; a parsed response can go into an `Authorization` header (a non-empty
// access token without control characters, a token type that is an RFC 9110 token) and has a
// finite, non-negative `expires_in`, a non-empty refresh token and scope when present; a failure
// names a field and a problem from a fixed list, so a token value can never be quoted in it.
@testable import Courier

/// Every reason `OAuth2TokenResponse.parse` may give. A reason not listed here would be new text,
/// and could quote a value from the body: add it here only after checking that it does not.
private let knownReasons: Set<String> = {
    var reasons: Set<String> = [
        "the body is empty", "the body is not a JSON object", "the body is not valid JSON (or is truncated)",
        "access_token contains control characters, which cannot be sent in a header",
        "token_type is not a valid authentication scheme (an RFC 9110 token)",
        "scope is neither a string nor an array of strings",
    ]
    for key in ["access_token", "token_type", "refresh_token", "expires_in", "scope"] {
        for problem in ["is missing", "is not a string", "is empty", "is not a number", "is not a finite number", "is negative"] {
            reasons.insert("\(key) \(problem)")
        }
    }
    return reasons
}()

/// The process's entry point: SwiftPM names it `FuzzOAuth2TokenResponse_main` (see `runLibFuzzer`).
@_cdecl("FuzzOAuth2TokenResponse_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let body = Data(fuzzBytes(start, count))
    switch OAuth2TokenResponse.parse(body) {
    case .success(let response):
        check(!response.accessToken.isEmpty && HeaderItem.isValidValue(response.accessToken), "a bad access token")
        check(HTTPToken.isValid(response.tokenType), "a bad token type")
        check(response.refreshToken.map { !$0.isEmpty } ?? true, "an empty refresh token")
        check(response.scope.map { !$0.isEmpty } ?? true, "an empty scope")
        if let expiresIn = response.expiresIn {
            check(expiresIn.isFinite && expiresIn >= 0, "expires_in \(expiresIn)")
        }
    case .failure(let malformed):
        check(knownReasons.contains(malformed.reason), "an unexpected reason: \(malformed.reason.debugDescription)")
    }
    return 0
}
