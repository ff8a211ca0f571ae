import Foundation
import Testing

@testable import Courier
@testable import CourierOAuth

/// Courier's own SHA-256 (used for pins and PKCE) against the FIPS 180-2 / NIST CAVS vectors and
/// against digests of every padding boundary (computed with Python's hashlib).
@Suite("SHA-256")
struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    struct Vector: CustomTestStringConvertible, Sendable {
        var name: String
        var message: Data
        var digest: String
        var testDescription: String { name }
    }

    static let nistVectors = [
        Vector(name: "empty", message: Data(), digest: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        Vector(name: "abc", message: Data("abc".utf8), digest: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        Vector(
            name: "448 bits", message: Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
            digest: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        Vector(
            name: "896 bits",
            message: Data(
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8),
            digest: "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
        Vector(
            name: "one million a", message: Data(repeating: UInt8(ascii: "a"), count: 1_000_000),
            digest: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    ]

    @Test(arguments: nistVectors)
    func theNISTVectorsHashToTheirPublishedDigests(_ vector: Vector) {
        #expect(Self.hex(SHA256.hash(vector.message)) == vector.digest)
    }

    /// 55 bytes is the longest message whose padding fits its block; 56 to 63 need a second
    /// block; 64 fills one exactly.
    @Test(arguments: [
        (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (57, "f13b2d724659eb3bf47f2dd6af1accc87b81f09f59f2b75e5c0bed6589dfe8c6"),
        (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
        (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        (65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
        (119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
        (120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
        (128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"),
    ])
    func messagesAroundEveryPaddingBoundaryHashCorrectly(length: Int, digest: String) {
        #expect(Self.hex(SHA256.hash(Data(repeating: UInt8(ascii: "a"), count: length))) == digest)
    }

    @Test func everyByteValueHashesCorrectlyWholeAndAsASliceWithAnOffset() {
        let bytes = [UInt8]((0..<1024).map { UInt8($0 % 256) })
        let expected = "785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9"
        #expect(Self.hex(SHA256.hash(bytes)) == expected)
        // A Data slice keeps its parent's indices: the hash must read from startIndex, not 0.
        let padded = Data([9, 9, 9, 9] + bytes + [7])
        #expect(Self.hex(SHA256.hash(padded[4..<1028])) == expected)
    }
}
