import Foundation
import HTTPTypes
import Testing

@testable import Courier

@Suite("Content-Range parsing and what a download does with a response head")
struct RangeDecisionTests {
    @Test("well-formed Content-Range values parse, with an unknown total and the unsatisfied form")
    func wellFormedValuesParse() {
        #expect(ContentRange("bytes 100-199/200") == ContentRange(range: 100...199, complete: 200))
        #expect(ContentRange("bytes 0-0/*") == ContentRange(range: 0...0, complete: nil))
        #expect(ContentRange("bytes */4096") == ContentRange(range: nil, complete: 4096))
        #expect(ContentRange("  Bytes 5-9/10 ") == ContentRange(range: 5...9, complete: 10))
    }

    @Test(
        "hostile or malformed Content-Range values are refused, never trapped on",
        arguments: [
            "", "bytes", "bytes 1-2", "items 1-2/3", "bytes -1-2/3", "bytes 2-1/3", "bytes 1-3/3", "bytes */*", "bytes 1-2/-3",
            "bytes 99999999999999999999-1/2", "bytes 1-99999999999999999999/*", "bytes 1 - 2/3", "bytes 0x1-2/3", "bytes 1-2/3/4",
            "bytes +1-2/3",
        ])
    func malformedValuesAreRefused(_ value: String) {
        #expect(ContentRange(value) == nil)
    }

    func decide(_ status: Int, _ headers: HTTPFields = [:], offset: Int64 = 1000, validator: String? = "\"v1\"", length: Int64? = nil) -> RangeDecision {
        RangeDecision.decide(status: status, headers: headers, requestedOffset: offset, validator: validator, expectedLength: length)
    }

    @Test("a 206 starting where asked continues at that offset with the announced total")
    func aMatchingPartialResponseContinues() {
        #expect(decide(206, [.contentRange: "bytes 1000-4999/5000", .eTag: "\"v1\""], length: 4000) == .write(offset: 1000, total: 5000))
        #expect(decide(206, [.contentRange: "bytes 1000-4999/*"]) == .write(offset: 1000, total: 5000))
    }

    @Test("a 206 that starts elsewhere, stops short, lies about its length, names another version or has no range restarts")
    func aMismatchedPartialResponseRestarts() {
        let restarts: [RangeDecision] = [
            decide(206, [.contentRange: "bytes 1001-4999/5000"]),
            decide(206, [.contentRange: "bytes 0-4999/5000"]),
            decide(206, [.contentRange: "bytes 1000-1999/5000"]),
            decide(206, [.contentRange: "bytes 1000-4999/5000"], length: 10),
            decide(206, [.contentRange: "bytes 1000-4999/5000", .eTag: "\"v2\""]),
            decide(206, [.contentRange: "nonsense"]),
            decide(206),
            decide(206, [.contentRange: "bytes 0-4999/5000"], offset: 0),
        ]
        for decision in restarts {
            guard case .restart = decision else {
                Issue.record("expected a restart, got \(decision)")
                continue
            }
        }
    }

    @Test("a 200 to a range request starts over from zero with the new length")
    func aFullResponseStartsOver() {
        #expect(decide(200, length: 5000) == .write(offset: 0, total: 5000))
        #expect(decide(200, offset: 0, validator: nil) == .write(offset: 0, total: nil))
    }

    @Test("a 416 means complete only when the server's size is exactly the bytes on disk")
    func anUnsatisfiableRangeIsCompleteOnlyAtTheExactSize() {
        #expect(decide(416, [.contentRange: "bytes */1000"]) == .complete)
        guard case .restart = decide(416, [.contentRange: "bytes */999"]) else {
            Issue.record("a smaller resource must restart")
            return
        }
        guard case .restart = decide(416) else {
            Issue.record("a 416 without Content-Range must restart")
            return
        }
    }

    @Test("the validator is the strong ETag, else Last-Modified; a weak ETag is not one")
    func theValidatorIsAStrongETagOrADate() {
        let modified = "Tue, 24 Nov 2026 06:00:00 GMT"
        let later = "Tue, 24 Nov 2026 06:00:01 GMT"
        #expect(RangeDecision.validator(in: [.eTag: "\"abc\"", .lastModified: modified, .date: later]) == "\"abc\"")
        #expect(RangeDecision.validator(in: [.eTag: "W/\"abc\"", .lastModified: modified, .date: later]) == modified)
        #expect(RangeDecision.validator(in: [.eTag: "W/\"abc\""]) == nil)
        #expect(RangeDecision.validator(in: [:]) == nil)
    }

