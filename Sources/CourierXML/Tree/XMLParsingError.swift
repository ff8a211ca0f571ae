/// Why an XML document could not be read, and where.
///
/// Thrown by ``XMLTreeDocument/init(data:charset:preservingWhitespace:limits:)`` and
/// ``XMLTreeDocument/init(string:preservingWhitespace:limits:)``; ``XMLBodyDecoder`` and
/// ``SOAPBodyDecoder`` keep it as the underlying error of a `DecodingError`.
///
/// ```swift
/// do {
///     _ = try XMLTreeDocument(string: "<a>\n<b>\n</a>")
/// } catch {
///     print(error.line, error.column)   // 3 5
///     print(error)                      // XML is not well-formed (tag name mismatch, XMLParser error 76) at line 3, column 5
/// }
/// ```
public struct XMLParsingError: Error, Sendable, Equatable {
    /// What went wrong.
    ///
    /// ```swift
    /// if case .documentTypeNotAllowed = error.reason { log("refused a DTD") }
    /// ```
    #if hasAttribute(nonexhaustive)
        @nonexhaustive
    #endif
    public enum Reason: Sendable, Equatable {
        /// `XMLParser` (libxml2) rejected the document. `code` is the `XMLParser.ErrorCode` raw
        /// value, e.g. 76 for a mismatched end tag.
        ///
        /// ```swift
        /// XMLParsingError.Reason.notWellFormed(code: 76)   // <a></b>
        /// ```
        case notWellFormed(code: Int)
        /// The document has no root element (it is empty, or holds only a declaration or comments).
        ///
        /// ```swift
        /// XMLParsingError.Reason.noRootElement   // "", "<!-- only a comment -->"
        /// ```
        case noRootElement
        /// The document has a `<!DOCTYPE …>`. Courier refuses document type declarations, so no
        /// entity is ever declared: no external entity (XXE) and no entity expansion bomb.
        ///
        /// ```swift
        /// XMLParsingError.Reason.documentTypeNotAllowed   // <!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]>
        /// ```
        case documentTypeNotAllowed
        /// The bytes are not valid text in `charset` (from the `Content-Type`, a byte-order mark,
        /// the XML declaration, or UTF-8 by default).
        ///
        /// ```swift
        /// XMLParsingError.Reason.invalidText(charset: "utf-8")   // a 0xFF byte
        /// ```
        case invalidText(charset: String)
        /// The document is in a charset Courier cannot read.
        ///
        /// ```swift
        /// XMLParsingError.Reason.unsupportedCharset("ebcdic")
        /// ```
        case unsupportedCharset(String)
        /// The first bytes of the document are in another encoding than the charset it is read in:
        /// a UTF-16 or UTF-32 document (recognised, without a byte-order mark, by its first `<`,
        /// as XML 1.0 appendix F describes) served as `charset=utf-8`, say. `XMLParser` would
        /// read such a document in the encoding its bytes show, not in the one it was checked in,
        /// so it is refused. `charset` is the charset it was to be read in (lower-cased), `detected`
        /// what its first bytes show: `"UTF-16LE"`, `"UTF-16BE"`, `"UTF-32LE"`, `"UTF-32BE"`,
        /// `"UCS-4"` (an unusual byte order), `"EBCDIC"`, or `"an ASCII-compatible charset"`.
        ///
        /// ```swift
        /// XMLParsingError.Reason.charsetMismatch(charset: "utf-8", detected: "UTF-16LE")
        /// ```
        case charsetMismatch(charset: String, detected: String)
        /// The document holds U+0000 (a NUL character), which XML does not allow anywhere, not
        /// even as a character reference. Such bytes usually mean the document is in UTF-16 or
        /// UTF-32 but was read in an 8-bit charset.
        ///
        /// ```swift
        /// XMLParsingError.Reason.nullCharacter   // "<a>x\u{0}</a>"
        /// ```
        case nullCharacter
        /// Elements nest deeper than ``XMLParsingLimits/maximumDepth``.
        ///
        /// ```swift
        /// XMLParsingError.Reason.tooDeep(maximumDepth: 128)
        /// ```
        case tooDeep(maximumDepth: Int)
        /// The document has more elements than ``XMLParsingLimits/maximumElementCount``.
        ///
        /// ```swift
        /// XMLParsingError.Reason.tooManyElements(maximumElementCount: 100_000)
        /// ```
        case tooManyElements(maximumElementCount: Int)
        /// An element has more attributes than ``XMLParsingLimits/maximumAttributesPerElement``.
        ///
        /// ```swift
        /// XMLParsingError.Reason.tooManyAttributes(maximumAttributesPerElement: 256)
        /// ```
        case tooManyAttributes(maximumAttributesPerElement: Int)
        /// The text of an element comes in so many pieces (one at every entity or character
        /// reference, after every CR, every few hundred non-ASCII characters) that XMLCoder,
        /// which joins them by copying all the text so far each time, would take more than about
        /// a quarter of a second. Only ``XMLBodyDecoder`` and ``SOAPBodyDecoder`` check this;
        /// ``XMLTreeDocument`` gathers text in linear time and reads such a document.
        ///
        /// ```swift
        /// XMLParsingError.Reason.textTooFragmented   // "<a>" + 150,000 × "&amp;" + "</a>"
        /// ```
        case textTooFragmented
        /// A processing instruction with a target but no data (`<?foo?>`): corelibs FoundationXML
        /// hands libxml2's missing data to `strlen` and crashes, so it never reaches the parser.
        ///
        /// ```swift
        /// XMLParsingError.Reason.emptyProcessingInstruction   // "<a><?foo?></a>"
        /// ```
        case emptyProcessingInstruction
    }

