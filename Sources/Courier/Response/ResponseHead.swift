public import Foundation
public import HTTPTypes

/// The head of a response: status, header fields, the URL it came from and who answered (the
/// network or the cache). ``Response`` and ``StreamedResponse`` share it as `head`, and offer
/// its members as their own.
///
/// ```swift
/// let response = try await client.enqueue(Ping()).resume()
/// if response.statusCode == 204 { print("no content") }   // response.head.statusCode
/// let etag = response.headers[.eTag]
/// ```
public struct ResponseHead: Sendable, Equatable {
    /// The status, e.g. `.ok` (swift-http-types).
    public var status: HTTPResponse.Status
    /// The header fields (swift-http-types); names compare case-insensitively.
    public var headers: HTTPFields
    /// Where ``url`` comes from: a response from Courier's transports parses its request's URL
    /// only when it is read.
    var location: ResponseLocation
    /// Whether the network, the client's ``HTTPCache`` or a revalidated stored response answered.
    public var source: ResponseSource
    /// What Courier knows about why the server answered so, shown by ``Response``'s
    /// `description` (a 401 to a credential that has no refresh token). Not part of `==`.
    var note: String? {
        get { remark.text }
        set { remark.text = newValue }
    }
    /// The storage of ``note``, equal to any other so that heads compare by what was received.
    private var remark = Remark()

    /// Creates a head.
    /// - Parameters:
    ///   - status: the status.
    ///   - headers: the header fields.
    ///   - url: the URL the body came from.
    ///   - source: who answered; default: the network.
    public init(status: HTTPResponse.Status, headers: HTTPFields = [:], url: URL, source: ResponseSource = .network) {
        self.init(status: status, headers: headers, location: ResponseLocation(url), source: source)
    }

    /// A head from `location`: from a transport, its request's ``TransportRequest/location``.
    @inline(__always)
    init(status: HTTPResponse.Status, headers: HTTPFields, location: ResponseLocation, source: ResponseSource = .network) {
        self.status = status
        self.headers = headers
        self.location = location
        self.source = source
    }

    /// The URL the body came from, after any redirects.
    public var url: URL {
        get { location.url }
        set { location = ResponseLocation(newValue) }
    }

    /// The numeric status code, e.g. `200`.
    public var statusCode: Int { status.code }

    /// The media type of the body without parameters, lower-cased, e.g. `"application/json"`.
    public var mediaType: String? {
        // Byte by byte: this runs for every decoded response, and `trimmingCharacters(in:)` with
        // `lowercased()` cost a few percent of a whole call over a fast transport (measured).
        guard let contentType = headers.combinedValue(for: .contentType), let range = Self.mediaTypeRange(in: contentType) else {
            return nil
        }
        let type = contentType.utf8[range]
        guard type.allSatisfy({ $0 < 0x80 }) else {
            // Not ASCII (no valid media type is): kept as it was, Unicode-lower-cased.
            return String(Substring(type)).lowercased()
        }
        guard type.contains(where: Self.isUpperCase) else {
            // Already lower-case: the value itself when it is nothing else (no copy at all).
            return range == contentType.utf8.startIndex..<contentType.utf8.endIndex ? contentType : String(Substring(type))
        }
        return String(unsafeUninitializedCapacity: type.count) { buffer in
            var count = 0
            for byte in type {
                buffer[count] = Self.isUpperCase(byte) ? byte | 0x20 : byte
                count += 1
            }
            return count
        }
    }

    /// Whether the body is JSON by its `Content-Type` (`application/json` or a `+json` type, in
    /// any case), or has no media type: what ``mediaType`` and ``JSONBodyDecoder/isJSON(_:)``
    /// say, checked on the bytes without making the media type's string.
    var isJSONOrUntyped: Bool {
        guard let contentType = headers.combinedValue(for: .contentType), let range = Self.mediaTypeRange(in: contentType) else {
            return true
        }
        guard contentType.utf8[range].allSatisfy({ $0 < 0x80 }) else { return mediaType.map(JSONBodyDecoder.isJSON) ?? true }
        let start = contentType.utf8.distance(from: contentType.utf8.startIndex, to: range.lowerBound)
        let count = contentType.utf8.distance(from: range.lowerBound, to: range.upperBound)
        var value = contentType
        return value.withUTF8 { bytes in
            let type = UnsafeBufferPointer(rebasing: bytes[start..<start + count])
            return Self.equalsIgnoringCase(type, "application/json") || Self.hasSuffixIgnoringCase(type, "+json")
        }
    }

    /// Whether `bytes` are `text` (ASCII, lower-case), ignoring ASCII case.
    private static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        bytes.count == text.utf8CodeUnitCount && hasSuffixIgnoringCase(bytes, text)
    }

    /// Whether `bytes` end with `text` (ASCII, lower-case), ignoring ASCII case.
    private static func hasSuffixIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count >= count else { return false }
        let offset = bytes.count - count
        for index in 0..<count {
            let byte = bytes[offset + index]
            if (isUpperCase(byte) ? byte | 0x20 : byte) != text.utf8Start[index] { return false }
        }
        return true
    }

    /// Where the media type is in a `Content-Type` value: before any `;`, without the blanks
    /// around it; `nil` when that is empty.
    private static func mediaTypeRange(in contentType: String) -> Range<String.UTF8View.Index>? {
        let bytes = contentType.utf8
        let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes[..<end].firstIndex(where: { !isBlank($0) }),
            let last = bytes[first..<end].lastIndex(where: { !isBlank($0) })
        else { return nil }
        return first..<bytes.index(after: last)
    }

    private static func isUpperCase(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
    }

    /// The `charset` parameter of the `Content-Type` header, lower-cased and unquoted, if any.
    public var charset: String? {
        guard let contentType = headers.combinedValue(for: .contentType) else { return nil }
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

    /// The value of the header `name` (case-insensitive), with repeated fields joined by `", "`;
    /// `nil` if absent or if `name` is not a valid header name.
    package func headerValue(for name: String) -> String? {
        headers.value(named: name)
    }
}

/// A ``ResponseHead/note``: never part of a head's `==`.
struct Remark: Sendable, Equatable {
    var text: String?
    static func == (lhs: Remark, rhs: Remark) -> Bool { true }
}
