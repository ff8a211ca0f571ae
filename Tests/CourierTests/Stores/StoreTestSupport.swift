import Courier
import Foundation
import Testing

/// Fixtures shared by the token-store suites (namespaced so they cannot clash with other suites).
enum StoreFixtures {
    /// PBKDF2 rounds for test stores: cheap, so byte-by-byte tampering tests stay fast.
    static let testRounds = 1_000
    /// Bytes before the AES-GCM box in a raw-key file: magic, version, key derivation.
    static let rawKeyHeaderCount = 6
    /// Bytes before the AES-GCM box in a passphrase file: plus salt (16) and rounds (4).
    static let passphraseHeaderCount = 26

    /// A 32-byte key with a recognisable pattern.
    static let key = Data((0..<32).map { UInt8($0) })
    /// A different 32-byte key.
    static let otherKey = Data((0..<32).map { UInt8(255 - $0) })

    /// A credential with every field set and tokens that are easy to search for.
    static func credential(_ number: Int = 1) -> TokenCredential {
        TokenCredential(
            accessToken: "access-SECRET-\(number)-eyJhbGciOiJIUzI1NiJ9",
            refreshToken: "refresh-SECRET-\(number)-8xLOxBtZp8",
            expiresAt: Date(timeIntervalSinceReferenceDate: 800_000_000.125 + Double(number)),
            tokenType: "Bearer",
            scope: "read write",
            issuedAt: Date(timeIntervalSinceReferenceDate: 799_996_400.5 + Double(number))
        )
    }

    /// Runs `body` with a fresh empty directory that is deleted afterwards.
    static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-store-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// The names in `directory`, sorted.
    static func contents(of directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// The POSIX permission bits of the item at `url`.
    static func permissions(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// Whether `haystack` contains `needle` as a run of bytes.
    static func bytes(_ haystack: Data, contain needle: String) -> Bool {
        haystack.range(of: Data(needle.utf8)) != nil
    }
}

/// The two kinds of secret a `FileTokenStore` can use.
enum StoreKeyKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case rawKey
    case passphrase

    var testDescription: String { rawValue }

    var headerCount: Int {
        self == .rawKey ? StoreFixtures.rawKeyHeaderCount : StoreFixtures.passphraseHeaderCount
    }
}
