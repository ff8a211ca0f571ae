import Courier
import FlyingFox
import FlyingSocks
import Foundation

/// The demo API's transfer routes:
///
/// - `GET /v1/files/report.bin` — ``DemoFile/size`` bytes of a fixed pattern with a strong
///   `ETag`; honours `Range: bytes=N-` with a matching `If-Range` (206 and `Content-Range`),
///   and answers the whole file (200) otherwise. `?drop=1` drops the connection once, halfway
///   through the first download of the process, so that the client has to resume.
/// - `GET /v1/events` — Server-Sent Events: events `1`…``DemoEvents/count`` with ids, `retry:
///   100`; the first stream ends after event ``DemoEvents/dropAfter``; a reconnection
///   with `Last-Event-ID: n` continues from `n + 1`; once every event was sent, a reconnection
///   gets 204 (no more events).
struct DemoTransferRoutes: Sendable {
    let drops = DropLedger()

    func install(on server: HTTPServer) async {
        await server.appendRoute("GET /v1/files/report.bin") { request in
            let dropOnce = request.query["drop"] == "1" && drops.takeFileDrop()
            return DemoFile.response(range: request.headers[HTTPHeader("Range")], ifRange: request.headers[HTTPHeader("If-Range")], dropHalfway: dropOnce)
        }
        await server.appendRoute("GET /v1/events") { request in
            let lastID = request.headers[HTTPHeader("Last-Event-ID")].flatMap(Int.init) ?? 0
            guard lastID < DemoEvents.count else { return FlyingFox.HTTPResponse(statusCode: .noContent) }
            let stopAfter = drops.takeEventDrop() ? DemoEvents.dropAfter : DemoEvents.count
            return DemoEvents.response(from: lastID + 1, through: stopAfter)
        }
    }
}

/// Which one-time connection drops have happened.
final class DropLedger: Sendable {
    private let state = LockedState((file: false, events: false))

    /// `true` the first time only.
    func takeFileDrop() -> Bool {
        state.withLock { state in
            defer { state.file = true }
            return !state.file
        }
    }

    /// `true` the first time only.
    func takeEventDrop() -> Bool {
        state.withLock { state in
            defer { state.events = true }
            return !state.events
        }
    }
}

/// The downloadable file: byte `i` is `i % 251`.
enum DemoFile {
    static let size = 64 << 20
    static let etag = "\"report-v1\""

    static func response(range: String?, ifRange: String?, dropHalfway: Bool) -> FlyingFox.HTTPResponse {
        var start = 0
        if let range, range.hasPrefix("bytes="), range.hasSuffix("-"), ifRange == nil || ifRange == etag,
            let from = Int(range.dropFirst("bytes=".count).dropLast()), from < size
        {
            start = from
        }
        var headers: HTTPHeaders = [
            .contentType: "application/octet-stream", HTTPHeader("ETag"): etag, HTTPHeader("Accept-Ranges"): "bytes",
        ]
        if start > 0 { headers[HTTPHeader("Content-Range")] = "bytes \(start)-\(size - 1)/\(size)" }
        let count = size - start
        let body = PatternBytes(start: start, count: count, failAfter: dropHalfway ? count / 2 : nil)
        return FlyingFox.HTTPResponse(
            statusCode: start > 0 ? .partialContent : .ok, headers: headers,
            body: HTTPBodySequence(from: body, count: count, suggestedBufferSize: 256 << 10))
    }
}

/// The event stream.
enum DemoEvents {
    static let count = 6
    static let dropAfter = 3

    static func response(from first: Int, through last: Int) -> FlyingFox.HTTPResponse {
        var text = first == 1 ? "retry: 100\n\n" : ""
        for id in first...last {
            text += ": event \(id) of \(count)\nid: \(id)\nevent: progress\ndata: {\"step\":\(id),\"of\":\(count)}\n\n"
        }
        return FlyingFox.HTTPResponse(
            statusCode: .ok, headers: [.contentType: "text/event-stream", HTTPHeader("Cache-Control"): "no-store"],
            body: HTTPBodySequence(data: Data(text.utf8)))
    }
}

/// `count` bytes of the pattern `i % 251` from offset `start`; with `failAfter`, the sequence
/// throws once it has produced that many bytes (the server then drops the connection).
struct PatternBytes: AsyncBufferedSequence {
    typealias Element = UInt8
    let start: Int
    let count: Int
    let failAfter: Int?

    static let pattern: [UInt8] = (0..<(251 + (256 << 10))).map { UInt8($0 % 251) }

    func makeAsyncIterator() -> Iterator {
        Iterator(position: start, remaining: count, failAfter: failAfter)
    }

    struct Dropped: Error {}

    struct Iterator: AsyncBufferedIteratorProtocol {
        var position: Int
        var remaining: Int
        var failAfter: Int?

        mutating func next() async throws -> UInt8? {
            try await nextBuffer(suggested: 1)?.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
            guard remaining > 0 else { return nil }
            if let left = failAfter, left <= 0 { throw Dropped() }
            let size = Swift.min(Swift.max(count, 1), remaining, 256 << 10, failAfter ?? .max)
            let offset = position % 251
            position += size
            remaining -= size
            failAfter = failAfter.map { $0 - size }
            return Array(PatternBytes.pattern[offset..<(offset + size)])
        }
    }
}
