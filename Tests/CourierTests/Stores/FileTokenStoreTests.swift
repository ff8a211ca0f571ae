#if EncryptedTokenStore
    @testable import Courier
    import CourierTesting
    import Foundation
    import Testing

    /// A store of `kind` at `url`, with the test secret (or the other test secret when `wrongSecret`).
    func makeFileStore(_ kind: StoreKeyKind, at url: URL, wrongSecret: Bool = false) throws -> FileTokenStore {
        switch kind {
        case .rawKey:
            return try FileTokenStore(url: url, key: wrongSecret ? StoreFixtures.otherKey : StoreFixtures.key)
        case .passphrase:
            return try FileTokenStore(
                url: url, passphrase: wrongSecret ? "correct horse battery stable" : "correct horse battery staple",
                unsafeUncheckedRounds: StoreFixtures.testRounds
            )
        }
    }

    /// What `load()` did, with the typed error kept.
    func loadResult(_ store: FileTokenStore) async -> Result<TokenCredential?, TokenStoreError> {
        do throws(TokenStoreError) {
            return .success(try await store.load())
        } catch {
            return .failure(error)
        }
    }

    @Suite("FileTokenStore round-trips, writes atomically with 0600, and documents its format", .heavy)
    struct FileTokenStoreTests {
        @Test("save then load returns the same credential", arguments: StoreKeyKind.allCases)
        func roundTrip(kind: StoreKeyKind) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let store = try makeFileStore(kind, at: url)
                try await store.save(StoreFixtures.credential(1))
                #expect(try await store.load() == StoreFixtures.credential(1))
                try await store.save(StoreFixtures.credential(2))
                #expect(try await store.load() == StoreFixtures.credential(2))
            }
        }

        @Test("a credential with only an access token and non-ASCII scope round-trips", arguments: StoreKeyKind.allCases)
        func minimalCredential(kind: StoreKeyKind) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let credential = TokenCredential(accessToken: "ä€𝄞", tokenType: "mac", scope: "lecture écriture")
                try await makeFileStore(kind, at: url).save(credential)
                #expect(try await makeFileStore(kind, at: url).load() == credential)
            }
        }

        @Test("a second store with the same secret reads the file", arguments: StoreKeyKind.allCases)
        func anotherInstanceReads(kind: StoreKeyKind) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                try await makeFileStore(kind, at: url).save(StoreFixtures.credential(3))
                #expect(try await makeFileStore(kind, at: url).load() == StoreFixtures.credential(3))
            }
        }

        @Test("it works through the TokenStore protocol")
        func throughProtocol() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let store: any TokenStore = try makeFileStore(.rawKey, at: directory.appendingPathComponent("token"))
                try await store.save(StoreFixtures.credential(4))
                #expect(try await store.load() == StoreFixtures.credential(4))
                try await store.remove()
                #expect(try await store.load() == nil)
            }
        }

        @Test("loading a file that does not exist returns nil, even when its directory is missing")
        func missingFileIsNil() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                for kind in StoreKeyKind.allCases {
                    let here = try makeFileStore(kind, at: directory.appendingPathComponent("token"))
                    let deep = try makeFileStore(kind, at: directory.appendingPathComponent("missing/dir/token"))
                    let loadedHere = try await here.load()
                    let loadedDeep = try await deep.load()
                    #expect(loadedHere == nil)
                    #expect(loadedDeep == nil)
                }
            }
        }

        @Test("remove deletes the file so load returns nil; removing a missing file is fine", arguments: StoreKeyKind.allCases)
        func removeThenLoad(kind: StoreKeyKind) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let store = try makeFileStore(kind, at: url)
                try await store.save(StoreFixtures.credential())
                try await store.remove()
                #expect(!FileManager.default.fileExists(atPath: url.path))
                #expect(try await store.load() == nil)
                try await store.remove()
                #expect(try StoreFixtures.contents(of: directory).isEmpty)
            }
        }

        @Test("the file has mode 0600 after the first save and after overwriting", arguments: StoreKeyKind.allCases)
        func fileModeIs0600(kind: StoreKeyKind) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let store = try makeFileStore(kind, at: url)
                try await store.save(StoreFixtures.credential(1))
                #expect(try StoreFixtures.permissions(of: url) == 0o600)
                try await store.save(StoreFixtures.credential(2))
                #expect(try StoreFixtures.permissions(of: url) == 0o600)
            }
        }

        @Test("saving over a world-readable file replaces it with a 0600 file")
        func replacesWiderPermissions() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                #expect(
                    FileManager.default.createFile(
                        atPath: url.path, contents: Data("old".utf8),
                        attributes: [.posixPermissions: 0o644]))
                #expect(try StoreFixtures.permissions(of: url) == 0o644)
                try await makeFileStore(.rawKey, at: url).save(StoreFixtures.credential())
                #expect(try StoreFixtures.permissions(of: url) == 0o600)
            }
        }

        @Test("a missing parent directory is created with mode 0700")
        func createsParentDirectory() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let parent = directory.appendingPathComponent("outer/inner", isDirectory: true)
                let url = parent.appendingPathComponent("token")
                let store = try makeFileStore(.rawKey, at: url)
                try await store.save(StoreFixtures.credential())
                #expect(try StoreFixtures.permissions(of: parent) == 0o700)
                #expect(try StoreFixtures.permissions(of: directory.appendingPathComponent("outer")) == 0o700)
                #expect(try await store.load() == StoreFixtures.credential())
            }
        }

        @Test("saves leave no temporary files behind", arguments: StoreKeyKind.allCases)
        func noTemporaryFiles(kind: StoreKeyKind) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let store = try makeFileStore(kind, at: directory.appendingPathComponent("token"))
                for number in 0..<20 {
                    try await store.save(StoreFixtures.credential(number))
                }
                #expect(try StoreFixtures.contents(of: directory) == ["token"])
            }
        }

        @Test("a save over a directory reports .io, leaves no temporary file and keeps what was there")
        func failedSaveCleansUp() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token", isDirectory: false)
                // A non-empty directory where the file should be: rename(2) cannot replace it.
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
                #expect(FileManager.default.createFile(atPath: url.appendingPathComponent("keep").path, contents: Data()))
                let store = try makeFileStore(.rawKey, at: url)
                let error = await #expect(throws: TokenStoreError.self) {
                    try await store.save(StoreFixtures.credential())
                }
                guard case .io(let message, _)? = error else {
                    Issue.record("expected .io, got \(String(describing: error))")
                    return
                }
                #expect(message.contains("is a directory, not a regular file"))
                #expect(!message.contains("SECRET"))
                #expect(try StoreFixtures.contents(of: directory) == ["token"])
                #expect(try StoreFixtures.contents(of: url) == ["keep"])
            }
        }

        @Test("a failed system call keeps its errno as a POSIXError beside the message")
        func ioFailureKeepsTheSystemError() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let file = directory.appendingPathComponent("plain", isDirectory: false)
                #expect(FileManager.default.createFile(atPath: file.path, contents: Data("x".utf8)))
                // A path through a regular file: open(2) fails with ENOTDIR.
                let store = try makeFileStore(.rawKey, at: file.appendingPathComponent("token", isDirectory: false))
                let error = await #expect(throws: TokenStoreError.self) { _ = try await store.load() }
                guard case .io(let message, let cause)? = error else {
                    Issue.record("expected .io, got \(String(describing: error))")
                    return
                }
                #expect((cause as? POSIXError)?.code == .ENOTDIR)
                #expect(message.contains("errno \(ENOTDIR)"))
            }
        }

        @Test("loading a path that is a directory is .io, not nil")
        func directoryIsIOError() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token", isDirectory: false)
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
                let result = await loadResult(try makeFileStore(.rawKey, at: url))
                guard case .failure(.io) = result else {
                    Issue.record("expected .io, got \(result)")
                    return
                }
            }
        }

        @Test("200 concurrent saves leave a file that loads to one of them, with no temporary files", arguments: StoreKeyKind.allCases)
        func concurrentSaves(kind: StoreKeyKind) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let store = try makeFileStore(kind, at: url)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for number in 0..<200 {
                        group.addTask { try await store.save(StoreFixtures.credential(number)) }
                    }
                    try await group.waitForAll()
                }
                let loaded = try #require(try await store.load())
                #expect((0..<200).map { StoreFixtures.credential($0) }.contains(loaded))
                #expect(try StoreFixtures.contents(of: directory) == ["token"])
            }
        }

        @Test("two stores saving the same file concurrently never leave a torn or unreadable file", arguments: StoreKeyKind.allCases)
        func concurrentSavesFromTwoStores(kind: StoreKeyKind) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let stores = [try makeFileStore(kind, at: url), try makeFileStore(kind, at: url)]
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for number in 0..<200 {
                        let store = stores[number % 2]
                        group.addTask {
                            try await store.save(StoreFixtures.credential(number))
                            // A reader during the storm sees a whole file, never a part.
                            let seen = try await store.load()
                            #expect(seen != nil)
                        }
                    }
                    try await group.waitForAll()
                }
                let loaded = try #require(try await makeFileStore(kind, at: url).load())
                #expect((0..<200).map { StoreFixtures.credential($0) }.contains(loaded))
                #expect(try StoreFixtures.contents(of: directory) == ["token"])
            }
        }

        @Test("the file never contains the access or refresh token in plaintext", arguments: StoreKeyKind.allCases)
        func noPlaintextTokens(kind: StoreKeyKind) async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let credential = StoreFixtures.credential(5)
                try await makeFileStore(kind, at: url).save(credential)
                let bytes = try Data(contentsOf: url)
                #expect(!StoreFixtures.bytes(bytes, contain: credential.accessToken))
                #expect(!StoreFixtures.bytes(bytes, contain: try #require(credential.refreshToken)))
                #expect(!StoreFixtures.bytes(bytes, contain: "SECRET"))
                #expect(!StoreFixtures.bytes(bytes, contain: "accessToken"))
                #expect(!StoreFixtures.bytes(bytes, contain: "read write"))
            }
        }

        @Test("a raw-key file is CRTK, version 1, derivation 1, then nonce, the encrypted JSON and a 16-byte tag")
        func rawKeyFormat() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let credential = StoreFixtures.credential()
                try await makeFileStore(.rawKey, at: url).save(credential)
                let bytes = [UInt8](try Data(contentsOf: url))
                #expect(Array(bytes[0..<4]) == Array("CRTK".utf8))
                #expect(bytes[4] == 1)
                #expect(bytes[5] == 1)
                let json = try JSONEncoder().encode(credential)
                #expect(bytes.count == StoreFixtures.rawKeyHeaderCount + 12 + json.count + 16)
            }
        }

        @Test("a passphrase file is CRTK, version 1, derivation 2, a 16-byte salt, big-endian rounds, then the box")
        func passphraseFormat() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let credential = StoreFixtures.credential()
                try await makeFileStore(.passphrase, at: url).save(credential)
                let bytes = [UInt8](try Data(contentsOf: url))
                #expect(Array(bytes[0..<4]) == Array("CRTK".utf8))
                #expect(bytes[4] == 1)
                #expect(bytes[5] == 2)
                let rounds = bytes[22..<26].reduce(0) { ($0 << 8) | Int($1) }
                #expect(rounds == StoreFixtures.testRounds)
                let json = try JSONEncoder().encode(credential)
                #expect(bytes.count == StoreFixtures.passphraseHeaderCount + 12 + json.count + 16)
            }
        }

        @Test("every save uses a fresh nonce; a store keeps its salt, a new store picks a new one")
        func nonceAndSalt() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let header = StoreFixtures.passphraseHeaderCount
                let store = try makeFileStore(.passphrase, at: url)
                try await store.save(StoreFixtures.credential())
                let first = [UInt8](try Data(contentsOf: url))
                try await store.save(StoreFixtures.credential())
                let second = [UInt8](try Data(contentsOf: url))
                #expect(first[6..<22] == second[6..<22], "same store, same salt")
                #expect(first[header..<header + 12] != second[header..<header + 12], "fresh nonce per save")
                #expect(first != second)

                try await makeFileStore(.passphrase, at: url).save(StoreFixtures.credential())
                let third = [UInt8](try Data(contentsOf: url))
                #expect(first[6..<22] != third[6..<22], "a new store draws a new salt")
            }
        }

        @Test("the derived key is cached: a passphrase store runs PBKDF2 once for its salt")
        func derivedKeyIsCached() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let writer = try makeFileStore(.passphrase, at: url)
                try await writer.save(StoreFixtures.credential(1))
                _ = try await writer.load()
                try await writer.save(StoreFixtures.credential(2))
                _ = try await writer.load()
                #expect(await writer.keyDerivationCount == 1)

                let reader = try makeFileStore(.passphrase, at: url)
                #expect(try await reader.load() == StoreFixtures.credential(2))
                try await reader.save(StoreFixtures.credential(3))
                #expect(try await reader.load() == StoreFixtures.credential(3))
                #expect(await reader.keyDerivationCount == 1, "the file's salt is reused for the next save")
            }
        }

        @Test("the default passphrase store writes 600,000 PBKDF2 rounds and reads its file back")
        func defaultRounds() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let store = try FileTokenStore(url: url, passphrase: "a long and boring passphrase")
                try await store.save(StoreFixtures.credential())
                let bytes = [UInt8](try Data(contentsOf: url))
                #expect(bytes[22..<26].reduce(0) { ($0 << 8) | Int($1) } == 600_000)
                #expect(FileTokenStore.defaultRounds == 600_000)
                #expect(try await store.load() == StoreFixtures.credential())
                #expect(await store.keyDerivationCount == 1)
            }
        }

        @Test("a store reads a file written with another allowed round count and rewrites it with its own")
        func readsOtherRounds() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let passphrase = "correct horse battery staple"
                try await FileTokenStore(url: url, passphrase: passphrase, unsafeUncheckedRounds: 2_000)
                    .save(StoreFixtures.credential())
                let store = try FileTokenStore(url: url, passphrase: passphrase, unsafeUncheckedRounds: 1_000)
                #expect(try await store.load() == StoreFixtures.credential())
                try await store.save(StoreFixtures.credential(2))
                let bytes = [UInt8](try Data(contentsOf: url))
                #expect(bytes[22..<26].reduce(0) { ($0 << 8) | Int($1) } == 1_000)
                #expect(try await store.load() == StoreFixtures.credential(2))
            }
        }

        @Test("makeRandomKey returns 32 fresh random bytes that a store accepts")
        func randomKey() async throws {
            let first = FileTokenStore.makeRandomKey()
            let second = FileTokenStore.makeRandomKey()
            #expect(first.count == 32)
            #expect(first != second)
            try await StoreFixtures.withTemporaryDirectory { directory in
                let store = try FileTokenStore(url: directory.appendingPathComponent("token"), key: first)
                try await store.save(StoreFixtures.credential())
                #expect(try await store.load() == StoreFixtures.credential())
            }
        }

        @Test("the description shows the path and nothing secret")
        func descriptionShowsPathOnly() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let store = try FileTokenStore(url: url, passphrase: "hunter2-SECRET", unsafeUncheckedRounds: 1)
                try await store.save(StoreFixtures.credential())
                let text = String(describing: store)
                #expect(text == "FileTokenStore(\(url.path))")
                #expect(!text.contains("SECRET"))
            }
        }
    }
#endif
