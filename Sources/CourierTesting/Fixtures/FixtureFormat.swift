import Foundation
import HTTPTypes

/// The fixture file format: an HTTP/1.1 response as it travels, the way `curl -i` prints it.
enum FixtureFormat {
    // - A status line `HTTP/<version> <code> [<reason>]`. The version is not checked beyond its
    //   shape (`HTTP/1.1`, `HTTP/2`); the code must be 200–599. Informational heads before it
    //   (`HTTP/1.1 100 Continue` and its blank line, as `curl -i` prints them) are skipped.
    // - Header lines `Name: value`: a token, a colon, a value of text and tabs (white space around
    //   it is dropped). Repeated names are kept in order.
    // - Lines end with LF or CRLF; a UTF-8 byte order mark at the start is skipped.
    // - A blank line, then the body: every byte after it, as it is (binary too). When the head has
    //   a `Content-Length` and the body is not empty, the body must be exactly that long; one line
    //   break after it (an editor's final newline) is dropped. A file that ends after its headers
    //   has an empty body.
    //
    // The head is at most maximumHeadSize bytes; the whole file's limit is the reader's.

    /// 64 KiB for the status line and all header lines.
    static let maximumHeadSize = 64 * 1024

    /// One header line.
    struct Field: Equatable {
        var name: HTTPField.Name
        var value: String
    }

    /// A parsed fixture.
    struct Fixture: Equatable {
        var statusCode: Int
        var reasonPhrase: String
        var fields: [Field]
        var body: Data

        /// The fields as swift-http-types fields, repeated names kept.
        var headerFields: HTTPFields {
            HTTPFields(fields.map { HTTPField(name: $0.name, value: $0.value) })
        }
    }

    // MARK: Parsing

    /// Reads a fixture from its bytes.
    /// - Throws: a ``FixtureError`` naming the line (no file; the caller adds it).
    static func parse(_ data: Data) throws(FixtureError) -> Fixture {
        var reader = LineReader(data: data, budget: maximumHeadSize)
        reader.skipByteOrderMark()
        while true {
            guard let (number, line) = try reader.nextLine() else {
                throw FixtureError(.invalidStatusLine(line: reader.lineNumber + 1, found: nil))
            }
            let (code, reason) = try parseStatusLine(line, number: number)
            let fields = try parseFields(&reader)
            if (100..<200).contains(code) { continue }  // informational; the final response follows
            guard (200...599).contains(code) else {
                throw FixtureError(.statusCodeOutOfRange(line: number, code: code))
            }
            let body = try body(of: data[reader.offset...], declaredLength: fields.contentLength)
            return Fixture(statusCode: code, reasonPhrase: reason, fields: fields.list, body: body)
        }
    }

    /// `HTTP/<digits>[.<digits>] <3 digits>[ <reason>]`.
    private static func parseStatusLine(_ line: ArraySlice<UInt8>, number: Int) throws(FixtureError) -> (Int, String) {
        let invalid = FixtureError(.invalidStatusLine(line: number, found: quoted(line)))
        var index = line.startIndex
        for byte in "HTTP/".utf8 {
            guard index < line.endIndex, line[index] == byte else { throw invalid }
            index += 1
        }
        guard try digits(line, &index, invalid) > 0 else { throw invalid }
        if index < line.endIndex, line[index] == UInt8(ascii: ".") {
            index += 1
            guard try digits(line, &index, invalid) > 0 else { throw invalid }
        }
        guard index < line.endIndex, line[index] == UInt8(ascii: " ") else { throw invalid }
        index += 1
        let codeStart = index
        guard try digits(line, &index, invalid) == 3 else { throw invalid }
        let code = line[codeStart..<index].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard index == line.endIndex || line[index] == UInt8(ascii: " ") else { throw invalid }
        let reason = index == line.endIndex ? "" : try text(line[(index + 1)...], number: number)
        return (code, trimmed(reason))
    }

