import Courier
import CourierTesting
import Foundation
import Testing

/// The fixture file format, read through `StubResponse(fixture:)` and `StubResponse(contentsOf:)`.
@Suite("Fixture files")
struct FixtureFileTests {
    @Test func statusReasonHeadersAndBodyAreRead() throws {
        let response = try StubResponse(fixture: Data("HTTP/1.1 201 Created\nContent-Type: application/json\nLocation:   /users/7  \n\n{\"id\": 7}".utf8))

        #expect(response.statusCode == 201)
        #expect(response.headers == HTTPFields(["Content-Type": "application/json", "Location": "/users/7"]))
        #expect(response.body == Data(#"{"id": 7}"#.utf8))
    }

    @Test(arguments: ["\n", "\r\n"])
    func lineEndingsMayBeLFOrCRLF(lineEnding: String) throws {
        let text = ["HTTP/1.1 404 Not Found", "X-A: 1", "", "body"].joined(separator: lineEnding)

        let response = try StubResponse(fixture: Data(text.utf8))

        #expect(response.statusCode == 404)
        #expect(response.headers == HTTPFields(["X-A": "1"]))
        #expect(response.body == Data("body".utf8))
    }

    @Test func aByteOrderMarkAtTheStartIsSkipped() throws {
        let response = try StubResponse(fixture: Data([0xEF, 0xBB, 0xBF]) + Data("HTTP/1.1 200 OK\n\nok".utf8))

        #expect(response.statusCode == 200)
        #expect(response.body == Data("ok".utf8))
    }

    @Test func repeatedFieldsAreKeptInOrder() throws {
        let response = try StubResponse(fixture: Data("HTTP/1.1 200 OK\nVary: Accept\nvary: Accept-Encoding\nX-B: 2\n\n".utf8))

        #expect(response.headers[values: .vary] == ["Accept", "Accept-Encoding"])
        #expect(response.headers[HTTPField.Name("X-B")!] == "2")
        #expect(response.headers.count == 3)
    }

    @Test func everyByteOfABinaryBodyIsKept() throws {
        let body = Data((0...255).map { UInt8($0) } + [0x0D, 0x0A, 0x0A])

        let response = try StubResponse(fixture: Data("HTTP/2 200\nContent-Type: application/octet-stream\n\n".utf8) + body)

        #expect(response.body == body)
    }

    @Test func withoutContentLengthAFinalLineBreakBelongsToTheBody() throws {
        let response = try StubResponse(fixture: Data("HTTP/1.1 200 OK\n\nhello\n".utf8))

        #expect(response.body == Data("hello\n".utf8))
    }

    @Test(arguments: ["hello", "hello\n", "hello\r\n"])
    func withContentLengthOneFinalLineBreakIsDropped(body: String) throws {
        let response = try StubResponse(fixture: Data("HTTP/1.1 200 OK\nContent-Length: 5\n\n\(body)".utf8))

        #expect(response.body == Data("hello".utf8))
        #expect(response.headers[.contentLength] == "5")
    }

