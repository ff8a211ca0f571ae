import Foundation

/// The parser under ``Call/events(_:)`` (internal to Courier): reads `text/event-stream` bytes
/// from any source (a response, a WebSocket, a test), fed chunk by chunk as they arrive, into
/// ``ServerSentEvent``s. ``Call/events(_:)`` runs it on the response and also checks the
/// `Content-Type`, reconnects and resumes with `Last-Event-ID`.
///
/// A pure value that follows the WHATWG HTML event stream interpretation rules (§9.2.6).
/// Chunks may be split anywhere: in a UTF-8 sequence, in the leading byte-order mark, between
/// the `CR` and `LF` of a line break. Events come out exactly as they would from the whole
/// stream at once. Two limits keep a hostile source from making the parser buffer without end:
/// the longest line and the largest event data.
///
/// <!-- guide: skip: internal API, not visible outside Courier -->
/// ```swift
/// var parser = ServerSentEventParser()
/// var events: [ServerSentEvent] = []
/// for try await message in socket.messages {       // e.g. a WebSocket's binary messages
///     try parser.parse(message, into: &events)
/// }
/// parser.finish()   // an unfinished last event is dropped, as the standard says
/// ```
struct ServerSentEventParser: Sendable {
    /// The most bytes one line may have, without its line break.
    let maximumLineLength: Int
    /// The most bytes one event's data may have (its `data` values and the line feeds after each).
    let maximumEventSize: Int
    /// The last event ID: what the `id` fields set, taken up by each empty line (WHATWG: the
    /// event source's "last event ID string", set when an event is dispatched or would be), so
    /// that the ID of an event cut off by a dropped connection is never taken for one delivered.
    /// Kept across events and across ``finish()``; `nil` when it is empty.
    private(set) var lastEventID: String?
    /// The reconnection time the server asked for with its last valid `retry` field, if any.
    private(set) var reconnectionTime: Duration?

    /// The last event ID buffer: what the latest `id` field set, taken up at the next empty line.
    private var lastEventIDBuffer: String?
    /// The unfinished line's bytes.
    private var line: [UInt8] = []
    /// The event's data buffer: each `data` value followed by `LF`.
    private var data: [UInt8] = []
    /// The event type buffer; empty for `"message"`.
    private var eventType = ""
    /// The last byte seen was a `CR`: an `LF` right after it (even in the next chunk) belongs to
    /// the same line break. The line itself ended at the `CR` already, so an event never waits
    /// for the next chunk to tell `CR` from `CRLF`.
    private var followsCR = false
    /// How many bytes of a leading byte-order mark have been seen; `nil` once past the start.
    private var byteOrderMarkSeen: Int? = 0
    /// What stopped the parser: every later call throws it again.
    private var failure: CourierError?

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let lineFeed: UInt8 = 0x0A
    private static let carriageReturn: UInt8 = 0x0D
    private static let colon: UInt8 = 0x3A

    /// Creates a parser at the start of a stream.
    /// - Parameters:
    ///   - maximumLineLength: the most bytes a line may have, without its line break (1 MiB by
    ///     default; at least 1).
    ///   - maximumEventSize: the most bytes of data one event may have: its `data` values and the
    ///     line feeds after each (8 MiB by default; at least 1).
    ///   - lastEventID: the last event ID to start from, e.g. one saved from an earlier stream.
    init(maximumLineLength: Int = 1 << 20, maximumEventSize: Int = 8 << 20, lastEventID: String? = nil) {
        self.maximumLineLength = max(1, maximumLineLength)
        self.maximumEventSize = max(1, maximumEventSize)
        self.lastEventID = lastEventID?.isEmpty == true ? nil : lastEventID
        lastEventIDBuffer = self.lastEventID
    }