    /// What went wrong.
    ///
    /// ```swift
    /// error.reason   // .notWellFormed(code: 76)
    /// ```
    public var reason: Reason
    /// The line of the problem, from 1; 0 when unknown.
    ///
    /// ```swift
    /// error.line   // 3
    /// ```
    public var line: Int
    /// The column of the problem, from 1; 0 when unknown.
    ///
    /// ```swift
    /// error.column   // 5
    /// ```
    public var column: Int

    /// Creates a parsing error.
    ///
    /// ```swift
    /// let error = XMLParsingError(reason: .noRootElement, line: 1, column: 1)
    /// ```
    public init(reason: Reason, line: Int = 0, column: Int = 0) {
        self.reason = reason
        self.line = line
        self.column = column
    }
}

extension XMLParsingError: CustomStringConvertible {
    /// The reason and the position, e.g. `XML is not well-formed (…) at line 3, column 5`.
    ///
    /// ```swift
    /// print(error)   // XML is not well-formed (tag name mismatch, XMLParser error 76) at line 3, column 5
    /// ```
    public var description: String {
        let what: String
        switch reason {
        case .notWellFormed(let code):
            what = "XML is not well-formed (\(Self.explain(code)))"
        case .noRootElement:
            what = "XML document has no root element"
        case .documentTypeNotAllowed:
            what = "XML document type declarations (<!DOCTYPE>) are not allowed"
        case .invalidText(let charset):
            what = "XML document is not valid \(charset) text"
        case .unsupportedCharset(let charset):
            what = "XML document uses an unsupported charset \(charset.debugDescription)"
        case .charsetMismatch(let charset, let detected):
            what = "XML document is read as \(charset) but its first bytes are \(detected)"
        case .nullCharacter:
            what = "XML document holds a NUL character (U+0000)"
        case .tooDeep(let maximum):
            what = "XML elements nest deeper than the limit of \(maximum)"
        case .tooManyElements(let maximum):
            what = "XML document has more elements than the limit of \(maximum)"
        case .tooManyAttributes(let maximum):
            what = "XML element has more attributes than the limit of \(maximum)"
        case .textTooFragmented:
            what = "XML text comes in too many pieces (entity or character references, CRs) for XMLCoder to join"
        case .emptyProcessingInstruction:
            what = "XML processing instruction without data"
        }
        return line > 0 ? "\(what) at line \(line), column \(column)" : what
    }

    /// A phrase for the commonest `XMLParser.ErrorCode` values (libxml2's error numbers).
    static func explain(_ code: Int) -> String {
        let phrase: String? =
            switch code {
            case 4: "empty document"
            case 5: "extra content at the end of the document, or the document ends too early"
            case 9: "invalid character"
            case 23: "'&' without an entity name"
            case 26: "undeclared entity"
            case 38: "malformed attribute value"
            case 57: "malformed XML declaration"
            case 39: "'<' in an attribute value"
            case 41: "attribute without a value"
            case 42: "duplicate attribute"
            case 63: "a '--' inside a comment, or unterminated comment"
            case 64: "malformed processing instruction"
            case 65, 68, 73: "malformed tag"
            case 76: "tag name mismatch"
            case 77: "unterminated tag"
            case 89: "entity loop"
            case 201, 202, 203: "namespace error"
            default: nil
            }
        return phrase.map { "\($0), XMLParser error \(code)" } ?? "XMLParser error \(code)"
    }
}
