public import Foundation
public import HTTPTypes

/// An HTTP response: its ``head`` (status, headers, the URL it came from) and its body.
///
/// Returned by ``Call/resume()`` when the status is acceptable, and carried by
/// ``CourierError/response(_:)`` when it is not. The public initializers let tests and custom
/// transports build one. The head's members read as the response's own.
///
/// ```swift
/// let response = try await client.enqueue(Ping()).resume()
/// if response.statusCode == 204 { print("no content") }
/// let etag = response.headers[.eTag]
/// ```
@dynamicMemberLookup
public struct Response: Sendable, Equatable {
    /// The status, headers, URL and source, shared with ``StreamedResponse``.
    public var head: ResponseHead
    /// The body, whole. Empty for 204 and HEAD.
    public var body: Data
    /// How the call that received it decodes (``DecodingContext``); `nil` for one made by hand,
    /// which decodes as a client with the default configuration would.
    var decoding: DecodingContext?

    /// Creates a response from swift-http-types values.
    public init(status: HTTPResponse.Status, headers: HTTPFields = [:], body: Data = Data(), url: URL) {
        self.init(head: ResponseHead(status: status, headers: headers, location: ResponseLocation(url)), body: body)
    }

    /// A response from `location`.
    init(status: HTTPResponse.Status, headers: HTTPFields, body: Data, location: ResponseLocation) {
        self.init(head: ResponseHead(status: status, headers: headers, location: location), body: body)
    }

    /// A response of `head` and `body`, decoded as `decoding` says.
    @inline(__always)
    init(head: ResponseHead, body: Data, decoding: DecodingContext? = nil) {
        self.head = head
        self.body = body
        self.decoding = decoding
    }

    /// Two responses are equal when their heads and bodies are (not how their calls decode).
    public static func == (lhs: Response, rhs: Response) -> Bool {
        lhs.head == rhs.head && lhs.body == rhs.body
    }

    /// A response from plain values, for the package's tests. Header names that are not valid
    /// tokens are skipped. `statusCode` must be in `0...999` (`HTTPResponse.Status(code:)` traps).
    package init(statusCode: Int, headers: [String: String] = [:], body: Data = Data(), url: URL) {
        self.init(status: HTTPResponse.Status(code: statusCode), headers: HTTPFields(headers), body: body, url: url)
    }

    /// A member of ``head`` that can be set, as the response's own: `response.status = .ok`.
    @inlinable
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<ResponseHead, Value>) -> Value {
        @inline(__always) get { head[keyPath: keyPath] }
        @inline(__always) _modify { yield &head[keyPath: keyPath] }
    }

    /// A member of ``head`` that is only read, as the response's own: `response.statusCode`.
    @inlinable
    public subscript<Value>(dynamicMember keyPath: KeyPath<ResponseHead, Value>) -> Value {
        @inline(__always) get { head[keyPath: keyPath] }
    }

    /// 200–299, the status codes an endpoint accepts unless it says otherwise.
    package static let successStatusCodes: Set<Int> = Set(200...299)

    /// The value of the header `name` (case-insensitive), with repeated fields joined by `", "`;
    /// `nil` if absent or if `name` is not a valid header name.
    package func headerValue(for name: String) -> String? {
        head.headers.value(named: name)
    }
}

extension Response: CustomStringConvertible {
    /// Status, URL (without its query), body size and media type; never header values or the body.
    public var description: String {
        var text = "HTTP \(head.statusCode) from \(head.url.redactedForLogging), \(body.count) bytes"
        if let mediaType = head.mediaType { text += " of \(mediaType)" }
        if let note = head.note { text += " (\(note))" }
        return text
    }
}

extension HTTPFields {
    /// The value of the field `name` (case-insensitive), repeated fields joined by `", "`; `nil`
    /// if absent or if `name` is not a valid field name. Shared by ``Response`` and
    /// ``StreamedResponse``.
    func value(named name: String) -> String? {
        guard let fieldName = HTTPField.Name(name) else { return nil }
        return combinedValue(for: fieldName)
    }

    /// `self[name]` (repeated fields joined by `", "`), without building the fields' index or
    /// joining a single value: responses are read a header or two each, once.
    func combinedValue(for name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name == name {
            if found != nil { return self[name] }
            found = field.value
        }
        return found
    }

    /// The value of the first field `name`: how a field that holds one value is read.
    func firstValue(for name: HTTPField.Name) -> String? {
        for field in self where field.name == name { return field.value }
        return nil
    }
}

extension HTTPFields {
    /// Fields from a dictionary, in name order; names that are not valid tokens are skipped (the
    /// package's tests write headers this way).
    package init(_ plain: [String: String]) {
        self.init()
        for (name, value) in plain.sorted(by: { $0.key < $1.key }) {
            if let fieldName = HTTPField.Name(name) { append(HTTPField(name: fieldName, value: value)) }
        }
    }
}
