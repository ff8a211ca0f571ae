import Testing

@testable import Courier

@Suite("Secret names are decoded byte by byte, as a server decodes them")
struct DecodedNameTests {
    /// A `+` or `%` followed by a combining mark is one grapheme cluster with it; character-level
    /// string functions skipped both (found by FuzzQueryString's model, which had the same bug).
    @Test(
        "a '+' or an escape followed by a combining mark is still decoded",
        arguments: [
            ("pass+\u{0301}word", "pass \u{0301}word"),
            ("a+\u{06E4}b", "a \u{06E4}b"),
            ("%74oken\u{0301}", "token\u{0301}"),
            ("%2525%CC%81", "%\u{0301}"),
            ("plain", "plain"),
        ])
    func decodedByBytes(name: String, expected: String) {
        #expect(Array(Redaction.decodedName(Substring(name)).unicodeScalars) == Array(expected.unicodeScalars))
    }
}
