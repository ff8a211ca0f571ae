#if canImport(Security)
    import Foundation
    import Security

    /// A ``TokenStore`` that keeps the credential as one generic-password item in the Keychain
    /// (Apple platforms only).
    ///
    /// The item is identified by `service` and `account`; its data is the JSON-encoded
    /// ``TokenCredential``. By default it is readable after the first unlock and never leaves the
    /// device (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`): background refreshes work
    /// while the device is locked, and backups restored elsewhere do not carry the token.
    ///
    /// ```swift
    /// let store = KeychainTokenStore(service: "com.example.myapp.oauth")
    /// try await store.save(credential)
    /// let restored = try await store.load()   // nil if there is no item
    /// ```
    ///
    /// On macOS the item goes to the data-protection keychain (`kSecUseDataProtectionKeychain`),
    /// the only one that honours the accessibility setting. That needs a signed app with a
    /// keychain access group; an unsigned command-line tool or test runner gets
    /// ``TokenStoreError/keychain(status:)`` with `errSecMissingEntitlement` (-34018) and should
    /// pass `usesDataProtectionKeychain: false` (the legacy login keychain, where accessibility is
    /// ignored).
    public actor KeychainTokenStore: TokenStore {
        /// When the item can be read, mapped onto `kSecAttrAccessible…`.
        public enum Accessibility: Sendable, Equatable {
            /// `kSecAttrAccessibleWhenUnlocked`: only while unlocked; migrates to new devices.
            case whenUnlocked
            /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`: only while unlocked; this device only.
            case whenUnlockedThisDeviceOnly
            /// `kSecAttrAccessibleAfterFirstUnlock`: after the first unlock since boot; migrates.
            case afterFirstUnlock
            /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`: after the first unlock since boot;
            /// this device only. The default.
            case afterFirstUnlockThisDeviceOnly
            /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`: only while unlocked, only while a
            /// passcode is set (the item is deleted if it is removed); this device only.
            case whenPasscodeSetThisDeviceOnly
        }

        /// The item's `kSecAttrService`.
        public nonisolated let service: String
        /// The item's `kSecAttrAccount`.
        public nonisolated let account: String
        /// When the item can be read; applied on every save.
        public nonisolated let accessibility: Accessibility
        /// Whether queries set `kSecUseDataProtectionKeychain` (matters on macOS only).
        public nonisolated let usesDataProtectionKeychain: Bool

        /// Creates a store for the item `service` / `account`. Nothing is read or written yet.
        ///
        /// ```swift
        /// let store = KeychainTokenStore(service: "com.example.myapp.oauth", account: "alice@example.com")
        /// ```
        public init(
            service: String,
            account: String = "default",
            accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly,
            usesDataProtectionKeychain: Bool = true
        ) {
            self.service = service
            self.account = account
            self.accessibility = accessibility
            self.usesDataProtectionKeychain = usesDataProtectionKeychain
        }

        /// The stored credential, or `nil` if there is no item (`errSecItemNotFound`).
        ///
        /// ```swift
        /// guard let credential = try await store.load() else { return signIn() }
        /// ```
        /// - Throws: ``TokenStoreError/keychain(status:)`` for any other `OSStatus` (e.g. the device
        ///   is locked and the item is not yet accessible); ``TokenStoreError/corrupted(_:)`` if the
        ///   item's data is not a JSON credential.
        public func load() throws(TokenStoreError) -> TokenCredential? {
            var query = baseQuery()
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            switch status {
            case errSecSuccess:
                guard let data = result as? Data else {
                    throw .corrupted("the keychain item has no data")
                }
                do {
                    return try JSONDecoder().decode(TokenCredential.self, from: data)
                } catch {
                    throw .corrupted("the keychain item is not a JSON token credential")
                }
            case errSecItemNotFound:
                return nil
            default:
                throw .keychain(status: status)
            }
        }

        /// Replaces the item's data (updating it, or adding it if there is none) and applies
        /// ``accessibility``.
        ///
        /// ```swift
        /// try await store.save(TokenCredential(accessToken: "at-2", refreshToken: "rt-2"))
        /// ```
        /// - Throws: ``TokenStoreError/keychain(status:)`` if the Keychain refuses;
        ///   ``TokenStoreError/encodingFailed(_:)`` if the credential cannot be encoded.
        public func save(_ credential: TokenCredential) throws(TokenStoreError) {
            let data: Data
            do {
                data = try JSONEncoder().encode(credential)
            } catch {
                throw .encodingFailed("JSON encoding failed")
            }
            let attributes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: accessibility.attributeValue,
            ]
            let updated = SecItemUpdate(baseQuery() as CFDictionary, attributes as CFDictionary)
            switch updated {
            case errSecSuccess:
                return
            case errSecItemNotFound:
                let added = SecItemAdd(baseQuery().merging(attributes) { $1 } as CFDictionary, nil)
                if added == errSecSuccess { return }
                guard added == errSecDuplicateItem else { throw .keychain(status: added) }
                // Another process added the item between our update and add: update it.
                let retried = SecItemUpdate(baseQuery() as CFDictionary, attributes as CFDictionary)
                guard retried == errSecSuccess else { throw .keychain(status: retried) }
            default:
                throw .keychain(status: updated)
            }
        }

        /// Deletes the item; no item (`errSecItemNotFound`) is not an error.
        ///
        /// ```swift
        /// try await store.remove()   // sign out
        /// ```
        /// - Throws: ``TokenStoreError/keychain(status:)`` for any other `OSStatus`.
        public func remove() throws(TokenStoreError) {
            let status = SecItemDelete(baseQuery() as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw .keychain(status: status)
            }
        }

        /// The attributes that identify the item.
        private nonisolated func baseQuery() -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: account,
            ]
            if usesDataProtectionKeychain {
                query[kSecUseDataProtectionKeychain as String] = true
            }
            return query
        }
    }

    extension KeychainTokenStore: CustomStringConvertible {
        /// Service and account only; never the credential.
        public nonisolated var description: String {
            "KeychainTokenStore(service: \(service.debugDescription), account: \(account.debugDescription))"
        }
    }

    extension KeychainTokenStore.Accessibility {
        /// The `kSecAttrAccessible` value.
        fileprivate var attributeValue: CFString {
            switch self {
            case .whenUnlocked: kSecAttrAccessibleWhenUnlocked
            case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
            case .afterFirstUnlock: kSecAttrAccessibleAfterFirstUnlock
            case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            case .whenPasscodeSetThisDeviceOnly: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
            }
        }
    }
#endif
