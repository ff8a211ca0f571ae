/// Which keychain a `KeychainTokenStore` uses (Apple platforms), as a value compiled and tested
/// on every platform; the store only runs the `SecItem…` calls it decides.
///
/// On macOS the data-protection keychain is the one that honours the item's accessibility, but it
/// needs a signed process with a keychain access group: an unsigned command-line tool or test
/// runner gets `errSecMissingEntitlement`. In the automatic mode the store then uses the user's
/// login keychain instead, from that operation on, so the default works for every process.
struct KeychainRoute: Equatable, Sendable {
    /// `errSecMissingEntitlement`.
    static let missingEntitlement: Int32 = -34018

    /// Whether the data-protection keychain was asked for (`true`), refused (`false`), or left to
    /// the route (`nil`: the data-protection keychain, else the login keychain on macOS).
    let requested: Bool?
    /// Whether the route gave up on the data-protection keychain.
    private(set) var fellBack = false

    init(requested: Bool?) {
        self.requested = requested
    }

    /// Whether the next operation sets `kSecUseDataProtectionKeychain`.
    var usesDataProtectionKeychain: Bool {
        requested ?? !fellBack
    }

    /// Whether an operation that answered `status` should run again on the login keychain
    /// (and every later one with it): only in the automatic mode, only on macOS, only for
    /// `errSecMissingEntitlement`.
    mutating func retriesOnLoginKeychain(after status: Int32, isMacOS: Bool) -> Bool {
        guard requested == nil, !fellBack, isMacOS, status == Self.missingEntitlement else { return false }
        fellBack = true
        return true
    }
}
