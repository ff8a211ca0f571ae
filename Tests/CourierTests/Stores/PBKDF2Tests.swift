#if EncryptedTokenStore
    @testable import Courier
    import Foundation
    import Testing

    @Suite("The passphrase KDF is PBKDF2-HMAC-SHA256, as documented")
    struct PBKDF2Tests {
        struct Vector: Sendable, CustomTestStringConvertible {
            var password: String
            var salt: String
            var rounds: Int
            var hex: String
            var testDescription: String { "P=\(password) S=\(salt) c=\(rounds)" }
        }

        /// RFC 7914 §11, "Test Vectors for PBKDF2 with HMAC-SHA-256" (dkLen = 64).
        static let rfc7914: [Vector] = [
            Vector(
                password: "passwd", salt: "salt", rounds: 1,
                hex: "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                    + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"),
            Vector(
                password: "Password", salt: "NaCl", rounds: 80_000,
                hex: "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
                    + "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"),
        ]

        @Test("PBKDF2-HMAC-SHA256 matches the RFC 7914 known answers", arguments: rfc7914)
        func knownAnswer(vector: Vector) throws {
            let derived = try FileTokenStore.pbkdf2SHA256Bytes(
                passphrase: Array(vector.password.utf8), salt: Array(vector.salt.utf8),
                rounds: vector.rounds, outputByteCount: 64
            )
            #expect(derived.map { String(format: "%02x", $0) }.joined() == vector.hex)
        }

        @Test("the file key is the first 32 bytes of the same derivation")
        func keyIsPrefix() throws {
            let full = try FileTokenStore.pbkdf2SHA256Bytes(
                passphrase: Array("passwd".utf8), salt: Array("salt".utf8), rounds: 1, outputByteCount: 64)
            let key = try FileTokenStore.pbkdf2SHA256Bytes(
                passphrase: Array("passwd".utf8), salt: Array("salt".utf8), rounds: 1, outputByteCount: FileTokenStore.keyByteCount)
            #expect(key == Array(full.prefix(32)))
        }

        @Test("an empty passphrase or salt is refused rather than handed to BoringSSL")
        func emptyInputsRefused() {
            #expect(throws: TokenStoreError.self) {
                try FileTokenStore.pbkdf2SHA256Bytes(passphrase: [], salt: [1], rounds: 1, outputByteCount: 32)
            }
            #expect(throws: TokenStoreError.self) {
                try FileTokenStore.pbkdf2SHA256Bytes(passphrase: [1], salt: [], rounds: 1, outputByteCount: 32)
            }
        }
    }
#endif
