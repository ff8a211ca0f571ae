import Foundation
import Testing

@testable import Courier

/// The WHATWG HTML event stream interpretation rules (§9.2.6), one test per rule, and the same
/// events whatever the chunking.
@Suite("Server-Sent Events: the parser")
struct ServerSentEventParserTests {
    /// The events of `bytes` fed as `chunks` (split after each offset in `splits`), then finished.
    static func events(
        _ bytes: [UInt8], splits: [Int] = [], parser: ServerSentEventParser = ServerSentEventParser()
    ) throws(CourierError) -> [ServerSentEvent] {
        var parser = parser
        var events: [ServerSentEvent] = []
        var start = 0
        for split in splits.sorted() + [bytes.count] where split >= start {
            try parser.parse(Data(bytes[start..<split]), into: &events)
            start = split
        }
        parser.finish()
        return events
    }

    static func events(_ text: String, splits: [Int] = []) throws(CourierError) -> [ServerSentEvent] {
        try events(Array(text.utf8), splits: splits)
    }

    static func data(_ text: String) throws(CourierError) -> [String] {
        try events(text).map(\.data)
    }

    // MARK: - Fields

    @Test("data fields are joined with a line feed, and only one trailing line feed is removed")
    func dataFieldsAreJoined() throws {
        #expect(try Self.data("data: a\ndata: b\n\n") == ["a\nb"])
        #expect(try Self.data("data: a\ndata:\n\n") == ["a\n"])
    }

    @Test("one space after the colon is removed, and only one")
    func oneSpaceRemoved() throws {
        #expect(try Self.data("data:x\n\ndata: x\n\ndata:  x\n\ndata:\tx\n\n") == ["x", "x", " x", "\tx"])
    }

    @Test("a line without a colon is a field name with an empty value: a bare 'data' dispatches an empty event")
    func noColonMeansEmptyValue() throws {
        #expect(try Self.data("data\n\n") == [""])
        #expect(try Self.data("data\ndata\n\n") == ["\n"])
        #expect(try Self.events("event\ndata: x\n\n").map(\.type) == ["message"])
    }

    @Test("the field name ends at the first colon: the rest, colons included, is the value")
    func fieldNameEndsAtFirstColon() throws {
        #expect(try Self.data("data: a:b: c\n\n") == ["a:b: c"])
    }

    @Test("lines starting with a colon are comments, whatever follows")
    func commentsAreIgnored() throws {
        #expect(try Self.data(": keep-alive\n:data: x\ndata: a\n:\n\n") == ["a"])
    }

    @Test(
        "field names are exact and case-sensitive; unknown fields are ignored",
        arguments: ["Data: x", "DATA: x", "data : x", " data: x", "foo: x", "dat: x", "datas: x"])
    func unknownFieldsAreIgnored(_ line: String) throws {
        #expect(try Self.events("\(line)\n\n").isEmpty)
    }

    @Test("event sets the type for one event only; an empty event field means \"message\"")
    func eventType() throws {
        let events = try Self.events("event: add\ndata: 1\n\ndata: 2\n\nevent:\ndata: 3\n\nevent: a\nevent: b\ndata: 4\n\n")
        #expect(events.map(\.type) == ["add", "message", "message", "b"])
    }

    @Test("an empty line with no data dispatches nothing and resets the event type")
    func emptyDataDoesNotDispatch() throws {
        let events = try Self.events("event: add\n\ndata: x\n\n\n\n")
        #expect(events == [ServerSentEvent(data: "x")])
    }

    @Test("the last event ID persists across events and blocks without data; an empty id resets it")
    func lastEventIDPersists() throws {
        let events = try Self.events("id: 1\ndata: a\n\ndata: b\n\nid: 2\n\ndata: c\n\nid\ndata: d\n\nid: 3\nid:\ndata: e\n\n")
        #expect(events.map(\.id) == ["1", "1", "2", nil, nil])
    }

    @Test("an id containing NUL is ignored: the last event ID stays")
    func idWithNULIgnored() throws {
        let events = try Self.events("id: 5\ndata: a\n\nid: 6\u{0}7\ndata: b\n\n")
        #expect(events.map(\.id) == ["5", "5"])
    }

