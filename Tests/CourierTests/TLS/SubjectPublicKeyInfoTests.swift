import Foundation
import Testing

@testable import Courier

/// `SubjectPublicKeyInfo.der(rawKey:algorithm:)` (how `URLSessionTransport` on Apple platforms
/// turns the raw key the Security framework exports back into the SPKI a pin hashes) against
/// openssl's SPKI of the same keys.
@Suite("SubjectPublicKeyInfo")
struct SubjectPublicKeyInfoTests {
    struct Key: CustomTestStringConvertible, Sendable {
        var name: String
        var algorithm: SubjectPublicKeyInfo.Algorithm
        var testDescription: String { name }
    }

    static let keys = [
        Key(name: "server-ec", algorithm: .ellipticCurve),  // P-256
        Key(name: "ec-p384", algorithm: .ellipticCurve),
        Key(name: "ec-p521", algorithm: .ellipticCurve),  // a BIT STRING past 127 bytes: long-form length
        Key(name: "server-rsa", algorithm: .rsa),  // RSA-2048: two-byte lengths
    ]

    @Test(arguments: keys)
    func theRawKeyBecomesExactlyOpenSSLsSubjectPublicKeyInfo(_ key: Key) throws {
        let raw = try TLSFixtures.data("\(key.name).raw.der")
        let expected = try TLSFixtures.data("\(key.name).spki.der")
        #expect(SubjectPublicKeyInfo.der(rawKey: raw, algorithm: key.algorithm) == expected)
    }

    @Test(arguments: ["server-ec", "server-rsa"])
    func thePinOfTheRebuiltKeyIsTheOneOpenSSLComputedFromTheCertificate(_ name: String) throws {
        let algorithm: SubjectPublicKeyInfo.Algorithm = name == "server-rsa" ? .rsa : .ellipticCurve
        let spki = try #require(SubjectPublicKeyInfo.der(rawKey: try TLSFixtures.data("\(name).raw.der"), algorithm: algorithm))
        #expect(PinningPolicy.Pin(publicKeyInfo: spki) == (try PinningPolicy.Pin(sha256Base64: TLSFixtures.pinBase64(name))))
    }

    @Test(arguments: [0, 1, 33, 64, 66, 96, 132, 134])
    func anEllipticCurvePointOfNoKnownCurveSizeHasNoSubjectPublicKeyInfo(size: Int) {
        #expect(SubjectPublicKeyInfo.der(rawKey: Data(repeating: 4, count: size), algorithm: .ellipticCurve) == nil)
    }
}
