#if EncryptedTokenStore
    @testable import Courier
    import Foundation
    import Testing

    /// Where a file is cut in the truncation test.
    enum TruncationPoint: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case empty, oneByte, headerMinusOne, header, headerPlusTen, fullMinusOne

        var testDescription: String { rawValue }

        func length(header: Int, full: Int) -> Int {
            switch self {
            case .empty: 0
            case .oneByte: 1
            case .headerMinusOne: header - 1
            case .header: header
            case .headerPlusTen: header + 10
            case .fullMinusOne: full - 1
            }
        }
    }

    @Suite("FileTokenStore: a damaged, foreign or wrong-key file is a typed error, never nil or a crash")
    struct FileTokenStoreCorruptionTests {
        /// Saves a credential with a `kind` store and returns the store, the file and its bytes.
        private func savedFile(_ kind: StoreKeyKind, in directory: URL) async throws -> (FileTokenStore, URL, Data) {
            let url = directory.appendingPathComponent("token")
            let store = try makeFileStore(kind, at: url)
            try await store.save(StoreFixtures.credential())
            return (store, url, try Data(contentsOf: url))
        }

        @Test("a wrong key or wrong passphrase is .authenticationFailed", arguments: StoreKeyKind.allCases)
        func wrongSecret(kind: StoreKeyKind) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let (_, url, _) = try await savedFile(kind, in: directory)
                let wrong = try makeFileStore(kind, at: url, wrongSecret: true)
                await #expect(throws: TokenStoreError.authenticationFailed) { try await wrong.load() }
            }
        }

        @Test("a file written with the other kind of secret is .authenticationFailed", arguments: StoreKeyKind.allCases)
        func otherKindOfSecret(kind: StoreKeyKind) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let (_, url, _) = try await savedFile(kind, in: directory)
                let other = try makeFileStore(kind == .rawKey ? .passphrase : .rawKey, at: url)
                await #expect(throws: TokenStoreError.authenticationFailed) { try await other.load() }
            }
        }

        @Test(
            "flipping any single byte of the file, header or body, is a typed error",
            arguments: StoreKeyKind.allCases, [UInt8(0x01), 0x80, 0xFF])
        func everyByteFlipped(kind: StoreKeyKind, mask: UInt8) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let (store, url, original) = try await savedFile(kind, in: directory)
                for index in 0..<original.count {
                    var tampered = original
                    tampered[index] ^= mask
                    try tampered.write(to: url)
                    let result = await loadResult(store)
                    guard case .failure(let error) = result else {
                        Issue.record("byte \(index) ^ \(mask) loaded: \(result)")
                        continue
                    }
                    let expected: Bool
                    switch index {
                    case 0..<4:
                        expected = error == .corrupted("not a Courier token file (wrong magic bytes)")
                    case 4:
                        expected = error == .unsupportedVersion(original[4] ^ mask)
                    case 5:
                        if case .corrupted = error { expected = true } else { expected = error == .authenticationFailed }
                    case 22..<26 where kind == .passphrase:
                        // The rounds: out of range is .corrupted, in range derives another key.
                        if case .corrupted = error { expected = true } else { expected = error == .authenticationFailed }
                    default:
                        expected = error == .authenticationFailed
                    }
                    #expect(expected, "byte \(index) ^ \(mask): \(error)")
                }
                try original.write(to: url)
                #expect(try await store.load() == StoreFixtures.credential(), "the untouched file still loads")
            }
        }

        @Test(
            "a file cut short is a typed error",
            arguments: StoreKeyKind.allCases, TruncationPoint.allCases)
        func truncated(kind: StoreKeyKind, point: TruncationPoint) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let (store, url, original) = try await savedFile(kind, in: directory)
                let length = point.length(header: kind.headerCount, full: original.count)
                try original.prefix(length).write(to: url)
                let result = await loadResult(store)
                switch (point, result) {
                case (.fullMinusOne, .failure(.authenticationFailed)):
                    break  // the tag lost a byte: the box no longer authenticates
                case (.fullMinusOne, _):
                    Issue.record("expected .authenticationFailed, got \(result)")
                case (_, .failure(.corrupted)):
                    break
                default:
                    Issue.record("expected .corrupted, got \(result)")
                }
            }
        }

        @Test(
            "a file that is not a token file is .corrupted",
            arguments: [
                Data(), Data("hello, this is not a token file".utf8),
                Data(#"{"accessToken":"plain","tokenType":"Bearer"}"#.utf8),
                Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }),
                Data("CRT".utf8),
            ])
        func garbage(contents: Data) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                try contents.write(to: url)
                for kind in StoreKeyKind.allCases {
                    let result = await loadResult(try makeFileStore(kind, at: url))
                    guard case .failure(.corrupted) = result else {
                        Issue.record("\(kind): expected .corrupted, got \(result)")
                        continue
                    }
                }
            }
        }

        @Test("another format version is .unsupportedVersion carrying that version", arguments: [UInt8(0), 2, 255])
        func unsupportedVersion(version: UInt8) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let (store, url, original) = try await savedFile(.rawKey, in: directory)
                var changed = original
                changed[4] = version
                try changed.write(to: url)
                await #expect(throws: TokenStoreError.unsupportedVersion(version)) { try await store.load() }
            }
        }

        @Test("an unknown key-derivation id is .corrupted")
        func unknownDerivation() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let (store, url, original) = try await savedFile(.rawKey, in: directory)
                var changed = original
                changed[5] = 9
                try changed.write(to: url)
                await #expect(throws: TokenStoreError.corrupted("unknown key derivation id 9")) { try await store.load() }
            }
        }

        @Test(
            "a correctly encrypted payload that is not a credential is .corrupted",
            arguments: [
                Data("not json".utf8), Data(#"{"unrelated":1}"#.utf8), Data(),
            ])
        func nonCredentialPlaintext(plaintext: Data) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                for kind in StoreKeyKind.allCases {
                    let store = try makeFileStore(kind, at: directory.appendingPathComponent("token-\(kind)"))
                    try await store.write(plaintext: plaintext)
                    await #expect(throws: TokenStoreError.corrupted("the decrypted payload is not a JSON token credential")) {
                        try await store.load()
                    }
                }
            }
        }

        @Test("a file claiming more PBKDF2 rounds than the maximum is .corrupted without deriving")
        func roundsAboveMaximum() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let (store, url, original) = try await savedFile(.passphrase, in: directory)
                var changed = original
                changed.replaceSubrange(22..<26, with: [0xFF, 0xFF, 0xFF, 0xFF])
                try changed.write(to: url)
                let result = await loadResult(store)
                guard case .failure(.corrupted(let reason)) = result else {
                    Issue.record("expected .corrupted, got \(result)")
                    return
                }
                #expect(reason.contains("4294967295"))
            }
        }

        @Test("a store with the default rounds refuses a file written with fewer rounds than the floor")
        func roundsBelowFloor() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let passphrase = "correct horse battery staple"
                try await FileTokenStore(url: url, passphrase: passphrase, unsafeUncheckedRounds: 1_000)
                    .save(StoreFixtures.credential())
                let strict = try FileTokenStore(url: url, passphrase: passphrase)
                let result = await loadResult(strict)
                guard case .failure(.corrupted) = result else {
                    Issue.record("expected .corrupted, got \(result)")
                    return
                }
            }
        }

        @Test("a file larger than a megabyte is .corrupted")
        func oversizedFile() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                try (Data("CRTK".utf8) + Data([1, 1]) + Data(count: 2 << 20)).write(to: url)
                await #expect(throws: TokenStoreError.corrupted("file is larger than 1048576 bytes")) {
                    try await makeFileStore(.rawKey, at: url).load()
                }
            }
        }

        @Test("a credential that cannot be encoded is .encodingFailed and leaves the old file")
        func unencodableCredential() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let (store, url, original) = try await savedFile(.rawKey, in: directory)
                let bad = TokenCredential(accessToken: "SECRET", expiresAt: Date(timeIntervalSinceReferenceDate: .nan))
                let error = await #expect(throws: TokenStoreError.self) { try await store.save(bad) }
                guard case .encodingFailed(let reason, _)? = error else {
                    Issue.record("expected .encodingFailed, got \(String(describing: error))")
                    return
                }
                #expect(!reason.contains("SECRET"))
                #expect(try Data(contentsOf: url) == original)
                #expect(try StoreFixtures.contents(of: directory) == ["token"])
            }
        }
    }

    @Suite("FileTokenStore refuses unusable keys, passphrases and round counts")
    struct FileTokenStoreKeyValidationTests {
        private let url = URL(fileURLWithPath: "/nonexistent-courier-tests/token")

        @Test("a raw key that is not 32 bytes is .invalidKey", arguments: [0, 1, 16, 24, 31, 33, 64])
        func wrongKeySize(size: Int) {
            let error = #expect(throws: TokenStoreError.self) {
                try FileTokenStore(url: url, key: Data(repeating: 7, count: size))
            }
            guard case .invalidKey(let reason)? = error else {
                Issue.record("expected .invalidKey, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("\(size)"))
        }

        @Test("an empty passphrase is .invalidKey")
        func emptyPassphrase() {
            #expect(throws: TokenStoreError.invalidKey("the passphrase is empty")) {
                try FileTokenStore(url: url, passphrase: "")
            }
            #expect(throws: TokenStoreError.invalidKey("the passphrase is empty")) {
                try FileTokenStore(url: url, passphrase: "", unsafeUncheckedRounds: 1)
            }
        }

        @Test("rounds outside 210,000...10,000,000 are .invalidKey", arguments: [-1, 0, 1_000, 209_999, 10_000_001])
        func roundsOutOfRange(rounds: Int) {
            let error = #expect(throws: TokenStoreError.self) {
                try FileTokenStore(url: url, passphrase: "passphrase", rounds: rounds)
            }
            guard case .invalidKey? = error else {
                Issue.record("expected .invalidKey, got \(String(describing: error))")
                return
            }
        }

        @Test("unsafe rounds outside 1...10,000,000 are .invalidKey", arguments: [-1, 0, 10_000_001])
        func unsafeRoundsOutOfRange(rounds: Int) {
            let error = #expect(throws: TokenStoreError.self) {
                try FileTokenStore(url: url, passphrase: "passphrase", unsafeUncheckedRounds: rounds)
            }
            guard case .invalidKey? = error else {
                Issue.record("expected .invalidKey, got \(String(describing: error))")
                return
            }
        }

        @Test("the documented limits are accepted")
        func limitsAccepted() throws {
            _ = try FileTokenStore(url: url, passphrase: "p", rounds: FileTokenStore.minimumRounds)
            _ = try FileTokenStore(url: url, passphrase: "p", rounds: FileTokenStore.maximumRounds)
            _ = try FileTokenStore(url: url, passphrase: "p", unsafeUncheckedRounds: 1)
            _ = try FileTokenStore(url: url, key: Data(count: FileTokenStore.keyByteCount))
            #expect(FileTokenStore.minimumRounds == 210_000)
            #expect(FileTokenStore.maximumRounds == 10_000_000)
        }

        @Test("a URL that is not a file URL is .io")
        func notAFileURL() throws {
            let web = try #require(URL(string: "https://example.com/token"))
            let error = #expect(throws: TokenStoreError.self) {
                try FileTokenStore(url: web, key: StoreFixtures.key)
            }
            guard case .io? = error else {
                Issue.record("expected .io, got \(String(describing: error))")
                return
            }
        }

        @Test("error descriptions are readable sentences")
        func errorDescriptions() {
            #expect(
                TokenStoreError.authenticationFailed.description
                    == "token store did not authenticate: wrong key or passphrase, or the file was modified")
            #expect(TokenStoreError.unsupportedVersion(2).description == "token store format version 2 is not supported")
            #expect(TokenStoreError.keychain(status: -25300).description == "keychain call failed with OSStatus -25300")
        }
    }
#endif
