// Stand-in for Apple's Security framework, for type-checking Courier's Apple-only code on Linux
// (.ci/apple/typecheck.py). Only what Courier uses, as the SDK presents the C headers to Swift
// (Xcode 16, macOS 15 / iOS 18 SDKs; availability copied from the headers' API_AVAILABLE, all met
// by the package's minimums). Built with -enable-library-evolution, as Apple's frameworks are.
// Bodies are dummies.

public import Foundation

// MARK: - Core Foundation types (CoreFoundation/CFBase.h, CFString.h, CFDictionary.h, CFArray.h,
// CFData.h, CFNumber.h, CFError.h as Swift imports them)
//
// On Apple platforms each CF type is a class of its own, toll-free bridged to its Foundation
// class and converted to and from Swift types only by an explicit `as` (`kSecClass as String`,
// `query as CFDictionary`, `value as Data?`); Swift has no implicit bridging conversions. The
// corelibs Foundation classes give Linux the same rules: `NSString` is not a `String`, and
// `as` bridges between them. So each CF type is its Foundation class here, exactly as distinct
// from the Swift type as on Darwin (`CFString` and `NSString` are two names of one bridged type
// there too: `x as NSString as CFString` compiles on Apple platforms).
public typealias CFTypeRef = AnyObject
public typealias CFString = NSString
public typealias CFDictionary = NSDictionary
public typealias CFArray = NSArray
public typealias CFData = NSData
public typealias CFBoolean = NSNumber
/// CFError.h: a CF class, which the Foundation overlay makes an `Error` (and so `Sendable`).
public final class CFError: Error {}

// MARK: - SecBase.h: OSStatus and the opaque CF classes. None is `Sendable` in the SDK.
public typealias OSStatus = Int32
/// SecBase.h `SecTrustRef`: imported as a CF class; no `Sendable` conformance.
public final class SecTrust {}
/// SecBase.h `SecCertificateRef`.
public final class SecCertificate {}
/// SecBase.h `SecKeyRef`.
public final class SecKey {}

// MARK: - SecBase.h: status codes (an anonymous C enum: `var … : OSStatus { get }`).
public var errSecSuccess: OSStatus { 0 }
public var errSecItemNotFound: OSStatus { -25300 }
public var errSecDuplicateItem: OSStatus { -25299 }
public var errSecMissingEntitlement: OSStatus { -34018 }
public var errSecInteractionNotAllowed: OSStatus { -25308 }

// MARK: - SecItem.h: item classes, attributes, search and return keys (`let … : CFString`).
// C globals are imported without concurrency checking; `nonisolated(unsafe)` reproduces that.
nonisolated(unsafe) public let kSecClass: CFString = "class"
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "type"
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = "42"
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"

// MARK: - SecItem.h: the item functions.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, *)
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { 0 }
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, *)
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { 0 }
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, *)
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { 0 }
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, *)
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { 0 }

// MARK: - SecTrust.h: evaluation and the certificate chain.
@available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, *)
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool { false }
@available(macOS 12.0, iOS 15.0, tvOS 15.0, watchOS 8.0, *)
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? { nil }

// MARK: - SecCertificate.h and SecKey.h: a certificate's key and its bytes and attributes.
@available(macOS 10.14, iOS 12.0, tvOS 12.0, watchOS 5.0, *)
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? { nil }
@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? { nil }
@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? { nil }
