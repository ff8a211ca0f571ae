import Courier
import Foundation

/// Where a request's fixture lives in a ``FixtureDirectory``: one folder per path segment, and
/// a file named after the method (and the query) in the folder of the path.
enum FixtureNaming {
    // | request | file |
    // | --- | --- |
    // | `GET /users/42` | `users/42/GET.response` |
    // | `GET /` | `GET.response` |
    // | `POST /users` | `users/POST.response` |
    // | `GET /search?q=swift&page=2` | `search/GET?q=swift&page=2.response` |
    // | `GET /api/items/` (trailing slash) | `api/items/%/GET.response` |
    //
    // Segments and the query are written as sent (percent-encoded), except that `/` in a query,
    // and `:`, `;`, `*`, `\`, `<`, `>`, `|`, `"`, spaces, control characters and non-ASCII
    // anywhere, become `%XX`; an empty segment (a trailing slash) is the folder `%`; a segment of
    // dots and a segment ending in `.response` have their dots written `%2E`; a segment or file
    // name longer than 200 bytes is cut to 200 bytes ending in `~`, 16 hex digits of a hash of the
    // whole, and the extension. Secret query values (by the directory's Redaction) are written
    // `%3Credacted%3E`. Paths and queries are split by Unicode scalars, never by characters.

    /// The extension of every fixture file.
    static let fileExtension = "response"
    /// The longest segment or file name written as it is.
    static let maximumNameLength = 200

    /// The path components of the fixture for `method` and `target` (the path and query as
    /// sent), relative to the directory, the query left out when `includingQuery` is `false`.
    static func components(method: String, target: String, redaction: Redaction, includingQuery: Bool) -> [String] {
        let bytes = target.utf8
        let redacted = bytes.contains(UInt8(ascii: "?")) || bytes.contains(UInt8(ascii: ";")) ? redaction.redact(urlString: target) : target
        // Split on Unicode scalars, never `Character`s: a "/" or "?" that a combining mark follows
        // is one grapheme cluster with it, and a split by characters would miss it.
        let scalars = redacted.unicodeScalars
        let question = scalars.firstIndex(of: "?")
        var segments = scalars[..<(question ?? scalars.endIndex)].split(separator: "/", omittingEmptySubsequences: false)
        if segments.first?.isEmpty == true { segments.removeFirst() }  // the leading "/"
        if segments.count == 1 && segments[0].isEmpty { segments = [] }  // "/" is the root, not an empty segment
        var components = segments.map { folderName(for: Substring($0)) }
        var file = escaped(method)
        if includingQuery, let question {
            file += "?" + escaped(Substring(scalars[scalars.index(after: question)...]))
        }
        components.append(shortened(file, suffix: "." + fileExtension))
        return components
    }

    /// Whether `target` has a query (a `?`).
    static func hasQuery(_ target: String) -> Bool {
        target.utf8.contains(UInt8(ascii: "?"))
    }

    /// A path segment as a folder name.
    private static func folderName(for segment: Substring) -> String {
        if segment.isEmpty { return "%" }
        var name = escaped(segment)
        if name.allSatisfy({ $0 == "." }) {
            name = String(repeating: "%2E", count: name.count)
        } else if name.lowercased().hasSuffix("." + fileExtension) {
            name = String(name.dropLast(fileExtension.count + 1)) + "%2E" + fileExtension
        }
        return shortened(name, suffix: "")
    }

    /// `text` with every byte a file name should not hold as `%XX`: `/`, `:`, `;`, `*`, `\`, `<`,
    /// `>`, `|`, `"`, and anything outside visible ASCII.
    private static func escaped(_ text: some StringProtocol) -> String {
        var result = ""
        for byte in text.utf8 {
            if byte <= 0x20 || byte >= 0x7F || "/:;*\\<>|\"".utf8.contains(byte) {
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            } else {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return result
    }

    /// `name` + `suffix`, or, when that would be longer than ``maximumNameLength`` bytes, the
    /// beginning of `name`, `~` and a 64-bit FNV-1a hash of the whole `name` in 16 hex digits,
    /// followed by `suffix`, exactly ``maximumNameLength`` bytes in all.
    private static func shortened(_ name: String, suffix: String) -> String {
        guard name.utf8.count + suffix.utf8.count > maximumNameLength else { return name + suffix }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let kept = String(decoding: name.utf8.prefix(maximumNameLength - 17 - suffix.utf8.count), as: UTF8.self)
        return kept + "~" + String(hash, radix: 16).leftPadded(to: 16) + suffix
    }
}

extension String {
    /// This string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
