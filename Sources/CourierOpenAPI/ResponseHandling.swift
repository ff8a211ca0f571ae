import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// How a generated operation's response body is read and handed back.
enum ResponseHandling {
    /// Whether the response is read whole (as `resume()` reads it: inside the retry loop, under
    /// the size limit): when the request's `Accept` names only media types generated code
    /// decodes in one piece (JSON, XML, form, plain text). Anything else (octet streams, event
    /// streams, JSON Lines, no `Accept` at all) streams.
    static func readsWhole(_ request: HTTPRequest) -> Bool {
        if request.method == .head { return true }
        var named = false
        for field in request.headerFields where field.name == .accept {
            for element in field.value.utf8.split(separator: UInt8(ascii: ",")) {
                let type = trimmed(element.prefix { $0 != UInt8(ascii: ";") })
                if type.isEmpty { continue }
                guard isReadWhole(type) else { return false }
                named = true
            }
        }
        return named
    }

    /// Whether `type` (ASCII, any case) is a media type generated code decodes from one piece
    /// of memory.
    static func isReadWhole(_ type: some BidirectionalCollection<UInt8>) -> Bool {
        if wholeTypes.contains(where: { equalsIgnoringCase(type, $0.utf8) }) { return true }
        return equalsIgnoringCase(type.prefix(12), "application/".utf8)
            && (equalsIgnoringCase(type.suffix(5), "+json".utf8) || equalsIgnoringCase(type.suffix(4), "+xml".utf8))
    }

    private static let wholeTypes = ["application/json", "application/xml", "text/xml", "text/plain", "application/x-www-form-urlencoded"]

    /// Whether `bytes` are `lowercase`'s, ignoring ASCII case.
    private static func equalsIgnoringCase(_ bytes: some Collection<UInt8>, _ lowercase: String.UTF8View) -> Bool {
        bytes.count == lowercase.count
            && zip(bytes, lowercase).allSatisfy { byte, lower in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 == lower : byte == lower
            }
    }

    /// `bytes` without the spaces and tabs around them.
    private static func trimmed(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isSpace(bytes[start]) { start = bytes.index(after: start) }
        while end > start, isSpace(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return bytes[start..<end]
    }

    /// Whether generated code may collect a body labelled `type` into memory: one it decodes in
    /// one piece (JSON, XML, form, text); and one without a `Content-Type` or with a wildcard
    /// (`*/*`, `application/*`) when the request accepted such a type, since the runtime then
    /// picks one of the operation's types (its first, JSON for most). A concrete streaming type
    /// (a file, an event stream), or an unlabelled answer to an operation that accepts only
    /// those, is handed over unbounded.
    static func mayBeCollected(_ type: String?, accepting request: HTTPRequest) -> Bool {
        if let type, !type.utf8.contains(UInt8(ascii: "*")) { return isReadWhole(type.utf8) }
        for field in request.headerFields where field.name == .accept {
            for element in field.value.utf8.split(separator: UInt8(ascii: ",")) {
                let accepted = trimmed(element.prefix { $0 != UInt8(ascii: ";") })
                if accepted.contains(UInt8(ascii: "*")) || isReadWhole(accepted) { return true }
            }
        }
        return request.headerFields[.accept] == nil  // accepts anything
    }

    /// The body handed to the generated code: `nil` for a response that has none (to `HEAD`,
    /// or a `1xx`, `204` or `304` status), the bytes for one read whole, and otherwise the body
    /// as it arrives, iterable once (dropping it unread stops the transfer). A streamed body
    /// generated code may collect (``mayBeCollected(_:accepting:)``: the server answered JSON, or said
    /// nothing, where the operation also accepted a file) is held to `limit` as it arrives, as
    /// `resume()` holds it, whatever the request's `Accept` said.
    /// - Throws: `TransportFailure.Kind.responseTooLarge` for such a body announced past `limit`.
    static func body(of response: StreamedResponse, for request: HTTPRequest, limit: Int?) throws(CourierError) -> HTTPBody? {
        let status = response.head.statusCode
        if request.method == .head || (100..<200).contains(status) || status == 204 || status == 304 { return nil }
        let collectable = mayBeCollected(response.head.mediaType, accepting: request)
        if let whole = response.body.wholeData {
            // Already in memory (a stub's, a cache's, a middleware's): held to the limit too.
            if let limit, whole.count > limit, collectable {
                throw .transport(.responseTooLarge(limit: limit, url: response.head.url))
            }
            return HTTPBody(whole)
        }
        let length: HTTPBody.Length = response.body.expectedLength.map { .known(Int64($0)) } ?? .unknown
        guard let limit, collectable else {
            return HTTPBody(response.body, length: length, iterationBehavior: .single)
        }
        if let expected = response.body.expectedLength, expected > limit {
            response.body.cancel()
            throw .transport(.responseTooLarge(limit: limit, url: response.head.url))
        }
        return HTTPBody(LimitedBody(body: response.body, limit: limit, url: response.head.url), length: length, iterationBehavior: .single)
    }
}

/// A response body that fails with `responseTooLarge` once more than `limit` bytes arrived, and
/// stops the transfer then.
struct LimitedBody: AsyncSequence, Sendable {
    typealias Element = Data
    let body: ResponseBody
    let limit: Int
    let url: URL

    struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: ResponseBody.Iterator
        let body: ResponseBody
        let limit: Int
        let url: URL
        var received = 0

        mutating func next() async throws -> Data? {
            guard let chunk = try await chunks.next() else { return nil }
            received += chunk.count
            if received > limit {
                body.cancel()
                throw CourierError.transport(.responseTooLarge(limit: limit, url: url))
            }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: body.makeAsyncIterator(), body: body, limit: limit, url: url)
    }
}
