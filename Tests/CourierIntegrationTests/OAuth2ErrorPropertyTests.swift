import Courier
import Foundation
import PropertyBased
import Testing

/// What an authorization server writes into an OAuth2 error body, as properties: whatever the
/// `error` and `error_description` hold, the failure's description is one printable line of
/// bounded length, never shows a secret the request sent, and shows a plain text as it came.
@Suite("OAuth2ErrorProperty: a hostile error body is printed on one bounded line, without the secrets sent")
struct OAuth2ErrorPropertyTests {
    /// Letters, the placeholder's own characters, controls, a bidirectional override, a
    /// combining mark and a non-ASCII letter.
    static let alphabet: [String] = [
        "a", "b", "d", "e", ">", "<", "r", " ", ":", "\n", "\u{1B}", "\u{7}", "\u{202E}", "\u{301}", "é", "\u{85}", "\u{2028}",
    ]
    static let secretAlphabet: [String] = ["a", "b", "d", "e", ">", "<", "r", "é", "7", "-"]

    static func text(_ picks: [Int], from alphabet: [String]) -> String { picks.map { alphabet[$0] }.joined() }

    static func bytes(of text: String, contain part: String) -> Bool {
        let bytes = Array(text.utf8)
        let part = Array(part.utf8)
        return bytes.indices.contains { bytes[$0...].starts(with: part) }
    }

    /// Scalars a terminal or a log reader would act on instead of showing.
    static func unprintable(_ text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
            default: false
            }
        }
    }

    @Test func anErrorBodyIsPrintedOnOneBoundedLineWithoutASecret() async {
        await propertyCheck(
            count: 300,
            input: Gen.int(in: 0...(Self.alphabet.count - 1)).array(of: 0...40),
            Gen.int(in: 0...(Self.secretAlphabet.count - 1)).array(of: 4...16),
            Gen.int(in: 0...2),
            Gen.int(in: 0...3000),
            Gen.int(in: 0...3)
        ) { picks, secretPicks, field, padding, overlap in
            // With `overlap`, the secret starts with the end of the placeholder (`d>…`), and the
            // server sends the rest of it once more after it: replacing the first occurrence would
            // complete a second one out of the placeholder's last characters.
            let tail = Self.text(secretPicks, from: Self.secretAlphabet)
            let secret = String(Redaction.placeholder.suffix(overlap)) + tail
            let noise = Self.text(picks, from: Self.alphabet)
            let long = String(repeating: "x", count: padding)
            // The secret, echoed once or twice, in the code, the description or both, among noise.
            let echoed = noise + secret + tail + noise + long + secret + noise
            let body: [String: String] =
                switch field {
                case 0: ["error": echoed]
                case 1: ["error": "invalid_grant", "error_description": echoed]
                default: ["error": secret + noise, "error_description": echoed]
                }
            let data = (try? JSONSerialization.data(withJSONObject: body)) ?? Data()
            guard let error = OAuth2Error.lenientlyParsing(data, secrets: ["client-id-value", secret]) else {
                Issue.record("the body did not parse: \(body)")
                return
            }
            let failure = RefreshFailure(reason: .rejected, oauth2Error: error, statusCode: 400, isPermanent: true, grantType: "password")
            for rendering in [String(describing: error), String(describing: failure), String(describing: CourierError.authentication(.refreshFailed(failure)))]
            {
                // Byte for byte: a combining mark after the secret must not hide it.
                #expect(!Self.bytes(of: rendering, contain: secret), "the secret \(secret.debugDescription) is shown: \(rendering.debugDescription)")
                #expect(Self.unprintable(rendering).isEmpty, "\(rendering.debugDescription)")
                // 128 + 512 characters, each at most an escape `\u{202E}` of 8 bytes, and the words around them.
                #expect(rendering.utf8.count <= 8 * (128 + 512) + 400, "\(rendering.utf8.count) bytes")
            }
        }
    }

    @Test func aPlainErrorIsShownAsItCame() async {
        let letters = Array("abcdefghijklmnopqrstuvwxyz ABC.,;'()0123456789_-")
        await propertyCheck(
            count: 200, input: Gen.int(in: 0...(letters.count - 1)).array(of: 1...120), Gen.int(in: 0...(letters.count - 1)).array(of: 1...40)
        ) { descriptionPicks, codePicks in
            let text = String(descriptionPicks.map { letters[$0] })
            let code = String(codePicks.map { letters[$0] })
            let data = (try? JSONSerialization.data(withJSONObject: ["error": code, "error_description": text])) ?? Data()
            let error = OAuth2Error.lenientlyParsing(data, secrets: ["S3CR3T-VALUE"])
            #expect(error == OAuth2Error(code: code, errorDescription: text))
            #expect(error.map(String.init(describing:)) == "\(code): \(text)")
        }
    }
}
