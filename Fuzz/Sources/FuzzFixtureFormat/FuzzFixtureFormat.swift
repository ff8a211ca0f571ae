import Courier
import Foundation
import FuzzSupport
import HTTPTypes

// CourierTesting's fixture files (`StubResponse(fixture:)`, `FixtureDirectory`,
// `FixtureTransport`): the parser, the writer, what a recording writes, and the file names.
//
// Byte 0 chooses the half. Even: the rest is a fixture file, parsed. Invariants: only a
// `FixtureError` (never a trap), with a line number within the file; a parsed fixture has a
// status of 200–599, values without control characters or white space around them, and writes
// back (`render`) to a file that parses to the same fixture (or, the writer's head being a few
// bytes longer, fails only with `headTooLarge`). Odd: the rest describes a response (status,
// reason, fields from a list that includes secrets and framing, body), which is recorded as a
// `FixtureTransport` records it. Invariants: the recorded file always parses back, with the
// same status, field names and body; no hop-by-hop field is written; every secret header
// (`Redaction.default`) is written redacted. Both halves also name a fixture file after the
// bytes read as a request target: every component is non-empty, not `.` or `..`, visible ASCII
// without `/`, at most 200 bytes, and the last ends in `.response`.
@testable import CourierTesting

/// The process's entry point: SwiftPM names it `FuzzFixtureFormat_main` (see `runLibFuzzer`).
@_cdecl("FuzzFixtureFormat_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var reader = FuzzReader(fuzzBytes(start, count))
    let recording = reader.bool()
    let rest = reader.rest()
    if recording {
        checkRecording(rest)
    } else {
        checkParsing(Data(rest))
    }
    checkNaming(String(decoding: rest.prefix(512), as: UTF8.self))
    return 0
}

/// Parsing any bytes: a typed error or a fixture that round-trips.
private func checkParsing(_ data: Data) {
    let lineCount = data.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    do {
        let fixture = try FixtureFormat.parse(data)
        checkFixture(fixture)
        do {
            let again = try FixtureFormat.parse(FixtureFormat.render(fixture))
            check(again == fixture, "a fixture did not read back as written")
        } catch {
            check(error.kind == .headTooLarge(limit: FixtureFormat.maximumHeadSize), "a written fixture failed to parse: \(error)")
        }
    } catch {
        check(error.file == nil, "a file named for bytes")
        switch error.kind {
        case .invalidStatusLine(let line, nil):
            // The end of the file where a status line was due: the line after the last one
            // (an informational head with nothing after it, `HTTP/1.0 106`, found by this target).
            check(line >= 1 && line <= lineCount + 1, "line \(line) of a file of \(lineCount) lines")
        case .invalidStatusLine(let line, _?), .statusCodeOutOfRange(let line, _), .headerWithoutColon(let line),
            .foldedHeaderLine(let line), .invalidHeaderName(let line), .invalidContentLength(let line), .notText(let line):
            check(line >= 1 && line <= lineCount, "line \(line) of a file of \(lineCount) lines")
        case .contentLengthMismatch(let declared, let actual):
            check(declared != actual, "a mismatch of equal lengths")
        case .headTooLarge(let limit):
            check(limit == FixtureFormat.maximumHeadSize, "another head limit: \(limit)")
        case .fileNotFound, .fileTooLarge, .unreadable, .unwritable:
            check(false, "a file error from bytes: \(error)")
        @unknown default:
            check(false, "a kind this target does not know: \(error)")
        }
    }
}

/// What every parsed fixture satisfies.
private func checkFixture(_ fixture: FixtureFormat.Fixture) {
    check((200...599).contains(fixture.statusCode), "status \(fixture.statusCode)")
    for text in [fixture.reasonPhrase] + fixture.fields.map(\.value) {
        check(!text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }, "a control character kept")
        check(text.first != " " && text.first != "\t" && text.last != " " && text.last != "\t", "white space kept around a value")
    }
    if let length = fixture.fields.first(where: { $0.name == .contentLength }), !fixture.body.isEmpty {
        check(Int(length.value) == fixture.body.count, "a body of \(fixture.body.count) bytes under Content-Length \(length.value)")
    }
}

/// Names a recording may meet: secrets, framing, URLs and ordinary ones.
private let fieldNames: [HTTPField.Name] = [
    .contentType, .contentLength, .contentEncoding, .setCookie, .authorization, .location, .transferEncoding, .connection,
    HTTPField.Name("X-Api-Key")!, HTTPField.Name("Keep-Alive")!, HTTPField.Name("Private-Token")!, HTTPField.Name("X-Trace")!,
]
private let mediaTypes = ["application/json", "application/x-www-form-urlencoded", "text/plain", "application/problem+json"]

/// Recording a response described by the bytes: the file always reads back, without secrets
/// or framing.
private func checkRecording(_ bytes: [UInt8]) {
    var reader = FuzzReader(bytes)
    let status = HTTPResponse.Status(code: 200 + reader.choice(400), reasonPhrase: reader.string(maximumLength: 24))
    var fields = HTTPFields()
    if reader.bool() {
        fields[.contentType] = mediaTypes[reader.choice(mediaTypes.count)]
    }
    for _ in 0..<reader.choice(8) {
        fields.append(HTTPField(name: fieldNames[reader.choice(fieldNames.count)], value: reader.string(maximumLength: 48)))
    }
    let decoded = reader.bool()
    let body = Data(reader.rest())
    let response = Response(status: status, headers: fields, body: body, url: URL(string: "https://api.example.com/r")!)

    let fixture = FixtureRecording.fixture(of: response, redaction: .default, bodyWasDecoded: decoded)
    let parsed: FixtureFormat.Fixture
    do {
        parsed = try FixtureFormat.parse(FixtureFormat.render(fixture))
    } catch {
        check(false, "a recording does not read back: \(error)")
        return
    }
    checkFixture(parsed)
    check(parsed.statusCode == status.code, "status \(parsed.statusCode) written for \(status.code)")
    check(parsed.body == fixture.body, "the body changed on the way to the file")
    check(parsed.fields.map(\.name) == fixture.fields.map(\.name), "fields changed on the way to the file")
    for field in parsed.fields {
        let name = field.name.canonicalName
        check(!FixtureRecording.hopByHopFields.contains(name), "\(name) written")
        if Redaction.default.isSecret(headerName: name) {
            check(field.value.hasSuffix(Redaction.placeholder), "the secret header \(name) written in clear")
        }
    }
}

/// Naming a fixture after any target.
private func checkNaming(_ text: String) {
    let target = "/" + text
    for includingQuery in [true, false] {
        let components = FixtureNaming.components(method: "GET", target: target, redaction: .default, includingQuery: includingQuery)
        check(components.last?.hasSuffix(".response") == true, "no file name")
        for component in components {
            check(!component.isEmpty && component != "." && component != "..", "the component \(component.debugDescription)")
            check(component.utf8.count <= FixtureNaming.maximumNameLength, "a component of \(component.utf8.count) bytes")
            check(component.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }, "a byte a file name should not hold")
        }
        if includingQuery {
            check(components == FixtureNaming.components(method: "GET", target: target, redaction: .default, includingQuery: true), "names are not stable")
        }
    }
}
