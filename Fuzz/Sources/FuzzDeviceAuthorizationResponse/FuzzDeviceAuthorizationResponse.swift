import Foundation
import FuzzSupport

// Device authorization responses (`DeviceAuthorizationResponse.parse`, RFC 8628 §3.2).
//
// Invariants: never traps; a parsed response keeps every documented limit (a non-empty device
// code of at most 4096 bytes, a non-empty user code of at most 256 bytes without control
// characters, verification URIs that are https or loopback http, 0 < expires_in ≤ 1 day,
// 1 s ≤ interval ≤ 1 h); a failure's reason is one of a fixed list, so the device code can
// never be quoted in it.
@testable import Courier
@testable import CourierOAuth

/// The process's entry point: SwiftPM names it `FuzzDeviceAuthorizationResponse_main` (see `runLibFuzzer`).
@_cdecl("FuzzDeviceAuthorizationResponse_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let body = Data(fuzzBytes(start, count))
    switch DeviceAuthorizationResponse.parse(body) {
    case .success(let response):
        check(!response.deviceCode.isEmpty && response.deviceCode.utf8.count <= 4096, "a bad device code")
        check(!response.userCode.isEmpty && response.userCode.utf8.count <= 256, "a bad user code length")
        check(
            !response.userCode.unicodeScalars.contains { $0.properties.generalCategory == .control },
            "a control character in the user code")
        check(OAuth2Exchange.endpointProblem(response.verificationURI) == nil, "a bad verification_uri")
        if let complete = response.verificationURIComplete {
            check(OAuth2Exchange.endpointProblem(complete) == nil, "a bad verification_uri_complete")
        }
        check(response.expiresIn > .zero && response.expiresIn <= .seconds(86_400), "expires_in \(response.expiresIn)")
        check(response.interval >= .seconds(1) && response.interval <= .seconds(3_600), "interval \(response.interval)")
    case .failure(let malformed):
        check(
            DeviceAuthorizationResponse.reasons.contains(malformed.reason),
            "an unexpected reason: \(malformed.reason.debugDescription)")
    }
    return 0
}
