// Stand-in for Apple's CommonCrypto, for type-checking Courier's Apple-only code on Linux
// (.ci/apple/typecheck.py). Only what Courier uses (FileTokenStore's PBKDF2), as the macOS 15 /
// iOS 18 SDKs present CommonKeyDerivation.h and CommonCryptoError.h to Swift: the algorithm
// types are `UInt32`, the enum constants `Int`, the status `Int32`. Bodies are dummies.

public typealias CCPBKDFAlgorithm = UInt32
public typealias CCPseudoRandomAlgorithm = UInt32

public var kCCPBKDF2: Int { 2 }
public var kCCPRFHmacAlgSHA256: Int { 3 }
public var kCCSuccess: Int { 0 }

public func CCKeyDerivationPBKDF(
    _ algorithm: CCPBKDFAlgorithm, _ password: UnsafePointer<CChar>!, _ passwordLen: Int,
    _ salt: UnsafePointer<UInt8>!, _ saltLen: Int, _ prf: CCPseudoRandomAlgorithm, _ rounds: UInt32,
    _ derivedKey: UnsafeMutablePointer<UInt8>!, _ derivedKeyLen: Int
) -> Int32 { 0 }