    /// Reads `chunk`, appending every event it completes to `events`, in order.
    ///
    /// - Throws: ``CourierError/transport(_:)`` with a ``TransportFailure/Kind/responseTooLarge``
    ///   failure when a line or an event's data passes the limit given to
    ///   ``init(maximumLineLength:maximumEventSize:lastEventID:)``; the events completed before
    ///   that point are in `events`. The parser is then stopped: every later call throws the
    ///   same error.
    mutating func parse(_ chunk: Data, into events: inout [ServerSentEvent]) throws(CourierError) {
        if let failure { throw failure }
        var index = chunk.startIndex
        let end = chunk.endIndex
        // A byte-order mark is skipped only at the very start of the stream, however it is split.
        while let seen = byteOrderMarkSeen, index < end {
            if chunk[index] == Self.byteOrderMark[seen] {
                index += 1
                byteOrderMarkSeen = seen + 1 == Self.byteOrderMark.count ? nil : seen + 1
            } else {
                // Not a mark after all: what was held back is the start of the first line.
                line.append(contentsOf: Self.byteOrderMark[..<seen])
                byteOrderMarkSeen = nil
            }
        }
        if followsCR, index < end {
            followsCR = false
            if chunk[index] == Self.lineFeed { index += 1 }
        }
        while let lineBreak = chunk[index...].firstIndex(where: { $0 == Self.lineFeed || $0 == Self.carriageReturn }) {
            guard line.count + (lineBreak - index) <= maximumLineLength else { throw fail(.line) }
            if line.isEmpty {
                try process(chunk[index..<lineBreak], into: &events)
            } else {
                line.append(contentsOf: chunk[index..<lineBreak])
                let complete = line
                line.removeAll(keepingCapacity: true)
                try process(complete[...], into: &events)
            }
            index = lineBreak + 1
            if chunk[lineBreak] == Self.carriageReturn {
                if index == end {
                    followsCR = true
                } else if chunk[index] == Self.lineFeed {
                    index += 1
                }
            }
        }
        guard line.count + (end - index) <= maximumLineLength else { throw fail(.line) }
        line.append(contentsOf: chunk[index..<end])
    }

    /// Ends the stream: an unfinished line and an undispatched event are dropped (WHATWG: "If the
    /// file ends in the middle of an event, before the final empty line, the incomplete event is
    /// not dispatched"), and so is an `id` no empty line followed. The last event ID and the
    /// reconnection time are kept, so that the same parser can read the stream of the next
    /// connection (which may start with a byte-order mark again) and its events keep the ID
    /// until the server sends another, as browsers do.
    mutating func finish() {
        lastEventIDBuffer = lastEventID
        line = []
        data = []
        eventType = ""
        followsCR = false
        byteOrderMarkSeen = 0
    }

    /// One line, without its line break.
    private mutating func process<Line: RandomAccessCollection<UInt8>>(_ line: Line, into events: inout [ServerSentEvent]) throws(CourierError) {
        guard let first = line.first else {
            dispatch(into: &events)
            return
        }
        if first == Self.colon { return }  // a comment
        let colon = line.firstIndex(of: Self.colon)
        let name = line[..<(colon ?? line.endIndex)]
        var value = colon.map { line[line.index(after: $0)...] } ?? line[line.endIndex...]
        if value.first == 0x20 { value = value.dropFirst() }

        if name.elementsEqual("data".utf8) {
            guard value.count < maximumEventSize - data.count else { throw fail(.event) }
            data.append(contentsOf: value)
            data.append(Self.lineFeed)
        } else if name.elementsEqual("event".utf8) {
            eventType = String(decoding: value, as: UTF8.self)
        } else if name.elementsEqual("id".utf8) {
            if !value.contains(0) {
                lastEventIDBuffer = value.isEmpty ? nil : String(decoding: value, as: UTF8.self)
            }
        } else if name.elementsEqual("retry".utf8) {
            if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                // Milliseconds, saturated rather than wrapped for an absurd number of digits.
                var milliseconds: Int64 = 0
                for digit in value {
                    let (times10, overflow1) = milliseconds.multipliedReportingOverflow(by: 10)
                    let (sum, overflow2) = times10.addingReportingOverflow(Int64(digit - 0x30))
                    guard !overflow1, !overflow2 else {
                        milliseconds = .max
                        break
                    }
                    milliseconds = sum
                }
                reconnectionTime = .milliseconds(milliseconds)
            }
        }
        // Any other field is ignored.
    }

    /// An empty line: the last event ID is taken up, and the event is dispatched unless it has no data.
    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        lastEventID = lastEventIDBuffer
        defer {
            data.removeAll(keepingCapacity: data.count <= 4096)
            eventType = ""
        }
        guard !data.isEmpty else { return }
        data.removeLast()  // the line feed after the last value
        events.append(
            ServerSentEvent(
                type: eventType.isEmpty ? "message" : eventType, data: String(decoding: data, as: UTF8.self),
                id: lastEventID, retry: reconnectionTime))
    }

    private enum Limit {
        case line, event
    }

    /// Stops the parser for good and returns the error that says which limit was passed.
    private mutating func fail(_ limit: Limit) -> CourierError {
        let message =
            switch limit {
            case .line: "an event stream line exceeded the limit of \(maximumLineLength) bytes"
            case .event: "an event's data exceeded the limit of \(maximumEventSize) bytes"
            }
        let error = CourierError.transport(TransportFailure(kind: .responseTooLarge, message: message))
        failure = error
        line = []
        data = []
        return error
    }
}