    @Test("an id becomes the last event ID at the next empty line: the ID of an event cut off at the end of the stream is not kept")
    func idTakenUpAtEmptyLine() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.parse(Data("id: 1\ndata: a\n\nid: 2\ndata: b\n".utf8), into: &events)
        #expect(parser.lastEventID == "1", "event 2 is not complete yet")
        parser.finish()
        #expect(parser.lastEventID == "1")
        try parser.parse(Data("data: c\n\n".utf8), into: &events)
        #expect(events.map(\.id) == ["1", "1"])
    }

    @Test("an id takes effect for the event it is in, even after its data lines")
    func idAfterData() throws {
        #expect(try Self.events("data: a\nid: 9\n\n").map(\.id) == ["9"])
    }

    @Test("retry with only ASCII digits sets the reconnection time in milliseconds, kept across events")
    func retrySetsReconnectionTime() throws {
        let events = try Self.events("retry: 1500\ndata: a\n\ndata: b\n\nretry:0\ndata: c\n\n")
        #expect(events.map(\.retry) == [.milliseconds(1500), .milliseconds(1500), .zero])
    }

    @Test(
        "retry with anything but ASCII digits is ignored",
        arguments: ["retry: 1.5", "retry: -1", "retry: +1", "retry:", "retry: 12a", "retry:  1", "retry: 1 ", "retry: ١٢"])
    func invalidRetryIgnored(_ line: String) throws {
        let events = try Self.events("retry: 700\n\n\(line)\ndata: a\n\n")
        #expect(events.map(\.retry) == [.milliseconds(700)])
    }

    @Test("an absurdly long retry saturates instead of overflowing")
    func hugeRetrySaturates() throws {
        let events = try Self.events("retry: \(String(repeating: "9", count: 40))\ndata: a\n\n")
        #expect(events.first?.retry == .milliseconds(Int64.max))
    }

    @Test("the parser reports the last event ID and reconnection time even when no event was dispatched")
    func stateWithoutDispatch() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.parse(Data("id: 4\nretry: 10\n\n".utf8), into: &events)
        #expect(events.isEmpty)
        #expect(parser.lastEventID == "4")
        #expect(parser.reconnectionTime == .milliseconds(10))
    }

    // MARK: - Lines and the end of the stream

    @Test("lines end with LF, CR or CRLF, mixed freely", arguments: ["\n", "\r", "\r\n"])
    func lineEndings(_ end: String) throws {
        let stream = ["event: e", "id: 1", "data: a", "data: b", "", "data: c", ""].map { $0 + end }.joined()
        #expect(try Self.events(stream) == [ServerSentEvent(type: "e", data: "a\nb", id: "1"), ServerSentEvent(data: "c", id: "1")])
        #expect(try Self.data("data: a\r\ndata: b\rdata: c\n\r\n") == ["a\nb\nc"])
    }

    @Test("CR CR is two line breaks, and LF CR too: each ends an event")
    func doubleCR() throws {
        #expect(try Self.data("data: a\r\rdata: b\n\rdata: c\r\n\r\n") == ["a", "b", "c"])
    }

    @Test("a CR at a chunk's end and an LF at the next one's start are one line break, not an empty line")
    func crlfSplitAcrossChunks() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.parse(Data("data: a\r".utf8), into: &events)
        try parser.parse(Data("\ndata: b\r".utf8), into: &events)
        try parser.parse(Data("\n".utf8), into: &events)
        try parser.parse(Data(), into: &events)
        #expect(events.isEmpty)
        try parser.parse(Data("\r".utf8), into: &events)
        #expect(events == [ServerSentEvent(data: "a\nb")], "the event is dispatched at the CR, without waiting for the next byte")
        try parser.parse(Data("\ndata: c\n\n".utf8), into: &events)
        #expect(events.map(\.data) == ["a\nb", "c"])
    }

    @Test(
        "an incomplete event at the end of the stream is dropped",
        arguments: ["data: a\n\ndata: b\n", "data: a\n\ndata: b", "data: a\n\ndata: b\r", "data: a\n\nid: 2\ndata: b"])
    func incompleteEventDropped(_ stream: String) throws {
        #expect(try Self.data(stream) == ["a"])
    }

    @Test("finish() keeps the last event ID and reconnection time for the next stream and drops the rest")
    func finishKeepsIDAndRetry() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.parse(Data("id: 7\nretry: 20\n\nevent: x\ndata: lost\ndata: unterminated".utf8), into: &events)
        parser.finish()
        try parser.parse(Data("\u{FEFF}data: next\n\n".utf8), into: &events)
        #expect(events == [ServerSentEvent(data: "next", id: "7", retry: .milliseconds(20))])
    }

    @Test("a parser can start from a saved last event ID")
    func startingID() throws {
        #expect(try Self.events(Array("data: a\n\n".utf8), parser: ServerSentEventParser(lastEventID: "41")).map(\.id) == ["41"])
    }

    // MARK: - Decoding

    @Test("one leading byte-order mark is skipped; a second one, or one later, is part of the line")
    func byteOrderMark() throws {
        #expect(try Self.data("\u{FEFF}data: a\n\n") == ["a"])
        #expect(try Self.data("\u{FEFF}\u{FEFF}data: a\n\n").isEmpty)
        #expect(try Self.data("data: a\n\n\u{FEFF}data: b\n\n") == ["a"])
        #expect(try Self.data("data: \u{FEFF}a\n\n") == ["\u{FEFF}a"])
    }

    @Test("the start of a byte-order mark that is not one is kept as the first line's start")
    func partialByteOrderMark() throws {
        #expect(try Self.events([0xEF, 0xBB] + Array("data: a\n\n".utf8)).isEmpty)
        #expect(try Self.events([0xEF] + Array("\ndata: a\n\n".utf8)).map(\.data) == ["a"])
    }

    @Test("UTF-8 is decoded with U+FFFD for malformed bytes, also when a sequence is cut by a line break")
    func malformedUTF8() throws {
        #expect(try Self.events(Array("data: ".utf8) + [0xFF, 0x61] + Array("\n\n".utf8)).map(\.data) == ["\u{FFFD}a"])
        #expect(
            try Self.events(Array("data: ".utf8) + [0xE2, 0x82] + Array("\ndata: ".utf8) + [0xAC] + Array("\n\n".utf8)).map(\.data) == ["\u{FFFD}\n\u{FFFD}"])
    }

    // MARK: - Chunking

    static let samples: [[UInt8]] = [
        Array("\u{FEFF}event: greet\r\nid: é1\r\ndata: héllo €\r\ndata: 😀\r\n\r\n: c\rretry: 250\rdata: x\r\r".utf8),
        Array("data: a\n\ndata: b\r\n\r\nid\ndata\n\nevent: e\ndata: c\r\rdata: incomplete".utf8),
        Array("\u{FEFF}\u{FEFF}data: no\n\ndata:yes\n\n".utf8),
        [0xEF, 0xBB] + Array("\ndata: z\n\n".utf8),
        Array("id: 1\u{0}\ndata: 1\n\nid: 2\ndata: \u{0}\n\n".utf8),
    ]

    @Test("every chunking gives the events of the whole stream: byte by byte, and split at every point", arguments: samples.indices)
    func everyChunkingGivesTheSameEvents(_ index: Int) throws {
        let bytes = Self.samples[index]
        let whole = try Self.events(bytes)
        #expect(!whole.isEmpty)
        #expect(try Self.events(bytes, splits: Array(0...bytes.count)) == whole, "byte by byte")
        for split in 0...bytes.count {
            #expect(try Self.events(bytes, splits: [split]) == whole, "split at \(split)")
        }
        for first in stride(from: 0, through: bytes.count, by: 3) {
            for second in first...bytes.count {
                #expect(try Self.events(bytes, splits: [first, second]) == whole, "split at \(first) and \(second)")
            }
        }
    }

    @Test("the first sample's events, spelled out")
    func firstSample() throws {
        let events = try Self.events(Self.samples[0])
        #expect(
            events == [
                ServerSentEvent(type: "greet", data: "héllo €\n😀", id: "é1"),
                ServerSentEvent(data: "x", id: "é1", retry: .milliseconds(250)),
            ])
    }

    // MARK: - Limits

    @Test("a line of exactly the maximum length is read; one byte more fails as too large, in one chunk or many")
    func lineLimit() throws {
        let limit = 16
        let fits = "data: " + String(repeating: "x", count: limit - 6)
        let parser = ServerSentEventParser(maximumLineLength: limit)
        #expect(try Self.events(Array("\(fits)\r\n\n".utf8), parser: parser).map(\.data) == [String(repeating: "x", count: 10)])
        #expect(try Self.events(Array("\(fits)\r".utf8) + Array("\n\n".utf8), splits: [limit + 1], parser: parser).count == 1)
        let tooLong = Array("\(fits)x\n\n".utf8)
        for splits in [[], Array(0...tooLong.count)] {
            let error = #expect(throws: CourierError.self) {
                _ = try Self.events(tooLong, splits: splits, parser: parser)
            }
            guard case .transport(let failure)? = error else {
                Issue.record("expected a transport failure, got \(String(describing: error))")
                continue
            }
            #expect(failure.kind == .responseTooLarge)
            #expect(failure.message?.contains("line") == true)
        }
    }

    @Test("a server that never sends a line break cannot make the parser hold more than the line limit")
    func endlessLineFails() throws {
        var parser = ServerSentEventParser(maximumLineLength: 1 << 10)
        var events: [ServerSentEvent] = []
        let chunk = Data(repeating: 0x61, count: 100)
        var fed = 0
        do {
            while fed < 1 << 20 {
                try parser.parse(chunk, into: &events)
                fed += chunk.count
            }
            Issue.record("no error after \(fed) bytes")
        } catch {
            #expect(fed <= 1 << 10, "failed only after \(fed) bytes")
        }
    }

    @Test("event data past the limit fails as too large; the events before it are delivered, and the parser stays failed")
    func eventSizeLimit() throws {
        var parser = ServerSentEventParser(maximumEventSize: 8)
        var events: [ServerSentEvent] = []
        // "1234567" + LF is exactly 8 bytes.
        try parser.parse(Data("data: 1234567\n\n".utf8), into: &events)
        #expect(events.map(\.data) == ["1234567"])
        #expect(throws: CourierError.self) {
            try parser.parse(Data("data: ok\n\ndata: 1234\ndata: 567\n\n".utf8), into: &events)
        }
        #expect(events.map(\.data) == ["1234567", "ok"])
        #expect(throws: CourierError.self) { try parser.parse(Data("data: a\n\n".utf8), into: &events) }
        #expect(events.count == 2)
    }

    @Test("many events do not accumulate: each event's data is dropped once dispatched")
    func manyEventsWithinTheEventLimit() throws {
        let stream = String(repeating: "data: 12345\n\n", count: 1_000)
        let events = try Self.events(Array(stream.utf8), parser: ServerSentEventParser(maximumLineLength: 16, maximumEventSize: 8))
        #expect(events.count == 1_000)
    }
}
