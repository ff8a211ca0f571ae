import PropertyBased
import Testing

@testable import Courier

@Suite("String(strictUTF8:): UTF-8 validated, nothing replaced, at every deployment target")
struct StrictUTF8Tests {
    @Test(
        "valid UTF-8 reads back as itself",
        arguments: ["", "plain ascii", "café", "日本語", "🧪 emoji", "\u{0}nul", "\u{10FFFF}"])
    func validReadsBack(_ text: String) {
        #expect(String(strictUTF8: Array(text.utf8)) == text)
    }

    @Test(
        "invalid UTF-8 is refused, not repaired",
        arguments: [
            [0x80],  // stray continuation byte
            [0xC3],  // truncated two-byte form
            [0xC0, 0xAF],  // overlong "/"
            [0xE0, 0x80, 0xAF],  // overlong "/" in three bytes
            [0xED, 0xA0, 0x80],  // a UTF-16 surrogate
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0x61, 0xFF, 0x62],  // a byte UTF-8 never uses, between valid ones
        ] as [[UInt8]])
    func invalidIsRefused(_ bytes: [UInt8]) {
        #expect(String(strictUTF8: bytes) == nil)
    }

    @Test("on random bytes it agrees with the standard library's String(validating:as:)")
    func agreesWithTheStandardLibrary() async {
        await propertyCheck(count: 2_000, input: Gen.int(in: 0...255).array(of: 0...12)) { values in
            let bytes = values.map(UInt8.init)
            #expect(String(strictUTF8: bytes) == String(validating: bytes, as: UTF8.self))
        }
    }
}
