import Foundation
import FuzzSupport
import HTTPTypes

// WWW-Authenticate challenges (`AuthenticationChallenge.parse`, `Response.authenticationChallenges`).
//
// Invariants: never traps; at most `maximumChallenges` challenges of at most
// `maximumParameters` unique, lower-case, valid-token parameters; a field longer than
// `maximumFieldLength` gives nothing; every result written back as a field value reads as itself
// (alone and all together); a token68 never appears in a description.
@testable import Courier

/// The process's entry point: SwiftPM names it `FuzzWWWAuthenticate_main` (see `runLibFuzzer`).
@_cdecl("FuzzWWWAuthenticate_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    let field = String(decoding: bytes, as: UTF8.self)
    let challenges = AuthenticationChallenge.parse(field)

    check(challenges.count <= AuthenticationChallenge.maximumChallenges, "\(challenges.count) challenges")
    if field.utf8.count > AuthenticationChallenge.maximumFieldLength {
        check(challenges.isEmpty, "an over-long field was read")
    }
    for challenge in challenges {
        check(isToken(challenge.scheme), "the scheme is not a token")
        check(challenge.parameters.count <= AuthenticationChallenge.maximumParameters, "too many parameters")
        check(challenge.token68 == nil || challenge.parameters.isEmpty, "token68 and parameters together")
        let names = challenge.parameters.map(\.name)
        check(Set(names).count == names.count, "a parameter name twice")
        for name in names {
            check(isToken(name) && name == name.lowercased(), "a parameter name is not a lower-case token")
        }
        if let token68 = challenge.token68 {
            check(!token68.isEmpty, "an empty token68")
            check(
                challenge.description == "\(challenge.scheme) <token68: \(token68.count) characters>",
                "the description shows the token68")
        }
        for parameter in challenge.parameters {
            check(
                !parameter.value.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F },
                "a parameter value holds a control character")
            check(challenge[parameter: parameter.name.uppercased()] == parameter.value, "case-insensitive lookup")
        }
        check(AuthenticationChallenge.parse(challenge.fieldValue) == [challenge], "a challenge does not round-trip")
    }
    let rewritten = challenges.map(\.fieldValue).joined(separator: ", ")
    if rewritten.utf8.count <= AuthenticationChallenge.maximumFieldLength {
        check(AuthenticationChallenge.parse(rewritten) == challenges, "the challenges do not round-trip together")
    }

    // The same bytes as repeated fields of a response, split at "\n": each field is read on its
    // own, and the total is capped.
    var headers = HTTPFields()
    for line in field.split(separator: "\n", omittingEmptySubsequences: false).prefix(64) {
        headers.append(HTTPField(name: .wwwAuthenticate, value: String(line)))
    }
    if let url = URL(string: "https://fuzz.example/") {
        let fromResponse = Response(status: .unauthorized, headers: headers, url: url).authenticationChallenges
        check(fromResponse.count <= AuthenticationChallenge.maximumChallenges, "a response gave too many challenges")
    }
    return 0
}

private func isToken(_ text: String) -> Bool {
    !text.isEmpty && text.utf8.allSatisfy(HTTPToken.isTChar)
}
