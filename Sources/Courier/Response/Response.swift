public import Foundation
public import HTTPTypes

/// An HTTP response: status, headers, body, and the URL that was requested.
///
/// Returned by ``Call/resume()`` when the status is acceptable, and carried by
/// ``CourierError/response(_:)`` when it is not. The public initializers let tests and custom
/// transports build one.
///
/// ```swift
/// let response = try await client.enqueue(Ping()).resume()
/// if response.statusCode == 204 { … }
/// let etag = response.headerValue(for: "ETag")
/// ```
public struct Response: Sendable, Equatable {
    /// The status, e.g. `.ok` (swift-http-types).
    public var status: HTTPResponse.Status
    /// The header fields (swift-http-types); names compare case-insensitively.
    public var headers: HTTPFields
    /// The body, whole. Empty for 204 and HEAD.
    public var body: Data
    /// The URL that was requested (before any redirect).
    public var url: URL

    /// Creates a response from swift-http-types values.
    public init(status: HTTPResponse.Status, headers: HTTPFields = [:], body: Data = Data(), url: URL) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// Creates a response from plain values, for tests and custom transports. Header names that
    /// are not valid tokens are skipped.
    ///
    /// - Precondition: `statusCode` is in `0...999`, as `HTTPResponse.Status(code:)` requires (it
    ///   traps otherwise). A transport reading a status from the network must check it first and
    ///   report a bad one as a `TransportFailure` (`badServerResponse`), never pass it on.
    public init(statusCode: Int, headers: [String: String] = [:], body: Data = Data(), url: URL) {
        var fields = HTTPFields()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            if let fieldName = HTTPField.Name(name) {
                fields.append(HTTPField(name: fieldName, value: value))
            }
        }
        self.init(status: HTTPResponse.Status(code: statusCode), headers: fields, body: body, url: url)
    }

    /// The numeric status code, e.g. `200`.
    public var statusCode: Int { status.code }

    /// 200–299, the status codes an endpoint accepts unless it says otherwise.
    public static let successStatusCodes: Set<Int> = Set(200...299)

    /// The value of the header `name` (case-insensitive), with repeated fields joined by `", "`;
    /// `nil` if absent or if `name` is not a valid header name.
    public func headerValue(for name: String) -> String? {
        headers.value(named: name)
    }

    /// The media type of the body without parameters, lower-cased, e.g. `"application/json"`.
    public var mediaType: String? {
        guard let contentType = headers[.contentType] else { return nil }
        // Byte by byte: this runs for every decoded response, and `trimmingCharacters(in:)` with
        // `lowercased()` cost a few percent of a whole call over a fast transport (measured).
        let bytes = contentType.utf8
        let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes[..<end].firstIndex(where: { !isBlank($0) }),
            let last = bytes[first..<end].lastIndex(where: { !isBlank($0) })
        else { return nil }
        let type = bytes[first...last]
        guard type.allSatisfy({ $0 < 0x80 }) else {
            // Not ASCII (no valid media type is): kept as it was, Unicode-lower-cased.
            return String(Substring(type)).lowercased()
        }
        return String(decoding: type.lazy.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The `charset` parameter of the `Content-Type` header, lower-cased and unquoted, if any.
    public var charset: String? {
        guard let contentType = headers[.contentType] else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2,
                pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset"
            else { continue }
            let value = pair[1].trimmingCharacters(in: .whitespaces)
            return value.trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
        }
        return nil
    }
}

extension Response: CustomStringConvertible {
    /// Status, URL (without its query), body size and media type; never header values or the body.
    public var description: String {
        var text = "HTTP \(statusCode) from \(url.redactedForLogging), \(body.count) bytes"
        if let mediaType { text += " of \(mediaType)" }
        return text
    }
}

extension HTTPFields {
    /// The value of the field `name` (case-insensitive), repeated fields joined by `", "`; `nil`
    /// if absent or if `name` is not a valid field name. Shared by ``Response`` and
    /// ``StreamedResponse``.
    func value(named name: String) -> String? {
        guard let fieldName = HTTPField.Name(name) else { return nil }
        return self[fieldName]
    }
}
