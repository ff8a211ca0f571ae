import Foundation
import FuzzSupport

// Authorization responses (`AuthorizationCodeFlow.authorizationCode(from:)`, RFC 6749 §4.1.2,
// RFC 9207): the redirect URL a browser, or any local process, hands the flow.
//
// Input: an options byte (bit 0: the flow expects an issuer; bit 1: it requires `iss`; bit 2:
// the redirect URI is a private-use scheme instead of a loopback URL), then the redirect URL as
// UTF-8 text.
//
// Invariants: never traps; a failure is `.authentication(.authorizationFailed(_))` with one of
// stateMismatch, denied (non-empty error code), issuerMismatch (naming the expected issuer) or
// malformedResponse, and a stateMismatch or malformedResponse never quotes the expected state; a code is returned
// only for a URL of at most 8 KiB that goes to the redirect URI, carries the expected state
// exactly once, and has no `error`; the result depends only on the query, never on a fragment.
@testable import Courier
@testable import CourierOAuth

/// The process's entry point: SwiftPM names it `FuzzAuthorizationResponse_main` (see `runLibFuzzer`).
@_cdecl("FuzzAuthorizationResponse_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

let expectedState = "fuzzSTATE-0123456789abcdef"
let expectedIssuer = "https://issuer.example"
let tokenEndpoint = OAuth2TokenEndpoint(
    baseURL: try! BaseURL(host: "auth.example"), path: try! URLPath("/token"), clientAuthentication: .publicClient(clientID: "app"))

func makeFlow(_ options: UInt8) -> AuthorizationCodeFlow {
    let redirectURI = URL(string: options & 4 == 0 ? "http://127.0.0.1:53682/callback" : "com.example.app:/callback")!
    return try! AuthorizationCodeFlow(
        authorizationEndpoint: URL(string: "https://auth.example/authorize")!, tokenEndpoint: tokenEndpoint, redirectURI: redirectURI,
        scope: nil, additionalParameters: [], issuer: options & 1 == 0 ? nil : expectedIssuer,
        requiresIssuer: options & 3 == 3, codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", state: expectedState)
}

let flows = (0..<8).map { makeFlow(UInt8($0)) }

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    guard let options = bytes.first else { return 0 }
    let flow = flows[Int(options & 7)]
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    _ = try? AuthorizationResponse.parseQuery(text)
    guard let url = URL(string: text) else { return 0 }
    let result = Result { () throws(CourierError) in try flow.authorizationCode(from: url) }
    switch result {
    case .success(let code):
        check(!code.isEmpty, "an empty code")
        check(url.absoluteString.utf8.count <= 8192, "a code from an oversized redirect")
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let query = components?.percentEncodedQuery ?? ""
        let pairs = (try? AuthorizationResponse.parseQuery(query)) ?? []
        check(pairs.filter { $0.name == "state" }.map(\.value) == [expectedState], "a code without exactly the expected state")
        check(!pairs.contains { $0.name == "error" }, "a code from an error response")
        if flow.requiresIssuer {
            check(pairs.filter { $0.name == "iss" }.map(\.value) == [expectedIssuer], "a code without the required issuer")
        }
    case .failure(let error):
        guard case .authentication(.authorizationFailed(let failure)) = error else {
            check(false, "an unexpected error: \(error)")
            return 0
        }
        switch failure {
        case .stateMismatch, .malformedResponse: break
        case .denied(let oauth2Error): check(!oauth2Error.code.isEmpty, "a denial with an empty code")
        case .issuerMismatch(let expected, _): check(expected == expectedIssuer && flow.issuer != nil, "an issuer mismatch without an issuer")
        case .expired, .timedOut, .unavailable: check(false, "a failure the response cannot cause: \(failure)")
        @unknown default: check(false, "a failure this target does not know: \(failure)")
        }
        switch failure {
        case .stateMismatch, .malformedResponse: check(!"\(error)".contains(expectedState), "a failure quoting the state")
        default: break
        }
    }
    // A fragment never changes the outcome.
    if !text.contains("#"), let withFragment = URL(string: text + "#code=x&state=\(expectedState)"), withFragment.absoluteString.utf8.count <= 8192 {
        let again = Result { () throws(CourierError) in try flow.authorizationCode(from: withFragment) }
        switch (result, again) {
        case (.success(let first), .success(let second)): check(first == second, "a fragment changed the code")
        case (.failure, .failure): break
        default: check(false, "a fragment changed the outcome")
        }
    }
    return 0
}
