// Stand-in for Apple's Security framework, for type-checking Courier's Apple-only code on Linux
// (.ci/apple/typecheck.sh). Only what Courier uses, as the macOS 15 / iOS 18 SDKs present
// SecItem.h, SecTrust.h, SecCertificate.h, SecKey.h and SecBase.h to Swift: `OSStatus` is
// `Int32`, the `kSec…` keys are `CFString`, functions take and return `CFDictionary`, `CFArray`,
// `CFData`, `CFTypeRef`. Availability is copied from the headers.
//
// Core Foundation's toll-free bridging (`[String: Any] as CFDictionary`, `kSecClass as String`)
// is modelled by aliasing each CF type to the Swift type it bridges to, so those casts type-check
// as they do on Apple platforms; `SecTrust`, `SecCertificate` and `SecKey` are opaque classes,
// as there. Bodies are dummies.

import Foundation

public typealias OSStatus = Int32
public typealias CFTypeRef = AnyObject
public typealias CFString = String
public typealias CFDictionary = [String: Any]
public typealias CFArray = [Any]
public typealias CFData = Data
public typealias CFBoolean = Bool
public final class CFError: Error {}

public final class SecTrust: @unchecked Sendable {}
public final class SecCertificate {}
public final class SecKey {}

public var errSecSuccess: OSStatus { 0 }
public var errSecItemNotFound: OSStatus { -25300 }
public var errSecDuplicateItem: OSStatus { -25299 }
public var errSecMissingEntitlement: OSStatus { -34018 }
public var errSecInteractionNotAllowed: OSStatus { -25308 }

public let kSecClass: CFString = "class"
public let kSecClassGenericPassword: CFString = "genp"
public let kSecAttrService: CFString = "svce"
public let kSecAttrAccount: CFString = "acct"
public let kSecAttrAccessible: CFString = "pdmn"
public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
public let kSecValueData: CFString = "v_Data"
public let kSecReturnData: CFString = "r_Data"
public let kSecMatchLimit: CFString = "m_Limit"
public let kSecMatchLimitOne: CFString = "m_LimitOne"
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public let kSecUseDataProtectionKeychain: CFString = "nleg"
public let kSecAttrKeyType: CFString = "type"
public let kSecAttrKeyTypeRSA: CFString = "42"
public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"

@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, *)
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { 0 }
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, *)
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { 0 }
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, *)
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { 0 }
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, *)
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { 0 }

@available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, *)
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool { false }
@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, *)
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? { nil }
@available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, *)
public func SecTrustCopyKey(_ trust: SecTrust) -> SecKey? { nil }
@available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, *)
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? { nil }
@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? { nil }
@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? { nil }
