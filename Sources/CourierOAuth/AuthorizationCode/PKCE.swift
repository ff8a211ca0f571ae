import Courier
import Foundation

/// Proof Key for Code Exchange (RFC 7636) and the other random values of an authorization
/// request: the code verifier, its S256 challenge, and `state`.
///
/// Every random value comes from `SystemRandomNumberGenerator`, which reads the operating
/// system's CSPRNG (`getrandom`/`arc4random_buf`) on Linux and Apple platforms.
enum PKCE {
    /// The characters a code verifier is drawn from: RFC 3986 unreserved, `[A-Za-z0-9-._~]`
    /// (RFC 7636 §4.1).
    static let verifierAlphabet: [Character] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// The shortest and longest verifiers RFC 7636 §4.1 allows.
    static let verifierLengths = 43...128

    /// The verifier length Courier uses: 64 characters of a 66-character alphabet, about
    /// 387 bits of entropy.
    static let defaultVerifierLength = 64

    /// A new code verifier of `length` characters (clamped to 43...128), each drawn uniformly
    /// from ``verifierAlphabet``.
    static func makeVerifier(length: Int = defaultVerifierLength) -> String {
        var generator = SystemRandomNumberGenerator()
        let count = min(max(length, verifierLengths.lowerBound), verifierLengths.upperBound)
        var verifier = ""
        verifier.reserveCapacity(count)
        for _ in 0..<count {
            // randomElement(using:) draws an unbiased index (no modulo bias).
            verifier.append(verifierAlphabet.randomElement(using: &generator) ?? "A")
        }
        return verifier
    }

    /// Whether `verifier` is one RFC 7636 §4.1 allows: 43 to 128 unreserved characters.
    static func isValidVerifier(_ verifier: String) -> Bool {
        verifierLengths.contains(verifier.utf8.count)
            && verifier.utf8.allSatisfy(PercentEncoding.isUnreserved)
    }

    /// The `S256` challenge of `verifier`: BASE64URL(SHA256(ASCII(verifier))) without padding
    /// (RFC 7636 §4.2).
    static func challenge(for verifier: String) -> String {
        base64URL(SHA256.hash(Data(verifier.utf8)))
    }

    /// A new `state`: 32 random bytes (256 bits) as base64url without padding, 43 characters.
    static func makeState() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 32)
        for index in bytes.indices { bytes[index] = generator.next() }
        return base64URL(bytes)
    }

    /// Base64url without padding (RFC 4648 §5, RFC 7636 Appendix A).
    static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Compares two strings in time that depends only on their lengths, so that a `state`
    /// check leaks nothing about where the first difference is.
    static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
