import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// A combining mark (U+0301, U+06E4, …) after an ASCII delimiter makes one grapheme cluster with
/// it, and Swift's character-level `contains`, `firstIndex(of:)` and `replacingOccurrences(of:with:)`
/// then do not see the delimiter. A server, a shell and an XML parser do. Each test here failed
/// while Courier searched characters instead of scalars.
@Suite("Delimiters followed by a combining mark are still delimiters")
struct CombiningMarkTests {
    static let mark = "\u{0301}"

    @Test(
        "redact(urlString:) still hides a secret item whose '&', '?' or '=' carries a combining mark",
        arguments: [
            "h x?a=1&\u{0301}token=S3CR3T",
            "h x?token=\u{0301}S3CR3T",
            "h x?\u{0301}token=S3CR3T",
            "h x/p;jsessionid=\u{0301}S3CR3T",
            "h x#access_token=\u{0301}S3CR3T",
        ])
    func urlStringRedaction(urlString: String) {
        let redacted = Redaction.default.redact(urlString: urlString)
        #expect(redacted.range(of: "S3CR3T", options: .literal) == nil, "leaked: \(redacted)")
    }

    @Test("a user-info '@' with a combining mark is still redacted from an unparsable URL string")
    func userInfoRedaction() {
        let redacted = Redaction.default.redact(urlString: "S3CR3T@\u{0301}h x/p")
        #expect(redacted.range(of: "S3CR3T", options: .literal) == nil, "leaked: \(redacted)")
    }

    @Test("curlCommand quotes a single quote that a combining mark follows, so the shell never leaves the quotes")
    func curlQuoting() throws {
        let request = TransportRequest(
            head: HTTPRequest(
                method: .get, scheme: "https", authority: "h.example", path: "/p",
                headerFields: [HTTPField.Name("X-Note")!: "a'\u{0301}; touch pwned; echo '"]),
            body: nil, timeout: .seconds(1), url: URL(string: "https://h.example/p")!)
        let command = request.curlCommand()
        #expect(command.range(of: "'\\''\u{0301}; touch pwned; echo '\\'''", options: .literal) != nil, "\(command)")
        // Read back as a POSIX shell splits words, the header is one argument, unchanged.
        #expect(shellWords(command).contains("X-Note: a'\u{0301}; touch pwned; echo '"), "\(command)")
    }

    /// The words a POSIX shell makes of `command`, for single quotes, backslashes and spaces only.
    private func shellWords(_ command: String) -> [String] {
        var words: [String] = []
        var word = String.UnicodeScalarView()
        var inWord = false, quoted = false, escaped = false
        for scalar in command.unicodeScalars {
            if escaped { word.append(scalar); escaped = false; continue }
            switch scalar {
            case "'": quoted.toggle(); inWord = true
            case "\\" where !quoted: escaped = true; inWord = true
            case " " where !quoted:
                if inWord { words.append(String(word)) }
                word = String.UnicodeScalarView(); inWord = false
            default: word.append(scalar); inWord = true
            }
        }
        if inWord { words.append(String(word)) }
        return words
    }

    @Test("a multipart filename's '\"' is written as %22 also when a combining mark follows it")
    func multipartFilenameQuote() async throws {
        var form = MultipartForm(boundary: "b")
        form.append(data: Data("v".utf8), name: "file", filename: "a\"\u{0301}; name=\"evil")
        let (body, _) = try await encodedMultipart(form)
        #expect(
            body.range(of: Data("filename=\"a%22\u{0301}; name=%22evil\"".utf8)) != nil,
            "\(String(decoding: body, as: UTF8.self))")
        #expect(body.range(of: Data("\"\u{0301}".utf8)) == nil)
    }

    @Test("a Basic username with ':' followed by a combining mark is refused")
    func basicUsernameColon() {
        #expect(throws: CourierError.self) {
            _ = try BasicCredential(username: "alice:\u{0301}", password: "pw").authorizationValue()
        }
    }
}