    /// Counts and skips the ASCII digits at `index` (at most 9, so a number cannot overflow).
    private static func digits(_ line: ArraySlice<UInt8>, _ index: inout Int, _ invalid: FixtureError) throws(FixtureError) -> Int {
        let start = index
        while index < line.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[index]) {
            index += 1
            guard index - start <= 9 else { throw invalid }
        }
        return index - start
    }

    /// The header lines up to the blank line (or the end of the file), and the declared length.
    private static func parseFields(_ reader: inout LineReader) throws(FixtureError) -> (list: [Field], contentLength: Int?) {
        var fields: [Field] = []
        var contentLength: Int?
        while let (number, line) = try reader.nextLine(), !line.isEmpty {
            guard let first = line.first, first != UInt8(ascii: " "), first != UInt8(ascii: "\t") else {
                throw FixtureError(.foldedHeaderLine(line: number))
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw FixtureError(.headerWithoutColon(line: number))
            }
            guard let name = HTTPField.Name(String(decoding: line[..<colon], as: UTF8.self)) else {
                throw FixtureError(.invalidHeaderName(line: number))
            }
            let value = trimmed(try text(line[(colon + 1)...], number: number))
            if name == .contentLength {
                guard let length = decimalLength(value), contentLength == nil || contentLength == length else {
                    throw FixtureError(.invalidContentLength(line: number))
                }
                contentLength = length
            }
            fields.append(Field(name: name, value: value))
        }
        return (fields, contentLength)
    }

    /// The value of a `Content-Length` field: 1 to 18 ASCII digits (so it cannot overflow), or
    /// `nil`.
    static func decimalLength(_ value: String) -> Int? {
        guard !value.isEmpty, value.utf8.count <= 18, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(value)
    }

    /// The body after the blank line, checked against `Content-Length` (see the type's rules).
    private static func body(of rest: Data, declaredLength: Int?) throws(FixtureError) -> Data {
        guard let declared = declaredLength, !rest.isEmpty, rest.count != declared else { return Data(rest) }
        let tail = rest.dropFirst(declared)
        if tail.elementsEqual([0x0A]) || tail.elementsEqual([0x0D, 0x0A]) {
            return Data(rest.prefix(declared))
        }
        throw FixtureError(.contentLengthMismatch(declared: declared, actual: rest.count))
    }

    /// `bytes` as UTF-8 text of visible characters, spaces and tabs.
    private static func text(_ bytes: ArraySlice<UInt8>, number: Int) throws(FixtureError) -> String {
        guard bytes.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }),
            let text = String(bytes: bytes, encoding: .utf8)
        else {
            throw FixtureError(.notText(line: number))
        }
        return text
    }

    /// `text` without the spaces and tabs around it.
    private static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
    }

    /// The beginning of a line for an error message: at most 60 characters, control
    /// characters and invalid UTF-8 shown as U+FFFD.
    private static func quoted(_ line: ArraySlice<UInt8>) -> String {
        let text = String(decoding: line.prefix(60), as: UTF8.self)
        let scalars = text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\u{FFFD}" : Character($0) }
        return String(scalars) + (line.count > 60 ? "…" : "")
    }

    // MARK: Writing

    /// The bytes of a fixture file for a response: status line, header lines and body, lines
    /// ending with LF. The reason phrase and the values are written as they are, minus the
    /// characters a line cannot hold.
    static func render(_ fixture: Fixture) -> Data {
        var head = "HTTP/1.1 \(fixture.statusCode)"
        let reason = lineSafe(fixture.reasonPhrase)
        if !reason.isEmpty { head += " " + reason }
        head += "\n"
        for field in fixture.fields {
            head += "\(field.name.rawName): \(lineSafe(field.value))\n"
        }
        head += "\n"
        return Data(head.utf8) + fixture.body
    }

    /// `text` with control characters (tabs excepted) replaced by spaces, trimmed.
    private static func lineSafe(_ text: String) -> String {
        let scalars = text.unicodeScalars.map { $0.value == 0x09 || ($0.value >= 0x20 && $0.value != 0x7F) ? $0 : " " }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        return trimmed(String(result))
    }
}

/// Reads the lines of a fixture's head, within a byte budget.
private struct LineReader {
    let data: Data
    /// Where the next line starts.
    private(set) var offset: Data.Index
    /// The number of the last line read (1-based).
    private(set) var lineNumber = 0
    private var budget: Int
    private let limit: Int

    init(data: Data, budget: Int) {
        self.data = data
        self.offset = data.startIndex
        self.budget = budget
        self.limit = budget
    }

    mutating func skipByteOrderMark() {
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { offset += 3 }
    }

    /// The next line without its line break, with its number; `nil` at the end of the data.
    /// - Throws: ``FixtureError/Kind/headTooLarge(limit:)`` when the head passes the budget.
    mutating func nextLine() throws(FixtureError) -> (Int, ArraySlice<UInt8>)? {
        guard offset < data.endIndex else { return nil }
        let window = data[offset..<min(data.endIndex, offset + budget + 1)]
        let end: Data.Index
        let next: Data.Index
        if let newline = window.firstIndex(of: UInt8(ascii: "\n")) {
            end = newline > offset && data[newline - 1] == UInt8(ascii: "\r") ? newline - 1 : newline
            next = newline + 1
        } else if window.endIndex == data.endIndex && window.count <= budget {
            end = data.endIndex
            next = data.endIndex
        } else {
            throw FixtureError(.headTooLarge(limit: limit))
        }
        guard next - offset <= budget else { throw FixtureError(.headTooLarge(limit: limit)) }
        budget -= next - offset
        let line = ArraySlice(data[offset..<end])
        offset = next
        lineNumber += 1
        return (lineNumber, line)
    }
}
