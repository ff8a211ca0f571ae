import Foundation
import Testing

@testable import Courier
@testable import CourierOAuth

/// Inputs the fuzz targets in `Fuzz/` found crashing Courier, kept as tests so the crash stays
/// fixed. Each input is also in the target's seed corpus (`Fuzz/Corpus/<Target>/regression-…`).
@Suite("Fuzzing regressions: inputs that once crashed a parser")
struct FuzzRegressionTests {
    /// FuzzProblemDetails: `{"status":99999,"balance":1e400}` served as `application/problem+json`
    /// trapped in `extensions(as:)` ("Invalid status code" in swift-http-types), because the body's
    /// status became the status of the response it decodes from.
    @Test(
        "extensions(as:) of a problem whose status is no HTTP status code throws, it does not trap",
        arguments: ["99999", "-1", "1000", "9223372036854775807", "0", "42"])
    func problemStatusOutOfRange(status: String) throws {
        let body = Data(#"{"status":\#(status),"balance":1e400}"#.utf8)
        let problem = try #require(ProblemDetails(json: body))
        #expect(problem.status == Int(status))
        struct Balance: Decodable { var balance: Double }
        #expect(throws: CourierError.self) { try problem.extensions(as: Balance.self) }
        struct Anything: Decodable {}
        #expect(throws: Never.self) { try problem.extensions(as: Anything.self) }
    }

    @Test("a problem's status within 100...599 still reaches the decoding error's response")
    func problemStatusKept() throws {
        let problem = try #require(ProblemDetails(json: Data(#"{"status":422,"balance":"x"}"#.utf8)))
        struct Balance: Decodable { var balance: Int }
        #expect {
            try problem.extensions(as: Balance.self)
        } throws: { error in
            (error as? CourierError)?.response?.statusCode == 422
        }
    }

    /// FuzzDeviceAuthorizationResponse: `"expires_in":"000000.000585658004"` is positive, but was
    /// rounded down to a lifetime of zero milliseconds, which the flow would treat as expired
    /// before its first poll.
    @Test("a positive expires_in under a millisecond is not rounded down to zero", arguments: ["0.000585658004", "0.0004", "0.9999"])
    func subMillisecondDeviceLifetime(expiresIn: String) throws {
        let body = Data(#"{"device_code":"d","user_code":"u","verification_uri":"https://verify.example","expires_in":"\#(expiresIn)"}"#.utf8)
        let response = try DeviceAuthorizationResponse.parse(body).get()
        #expect(response.expiresIn > .zero)
    }
}
