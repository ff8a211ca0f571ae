import Foundation

/// Turning a ``MultipartForm`` into a ``BodyStream``: validation, part heads, the exact length,
/// and the boundary checks that can be done before sending.
///
/// The body is, byte for byte (RFC 7578, RFC 2046 §5.1.1), for each part
/// `--boundary CRLF` + header lines + `CRLF` + content + `CRLF`, then `--boundary-- CRLF`.
/// An empty form is `--boundary-- CRLF`.
extension MultipartForm {
    /// `Content-Type: multipart/form-data; boundary=…`, the boundary quoted when it holds a
    /// character that is not a token character (RFC 2045 §5.1: `(`, `)`, `,`, `/`, `:`, `=`, `?`, space).
    var contentType: String {
        let quoted = boundary.utf8.allSatisfy(HTTPToken.isTChar) ? boundary : "\"\(boundary)\""
        return "multipart/form-data; boundary=" + quoted
    }

    /// `CRLF--boundary`: what must never occur inside a part.
    var delimiter: [UInt8] {
        Array("\r\n--\(boundary)".utf8)
    }

    /// This form with a random boundary that occurs in no in-memory part (text, data, part
    /// heads); a fixed boundary is kept as it is (and a collision fails ``makeBodyStream()``).
    /// With 128 random bits a second draw is all but never needed.
    func withBoundaryClearOfContent() -> MultipartForm {
        guard isBoundaryRandom else { return self }
        var form = self
        while form.inMemoryPartContainingBoundary() != nil {
            form.boundary = Self.randomBoundary()
        }
        return form
    }

    /// The index of the first part whose head or in-memory content contains the delimiter.
    private func inMemoryPartContainingBoundary() -> Int? {
        let search = DelimiterSearch(delimiter)
        for (index, part) in parts.enumerated() {
            // A head that cannot be written fails later, with its own error.
            if let lines = try? headerLines(of: part, index: index), search.occurs(in: lines, afterCRLF: true) {
                return index
            }
            switch part.content {
            case .text(let text):
                if search.occurs(in: Data(text.utf8), afterCRLF: true) { return index }
            case .data(let data):
                if search.occurs(in: data, afterCRLF: true) { return index }
            case .file, .stream:
                break
            }
        }
        return nil
    }

    /// The body, sized and checked: the `.stream` factory behind ``RequestBody/multipart(_:)``.
    /// - Throws: ``InvalidRequest/invalidMultipartForm(_:)``, ``InvalidRequest/invalidHeaderName(_:)``,
    ///   ``InvalidRequest/invalidHeaderValue(name:)`` for bad input;
    ///   ``InvalidRequest/bodySourceFailed(_:underlyingError:)`` for a missing or unreadable file.
    func makeBodyStream() throws(CourierError) -> BodyStream {
        try Self.validate(boundary: boundary)
        let search = DelimiterSearch(delimiter)
        var segments = SegmentList()
        var length: Int64? = 0
        func add(_ count: Int64?) {
            length = length.flatMap { total in count.map { total + $0 } }
        }

        for (index, part) in parts.enumerated() {
            let lines = try headerLines(of: part, index: index)
            if search.occurs(in: lines, afterCRLF: true) {
                throw .invalidRequest(
                    .invalidMultipartForm(
                        "the boundary \(boundary.debugDescription) occurs in the headers of \(Self.label(part, index))"))
            }
            var head = Data()
            if index > 0 { head.append(contentsOf: Self.crlf) }
            head.append(contentsOf: Array("--\(boundary)\r\n".utf8))
            head.append(lines)
            segments.append(head)
            add(Int64(head.count))

            switch part.content {
            case .text(let text):
                let bytes = Data(text.utf8)
                try checkInMemory(bytes, of: part, index: index, search: search)
                segments.append(bytes)
                add(Int64(bytes.count))
            case .data(let data):
                try checkInMemory(data, of: part, index: index, search: search)
                segments.append(data)
                add(Int64(data.count))
            case .file(let url):
                let size = try FileChunkSource.size(of: url)
                segments.append(.file(url, size: size, label: Self.label(part, index)))
                add(size)
            case .stream(let partLength):
                guard let stream = part.stream else { continue }
                segments.append(.stream(stream, label: Self.label(part, index)))
                add(partLength)
            }
        }
        let close = Data(((parts.isEmpty ? "" : "\r\n") + "--\(boundary)--\r\n").utf8)
        segments.append(close)
        add(Int64(close.count))

        let list = segments.segments
        let delimiter = delimiter
        return BodyStream(length: length, isReplayable: isReplayable) { () throws(CourierError) -> any ChunkSource in
            try MultipartSource(segments: list, delimiter: delimiter)
        }
    }

    private func checkInMemory(_ bytes: Data, of part: Part, index: Int, search: DelimiterSearch) throws(CourierError) {
        if search.occurs(in: bytes, afterCRLF: true) {
            throw .invalidRequest(
                .invalidMultipartForm(
                    "the boundary \(boundary.debugDescription) occurs in the content of \(Self.label(part, index)); "
                        + "choose another boundary, or let Courier choose a random one"))
        }
    }

