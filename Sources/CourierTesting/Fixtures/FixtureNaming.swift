import Courier
import Foundation

/// Where a request's fixture lives in a ``FixtureDirectory``: one folder per path segment, and
/// a file named after the method (and the query) in the folder of the path.
///
/// | request | file |
/// | --- | --- |
/// | `GET /users/42` | `users/42/GET.response` |
/// | `GET /` | `GET.response` |
/// | `POST /users` | `users/POST.response` |
/// | `GET /search?q=swift&page=2` | `search/GET?q=swift&page=2.response` |
/// | `GET /api/items/` (trailing slash) | `api/items/%/GET.response` |
///
/// Segments and the query are written as sent (percent-encoded), except that `/` in a query
/// and `:`, `;`, `*`, `\`, `<`, `>`, `|`, `"`, spaces and control characters anywhere become `%XX`, an empty
/// segment (a trailing slash) is the folder `%`, a segment of dots and a segment ending in
/// `.response` have their dots written `%2E`, and a segment or file name longer than 200 bytes
/// is cut to 200 bytes ending in `~` and 16 hex digits of a hash of the whole (and the extension). Secret query values
/// (by the directory's ``Redaction``) are written `%3Credacted%3E`.
enum FixtureNaming {
    /// The extension of every fixture file.
    static let fileExtension = "response"
    /// The longest segment or file name written as it is.
    static let maximumNameLength = 200

    /// The path components of the fixture for `method` and `target` (the path and query as
    /// sent), relative to the directory, the query left out when `includingQuery` is `false`.
    static func components(method: String, target: String, redaction: Redaction, includingQuery: Bool) -> [String] {
        let redacted = target.contains("?") || target.contains(";") ? redaction.redact(urlString: target) : target
        let (path, query) = split(redacted)
        var components: [String] = []
        var segments = path.split(separator: "/", omittingEmptySubsequences: false)
        if segments.first?.isEmpty == true { segments.removeFirst() }  // the leading "/"
        if segments == [""] { segments = [] }  // "/" is the root, not an empty segment
        for segment in segments {
            components.append(folderName(for: segment))
        }
        var file = escaped(method, keepingSlash: true)
        if includingQuery, let query {
            file += "?" + escaped(query, keepingSlash: false)
        }
        components.append(shortened(file, suffix: "." + fileExtension))
        return components
    }

    /// Whether `target` has a query (a `?`).
    static func hasQuery(_ target: String) -> Bool {
        target.utf8.contains(UInt8(ascii: "?"))
    }

    /// The path before the first `?`, and the query after it.
    private static func split(_ target: String) -> (Substring, Substring?) {
        guard let question = target.firstIndex(of: "?") else { return (Substring(target), nil) }
        return (target[..<question], target[target.index(after: question)...])
    }

    /// A path segment as a folder name.
    private static func folderName(for segment: Substring) -> String {
        if segment.isEmpty { return "%" }
        var name = escaped(segment, keepingSlash: true)
        if name.allSatisfy({ $0 == "." }) {
            name = String(repeating: "%2E", count: name.count)
        } else if name.lowercased().hasSuffix("." + fileExtension) {
            name = String(name.dropLast(fileExtension.count + 1)) + "%2E" + fileExtension
        }
        return shortened(name, suffix: "")
    }

    /// `text` with every byte a file name should not hold as `%XX`: `/` (unless
    /// `keepingSlash`, for segments, which have none), `:`, `;`, `*`, `\`, `<`, `>`, `|`, `"`, and
    /// anything outside visible ASCII.
    private static func escaped(_ text: some StringProtocol, keepingSlash: Bool) -> String {
        var result = ""
        for byte in text.utf8 {
            let unsafe = byte <= 0x20 || byte >= 0x7F || "/:;*\\<>|\"".utf8.contains(byte)
            if unsafe && !(keepingSlash && byte == UInt8(ascii: "/")) {
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
