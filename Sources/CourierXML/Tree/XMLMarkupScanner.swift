/// A lexical pass over a UTF-8 document, for what `XMLParser` does not say: the order of each
/// start tag's attributes (its delegate gets a dictionary), and whether there is a `<!DOCTYPE`;
/// and for what must be refused before `XMLParser` spends time on it: too many attributes on one
/// element (libxml2 checks them for duplicates in quadratic time).
///
/// It only finds tags; well-formedness is `XMLParser`'s job. Because a document type declaration
/// is refused, no entity can add elements, so the n-th start tag found here is the n-th element
/// `XMLParser` reports. It reads the same bytes `XMLParser` gets (see ``XMLCharset``), and agrees
/// with it on every well-formed construct (comments, processing instructions, CDATA sections,
/// quoted attribute values); where the two could part ways, the document is not well-formed and
/// `XMLParser` stops at that error first, since CourierXML aborts at the first error it reports.
enum XMLMarkupScanner {
    /// The attribute names of every start tag, in document order.
    /// - Throws: ``XMLParsingError/Reason/documentTypeNotAllowed`` at the `<!DOCTYPE`;
    ///   ``XMLParsingError/Reason/tooManyAttributes(maximumAttributesPerElement:)`` at a start tag
    ///   with more than `maximumAttributes`.
    static func attributeOrder(_ bytes: [UInt8], maximumAttributes: Int = .max) throws(XMLParsingError) -> [[String]] {
        var tags: [[String]] = []
        var index = 0
        let count = bytes.count
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            index = open
            if matches(bytes, at: index, "<?") {
                let start = index
                index = end(of: "?>", in: bytes, from: index + 2)
                if !hasData(processingInstruction: bytes[(start + 2)..<min(index, count)]) {
                    let (line, column) = position(of: start, in: bytes)
                    throw XMLParsingError(reason: .emptyProcessingInstruction, line: line, column: column)
                }
            } else if matches(bytes, at: index, "<!--") {
                index = end(of: "-->", in: bytes, from: index + 4)
            } else if matches(bytes, at: index, "<![CDATA[") {
                index = end(of: "]]>", in: bytes, from: index + 9)
            } else if matches(bytes, at: index, "<!DOCTYPE") {
                let (line, column) = position(of: index, in: bytes)
                throw XMLParsingError(reason: .documentTypeNotAllowed, line: line, column: column)
            } else if matches(bytes, at: index, "</") || matches(bytes, at: index, "<!") {
                index = end(of: ">", in: bytes, from: index + 2)
            } else {
                var names: [String] = []
                let start = index
                index = scanStartTag(bytes, from: index + 1, names: &names)
                if names.count > maximumAttributes {
                    let (line, column) = position(of: start, in: bytes)
                    throw XMLParsingError(
                        reason: .tooManyAttributes(maximumAttributesPerElement: maximumAttributes),
                        line: line, column: column)
                }
                tags.append(names)
            }
            if index >= count { break }
        }
        return tags
    }

    /// Whether a processing instruction (the bytes between `<?` and just past `?>`) has data
    /// after its target. libxml2 reports one without data with a NULL pointer, which corelibs
    /// FoundationXML passes to `strlen` and crashes; whitespace-only data is refused too, as
    /// libxml2 may report it the same way.
    private static func hasData(processingInstruction body: ArraySlice<UInt8>) -> Bool {
        let content = body.suffix(2).elementsEqual([UInt8(ascii: "?"), UInt8(ascii: ">")]) ? body.dropLast(2) : body
        guard let nameEnd = content.firstIndex(where: isSpace) else { return false }
        return content[nameEnd...].contains { !isSpace($0) }
    }

    /// Reads the element name and attribute names of a start tag; returns the index past it.
    private static func scanStartTag(_ bytes: [UInt8], from start: Int, names: inout [String]) -> Int {
        var index = start
        let count = bytes.count
        while index < count, !isNameEnd(bytes[index]) { index += 1 }
        while index < count {
            while index < count, isSpace(bytes[index]) { index += 1 }
            guard index < count else { break }
            if bytes[index] == UInt8(ascii: ">") { return index + 1 }
            if bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "<") { return index + 1 }
            let nameStart = index
            while index < count, !isNameEnd(bytes[index]), bytes[index] != UInt8(ascii: "=") { index += 1 }
            guard index > nameStart else { return index + 1 }
            names.append(String(decoding: bytes[nameStart..<index], as: UTF8.self))
            while index < count, isSpace(bytes[index]) { index += 1 }
            guard index < count, bytes[index] == UInt8(ascii: "=") else { return index }
            index += 1
            while index < count, isSpace(bytes[index]) { index += 1 }
            guard index < count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else { return index }
            let quote = bytes[index]
            guard let close = bytes[(index + 1)...].firstIndex(of: quote) else { return count }
            index = close + 1
        }
        return index
    }

    /// The 1-based line and column (in Unicode scalars) of a byte offset.
    static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        let column = bytes[lineStart..<min(offset, bytes.count)].reduce(1) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
        return (line, column)
    }

    private static func matches(_ bytes: [UInt8], at index: Int, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return literal.withUTF8Buffer { literalBytes in
            bytes[index..<(index + count)].elementsEqual(literalBytes)
        }
    }

    /// The index just past the next `terminator`, or the end of the bytes.
    private static func end(of terminator: StaticString, in bytes: [UInt8], from start: Int) -> Int {
        let length = terminator.utf8CodeUnitCount
        var index = start
        while index + length <= bytes.count {
            if matches(bytes, at: index, terminator) { return index + length }
            index += 1
        }
        return bytes.count
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isNameEnd(_ byte: UInt8) -> Bool {
        isSpace(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "<")
    }
}
