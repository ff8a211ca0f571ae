#if canImport(Security)
    import Foundation
    import Security

    /// A ``TokenStore`` that keeps the credential as one generic-password item in the Keychain
    /// (Apple platforms only).
    ///
    /// The item is identified by `service` and `account`; its data is the JSON-encoded
    /// ``TokenCredential``. By default it is readable after the first unlock and never leaves the
    /// device (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`). On macOS it goes to the
    /// data-protection keychain, or to the login keychain for a process not entitled to that one
    /// (see `init`'s `usesDataProtectionKeychain`).
    ///
    /// With an accessibility that needs the device unlocked, a save while it is locked (a
    /// background refresh) throws `errSecInteractionNotAllowed` but the store keeps that
    /// credential: `load()` returns it and every later operation writes it first. Should the app
    /// end before one succeeds, a rotated refresh token is lost: prefer the default for a
    /// credential that refreshes in the background.
    ///
    /// ```swift
    /// let store = KeychainTokenStore(service: "com.example.myapp.oauth")
    /// try await store.save(credential)
    /// let restored = try await store.load()   // nil if there is no item
    /// ```
    public actor KeychainTokenStore: TokenStore {
        // The default accessibility lets background refreshes work while the device is locked, and
        // backups restored elsewhere do not carry the token; it needs no passcode (only
        // `.whenPasscodeSetThisDeviceOnly` does). On macOS only the data-protection keychain
        // (`kSecUseDataProtectionKeychain`) honours accessibility. It needs a signed app with a keychain
        // access group; a process without one (an unsigned command-line tool, a test runner) gets
        // `errSecMissingEntitlement` there, and by default the store then falls back to the login
        // keychain, where accessibility is ignored. `usesDataProtectionKeychain: true` fails instead,
        // `false` uses the login keychain from the start.
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
        package nonisolated let service: String
        /// The item's `kSecAttrAccount`.
        package nonisolated let account: String
        /// When the item can be read; applied on every save.
        package nonisolated let accessibility: Accessibility
        /// Whether queries set `kSecUseDataProtectionKeychain` (matters on macOS only): `true` or
        /// `false` as asked, or `nil` for the data-protection keychain with the login keychain
        /// as the fallback for processes not entitled to it.
        package nonisolated let usesDataProtectionKeychain: Bool?
        /// Which keychain the next operation uses.
        private var route: KeychainRoute
        /// A credential saved while the device was locked, not written yet.
        private var pending = KeychainPendingSave()

        /// Creates a store for the item `service` / `account`. Nothing is read or written yet.
        ///
        /// ```swift
        /// let store = KeychainTokenStore(service: "com.example.myapp.oauth", account: "alice@example.com")
        /// ```
        public init(
            service: String,
            account: String = "default",
            accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly,
            usesDataProtectionKeychain: Bool? = nil
        ) {
            self.service = service
            self.account = account
            self.accessibility = accessibility
            self.usesDataProtectionKeychain = usesDataProtectionKeychain
            self.route = KeychainRoute(requested: usesDataProtectionKeychain)
        }

        /// Runs `operation` on the route's keychain, and once more on the login keychain when the
        /// route falls back (see ``KeychainRoute``).
        private func onKeychain(_ operation: (_ query: [String: Any]) -> OSStatus) -> OSStatus {
            let status = operation(baseQuery(dataProtection: route.usesDataProtectionKeychain))
            #if os(macOS)
                let isMacOS = true
            #else
                let isMacOS = false
            #endif
            guard route.retriesOnLoginKeychain(after: status, isMacOS: isMacOS) else { return status }
            return operation(baseQuery(dataProtection: false))
        }

        /// The stored credential, or `nil` if there is no item (`errSecItemNotFound`).
        ///
        /// ```swift
        /// guard let credential = try await store.load() else { return await signIn() }
        /// use(credential)
        /// ```
        /// - Throws: ``TokenStoreError/keychain(status:)`` for any other `OSStatus` (e.g. the device
        ///   is locked and the item is not yet accessible); ``TokenStoreError/corrupted(_:)`` if the
        ///   item's data is not a JSON credential.
        public func load() throws(TokenStoreError) -> TokenCredential? {
            writePending()
            return try pending.loaded { () throws(TokenStoreError) in try read() }
        }

        /// Writes the credential a save left while the device was locked, if one did.
        private func writePending() {
            guard let credential = pending.credential, let data = try? JSONEncoder().encode(credential) else { return }
            pending.wrote(credential, status: write(data))
        }

        /// The item's credential, read from the Keychain.
        private func read() throws(TokenStoreError) -> TokenCredential? {
            var result: CFTypeRef?
            let status = onKeychain { base in
                var query = base
                query[kSecReturnData as String] = true
                query[kSecMatchLimit as String] = kSecMatchLimitOne
                result = nil
                return SecItemCopyMatching(query as CFDictionary, &result)
            }
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
        /// the store's accessibility.
        ///
        /// ```swift
        /// try await store.save(TokenCredential(accessToken: "at-2", refreshToken: "rt-2"))
        /// ```
        /// - Throws: ``TokenStoreError/keychain(status:)`` if the Keychain refuses (the credential is
        ///   kept and written later when it refused because the device is locked);
        ///   ``TokenStoreError/encodingFailed(_:underlyingError:)`` if the credential cannot be encoded.
        public func save(_ credential: TokenCredential) throws(TokenStoreError) {
            let data: Data
            do {
                data = try JSONEncoder().encode(credential)
            } catch {
                throw .encodingFailed("JSON encoding failed", underlyingError: error)
            }
            let status = write(data)
            pending.wrote(credential, status: status)
            guard status == errSecSuccess else { throw .keychain(status: status) }
        }

        /// Replaces the item's data with `data`, with the store's accessibility.
        private func write(_ data: Data) -> OSStatus {
            let attributes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: accessibility.attributeValue,
            ]
            return onKeychain { query in Self.replace(query, with: attributes) }
        }

        /// Updates the item `query` finds with `attributes`, or adds it.
        private static func replace(_ query: [String: Any], with attributes: [String: Any]) -> OSStatus {
            let updated = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
            guard updated == errSecItemNotFound else { return updated }
            let added = SecItemAdd(query.merging(attributes) { $1 } as CFDictionary, nil)
            guard added == errSecDuplicateItem else { return added }
            // Another process added the item between our update and add: update it.
            return SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
        }

        /// Deletes the item; no item (`errSecItemNotFound`) is not an error.
        ///
        /// ```swift
        /// try await store.remove()   // sign out
        /// ```
        /// - Throws: ``TokenStoreError/keychain(status:)`` for any other `OSStatus`.
        public func remove() throws(TokenStoreError) {
            pending.removed()
            let status = onKeychain { query in SecItemDelete(query as CFDictionary) }
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw .keychain(status: status)
            }
        }

        /// The attributes that identify the item, in the data-protection keychain or not.
        private nonisolated func baseQuery(dataProtection: Bool) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: account,
            ]
            if dataProtection {
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
