import Foundation
import HTTPTypes

/// A `Content-Range` value (RFC 9110 §14.4): `bytes first-last/complete`, `complete` being `*`
/// when unknown, or the unsatisfied form `bytes */complete` of a 416.
struct ContentRange: Equatable {
    /// `first...last`, or `nil` for the unsatisfied form.
    var range: ClosedRange<Int64>?
    /// The size of the whole representation, when the server said.
    var complete: Int64?

    /// Parses `value`; `nil` for anything malformed (a hostile or confused server).
    init?(_ value: String) {
        let text = value.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[1] == "*" {
            complete = nil
        } else {
            guard let total = Self.number(parts[1]) else { return nil }
            complete = total
        }
        if parts[0] == "*" {
            guard complete != nil else { return nil }
            range = nil
            return
        }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), first <= last else { return nil }
        if let complete, last >= complete { return nil }
        range = first...last
    }

    init(range: ClosedRange<Int64>?, complete: Int64?) {
        self.range = range
        self.complete = complete
    }

    /// Digits only (no sign, no spaces), at most 18 of them: no overflow.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }
}

/// What a download does with the head of a response, given the bytes it has on disk: a pure
/// decision, tested on its own.
enum RangeDecision: Equatable {
    /// Write the body after `offset` bytes (0: from the start, truncating what is on disk);
    /// the whole body will be `total` bytes when known.
    case write(offset: Int64, total: Int64?)
    /// The file on disk is already complete (a 416 saying the resource has exactly its size).
    case complete
    /// Drop the bytes on disk and ask again for the whole body; `reason` says why.
    case restart(reason: String)

    /// - Parameters:
    ///   - status: the response's status code, accepted by the endpoint or 416.
    ///   - requestedOffset: the `N` of `Range: bytes=N-`, or 0 when no range was asked for.
    ///   - validator: the validator the range was asked with (`If-Range`).
    ///   - expectedLength: the body's announced length (`Content-Length`), if any.
    ///   - recordedTotal: the complete length recorded for the transfer (announced by the response
    ///     whose bytes are on disk), if known: a range answer must agree with it.
    static func decide(
        status: Int, headers: HTTPFields, requestedOffset: Int64, validator: String?, expectedLength: Int64?, recordedTotal: Int64? = nil
    ) -> RangeDecision {
        let contentRange = headers[.contentRange].map(ContentRange.init)
        if status == 416 {
            guard requestedOffset > 0, let contentRange, let contentRange, contentRange.range == nil,
                contentRange.complete == requestedOffset, recordedTotal == nil || recordedTotal == requestedOffset
            else { return .restart(reason: "the server refused the range (416) and the file on disk does not match its size") }
            return .complete
        }
        guard status == 206 else {
            // A 200 (or another success) to a range request: the resource changed, or the
            // server ignores ranges. Start over with this body.
            return .write(offset: 0, total: expectedLength)
        }
        guard requestedOffset > 0 else { return .restart(reason: "a 206 answered a request without a range") }
        guard let contentRange, let contentRange, let range = contentRange.range else {
            return .restart(reason: "a 206 without a valid Content-Range")
        }
        guard range.lowerBound == requestedOffset else {
            return .restart(reason: "a 206 starting at byte \(range.lowerBound), not at \(requestedOffset) as asked")
        }
        let length = range.upperBound - range.lowerBound + 1
        if let expectedLength, expectedLength != length {
            return .restart(reason: "a 206 whose Content-Length (\(expectedLength)) does not match its Content-Range (\(length) bytes)")
        }
        if let complete = contentRange.complete, complete != range.upperBound + 1 {
            return .restart(reason: "a 206 ending at byte \(range.upperBound) of \(complete): an open range must run to the end")
        }
        if let validator, validator.hasPrefix("\""), let tag = headers[.eTag], tag != validator {
            return .restart(reason: "a 206 for another version of the resource (ETag changed)")
        }
        let total = contentRange.complete ?? range.upperBound + 1
        if let recordedTotal, total != recordedTotal {
            return .restart(reason: "a 206 ending the resource at \(total) bytes, where the first response announced \(recordedTotal)")
        }
        if isEncoded(headers) {
            return .restart(reason: "a 206 with a Content-Encoding: its bytes cannot continue the decoded ones on disk")
        }
        return .write(offset: requestedOffset, total: total)
    }

    /// Whether the body is sent with a `Content-Encoding` other than `identity` (a server that
    /// ignored `Accept-Encoding: identity`). The transports decode such a body, so the bytes on
    /// disk count decoded bytes while a `Range` counts encoded ones: it is never continued.
    static func isEncoded(_ headers: HTTPFields) -> Bool {
        headers[values: .contentEncoding].contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() != "identity" }
        }
    }

    /// The validator to resume with: the strong `ETag`, else a strong `Last-Modified`; `nil` if
    /// neither (the download then starts over rather than risk splicing two versions).
    ///
    /// RFC 9110 §13.1.5 allows a date in `If-Range` only when it is a strong validator, which
    /// §8.8.2.2 grants a `Last-Modified` at least one second before the response's own `Date`: a
    /// file changed twice within the second its date names would otherwise pass as unchanged. So
    /// both must be valid HTTP-dates and one second apart; a weak ETag (`W/"…"`) never serves.
    static func validator(in headers: HTTPFields) -> String? {
        if let tag = headers[.eTag]?.trimmingCharacters(in: .whitespaces), tag.hasPrefix("\""), tag.count >= 2, tag.hasSuffix("\"") {
            return tag
        }
        guard let modified = headers[.lastModified]?.trimmingCharacters(in: .whitespaces),
            let sent = headers[.date]?.trimmingCharacters(in: .whitespaces),
            let modifiedDate = HTTPDate.parse(modified, now: Date()), let sentDate = HTTPDate.parse(sent, now: Date()),
            sentDate.timeIntervalSince(modifiedDate) >= 1
        else { return nil }
        return modified
    }
}
