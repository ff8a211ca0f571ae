import Courier
import Foundation

/// Turns the bytes of an XML document into UTF-8 that `XMLParser` reads exactly as intended.
///
/// The charset is chosen as RFC 7303 §3.2 says: a byte-order mark, then the `charset` parameter
/// of the `Content-Type`, then the `encoding` of the XML declaration, then UTF-8. Bytes in
/// another charset are transcoded and the declaration is rewritten to say UTF-8, so that the
/// parser never reads them a second way.
enum XMLCharset {
    /// A document transcoded to UTF-8, its declaration rewritten to say so.
    struct UTF8Document {
        /// The UTF-8 bytes, without a byte-order mark.
        var bytes: [UInt8]
        /// The declaration as the document wrote it (with its original `encoding`), if any.
        var declaration: RawDeclaration?

        init(_ transcoded: [UInt8]) {
            declaration = RawDeclaration.parse(transcoded)
            bytes = RawDeclaration.rewritingEncoding(transcoded)
        }
    }

    /// The document as UTF-8 without a byte-order mark.
    /// - Parameter charset: the `charset` parameter of the `Content-Type`, if any.
    /// - Throws: ``XMLParsingError/Reason/invalidText(charset:)`` when the bytes are not valid in
    ///   the chosen charset; ``XMLParsingError/Reason/unsupportedCharset(_:)`` for an unknown one.
    static func utf8Document(_ data: Data, charset: String?) throws(XMLParsingError) -> UTF8Document {
        let bytes = [UInt8](data)
        let (bomCharset, bomLength) = byteOrderMark(bytes)
        let declared = bomCharset == nil ? RawDeclaration.parse(bytes)?.encoding : nil
        let name = (bomCharset ?? charset ?? declared ?? sniffUTF16(bytes) ?? "utf-8").lowercased()
        guard let encoding = encoding(forCharset: name) else {
            throw XMLParsingError(reason: .unsupportedCharset(name))
        }
        let body = Array(bytes[bomLength...])
        if encoding == .utf8 || encoding == .ascii {
            try validate(body, asciiOnly: encoding == .ascii, charset: name)
            return UTF8Document(body)
        }
        guard var text = String(bytes: body, encoding: encoding) else {
            throw XMLParsingError(reason: .invalidText(charset: name))
        }
        if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
        return UTF8Document(Array(text.utf8))
    }

    /// A byte-order mark's charset and length.
    private static func byteOrderMark(_ bytes: [UInt8]) -> (String?, Int) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return ("utf-8", 3) }
        if bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return ("utf-32be", 4) }
        if bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return ("utf-32le", 4) }
        if bytes.starts(with: [0xFE, 0xFF]) { return ("utf-16be", 2) }
        if bytes.starts(with: [0xFF, 0xFE]) { return ("utf-16le", 2) }
        return (nil, 0)
    }

    /// UTF-16 without a byte-order mark, recognised by `<?` (XML 1.0 appendix F).
    private static func sniffUTF16(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0x3C, 0x00, 0x3F, 0x00]) { return "utf-16le" }
        if bytes.starts(with: [0x00, 0x3C, 0x00, 0x3F]) { return "utf-16be" }
        return nil
    }

    /// Checks UTF-8 (or ASCII), reporting the line and column of the first bad byte.
    private static func validate(_ bytes: [UInt8], asciiOnly: Bool, charset: String) throws(XMLParsingError) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var line = 1
        var column = 1
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if asciiOnly, !scalar.isASCII {
                    throw XMLParsingError(reason: .invalidText(charset: charset), line: line, column: column)
                }
                if scalar == "\n" {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            case .emptyInput:
                return
            case .error:
                throw XMLParsingError(reason: .invalidText(charset: charset), line: line, column: column)
            }
        }
    }

    /// IANA charset names (lower-cased) that CourierXML reads: the same as `Response.text()`.
    static func encoding(forCharset charset: String) -> String.Encoding? {
        Response.encoding(forCharset: charset)
    }
}

/// The XML declaration at the start of a document, read from ASCII-compatible bytes.
struct RawDeclaration {
    var version: String?
    var encoding: String?
    var standalone: String?
    /// Where the `encoding` value sits in the bytes.
    var encodingRange: Range<Int>?
    /// Where the declaration ends (just past `?>`).
    var end: Int

    /// Reads `<?xml version="1.0" encoding="…" standalone="…"?>` at the very start; `nil` when
    /// there is none or it is malformed (the parser then reports it).
    static func parse(_ bytes: [UInt8]) -> RawDeclaration? {
        guard bytes.starts(with: Array("<?xml".utf8)), bytes.count > 5, isSpace(bytes[5]) else { return nil }
        var declaration = RawDeclaration(end: 0)
        var index = 5
        while index < bytes.count {
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "?"), bytes[index + 1] == UInt8(ascii: ">") {
                declaration.end = index + 2
                return declaration
            }
            let nameStart = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "a"), bytes[index] <= UInt8(ascii: "z") { index += 1 }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard name.isEmpty == false, index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return nil }
            index += 1
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else { return nil }
            let quote = bytes[index]
            let valueStart = index + 1
            guard let valueEnd = bytes[valueStart...].firstIndex(of: quote) else { return nil }
            let value = String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)
            switch name {
            case "version": declaration.version = value
            case "encoding":
                declaration.encoding = value
                declaration.encodingRange = valueStart..<valueEnd
            case "standalone": declaration.standalone = value
            default: return nil
            }
            index = valueEnd + 1
        }
        return nil
    }

    /// The bytes with the declaration's `encoding` set to `UTF-8` (they are UTF-8 now).
    static func rewritingEncoding(_ bytes: [UInt8]) -> [UInt8] {
        guard let declaration = parse(bytes), let range = declaration.encodingRange,
              declaration.encoding?.lowercased() != "utf-8" else { return bytes }
        var rewritten = bytes
        rewritten.replaceSubrange(range, with: Array("UTF-8".utf8))
        return rewritten
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
