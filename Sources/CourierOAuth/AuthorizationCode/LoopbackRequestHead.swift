import Courier

/// The head of one HTTP/1.x request as the loopback redirect receiver reads it: a pure parser
/// of untrusted bytes (any local process can connect), exercised by the `FuzzLoopbackRequest`
/// fuzz target.
///
/// Only what the receiver needs is kept: the method and the request target. Header lines are
/// checked for shape (a token name, a colon, no control characters) and then ignored.
struct LoopbackRequestHead: Equatable, Sendable {
    /// The longest head accepted, request line and header lines together, in bytes.
    static let maximumSize = 8192

    /// The longest method accepted: `OPTIONS`, `CONNECT` and the like are 7.
    static let maximumMethodLength = 16

    /// The method, e.g. `GET`: 1 to 16 token characters.
    var method: String
    /// The request target, e.g. `/callback?code=…&state=…`: visible ASCII without spaces.
    var target: String

    /// The result of parsing a buffer that may hold only the start of a head.
    enum Parse: Equatable, Sendable {
        /// No end of head yet, and fewer than ``LoopbackRequestHead/maximumSize`` bytes: read more.
        case incomplete
        /// No end of head within ``LoopbackRequestHead/maximumSize`` bytes (answer 431).
        case tooLarge
        /// Not an HTTP/1.0 or HTTP/1.1 request head (answer 400).
        case malformed
        /// A complete head.
        case complete(LoopbackRequestHead)
    }

    /// Parses the start of `bytes`: the head ends at the first empty line (`CRLF CRLF`, or a bare
    /// `LF LF`, which RFC 9112 §2.2 lets a recipient accept). Bytes after it are ignored.
    static func parse(_ bytes: [UInt8]) -> Parse {
        guard let end = endOfHead(bytes) else {
            return bytes.count >= maximumSize ? .tooLarge : .incomplete
        }
        var lines = bytes[..<end].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        guard !lines.isEmpty else { return .malformed }
        let requestLine = lines.removeFirst()
        guard let head = parseRequestLine(requestLine) else { return .malformed }
        for line in lines where !isValidHeaderLine(line) {
            return .malformed
        }
        return .complete(head)
    }

    /// The index just past the head's last line (before the empty line), if the empty line is
    /// within the first ``maximumSize`` bytes.
    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        let limit = min(bytes.count, maximumSize)
        var index = 0
        while index < limit {
            if bytes[index] == UInt8(ascii: "\n") {
                // LF LF, or LF CR LF: the line that follows is empty.
                if index + 1 < limit, bytes[index + 1] == UInt8(ascii: "\n") { return index }
                if index + 2 < limit, bytes[index + 1] == UInt8(ascii: "\r"), bytes[index + 2] == UInt8(ascii: "\n") {
                    return index
                }
            }
            index += 1
        }
        return nil
    }

    /// `method SP request-target SP HTTP/1.x`, with exactly one space between the parts.
    private static func parseRequestLine(_ line: ArraySlice<UInt8>) -> LoopbackRequestHead? {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let method = parts[0]
        let target = parts[1]
        let version = parts[2]
        guard (1...maximumMethodLength).contains(method.count), method.allSatisfy(isTokenCharacter),
            !target.isEmpty, target.allSatisfy({ (0x21...0x7E).contains($0) }),
            version.elementsEqual("HTTP/1.1".utf8) || version.elementsEqual("HTTP/1.0".utf8)
        else { return nil }
        return LoopbackRequestHead(method: String(decoding: method, as: UTF8.self), target: String(decoding: target, as: UTF8.self))
    }

    /// `name: value`: a token name, then a value of visible characters, spaces and tabs. A line
    /// starting with whitespace (obsolete folding, RFC 9112 §5.2) is refused.
    private static func isValidHeaderLine(_ line: ArraySlice<UInt8>) -> Bool {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { return false }
        let name = line[..<colon]
        let value = line[(colon + 1)...]
        return name.allSatisfy(isTokenCharacter)
            && value.allSatisfy { $0 == 0x09 || (0x20...0x7E).contains($0) || $0 >= 0x80 }
    }

    /// RFC 9110 `tchar`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

/// What the loopback receiver does with one request head: a pure decision, so that the fuzz
/// target and the tests exercise exactly what the receiver runs.
enum LoopbackRoute: Equatable, Sendable {
    /// A `GET` of the callback path: the redirect, with its origin-form target.
    case redirect(target: String)
    /// Another path (a favicon, a probe): 404, and the receiver keeps waiting.
    case notFound
    /// The callback path with another method: 405, and the receiver keeps waiting.
    case methodNotAllowed
    /// A target that is not origin-form (`*`, an absolute URL): 400, and the receiver keeps waiting.
    case badRequest

    /// Routes `head` for a receiver whose callback path is `callbackPath` (compared exactly,
    /// still percent-encoded; the query is not part of it).
    init(_ head: LoopbackRequestHead, callbackPath: String) {
        guard head.target.hasPrefix("/") else {
            self = .badRequest
            return
        }
        let path = head.target.prefix { $0 != "?" && $0 != "#" }
        if path != callbackPath {
            self = .notFound
        } else if head.method != "GET" {
            self = .methodNotAllowed
        } else {
            self = .redirect(target: head.target)
        }
    }
}

/// The receiver's answers: small, complete HTTP/1.1 responses that close the connection.
enum LoopbackResponse {
    /// A response with `status`, `reason` and an HTML body. The page cannot load anything (CSP
    /// `default-src 'none'`), is never cached, and sends no `Referer` onwards, so the code in the
    /// address bar goes nowhere else.
    static func make(status: Int, reason: String, html: String, extraHeaders: [(String, String)] = []) -> [UInt8] {
        let body = Array(html.utf8)
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        head += "Content-Type: text/html; charset=utf-8\r\n"
        head += "Content-Length: \(body.count)\r\n"
        head += "Cache-Control: no-store\r\n"
        head += "Referrer-Policy: no-referrer\r\n"
        head += "X-Content-Type-Options: nosniff\r\n"
        head += "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'\r\n"
        for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    static let notFound = make(status: 404, reason: "Not Found", html: page("Not found"))
    static let methodNotAllowed = make(status: 405, reason: "Method Not Allowed", html: page("Method not allowed"), extraHeaders: [("Allow", "GET")])
    static let badRequest = make(status: 400, reason: "Bad Request", html: page("Bad request"))
    static let headTooLarge = make(status: 431, reason: "Request Header Fields Too Large", html: page("Request header fields too large"))

    /// A minimal page whose title and only paragraph are `text` (plain ASCII, no markup).
    static func page(_ text: String) -> String {
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>\(text)</title></head><body><p>\(text)</p></body></html>"
    }
}
