import Courier
import Foundation

/// Turns the bytes of an XML document into UTF-8 that `XMLParser` reads exactly as intended.
///
/// The charset is chosen as RFC 7303 §3.2 says: a byte-order mark, then the `charset` parameter
/// of the `Content-Type`, then the `encoding` of the XML declaration, then UTF-8. Bytes in
/// another charset are transcoded and the declaration is rewritten to say UTF-8, so that the
/// parser never reads them a second way.
///
/// The rule behind every check here: the document Courier checks (for a `<!DOCTYPE`, for limits)
/// must be the document `XMLParser` reads. libxml2 does not take the charset from Courier: it
/// sniffs the first four bytes (XML 1.0 appendix F) and then obeys the declaration's `encoding`.
/// So the bytes it gets are UTF-8 without NUL (its sniffing can then only find UTF-8), and start
/// either with no declaration or with one Courier has read and rewritten to say `UTF-8`.
enum XMLCharset {
    /// A document transcoded to UTF-8, its declaration rewritten to say so.
    struct UTF8Document {
        /// The UTF-8 bytes, without a byte-order mark.
        var bytes: [UInt8]
        /// The declaration as the document wrote it (with its original `encoding`), if any.
        var declaration: RawDeclaration?

        /// - Throws: ``XMLParsingError/Reason/nullCharacter`` for a NUL anywhere; a malformed
        ///   declaration (code 57) when the bytes start with `<?xml ` but Courier cannot read it,
        ///   as libxml2 might still take an `encoding` from it.
        init(_ transcoded: [UInt8]) throws(XMLParsingError) {
            if let nul = transcoded.firstIndex(of: 0) {
                let (line, column) = XMLMarkupScanner.position(of: nul, in: transcoded)
                throw XMLParsingError(reason: .nullCharacter, line: line, column: column)
            }
            declaration = RawDeclaration.parse(transcoded)
            if declaration == nil, RawDeclaration.startsDeclaration(transcoded) {
                throw XMLParsingError(reason: .notWellFormed(code: RawDeclaration.malformedCode), line: 1, column: 1)
            }
            bytes = RawDeclaration.rewritingEncoding(transcoded)
        }
    }

    /// What the first four bytes of a document without a byte-order mark show, as XML 1.0
    /// appendix F (and libxml2) reads them.
    enum Sniffed: Equatable {
        /// `<?xm` in an ASCII-compatible charset (UTF-8, ISO-8859-1, …).
        case asciiCompatible
        /// `<?` in UTF-16 or `<` in UTF-32 / UCS-4: the charset that reads them, or `nil` for
        /// UCS-4 in an unusual byte order (2143 or 3412), which nothing here reads.
        case wide(charset: String?, name: String, unitSize: Int)
        /// `<?xm` in EBCDIC.
        case ebcdic

        /// The charset that reads a UTF-16 or UTF-32 document sniffed this way.
        var charset: String? {
            if case .wide(let charset, _, _) = self { return charset }
            return nil
        }

        /// How ``XMLParsingError/Reason/charsetMismatch(charset:detected:)`` names it.
        var name: String {
            switch self {
            case .asciiCompatible: "an ASCII-compatible charset"
            case .wide(_, let name, _): name
            case .ebcdic: "EBCDIC"
            }
        }
    }

    /// The document as UTF-8 without a byte-order mark.
    /// - Parameter charset: the `charset` parameter of the `Content-Type`, if any.
    /// - Throws: ``XMLParsingError/Reason/invalidText(charset:)`` when the bytes are not valid in
    ///   the chosen charset; ``XMLParsingError/Reason/unsupportedCharset(_:)`` for an unknown one;
    ///   ``XMLParsingError/Reason/charsetMismatch(charset:detected:)`` when the first bytes show
    ///   another encoding; ``XMLParsingError/Reason/nullCharacter`` for a NUL.
    static func utf8Document(_ data: Data, charset: String?) throws(XMLParsingError) -> UTF8Document {
        let bytes = [UInt8](data)
        let (bomCharset, bomLength) = byteOrderMark(bytes)
        let sniffed = bomCharset == nil ? sniff(bytes) : nil
        let declared = bomCharset == nil ? RawDeclaration.parse(bytes)?.encoding : nil
        var name = (bomCharset ?? charset ?? declared ?? sniffed?.charset ?? "utf-8").lowercased()
        if let sniffed {
            name = try reconcile(name, with: sniffed)
        }
        guard let encoding = encoding(forCharset: name) else {
            throw XMLParsingError(reason: .unsupportedCharset(name))
        }
        let body = Array(bytes[bomLength...])
        if encoding == .utf8 || encoding == .ascii {
            try validate(body, asciiOnly: encoding == .ascii, charset: name)
            return try UTF8Document(body)
        }
        guard var text = String(bytes: body, encoding: encoding) else {
            throw XMLParsingError(reason: .invalidText(charset: name))
        }
        if text.unicodeScalars.first == "\u{FEFF}" { text.unicodeScalars.removeFirst() }
        return try UTF8Document(Array(text.utf8))
    }

