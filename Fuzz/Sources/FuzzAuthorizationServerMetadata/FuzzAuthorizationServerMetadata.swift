import Foundation
import FuzzSupport

// Authorization server metadata (`AuthorizationServerMetadata.parse` and the issuer check of
// discovery, RFC 8414 §3.2–3.3 and OpenID Connect Discovery).
//
// Invariants: never traps; a parsed document has a non-empty issuer of at most 2048 bytes, every
// endpoint is https or loopback http without user-info or fragment, no list has more than 1000
// entries; the issuer check accepts the document exactly when its issuer is the expected string;
// a failure's reason is one of a fixed list, so no value is ever quoted.
@testable import Courier
@testable import CourierOAuth

/// The process's entry point: SwiftPM names it `FuzzAuthorizationServerMetadata_main` (see `runLibFuzzer`).
@_cdecl("FuzzAuthorizationServerMetadata_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

private let expectedIssuer = "https://auth.example.com"

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let body = Data(fuzzBytes(start, count))
    switch AuthorizationServerMetadata.parse(body) {
    case .success(let metadata):
        check(!metadata.issuer.isEmpty && metadata.issuer.utf8.count <= 2048, "a bad issuer")
        let endpoints = [
            metadata.authorizationEndpoint, metadata.tokenEndpoint, metadata.deviceAuthorizationEndpoint,
            metadata.revocationEndpoint, metadata.introspectionEndpoint, metadata.userinfoEndpoint,
            metadata.registrationEndpoint, metadata.jwksURI,
        ]
        for endpoint in endpoints.compactMap({ $0 }) {
            check(OAuth2Exchange.endpointProblem(endpoint) == nil, "a bad endpoint")
        }
        let lists = [
            metadata.scopesSupported, metadata.responseTypesSupported, metadata.grantTypesSupported,
            metadata.codeChallengeMethodsSupported, metadata.tokenEndpointAuthMethodsSupported,
            metadata.revocationEndpointAuthMethodsSupported,
        ]
        check(lists.allSatisfy { ($0?.count ?? 0) <= 1000 }, "a list over 1000 entries")
        do {
            _ = try AuthorizationServerMetadata.checked(body, issuer: expectedIssuer)
            check(metadata.issuer == expectedIssuer, "another issuer accepted")
        } catch {
            check(
                metadata.issuer != expectedIssuer
                    && error.description.contains("does not match"),
                "the expected issuer refused: \(error)")
        }
    case .failure(let problem):
        check(
            AuthorizationServerMetadata.reasons.contains(problem.reason),
            "an unexpected reason: \(problem.reason.debugDescription)")
    }
    return 0
}
