/// The `charset` parameters the XML targets try: none, the single-byte and UTF-8 ones a hostile
/// server can declare over UTF-16 bytes, the wide ones, and one Courier does not know.
public let fuzzCharsets: [String?] = [
    nil, "utf-8", "us-ascii", "iso-8859-1", "windows-1252", "utf-16", "utf-16le", "utf-16be", "utf-32", "ebcdic-fuzz",
]

/// Whether bytes served with `charset` hold a NUL that no XML parser may accept: the charset is
/// one where 0x00 can only be U+0000, which XML 1.0 §2.2 forbids, and no byte-order mark
/// overrides it (RFC 7303 §3.2: the BOM wins over the `Content-Type`).
public func hasForbiddenNUL(_ bytes: [UInt8], charset: String?) -> Bool {
    guard let charset, ["utf-8", "us-ascii", "iso-8859-1", "windows-1252"].contains(charset) else { return false }
    let wideBOMs: [[UInt8]] = [[0xFE, 0xFF], [0xFF, 0xFE], [0x00, 0x00, 0xFE, 0xFF]]
    guard !wideBOMs.contains(where: { bytes.starts(with: $0) }) else { return false }
    return bytes.contains(0)
}