    /// The charset to read a document in, given the one chosen from its label and what its first
    /// bytes show: `utf-16` (or `utf-32`) gains the byte order the bytes show; a label of
    /// another width or byte order than the bytes is refused.
    private static func reconcile(_ name: String, with sniffed: Sniffed) throws(XMLParsingError) -> String {
        guard let encoding = encoding(forCharset: name) else { return name }  // refused as unsupported
        let unitSize =
            switch encoding {
            case .utf16, .utf16LittleEndian, .utf16BigEndian: 2
            case .utf32, .utf32LittleEndian, .utf32BigEndian: 4
            default: 1
            }
        switch sniffed {
        case .asciiCompatible where unitSize == 1:
            return name
        case .wide(let charset?, _, let size) where size == unitSize:
            // `utf-16` alone means big-endian without a byte-order mark (RFC 2781); the bytes say
            // which it is, and they are what XMLParser would go by.
            if name == "utf-16" || name == "utf-32" || name == charset { return charset }
        default:
            break
        }
        throw XMLParsingError(reason: .charsetMismatch(charset: name, detected: sniffed.name), line: 1, column: 1)
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

    /// The encoding the first four bytes show (XML 1.0 appendix F, the patterns libxml2 2.9
    /// sniffs); `nil` when they show none (a document without a declaration, usually UTF-8).
    static func sniff(_ bytes: [UInt8]) -> Sniffed? {
        guard bytes.count >= 4 else { return nil }
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0x00, 0x00, 0x00, 0x3C): return .wide(charset: "utf-32be", name: "UTF-32BE", unitSize: 4)
        case (0x3C, 0x00, 0x00, 0x00): return .wide(charset: "utf-32le", name: "UTF-32LE", unitSize: 4)
        case (0x00, 0x00, 0x3C, 0x00), (0x00, 0x3C, 0x00, 0x00): return .wide(charset: nil, name: "UCS-4", unitSize: 4)
        case (0x00, 0x3C, 0x00, 0x3F): return .wide(charset: "utf-16be", name: "UTF-16BE", unitSize: 2)
        case (0x3C, 0x00, 0x3F, 0x00): return .wide(charset: "utf-16le", name: "UTF-16LE", unitSize: 2)
        case (0x3C, 0x3F, 0x78, 0x6D): return .asciiCompatible
        case (0x4C, 0x6F, 0xA7, 0x94): return .ebcdic
        default: return nil
        }
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
        guard startsDeclaration(bytes) else { return nil }
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
            // A name twice is malformed: libxml2 would act on the first `encoding` and Courier on
            // the last.
            switch name {
            case "version" where declaration.version == nil:
                // XML 1.0's `VersionNum`; libxml2 also takes `1.`, which no writer may produce.
                guard isVersionNumber(value) else { return nil }
                declaration.version = value
            case "encoding" where declaration.encoding == nil:
                declaration.encoding = value
                declaration.encodingRange = valueStart..<valueEnd
            case "standalone" where declaration.standalone == nil: declaration.standalone = value
            default: return nil
            }
            index = valueEnd + 1
        }
        return nil
    }

    /// Whether `version` is XML 1.0's `VersionNum`: `1.` and one or more ASCII digits.
    static func isVersionNumber(_ version: String) -> Bool {
        let minor = version.utf8.dropFirst(2)
        return version.utf8.starts(with: "1.".utf8) && !minor.isEmpty
            && minor.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// libxml2's `XML_ERR_XMLDECL_NOT_FINISHED`, reported for a declaration Courier cannot read.
    static let malformedCode = 57

    /// Whether the bytes start as libxml2 recognises an XML declaration: `<?xml` and a space.
    static func startsDeclaration(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: Array("<?xml".utf8)) && bytes.count > 5 && isSpace(bytes[5])
    }

    /// The bytes with the declaration's `encoding` set to `UTF-8` (they are UTF-8 now).
    static func rewritingEncoding(_ bytes: [UInt8]) -> [UInt8] {
        guard let declaration = parse(bytes), let range = declaration.encodingRange,
            declaration.encoding?.lowercased() != "utf-8"
        else { return bytes }
        var rewritten = bytes
        rewritten.replaceSubrange(range, with: Array("UTF-8".utf8))
        return rewritten
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
