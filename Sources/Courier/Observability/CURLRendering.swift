import Foundation
import HTTPTypes

extension TransportRequest {
    /// A `curl` command line that repeats this request, with its secrets hidden by `redaction`,
    /// or by the request's own ``TransportRequest/redaction`` when `redaction` is `nil` (which
    /// includes the names a ``RequestSigner`` such as ``APIKeySigner`` added).
    ///
    /// Secret form fields and JSON keys in the body are redacted too. A body that is not text, is
    /// longer than 4 KiB, or is streamed is not shown: the command reads it from standard input
    /// (`--data-binary @-`) and a comment says what it was.
    ///
    /// ```swift
    /// print(request.curlCommand())
    /// // curl -X POST 'https://id.example.com/token' -H 'Content-Type: application/x-www-form-urlencoded' --data-binary 'grant_type=refresh_token&refresh_token=<redacted>'
    /// ```
    public func curlCommand(redaction: Redaction? = nil) -> String {
        // One line, arguments in single quotes (a `'` inside becomes `'\''`), headers in the request's
        // order. `-X METHOD` for every method but `GET` (and `--head` for `HEAD`); `--globoff` when the
        // URL contains `[`, `]`, `{` or `}`, so curl does not read them as a glob pattern. The body:
        // - `application/x-www-form-urlencoded`: `--data-binary` with secret fields redacted;
        // - JSON (`application/json`, `…+json`): `--data-binary` with secret keys redacted at any depth
        //   (keys sorted);
        // - other UTF-8 text without control characters: `--data-binary` as it is;
        // - anything else, anything longer than 4 KiB after redaction (or longer than 64 KiB before,
        //   which is not parsed), and streamed bodies: `--data-binary @-  # N bytes of <content type>,
        //   not shown`, so the command runs with the body piped in and the comment says what it was.
        let redaction = redaction ?? self.redaction
        var arguments = ["curl"]
        let method = head.method.rawValue
        if method == "HEAD" {
            arguments.append("--head")
        } else if method != "GET" {
            arguments.append("-X \(CURL.quoted(method))")
        }
        let url = redaction.redact(url: url)
        if url.contains(where: { "[]{}".contains($0) }) {
            arguments.append("--globoff")
        }
        arguments.append(CURL.quoted(url))
        for field in head.headerFields {
            let value = redaction.redactedValue(ofHeader: field.name.rawName, value: field.value)
            arguments.append("-H \(CURL.quoted("\(field.name.rawName): \(value)"))")
        }
        if let body {
            arguments.append(CURL.bodyArgument(body, contentType: head.headerFields[.contentType], redaction: redaction))
        }
        return arguments.joined(separator: " ")
    }
}

/// Shell quoting and body rendering for ``TransportRequest/curlCommand(redaction:)``.
enum CURL {
    /// `text` in single quotes for a POSIX shell: `it's` becomes `'it'\''s'`. Every `'` scalar
    /// is replaced (`.literal`), also one a combining mark follows, which a character-level
    /// replacement skips and which would end the quoting early.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#, options: .literal) + "'"
    }

    static func bodyArgument(_ body: TransportBody, contentType: String?, redaction: Redaction) -> String {
        let described = contentType.map(mediaType) ?? "unspecified type"
        switch body {
        case .stream(let stream):
            let size = stream.length.map { "\($0) bytes" } ?? "unknown length"
            return "--data-binary @-  # streamed body, \(size) of \(described), not shown"
        case .data(let data):
            if data.isEmpty { return "--data-binary ''" }
            if let preview = preview(data, mediaType: contentType.map(mediaType), redaction: redaction),
                preview.utf8.count <= Redaction.bodyPreviewLimit
            {
                return "--data-binary \(quoted(preview))"
            }
            return "--data-binary @-  # \(data.count) bytes of \(described), not shown"
        }
    }

    /// The largest form or JSON body that is parsed to be redacted and shown: 64 KiB.
    static let maximumParsedBody = 16 * Redaction.bodyPreviewLimit

    /// The body as it may be printed, or `nil` when it must not or cannot be.
    private static func preview(_ data: Data, mediaType: String?, redaction: Redaction) -> String? {
        // Redaction only shortens values, so a body many times the limit is almost never shown,
        // and parsing it costs seconds (JSONSerialization with sorted keys, 1.6 MB: ~9 s on
        // Linux in a debug build). Hiding it unparsed only ever hides more.
        guard data.count <= maximumParsedBody else { return nil }
        switch mediaType {
        case "application/x-www-form-urlencoded"?:
            return redaction.redact(formBody: data)
        case let type? where type == "application/json" || type.hasSuffix("+json"):
            return redaction.redact(jsonBody: data)
        default:
            // A body that looks like a form or JSON is redacted as one whatever its label says;
            // other text is shown when it is printable UTF-8.
            if data.first == UInt8(ascii: "{") || data.first == UInt8(ascii: "["), let json = redaction.redact(jsonBody: data) {
                return json
            }
            guard data.count <= Redaction.bodyPreviewLimit,
                let text = String(data: data, encoding: .utf8),
                !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" && $0 != "\r" })
            else { return nil }
            if text.utf8.contains(UInt8(ascii: "=")) {
                return redaction.redact(formBody: data) ?? text
            }
            return text
        }
    }

    /// `type/subtype` of a `Content-Type` value, lower-cased.
    private static func mediaType(_ contentType: String) -> String {
        (contentType.split(separator: ";", maxSplits: 1).first ?? "")
            .trimmingCharacters(in: .whitespaces).lowercased()
    }
}

extension TransportRequest: CustomStringConvertible {
    /// Method, URL with secret query items redacted (by the request's own ``redaction``), and the
    /// header and body sizes; never header values or body bytes.
    public var description: String {
        redaction.describe(self)
    }
}
