import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// `Call.stream()` returns the validated head with the body still arriving; `lines` and
/// `decodedLines` read it as text lines and as newline-delimited JSON.
@Suite("Streaming calls, lines and NDJSON")
struct StreamingCallTests {
    typealias StreamingTransport = StreamingPipelineTests.StreamingTransport

    static func streaming(_ chunks: ScriptedChunks, status: HTTPResponse.Status = .ok) -> StreamingTransport {
        StreamingTransport([{ StreamingPipelineTests.streamed(status, chunks, url: $0.url) }])
    }

    static func client(_ transport: some Transport, limit: Int? = Configuration.defaultMaximumResponseSize) -> Client {
        var configuration = Configuration(transport: transport)
        configuration.maximumResponseSize = limit
        return Client(configuration: configuration)
    }

    static func streamResult(_ call: Call) async -> Result<StreamedResponse, CourierError> {
        do {
            return .success(try await call.stream())
        } catch {
            return .failure(error)
        }
    }

    static func chunks(_ strings: [String]) -> ScriptedChunks {
        ScriptedChunks(strings.map { Data($0.utf8) })
    }

    @Test("stream() returns before the body is read: nothing is pulled until the caller iterates")
    func streamReturnsBeforeReadingTheBody() async throws {
        let source = Self.chunks(["a", "b", "c"])
        let response = try await Self.client(Self.streaming(source)).enqueue(TestEndpoint()).stream()
        #expect(response.statusCode == 200)
        #expect(response.body.wholeData == nil)
        #expect(source.reads == 0)
        var received: [String] = []
        for try await chunk in response.body { received.append(String(decoding: chunk, as: UTF8.self)) }
        #expect(received == ["a", "b", "c"])
    }

    @Test("an accepted body is not limited by maximumResponseSize: the caller reads it chunk by chunk")
    func anAcceptedBodyIsNotLimited() async throws {
        let source = Self.chunks([String(repeating: "x", count: 600), String(repeating: "y", count: 600)])
        let response = try await Self.client(Self.streaming(source), limit: 1000).enqueue(TestEndpoint()).stream()
        #expect(try await response.body.collect(upTo: nil).count == 1200)
    }

    @Test("a refused status throws .response with its whole body, read under maximumResponseSize")
    func aRefusedStatusThrowsWithItsBody() async throws {
        let refused = Self.streaming(Self.chunks(["no ", "such thing"]), status: .notFound)
        let result = await Self.streamResult(Self.client(refused).enqueue(TestEndpoint()))
        guard case .failure(.response(let response)) = result else {
            Issue.record("expected .response, got \(result)")
            return
        }
        #expect(response.statusCode == 404)
        #expect(response.body == Data("no such thing".utf8))

        let huge = Self.streaming(Self.chunks([String(repeating: "e", count: 2000)]), status: .internalServerError)
        let tooLarge = await Self.streamResult(Self.client(huge, limit: 100).enqueue(TestEndpoint()))
        guard case .failure(.transport(let failure)) = tooLarge else {
            Issue.record("expected a too-large failure, got \(tooLarge)")
            return
        }
        #expect(failure.kind == .responseTooLarge)
    }

    @Test(
        "lines are split on LF and CRLF wherever the chunks break, and a last unterminated line is kept",
        arguments: [
            ["one\ntwo\r\nthree"],
            ["one\n", "two\r\n", "three"],
            ["o", "ne\ntw", "o\r", "\nthr", "ee"],
            ["one\ntwo\r", "\nthree\r"],
        ])
    func linesAreSplitWhereverTheChunksBreak(_ parts: [String]) async throws {
        let response = try await Self.client(Self.streaming(Self.chunks(parts))).enqueue(TestEndpoint()).stream()
        var lines: [String] = []
        for try await line in response.lines() { lines.append(line) }
        #expect(lines == ["one", "two", "three"])
    }

    @Test("every split point of a byte stream gives the same lines, empty lines included")
    func everySplitPointGivesTheSameLines() async throws {
        let text = Data("alpha\r\n\nbeta\ngamma\r\n\r\ndelta".utf8)
        for split in 0...text.count {
            let source = ScriptedChunks([text.prefix(split), text.dropFirst(split)].map { Data($0) })
            let response = try await Self.client(Self.streaming(source)).enqueue(TestEndpoint()).stream()
            var lines: [String] = []
            for try await line in response.lines() { lines.append(line) }
            #expect(lines == ["alpha", "", "beta", "gamma", "", "delta"], "split at \(split)")
        }
    }

    @Test("a line longer than maximumLength fails as responseTooLarge and stops the transfer; a server that never sends a newline cannot grow memory")
    func aLineTooLongFailsAndStopsTheTransfer() async throws {
        let source = ScriptedChunks([Data(repeating: 0x61, count: 100)], endless: true)
        let response = try await Self.client(Self.streaming(source)).enqueue(TestEndpoint()).stream()
        var count = 0
        do {
            for try await _ in response.lines(maximumLength: 1000) { count += 1 }
            Issue.record("an endless line was accepted")
        } catch {
            guard case .transport(let failure) = error else {
                Issue.record("expected a transport failure, got \(error)")
                return
            }
            #expect(failure.kind == .responseTooLarge)
        }
        #expect(count == 0)
        #expect(source.wasCancelled)
        #expect(source.reads <= 12)
    }

    struct Change: Decodable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    @Test("decodedLines decodes one value per line as it arrives and skips blank lines")
    func decodedLinesDecodesOneValuePerLine() async throws {
        let source = Self.chunks([#"{"id":1,"name":"a"}"#, "\n\n", #"{"id":2,"#, #""name":"b"}"#, "\r\n  \n", #"{"id":3,"name":"c"}"#])
        let response = try await Self.client(Self.streaming(source)).enqueue(TestEndpoint()).stream()
        var values: [Change] = []
        for try await value in response.decodedLines(Change.self) { values.append(value) }
        #expect(values == [Change(id: 1, name: "a"), Change(id: 2, name: "b"), Change(id: 3, name: "c")])
    }

    @Test("a line that is not the type throws .decoding carrying that line, after the values before it, and stops the transfer")
    func aBadLineThrowsDecodingWithTheLine() async throws {
        let source = ScriptedChunks(
            [Data(#"{"id":1,"name":"a"}"#.utf8), Data("\n{\"id\":\"two\"}\n".utf8), Data(#"{"id":3,"name":"c"}"#.utf8)])
        let response = try await Self.client(Self.streaming(source)).enqueue(TestEndpoint()).stream()
        var values: [Change] = []
        do {
            for try await value in response.decodedLines(Change.self) { values.append(value) }
            Issue.record("a bad line decoded")
        } catch {
            guard case .decoding(let failure) = error else {
                Issue.record("expected .decoding, got \(error)")
                return
            }
            #expect(failure.response.body == Data(#"{"id":"two"}"#.utf8))
            #expect(failure.expectedType.hasSuffix("Change"))
        }
        #expect(values == [Change(id: 1, name: "a")])
        #expect(source.wasCancelled)
    }
}
