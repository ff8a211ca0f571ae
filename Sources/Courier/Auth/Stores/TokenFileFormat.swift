#if EncryptedTokenStore
    import Foundation

    /// The on-disk layout of a ``FileTokenStore`` file (see the type's documentation for the table).
    ///
    /// Pure parsing and encoding; no cryptography. Every malformed input is a ``TokenStoreError``.
    enum TokenFileFormat {
        /// `"CRTK"`: Courier token.
        static let magic: [UInt8] = [0x43, 0x52, 0x54, 0x4B]
        /// The only format version this build writes and reads.
        static let version: UInt8 = 1
        /// Key-derivation id: the caller supplied a raw 256-bit key.
        static let rawKeyID: UInt8 = 0x01
        /// Key-derivation id: PBKDF2-HMAC-SHA256 of the passphrase's UTF-8 bytes.
        static let pbkdf2SHA256ID: UInt8 = 0x02
        /// Bytes of salt in a passphrase file.
        static let saltByteCount = 16
        /// magic, version, key-derivation id.
        static let rawKeyHeaderByteCount = 6
        /// magic, version, key-derivation id, salt, rounds (UInt32 big-endian).
        static let passphraseHeaderByteCount = 6 + 16 + 4
        /// AES-GCM nonce (12) plus tag (16): the smallest possible sealed box.
        static let sealedBoxOverhead = 12 + 16
        /// A token file is a few hundred bytes; anything this large is not one.
        static let maximumFileSize = 1 << 20

        /// How the file's key is obtained.
        enum KeyDerivation: Equatable {
            case rawKey
            case pbkdf2SHA256(salt: [UInt8], rounds: UInt32)
        }

        /// The header bytes for `derivation`; they are also the AES-GCM additional data.
        static func header(for derivation: KeyDerivation) -> [UInt8] {
            var bytes = magic
            bytes.append(version)
            switch derivation {
            case .rawKey:
                bytes.append(rawKeyID)
            case .pbkdf2SHA256(let salt, let rounds):
                bytes.append(pbkdf2SHA256ID)
                bytes.append(contentsOf: salt)
                bytes.append(contentsOf: [
                    UInt8(truncatingIfNeeded: rounds >> 24), UInt8(truncatingIfNeeded: rounds >> 16),
                    UInt8(truncatingIfNeeded: rounds >> 8), UInt8(truncatingIfNeeded: rounds),
                ])
            }
            return bytes
        }

        /// A parsed file: its key derivation, the exact header bytes (the additional data) and the
        /// AES-GCM combined box (nonce ‖ ciphertext ‖ tag).
        struct Parsed {
            var derivation: KeyDerivation
            var header: [UInt8]
            var sealedBox: [UInt8]
        }

        /// Splits a file into header and sealed box.
        /// - Throws: `.corrupted` for a short file, wrong magic, unknown key derivation or a box too
        ///   short to hold nonce and tag; `.unsupportedVersion` for another format version.
        static func parse(_ data: Data) throws(TokenStoreError) -> Parsed {
            let bytes = [UInt8](data)
            let magicPrefix = bytes.prefix(magic.count)
            guard magicPrefix.elementsEqual(magic.prefix(magicPrefix.count)) else {
                throw .corrupted("not a Courier token file (wrong magic bytes)")
            }
            guard bytes.count >= rawKeyHeaderByteCount else {
                throw .corrupted("truncated header: \(bytes.count) bytes")
            }
            guard bytes[4] == version else {
                throw .unsupportedVersion(bytes[4])
            }
            let derivation: KeyDerivation
            let headerByteCount: Int
            switch bytes[5] {
            case rawKeyID:
                derivation = .rawKey
                headerByteCount = rawKeyHeaderByteCount
            case pbkdf2SHA256ID:
                guard bytes.count >= passphraseHeaderByteCount else {
                    throw .corrupted("truncated header: \(bytes.count) bytes")
                }
                let salt = Array(bytes[6..<22])
                let rounds = bytes[22..<26].reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }
                derivation = .pbkdf2SHA256(salt: salt, rounds: rounds)
                headerByteCount = passphraseHeaderByteCount
            case let other:
                throw .corrupted("unknown key derivation id \(other)")
            }
            let sealedBox = Array(bytes[headerByteCount...])
            guard sealedBox.count >= sealedBoxOverhead else {
                throw .corrupted("truncated encrypted payload: \(sealedBox.count) bytes")
            }
            return Parsed(derivation: derivation, header: Array(bytes[..<headerByteCount]), sealedBox: sealedBox)
        }
    }
#endif