    /// `Content-Disposition`, `Content-Type` (the part's, or its own header's), the extra headers,
    /// and the empty line that ends the head.
    func headerLines(of part: Part, index: Int) throws(CourierError) -> Data {
        var disposition = "Content-Disposition: form-data; name=\"\(try Self.quotable(part.name, "name", of: index))\""
        if let filename = part.filename {
            disposition += "; filename=\"\(try Self.quotable(filename, "filename", of: index))\""
        }
        var lines = [disposition]
        var contentTypeLine = part.contentType.map { "Content-Type: \($0)" }
        if let contentType = part.contentType, !HeaderItem.isValidValue(contentType) {
            throw .invalidRequest(.invalidHeaderValue(name: "Content-Type"))
        }
        var extra: [String] = []
        var ownContentType = false
        for header in part.headers {
            guard HTTPToken.isValid(header.name) else { throw .invalidRequest(.invalidHeaderName(header.name)) }
            guard HeaderItem.isValidValue(header.value) else { throw .invalidRequest(.invalidHeaderValue(name: header.name)) }
            switch header.name.lowercased() {
            case "content-disposition":
                throw .invalidRequest(
                    .invalidMultipartForm(
                        "\(Self.label(part, index)) sets its own Content-Disposition header; Courier writes it from the name and filename"))
            case "content-type":
                guard !ownContentType else {
                    throw .invalidRequest(.invalidMultipartForm("\(Self.label(part, index)) has more than one Content-Type header"))
                }
                ownContentType = true
                contentTypeLine = "\(header.name): \(header.value)"
            default:
                extra.append("\(header.name): \(header.value)")
            }
        }
        if let contentTypeLine { lines.append(contentTypeLine) }
        lines += extra
        return Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// `value` with `"` written as `%22` (WHATWG HTML form encoding; RFC 7578 §2); other
    /// characters, non-ASCII included, as they are.
    /// - Throws: ``InvalidRequest/invalidMultipartForm(_:)`` for a control character
    ///   (U+0000–U+001F, U+007F): CR or LF would end the header line and start another.
    static func quotable(_ value: String, _ what: String, of index: Int) throws(CourierError) -> String {
        if let control = value.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            let code = "U+" + String(control.value, radix: 16, uppercase: true).leftPadded(to: 4)
            throw .invalidRequest(
                .invalidMultipartForm(
                    "the \(what) \(value.debugDescription) of part \(index + 1) contains the control character \(code)"))
        }
        // `.literal`: every `"` scalar, also one a combining mark follows (a character-level
        // replacement skips `"\u{301}`, which would end the quoted parameter early).
        return value.replacingOccurrences(of: "\"", with: "%22", options: .literal)
    }

    /// RFC 2046 §5.1.1: `boundary := 0*69<bchars> bcharsnospace`, `bchars := bcharsnospace / " "`,
    /// `bcharsnospace := DIGIT / ALPHA / "'" / "(" / ")" / "+" / "_" / "," / "-" / "." / "/" / ":" / "=" / "?"`.
    static func validate(boundary: String) throws(CourierError) {
        let bytes = Array(boundary.utf8)
        guard (1...70).contains(bytes.count) else {
            throw .invalidRequest(
                .invalidMultipartForm(
                    "the boundary \(boundary.debugDescription) must have 1 to 70 characters, not \(bytes.count)"))
        }
        guard bytes.allSatisfy(isBoundaryCharacter) else {
            throw .invalidRequest(
                .invalidMultipartForm(
                    "the boundary \(boundary.debugDescription) may hold only letters, digits, space and '()+_,-./:=?"))
        }
        guard bytes.last != UInt8(ascii: " ") else {
            throw .invalidRequest(.invalidMultipartForm("the boundary \(boundary.debugDescription) must not end with a space"))
        }
    }

    private static func isBoundaryCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "'()+_,-./:=? ".utf8.contains(byte)
        }
    }

    /// `part 2 ("avatar")`, for error messages.
    static func label(_ part: Part, _ index: Int) -> String {
        "part \(index + 1) (\(part.name.debugDescription))"
    }

    static let crlf: [UInt8] = [0x0D, 0x0A]
}

/// One piece of a multipart body, in sending order.
enum MultipartSegment: Sendable {
    /// Bytes in memory: part heads, text and data parts, the closing delimiter.
    case bytes(Data)
    /// A file part's content, of the size taken when the request was built.
    case file(URL, size: Int64, label: String)
    /// A stream part's content.
    case stream(BodyStream, label: String)
}

/// Segments with small neighbouring bytes merged, so that heads, text fields and separators
/// of a run of small parts go out as one chunk.
private struct SegmentList {
    private(set) var segments: [MultipartSegment] = []

    mutating func append(_ bytes: Data) {
        guard !bytes.isEmpty else { return }
        if case .bytes(var last)? = segments.last, last.count + bytes.count <= bodyChunkSize {
            segments.removeLast()
            last.append(bytes)
            segments.append(.bytes(last))
        } else {
            segments.append(.bytes(bytes))
        }
    }

    mutating func append(_ segment: MultipartSegment) {
        if case .bytes(let bytes) = segment {
            append(bytes)
        } else {
            segments.append(segment)
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
