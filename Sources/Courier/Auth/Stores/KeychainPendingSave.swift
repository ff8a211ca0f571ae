/// A credential the Keychain refused to store because the device was locked: a `save` from a
/// background refresh, for an item readable only while unlocked (`.whenUnlocked…`,
/// `.whenPasscodeSetThisDeviceOnly`), gets `errSecInteractionNotAllowed`. With refresh-token
/// rotation that credential holds the only refresh token the server still accepts, so
/// ``KeychainTokenStore`` keeps it in memory, returns it from `load()`, and writes it before its
/// next operation, until one succeeds. A pure value: the store drives it (Linux tests it).
struct KeychainPendingSave {
    /// `errSecInteractionNotAllowed`: the item cannot be written or read while the device is locked.
    static let interactionNotAllowed: Int32 = -25308
    /// `errSecSuccess`.
    static let success: Int32 = 0

    /// The credential not written yet, newer than what the Keychain holds.
    private(set) var credential: TokenCredential?

    /// Records how writing `credential` ended: kept when the device was locked, forgotten once a
    /// write succeeded. Another failure keeps nothing new (the caller gets the error), but a
    /// credential kept before stays kept.
    mutating func wrote(_ credential: TokenCredential, status: Int32) {
        switch status {
        case Self.success: self.credential = nil
        case Self.interactionNotAllowed: self.credential = credential
        default: break
        }
    }

    /// What `load()` returns: the kept credential while it is not written, else what `read` finds.
    func loaded(_ read: () throws(TokenStoreError) -> TokenCredential?) throws(TokenStoreError) -> TokenCredential? {
        if let credential { return credential }
        return try read()
    }

    /// The item was removed (sign-out): nothing is kept.
    mutating func removed() {
        credential = nil
    }
}
