import Foundation
import FuzzSupport

// The loopback redirect receiver's request-head parser (`LoopbackRequestHead.parse`) and its
// routing (`LoopbackRoute`): what any local process can send to the port during a sign-in.
//
// Input: the bytes a connection sends, as they arrive.
//
// Invariants: never traps; `tooLarge` only from 8 KiB on, and `incomplete` only below; a
// complete head has a 1-16 character token method and a non-empty visible-ASCII target, and
// stays the same whatever bytes follow it; only a `GET` of exactly `/callback` (before `?`) is
// routed as the redirect, and reading it as the flow does never traps.
@testable import Courier
@testable import CourierOAuth

/// The process's entry point: SwiftPM names it `FuzzLoopbackRequest_main` (see `runLibFuzzer`).
@_cdecl("FuzzLoopbackRequest_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

let flow = try! AuthorizationCodeFlow(
    authorizationEndpoint: URL(string: "https://auth.example/authorize")!,
    tokenEndpoint: OAuth2TokenEndpoint(
        baseURL: try! BaseURL(host: "auth.example"), path: try! URLPath("/token"), clientAuthentication: .publicClient(clientID: "app")),
    redirectURI: URL(string: "http://127.0.0.1:53682/callback")!)

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    let parsed = LoopbackRequestHead.parse(bytes)
    switch parsed {
    case .incomplete:
        check(bytes.count < LoopbackRequestHead.maximumSize, "incomplete at \(bytes.count) bytes")
    case .tooLarge:
        check(bytes.count >= LoopbackRequestHead.maximumSize, "too large at \(bytes.count) bytes")
    case .malformed:
        check(LoopbackRequestHead.parse(bytes + Array("\r\n\r\nGET / HTTP/1.1\r\n\r\n".utf8)) == .malformed, "trailing bytes changed a malformed head")
    case .complete(let head):
        check((1...LoopbackRequestHead.maximumMethodLength).contains(head.method.utf8.count), "method length \(head.method.utf8.count)")
        check(head.method.utf8.allSatisfy(LoopbackRequestHead.isTokenCharacter), "a method that is not a token")
        check(!head.target.isEmpty && head.target.utf8.allSatisfy { (0x21...0x7E).contains($0) }, "a target with invalid bytes")
        check(LoopbackRequestHead.parse(bytes + Array("junk\r\n\r\n".utf8)) == parsed, "trailing bytes changed a complete head")
        let route = LoopbackRoute(head, callbackPath: "/callback")
        if case .redirect(let target) = route {
            check(head.method == "GET", "a redirect by \(head.method)")
            check(target.hasPrefix("/callback") && (target.count == 9 || "?#".contains(target.dropFirst(9).first!)), "a redirect to \(target)")
            if let url = URL(string: "http://127.0.0.1:53682" + target) {
                _ = try? flow.authorizationCode(from: url)
            }
        }
    }
    return 0
}