    @Test(
        "Last-Modified is a validator only when it is strong: a valid HTTP-date at least one second before the response's Date",
        arguments: [
            ("Tue, 24 Nov 2026 06:00:00 GMT", "Tue, 24 Nov 2026 06:00:00 GMT", false),  // the same second: may change again within it
            ("Tue, 24 Nov 2026 06:00:00 GMT", "Tue, 24 Nov 2026 05:59:00 GMT", false),  // a date in the future of the response
            ("Tue, 24 Nov 2026 06:00:00 GMT", nil, false),  // no Date to compare with
            ("yesterday", "Tue, 24 Nov 2026 06:00:00 GMT", false),  // not an HTTP-date
            ("Tue, 24 Nov 2026 06:00:00 GMT", "Tue, 24 Nov 2026 06:00:01 GMT", true),
            ("Tuesday, 24-Nov-26 06:00:00 GMT", "Wed, 25 Nov 2026 06:00:00 GMT", true),
        ] as [(String, String?, Bool)])
    func lastModifiedMustBeStrong(modified: String, date: String?, isValidator: Bool) {
        var headers: HTTPFields = [.lastModified: modified]
        if let date { headers[.date] = date }
        #expect((RangeDecision.validator(in: headers) == modified) == isValidator)
        #expect(RangeDecision.validator(in: headers) == nil || isValidator)
    }

    @Test("a 206 must agree with the complete length recorded from the first response: a short resume restarts")
    func aPartialResponseMustAgreeWithTheRecordedTotal() {
        func decide(_ contentRange: String, recorded: Int64?) -> RangeDecision {
            RangeDecision.decide(
                status: 206, headers: [.contentRange: contentRange, .eTag: "\"v1\""], requestedOffset: 500_000, validator: "\"v1\"",
                expectedLength: 100, recordedTotal: recorded)
        }
        for value in ["bytes 500000-500099/*", "bytes 500000-500099/500100"] {
            guard case .restart(let reason) = decide(value, recorded: 1_000_000) else {
                Issue.record("\(value) was taken for the rest of a 1,000,000-byte resource")
                continue
            }
            #expect(reason.contains("1000000"))
            #expect(decide(value, recorded: 500_100) == .write(offset: 500_000, total: 500_100))
            #expect(decide(value, recorded: nil) == .write(offset: 500_000, total: 500_100))
        }
        let refused = RangeDecision.decide(
            status: 416, headers: [.contentRange: "bytes */1000"], requestedOffset: 1000, validator: "\"v1\"", expectedLength: nil,
            recordedTotal: 2000)
        guard case .restart = refused else {
            Issue.record("a 416 at a size other than the recorded total must restart")
            return
        }
    }

    @Test("a 206 with a Content-Encoding other than identity restarts; identity does not count as one")
    func anEncodedPartialResponseRestarts() {
        guard case .restart = decide(206, [.contentRange: "bytes 1000-4999/5000", .contentEncoding: "gzip"]) else {
            Issue.record("an encoded 206 was continued")
            return
        }
        #expect(decide(206, [.contentRange: "bytes 1000-4999/5000", .contentEncoding: "identity"]) == .write(offset: 1000, total: 5000))
        #expect(RangeDecision.isEncoded([.contentEncoding: "Identity, br"]))
        #expect(!RangeDecision.isEncoded([:]))
    }

    @Test(
        "a state file is read only when its values make sense and its validator can be sent as If-Range",
        arguments: [
            (#"{"url":"https://h/f","validator":"\"v1\"","receivedBytes":5,"expectedBytes":10,"temporaryFile":"file:///tmp/.f.courier-download"}"#, true),
            (#"{"url":"https://h/f","receivedBytes":0,"temporaryFile":"file:///tmp/.f.courier-download"}"#, true),
            (#"{"url":"https://h/f","validator":"\"v1\"\r\nX-Injected: 1","receivedBytes":5,"temporaryFile":"file:///tmp/.f"}"#, false),
            (#"{"url":"https://h/f","validator":"","receivedBytes":5,"temporaryFile":"file:///tmp/.f"}"#, false),
            (#"{"url":"https://h/f","receivedBytes":-5,"temporaryFile":"file:///tmp/.f"}"#, false),
            (#"{"url":"https://h/f","receivedBytes":11,"expectedBytes":10,"temporaryFile":"file:///tmp/.f"}"#, false),
            (#"{"url":"https://h/f","receivedBytes":1,"temporaryFile":"https://h/.f"}"#, false),
            (#"{"url":"https://h/f","receivedBy"#, false),
        ] as [(String, Bool)])
    func stateFilesAreChecked(_ json: String, accepted: Bool) {
        #expect((DownloadPaths.decodeState(Data(json.utf8)) != nil) == accepted)
    }
}
