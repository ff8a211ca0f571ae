#if EncryptedTokenStore
    @testable import Courier
    import Foundation
    import Testing

    /// Issue 9, defect 6: `dump` reflects every stored property unless the type supplies its own
    /// mirror; a store holding a key, a passphrase or a credential must show none of them.
    @Suite("Token stores and the refresher never show a key, passphrase or token to dump or print")
    struct StoreReflectionTests {
        static let passphrase = "hunter2-PASSPHRASE-SECRET"

        /// Everything `dump`, `print` and `debugPrint` make of `value`.
        static func renderings(of value: Any) -> String {
            var text = ""
            dump(value, to: &text)
            print(value, to: &text)
            debugPrint(value, to: &text)
            text += String(reflecting: value)
            return text
        }

        @Test("a passphrase FileTokenStore that has derived its key: only the path shows")
        func passphraseStore() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("token")
                let store = try FileTokenStore(url: url, passphrase: Self.passphrase, unsafeUncheckedRounds: 1_000)
                try await store.save(StoreFixtures.credential())  // caches the derived key
                let text = Self.renderings(of: store)
                #expect(!text.contains("SECRET"))
                #expect(!text.contains(Array(Self.passphrase.utf8).map(String.init).joined(separator: "\n")))
                for hidden in ["secret", "passphrase", "derivedKey", "key"] {
                    #expect(!text.contains(hidden), "\(hidden) in \(text)")
                }
                var dumped = ""
                dump(store, to: &dumped)
                #expect(dumped == "▿ FileTokenStore(\(url.path)) #0\n  - path: \"\(url.path)\"\n")
            }
        }

        @Test("a raw-key FileTokenStore: no byte of the key shows")
        func rawKeyStore() async throws {
            try await StoreFixtures.withTemporaryDirectory { directory in
                let key = Data((0..<32).map { UInt8(200 + $0 % 50) })
                let url = directory.appendingPathComponent("token")
                let store = try FileTokenStore(url: url, key: key)
                let text = Self.renderings(of: store)
                #expect(!text.contains("key") && !text.contains("secret") && !text.contains("32 bytes"))
                var dumped = ""
                dump(store, to: &dumped)
                #expect(dumped == "▿ FileTokenStore(\(url.path)) #0\n  - path: \"\(url.path)\"\n")
            }
        }

        @Test("an InMemoryTokenStore and a TokenRefresher holding a credential show neither token")
        func memoryStoreAndRefresher() async throws {
            let credential = StoreFixtures.credential(7)
            let store = InMemoryTokenStore(credential)
            let refresher = TokenRefresher(store: store) { _ in credential }
            #expect(try await refresher.currentCredential() == credential)  // the refresher holds it now
            for value in [store as Any, refresher as Any, Authentication.bearer(refresher) as Any] {
                let text = Self.renderings(of: value)
                #expect(!text.contains("SECRET"), "\(text)")
            }
        }
    }
#endif
