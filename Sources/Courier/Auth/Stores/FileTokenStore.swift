#if EncryptedTokenStore
    public import Foundation
    #if canImport(CryptoKit)
        import CommonCrypto
        import CryptoKit
    #else
        import Crypto
        import _CryptoExtras
    #endif

    // The file format, the atomic write and what the store does not protect against are
    // described in Documentation/Authentication.md ("The token file").
    /// A ``TokenStore`` that keeps the credential in one AES-256-GCM encrypted file.
    ///
    /// The key is a raw 256-bit key (``makeRandomKey()`` creates one) or is derived from a
    /// passphrase with PBKDF2-HMAC-SHA256 (600,000 iterations by default, a random salt per file).
    /// ``load()`` returns `nil` only when the file does not exist; a truncated, modified or
    /// wrong-key file, a path that is not a regular file, or a file over 1 MiB is a
    /// ``TokenStoreError``. Each save atomically replaces the file with one of mode `0600`.
    /// Processes sharing the file refresh once per expiry (``withExclusiveAccess(_:)``).
    /// ``description`` shows only the path, never a token or key.
    ///
    /// ```swift
    /// let store = try FileTokenStore(url: url, passphrase: secretFromEnvironment)
    /// try await store.save(credential)
    /// let restored = try await store.load()   // nil only if the file does not exist
    /// ```
    public actor FileTokenStore: TokenStore {
        /// The PBKDF2 iteration count used unless you pass another: 600,000 (OWASP, 2023).
        static let defaultRounds = 600_000
        /// The fewest PBKDF2 iterations `init(url:passphrase:rounds:)` accepts: 210,000, the
        /// same floor swift-crypto's checked API enforces. Such a store also refuses, as
        /// ``TokenStoreError/corrupted(_:)``, a file that claims fewer.
        static let minimumRounds = 210_000
        /// The most PBKDF2 iterations accepted, when writing or reading: 10,000,000. A file that
        /// claims more is ``TokenStoreError/corrupted(_:)`` (it would stall the store for minutes).
        static let maximumRounds = 10_000_000
        /// The size of a raw key: 32 bytes (AES-256).
        static let keyByteCount = 32

        /// The file the credential is kept in.
        package nonisolated let url: URL

        private enum Secret {
            case key(SymmetricKey)
            case passphrase([UInt8], rounds: Int)
        }

        private struct DerivedKey {
            var salt: [UInt8]
            var rounds: UInt32
            var key: SymmetricKey
        }

        private let secret: Secret
        private var derivedKey: DerivedKey?
        /// How many PBKDF2 derivations this store has run (tests check the cache with it).
        private(set) var keyDerivationCount = 0

        // The lock of `withExclusiveAccess` (FileTokenStore+Lock.swift).
        /// How long and how the lock is waited for.
        var lockWaiting = LockWaiting()
        /// The ids of this store's `withExclusiveAccess` calls in progress.
        var activeLocks: Set<UInt64> = []
        var nextLockID: UInt64 = 0
        /// The locks the current task holds, to refuse a nested `withExclusiveAccess`.
        @TaskLocal static var locksHeldByTask: Set<HeldLock> = []

        /// Creates a store that encrypts with a raw 256-bit key.
        ///
        /// ```swift
        /// let key = FileTokenStore.makeRandomKey()   // keep it somewhere safe
        /// let store = try FileTokenStore(url: url, key: key)
        /// ```
        /// - Parameters:
        ///   - url: a file URL; the file need not exist, nor its directory.
        ///   - key: exactly 32 bytes (AES-256).
        /// - Throws: ``TokenStoreError/invalidKey(_:)`` if the key is not 32 bytes;
        ///   ``TokenStoreError/io(_:underlyingError:)`` if `url` is not a file URL, or is in
        ///   an App Group container on iOS, tvOS, watchOS or visionOS (the store locks the file
        ///   across a refresh, and the system terminates a suspended app that holds a lock there).
        public init(url: URL, key: Data) throws(TokenStoreError) {
            guard key.count == Self.keyByteCount else {
                throw .invalidKey("a raw key must be \(Self.keyByteCount) bytes (256 bits), not \(key.count)")
            }
            try Self.validate(url)
            self.url = url
            self.secret = .key(SymmetricKey(data: key))
        }

        /// Creates a store whose key is derived from `passphrase` with PBKDF2-HMAC-SHA256.
        ///
        /// ```swift
        /// let store = try FileTokenStore(url: url, passphrase: "correct horse battery staple")
        /// ```
        /// - Parameters:
        ///   - url: a file URL; the file need not exist, nor its directory.
        ///   - passphrase: a non-empty passphrase; its UTF-8 bytes are the PBKDF2 password.
        ///   - rounds: iterations for files this store writes, from 210,000 to
        ///     10,000,000; default 600,000 (OWASP, 2023). Files written with another count in
        ///     that range are still read.
        /// - Throws: ``TokenStoreError/invalidKey(_:)`` for an empty passphrase or a count out of
        ///   range; ``TokenStoreError/io(_:underlyingError:)`` if `url` is not a file URL, or is in
        ///   an App Group container on iOS, tvOS, watchOS or visionOS (the store locks the file
        ///   across a refresh, and the system terminates a suspended app that holds a lock there).
        public init(url: URL, passphrase: String, rounds: Int = 600_000) throws(TokenStoreError) {
            guard rounds >= Self.minimumRounds, rounds <= Self.maximumRounds else {
                throw .invalidKey("PBKDF2 rounds must be from \(Self.minimumRounds) to \(Self.maximumRounds), not \(rounds)")
            }
            try self.init(url: url, passphrase: passphrase, unsafeUncheckedRounds: rounds)
        }

        /// Creates a passphrase store with any iteration count from 1 to 10,000,000, for the
        /// package's tests: a low count makes the passphrase cheap to guess from the file. Such a
        /// store also reads files written with as few rounds as it uses.
        /// - Throws: ``TokenStoreError/invalidKey(_:)`` for an empty passphrase or a count out of
        ///   range; ``TokenStoreError/io(_:underlyingError:)`` if `url` is not a file URL, or is in
        ///   an App Group container on iOS, tvOS, watchOS or visionOS (the store locks the file
        ///   across a refresh, and the system terminates a suspended app that holds a lock there).
        package init(url: URL, passphrase: String, unsafeUncheckedRounds: Int) throws(TokenStoreError) {
            guard unsafeUncheckedRounds >= 1, unsafeUncheckedRounds <= Self.maximumRounds else {
                throw .invalidKey("PBKDF2 rounds must be from 1 to \(Self.maximumRounds), not \(unsafeUncheckedRounds)")
            }
            guard !passphrase.isEmpty else {
                throw .invalidKey("the passphrase is empty")
            }
            try Self.validate(url)
            self.url = url
            self.secret = .passphrase(Array(passphrase.utf8), rounds: unsafeUncheckedRounds)
        }

        /// A new random 256-bit key for ``init(url:key:)``, from the system's secure random source.
        ///
        /// ```swift
        /// let key = FileTokenStore.makeRandomKey()   // 32 bytes
        /// ```
        public static func makeRandomKey() -> Data {
            SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        }

        /// The stored credential, or `nil` if the file does not exist.
        ///
        /// ```swift
        /// guard let credential = try await store.load() else { return await signIn() }
        /// use(credential)
        /// ```
        /// - Throws: ``TokenStoreError/authenticationFailed`` for a wrong key or passphrase or a
        ///   modified file; ``TokenStoreError/corrupted(_:)`` for a file that is truncated, not a
        ///   token file, larger than 1 MiB, claims an iteration count out of range, or does not
        ///   decrypt to a credential;
        ///   ``TokenStoreError/unsupportedVersion(_:)``; ``TokenStoreError/io(_:underlyingError:)`` if it cannot be
        ///   read, or the path is a symbolic link, a FIFO, a directory or anything but a regular file.
        public func load() throws(TokenStoreError) -> TokenCredential? {
            guard let data = try SecureFileIO.contents(of: url, maximumSize: TokenFileFormat.maximumFileSize) else {
                return nil
            }
            let file = try TokenFileFormat.parse(data)
            let key = try key(for: file.derivation)
            let plaintext: Data
            do {
                let box = try AES.GCM.SealedBox(combined: file.sealedBox)
                plaintext = try AES.GCM.open(box, using: key, authenticating: file.header)
            } catch {
                throw .authenticationFailed
            }
            do {
                return try JSONDecoder().decode(TokenCredential.self, from: plaintext)
            } catch {
                throw .corrupted("the decrypted payload is not a JSON token credential")
            }
        }

        /// Encrypts `credential` under a fresh random nonce and atomically replaces the file.
        ///
        /// ```swift
        /// try await store.save(TokenCredential(accessToken: "at-2", refreshToken: "rt-2"))
        /// ```
        /// - Throws: ``TokenStoreError/io(_:underlyingError:)`` if the file or its directory cannot be written, or
        ///   the path holds something other than a regular file (the previous file, or whatever is
        ///   there, is then untouched); ``TokenStoreError/encodingFailed(_:underlyingError:)`` if the
        ///   credential cannot be encoded (e.g. a non-finite date).
        public func save(_ credential: TokenCredential) throws(TokenStoreError) {
            let plaintext: Data
            do {
                plaintext = try JSONEncoder().encode(credential)
            } catch {
                throw .encodingFailed(Self.describe(encodingError: error), underlyingError: error)
            }
            try write(plaintext: plaintext)
        }

        /// Deletes the file; a file that does not exist is not an error.
        ///
        /// ```swift
        /// try await store.remove()   // sign out
        /// ```
        /// - Throws: ``TokenStoreError/io(_:underlyingError:)`` if the file exists and cannot be deleted.
        public func remove() throws(TokenStoreError) {
            try SecureFileIO.removeFile(at: url)
        }

        // MARK: - Internal

        /// Seals `plaintext` and writes the file. `save(_:)` passes JSON; tests pass anything.
        func write(plaintext: Data) throws(TokenStoreError) {
            let (derivation, key) = try keyForWriting()
            let header = TokenFileFormat.header(for: derivation)
            let combined: Data
            do {
                let box = try AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce(), authenticating: header)
                guard let bytes = box.combined else {
                    throw TokenStoreError.encodingFailed("AES-GCM produced no combined representation")
                }
                combined = bytes
            } catch let error as TokenStoreError {
                throw error
            } catch {
                throw .encodingFailed("AES-GCM encryption failed: \(error)", underlyingError: error)
            }
            try SecureFileIO.writeAtomically(Data(header) + combined, to: url)
        }

        /// PBKDF2-HMAC-SHA256 of `passphrase` and `salt`, `outputByteCount` bytes.
        /// - Throws: ``TokenStoreError/invalidKey(_:)`` for an empty passphrase or salt or a count
        ///   out of range (neither BoringSSL's nor CommonCrypto's PBKDF2 is handed empty buffers).
        static func pbkdf2SHA256(
            passphrase: [UInt8], salt: [UInt8], rounds: Int, outputByteCount: Int
        ) throws(TokenStoreError) -> SymmetricKey {
            guard !passphrase.isEmpty, !salt.isEmpty, rounds >= 1, rounds <= Int(UInt32.max), outputByteCount > 0 else {
                throw .invalidKey("PBKDF2 needs a passphrase, a salt, at least one round and a key size")
            }
            #if canImport(CryptoKit)
                var derived = [UInt8](repeating: 0, count: outputByteCount)
                let status = passphrase.withUnsafeBufferPointer { passphrase in
                    salt.withUnsafeBufferPointer { salt in
                        passphrase.withMemoryRebound(to: CChar.self) { passphrase in
                            CCKeyDerivationPBKDF(
                                CCPBKDFAlgorithm(kCCPBKDF2), passphrase.baseAddress, passphrase.count,
                                salt.baseAddress, salt.count, CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256),
                                UInt32(rounds), &derived, derived.count)
                        }
                    }
                }
                guard Int(status) == kCCSuccess else { throw .invalidKey("PBKDF2 failed: CommonCrypto status \(status)") }
                return SymmetricKey(data: derived)
            #else
                do {
                    return try KDF.Insecure.PBKDF2.deriveKey(
                        from: passphrase, salt: salt, using: .sha256,
                        outputByteCount: outputByteCount, unsafeUncheckedRounds: rounds
                    )
                } catch {
                    throw .invalidKey("PBKDF2 failed: \(error)")
                }
            #endif
        }

        /// The bytes of ``pbkdf2SHA256(passphrase:salt:rounds:outputByteCount:)``, for known-answer tests.
        static func pbkdf2SHA256Bytes(
            passphrase: [UInt8], salt: [UInt8], rounds: Int, outputByteCount: Int
        ) throws(TokenStoreError) -> [UInt8] {
            try pbkdf2SHA256(passphrase: passphrase, salt: salt, rounds: rounds, outputByteCount: outputByteCount)
                .withUnsafeBytes { Array($0) }
        }

        // MARK: - Private

        private static func validate(_ url: URL) throws(TokenStoreError) {
            guard url.isFileURL, !url.lastPathComponent.isEmpty, !url.hasDirectoryPath else {
                throw .io("\(url) is not a file URL")
            }
            if let refusal = AppGroupContainer.refusal(for: url) {
                throw .io(refusal)
            }
        }

        /// The key for a file's header, if this store's secret is of the same kind.
        private func key(for derivation: TokenFileFormat.KeyDerivation) throws(TokenStoreError) -> SymmetricKey {
            switch (secret, derivation) {
            case (.key(let key), .rawKey):
                return key
            case (.passphrase(let passphrase, let configuredRounds), .pbkdf2SHA256(let salt, let rounds)):
                let fewest = min(configuredRounds, Self.minimumRounds)
                guard Int(rounds) >= fewest, Int(rounds) <= Self.maximumRounds else {
                    throw .corrupted("PBKDF2 iteration count \(rounds) is outside \(fewest)...\(Self.maximumRounds)")
                }
                return try passphraseKey(passphrase, salt: salt, rounds: rounds)
            case (.key, .pbkdf2SHA256), (.passphrase, .rawKey):
                // Written under the other kind of secret: for the caller, a wrong key.
                throw .authenticationFailed
            }
        }

        /// The header and key for the next save: the cached salt and key when they use this store's
        /// iteration count, otherwise a fresh random salt.
        private func keyForWriting() throws(TokenStoreError) -> (TokenFileFormat.KeyDerivation, SymmetricKey) {
            switch secret {
            case .key(let key):
                return (.rawKey, key)
            case .passphrase(let passphrase, let configuredRounds):
                let rounds = UInt32(configuredRounds)
                if let cached = derivedKey, cached.rounds == rounds {
                    return (.pbkdf2SHA256(salt: cached.salt, rounds: rounds), cached.key)
                }
                var generator = SystemRandomNumberGenerator()
                let salt = (0..<TokenFileFormat.saltByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
                let key = try passphraseKey(passphrase, salt: salt, rounds: rounds)
                return (.pbkdf2SHA256(salt: salt, rounds: rounds), key)
            }
        }

        /// The derived key for `salt` and `rounds`, from the cache or freshly derived (and cached).
        private func passphraseKey(_ passphrase: [UInt8], salt: [UInt8], rounds: UInt32) throws(TokenStoreError) -> SymmetricKey {
            if let cached = derivedKey, cached.salt == salt, cached.rounds == rounds {
                return cached.key
            }
            let key = try Self.pbkdf2SHA256(
                passphrase: passphrase, salt: salt, rounds: Int(rounds), outputByteCount: Self.keyByteCount
            )
            keyDerivationCount += 1
            derivedKey = DerivedKey(salt: salt, rounds: rounds, key: key)
            return key
        }

        /// Where and why encoding failed, without the value.
        private static func describe(encodingError error: any Error) -> String {
            guard let error = error as? EncodingError, case .invalidValue(_, let context) = error else {
                return "JSON encoding failed"
            }
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        }
    }

    extension FileTokenStore: CustomStringConvertible, CustomReflectable {
        /// `FileTokenStore(<path>)`: the path only, never a key, passphrase or token.
        ///
        /// ```swift
        /// print(store)   // FileTokenStore(/var/lib/myapp/token)
        /// ```
        public nonisolated var description: String { "FileTokenStore(\(url.path))" }

        /// A mirror with the file's path as its only child, so `dump(store)` and reflection-based
        /// loggers never reach the key, the passphrase or a derived key.
        ///
        /// ```swift
        /// dump(store)   // ▿ FileTokenStore(/var/lib/myapp/token) #0
        ///               //   - path: "/var/lib/myapp/token"
        /// ```
        public nonisolated var customMirror: Mirror {
            Mirror(self, children: ["path": url.path], displayStyle: .class)
        }
    }
#endif