    @Test(arguments: [("hello!", 6), ("hell", 4), ("hello\n\n", 7), ("hello\r", 6)])
    func aBodyOfAnotherLengthThanContentLengthIsRefused(body: String, actual: Int) {
        #expect(throws: FixtureError(.contentLengthMismatch(declared: 5, actual: actual))) {
            try StubResponse(fixture: Data("HTTP/1.1 200 OK\nContent-Length: 5\n\n\(body)".utf8))
        }
    }

    @Test func anEmptyBodyKeepsTheLengthAHeadResponseAnnounces() throws {
        let response = try StubResponse(fixture: Data("HTTP/1.1 200 OK\nContent-Length: 1234\n\n".utf8))

        #expect(response.body.isEmpty)
        #expect(response.headers[.contentLength] == "1234")
    }

    @Test(arguments: ["HTTP/1.1 204 No Content", "HTTP/1.1 204 No Content\n", "HTTP/1.1 204 No Content\nX-A: 1"])
    func aFileThatEndsAfterItsHeadHasAnEmptyBody(text: String) throws {
        let response = try StubResponse(fixture: Data(text.utf8))

        #expect(response.statusCode == 204)
        #expect(response.body.isEmpty)
    }

    @Test func informationalHeadsThatCurlPrintsAreSkipped() throws {
        let curlOutput = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\nX-Final: yes\r\n\r\ndone"

        let response = try StubResponse(fixture: Data(curlOutput.utf8))

        #expect(response.statusCode == 200)
        #expect(response.headers == HTTPFields(["X-Final": "yes"]))
        #expect(response.body == Data("done".utf8))
    }

    @Test(arguments: [
        ("", FixtureError.Kind.invalidStatusLine(line: 1, found: nil)),
        ("HTTP/1.1 OK\n", .invalidStatusLine(line: 1, found: "HTTP/1.1 OK")),
        ("HTTP/1.1 2000 OK\n", .invalidStatusLine(line: 1, found: "HTTP/1.1 2000 OK")),
        ("HTTP/1.1  200 OK\n", .invalidStatusLine(line: 1, found: "HTTP/1.1  200 OK")),
        ("HTTP/ 200 OK\n", .invalidStatusLine(line: 1, found: "HTTP/ 200 OK")),
        ("http/1.1 200 OK\n", .invalidStatusLine(line: 1, found: "http/1.1 200 OK")),
        ("\nHTTP/1.1 200 OK\n", .invalidStatusLine(line: 1, found: "")),
        ("HTTP/1.1 200OK\n", .invalidStatusLine(line: 1, found: "HTTP/1.1 200OK")),
        ("HTTP/1.1 099 Low\n", .statusCodeOutOfRange(line: 1, code: 99)),
        ("HTTP/1.1 600 High\n", .statusCodeOutOfRange(line: 1, code: 600)),
        ("HTTP/1.1 100 Continue\n\n", .invalidStatusLine(line: 3, found: nil)),
        ("HTTP/1.1 200 OK\nContent-Type application/json\n\n{}", .headerWithoutColon(line: 2)),
        ("HTTP/1.1 200 OK\nX-A: 1\n  continued\n\n", .foldedHeaderLine(line: 3)),
        ("HTTP/1.1 200 OK\nX-A: 1\n\tcontinued\n\n", .foldedHeaderLine(line: 3)),
        ("HTTP/1.1 200 OK\nBad Name: x\n\n", .invalidHeaderName(line: 2)),
        ("HTTP/1.1 200 OK\nX-A : x\n\n", .invalidHeaderName(line: 2)),
        ("HTTP/1.1 200 OK\n: x\n\n", .invalidHeaderName(line: 2)),
        ("HTTP/1.1 200 OK\nX-A: a\u{1}b\n\n", .notText(line: 2)),
        ("HTTP/1.1 200 OK\nX-A: a\rb\n\n", .notText(line: 2)),
        ("HTTP/1.1 200 OK\u{7F}\n\n", .notText(line: 1)),
        ("HTTP/1.1 200 OK\nContent-Length: abc\n\n", .invalidContentLength(line: 2)),
        ("HTTP/1.1 200 OK\nContent-Length: -1\n\n", .invalidContentLength(line: 2)),
        ("HTTP/1.1 200 OK\nContent-Length: 99999999999999999999\n\n", .invalidContentLength(line: 2)),
        ("HTTP/1.1 200 OK\nContent-Length: 5\nContent-Length: 6\n\nhello", .invalidContentLength(line: 3)),
    ])
    func malformedFilesGetATypedErrorNamingTheLine(text: String, kind: FixtureError.Kind) {
        #expect(throws: FixtureError(kind)) { try StubResponse(fixture: Data(text.utf8)) }
    }

    @Test func aHeaderLineThatIsNotUTF8IsRefused() {
        let bytes = Data("HTTP/1.1 200 OK\nX-A: ".utf8) + Data([0xC3, 0x28]) + Data("\n\n".utf8)

        #expect(throws: FixtureError(.notText(line: 2))) { try StubResponse(fixture: bytes) }
    }

    @Test func utf8TextInHeaderValuesIsKept() throws {
        let response = try StubResponse(fixture: Data("HTTP/1.1 200 Très bien\nX-Greeting: Grüße\n\n".utf8))

        #expect(response.headers == HTTPFields(["X-Greeting": "Grüße"]))
    }

    @Test func aHeadWithoutItsBlankLinePastTheLimitIsRefused() {
        let header = "X-Filler: " + String(repeating: "a", count: 100) + "\n"
        let text = "HTTP/1.1 200 OK\n" + String(repeating: header, count: FixtureDirectory.maximumHeadSize / header.utf8.count + 1)

        #expect(throws: FixtureError(.headTooLarge(limit: FixtureDirectory.maximumHeadSize))) { try StubResponse(fixture: Data(text.utf8)) }
    }

    @Test func aLongLineOfBinaryWhereAHeadShouldBeIsRefusedWithoutScanningItAll() {
        let bytes = Data(repeating: 0x41, count: 8 * 1024 * 1024)

        #expect(throws: FixtureError(.headTooLarge(limit: FixtureDirectory.maximumHeadSize))) { try StubResponse(fixture: bytes) }
    }

    @Test func aHeadJustUnderTheLimitIsRead() throws {
        let status = "HTTP/1.1 200 OK\n"
        let filler = String(repeating: "a", count: FixtureDirectory.maximumHeadSize - status.utf8.count - "X: \n\n".utf8.count)

        let response = try StubResponse(fixture: Data((status + "X: \(filler)\n\nbody").utf8))

        #expect(response.headers[HTTPField.Name("X")!]?.utf8.count == filler.utf8.count)
        #expect(response.body == Data("body".utf8))
    }

    // MARK: Files

    @Test func aFileIsReadWithItsName() throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("user.response")
        try Data("HTTP/1.1 200 OK\nContent-Type: application/json\n\n{\"id\": 1, \"name\": \"Ada\"}".utf8).write(to: file)

        let response = try StubResponse(contentsOf: file)

        #expect(response.statusCode == 200)
        #expect(response.body == Data(#"{"id": 1, "name": "Ada"}"#.utf8))
    }

    @Test func aMissingFileIsNamedInTheError() throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("nothing.response")

        #expect(throws: FixtureError(.fileNotFound, file: file)) { try StubResponse(contentsOf: file) }
    }

    @Test func aFolderIsNotAFixture() throws {
        let folder = try TemporaryFolder()

        let error = #expect(throws: FixtureError.self) { try StubResponse(contentsOf: folder.url) }

        guard case .unreadable? = error?.kind else {
            Issue.record("expected .unreadable, got \(String(describing: error))")
            return
        }
        #expect(error?.file == folder.url)
    }

    @Test func aFileLargerThanTheLimitIsRefusedBeforeParsing() throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("big.response")
        try (Data("HTTP/1.1 200 OK\n\n".utf8) + Data(repeating: 0x61, count: 1000)).write(to: file)

        #expect(throws: FixtureError(.fileTooLarge(limit: 1000), file: file)) { try StubResponse(contentsOf: file, maximumSize: 1000) }
        #expect(try StubResponse(contentsOf: file, maximumSize: 1017).body.count == 1000)
    }

    @Test func anErrorNamesTheFileAndTheLineButQuotesNoHeaderValue() throws {
        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("bad.response")
        try Data("HTTP/1.1 200 OK\nSet-Cookie: session=SECRET-VALUE\nX-Token SECRET-TOKEN\n\n".utf8).write(to: file)

        let error = #expect(throws: FixtureError.self) { try StubResponse(contentsOf: file) }

        let text = String(describing: error)
        #expect(error?.kind == .headerWithoutColon(line: 3))
        #expect(text.contains(file.path))
        #expect(text.contains("line 3"))
        #expect(!text.contains("SECRET"))
    }
}
