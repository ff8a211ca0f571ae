import Foundation
import FuzzSupport

// What the loopback redirect receiver does with a callback's request target and query: the
// request any local process can send to `GET /callback?…` during a sign-in.
//
// Input: the bytes after `GET /callback` up to the end of the request line (a query, a longer
// path, anything), sent as a whole request head. The head is parsed and routed as the receiver
// does (`LoopbackRequestHead.parse`, `LoopbackRoute`); a redirect's target becomes the URL the
// receiver builds, which goes to the sign-in flow's decision (`handleLoopbackRedirect`) and to
// `waitForRedirect`'s (`LoopbackRedirectReceiver.handle`), with and without an expected state.
//
// Invariants: never traps; the flow ends the wait (a code, or the error of a redirect it must
// report) only for a query with exactly one `state`, equal to the flow's, and a code only
// without `error`; anything else is `rejected` (the failure page, the wait goes on), never
// `failure`; `waitForRedirect` with a state ends only for exactly that one `state` and a
// `code` or an `error`, gives the success page only for a `code` without `error`, and agrees
// with the same decision without a state whenever it does not reject.
@testable import Courier
@testable import CourierOAuth

/// The process's entry point: SwiftPM names it `FuzzLoopbackCallback_main` (see `runLibFuzzer`).
@_cdecl("FuzzLoopbackCallback_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

let expectedState = "fuzzSTATE-0123456789abcdef"
let flow = try! AuthorizationCodeFlow(
    authorizationEndpoint: URL(string: "https://auth.example/authorize")!,
    tokenEndpoint: OAuth2TokenEndpoint(
        baseURL: try! BaseURL(host: "auth.example"), path: try! URLPath("/token"), clientAuthentication: .publicClient(clientID: "app")),
    redirectURI: URL(string: "http://127.0.0.1:53682/callback")!, scope: nil, additionalParameters: [], issuer: nil,
    requiresIssuer: false, codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", state: expectedState)

/// The query's `state` values, read as the flow reads the query (nil when it cannot be read).
func states(_ url: URL) -> [String]? {
    guard let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery else { return [] }
    return (try? AuthorizationResponse.parseQuery(query))?.filter { $0.name == "state" }.map(\.value)
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let rest = fuzzBytes(start, count)
    let head = Array("GET /callback".utf8) + rest + Array(" HTTP/1.1\r\nHost: 127.0.0.1:53682\r\n\r\n".utf8)
    guard case .complete(let parsed) = LoopbackRequestHead.parse(head),
        case .redirect(let target) = LoopbackRoute(parsed, callbackPath: "/callback")
    else { return 0 }
    // The receiver rejects a target that makes no URL, before any decision.
    guard let url = URL(string: "http://127.0.0.1:53682" + target) else { return 0 }

    let found = states(url)
    let carriesOurState = found == [expectedState]
    switch flow.handleLoopbackRedirect(url) {
    case .success(let code):
        check(!code.isEmpty, "an empty code")
        check(carriesOurState, "a code from a redirect without exactly the flow's state")
    case .error:
        check(carriesOurState, "a redirect without the flow's state ended the sign-in")
    case .rejected:
        check(!carriesOurState, "a redirect with the flow's state was rejected")
    case .failure:
        check(false, "the flow never answers failure")
    }

    let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    let names = items.map(\.name)
    let answers = names.contains("code") || names.contains("error")
    let withState = LoopbackRedirectReceiver.handle(url, state: expectedState)
    let withoutState = LoopbackRedirectReceiver.handle(url, state: nil)
    switch withoutState {
    case .rejected: check(!answers, "a callback with a code or an error was rejected")
    case .success: check(names.contains("code") && !names.contains("error"), "the success page without a code, or with an error")
    case .failure: check(answers && (names.contains("error") || !names.contains("code")), "the failure page for a code")
    case .error: check(false, "waitForRedirect never answers an error")
    }
    switch withState {
    case .rejected:
        break
    case .success, .failure:
        let given = items.filter { $0.name == "state" }.map(\.value)
        check(given == [expectedState], "waitForRedirect ended for another state")
        check("\(withState)" == "\(withoutState)", "the state changed the decision, not only whether to reject")
    case .error:
        check(false, "waitForRedirect never answers an error")
    }
    return 0
}
