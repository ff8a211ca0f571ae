public import Foundation

/// An XML document as a value: the XML declaration and the root ``XMLTreeNode``.
///
/// Parsing is safe with untrusted input: a document with a `<!DOCTYPE` is refused (no XXE, no
/// entity expansion), ``XMLParsingLimits`` bound its size, and errors are typed with a line and
/// column. Comments and processing instructions are dropped.
///
/// ```swift
/// let document = try XMLTreeDocument(string: """
///     <catalog><book id="b1" lang="en"><title>Dune</title><price>9.99</price></book></catalog>
///     """)
/// let book = document.root.firstChild(named: "book")!
/// try book.firstChild(named: "price")?.value(Double.self)  // 9.99
/// ```
public struct XMLTreeDocument: Sendable, Hashable {
    // Named XMLTreeDocument rather than XMLDocument, which Foundation already defines on macOS (and
    // FoundationXML on Linux). The `<!DOCTYPE` refusal holds whatever charset the document is in,
    // so no entity is ever declared ("billion laughs" included). A tree of any depth is copied,
    // compared, hashed, written and freed without recursion. Parsing, then writing, then parsing
    // again gives an equal tree.

    /// The XML declaration, `<?xml version="1.0" encoding="UTF-8"?>`.
    ///
    /// ```swift
    /// let document = XMLTreeDocument(root: XMLTreeNode("a"), declaration: .init(standalone: true))
    /// try document.xmlString()   // <?xml version="1.0" encoding="UTF-8" standalone="yes"?><a/>
    /// ```
    public struct Declaration: Sendable, Hashable {
        /// The XML version, `"1.0"` unless the document says otherwise.
        ///
        /// ```swift
        /// document.declaration?.version   // "1.0"
        /// ```
        public var version: String
        /// The encoding the document declared (`"ISO-8859-1"`, say), `nil` when it declared none.
        /// A document is always written as UTF-8, and its declaration then says `UTF-8`
        /// whatever this holds (nothing when it is `nil`).
        ///
        /// ```swift
        /// document.declaration?.encoding   // "ISO-8859-1", as the document declared it
        /// ```
        public var encoding: String?
        /// The `standalone` value (`yes` is `true`), `nil` when absent.
        ///
        /// ```swift
        /// document.declaration?.standalone   // true for standalone="yes"
        /// ```
        public var standalone: Bool?

        /// Creates a declaration.
        ///
        /// ```swift
        /// let declaration = XMLTreeDocument.Declaration()   // <?xml version="1.0" encoding="UTF-8"?>
        /// ```
        public init(version: String = "1.0", encoding: String? = "UTF-8", standalone: Bool? = nil) {
            self.version = version
            self.encoding = encoding
            self.standalone = standalone
        }
    }

    /// The XML declaration; `nil` writes none (and a parsed document that had none has none).
    ///
    /// ```swift
    /// document.declaration = nil   // write no <?xml …?>
    /// ```
    public var declaration: Declaration?
    /// The root element.
    ///
    /// ```swift
    /// document.root.name   // "catalog"
    /// ```
    public var root: XMLTreeNode

    /// Creates a document.
    ///
    /// ```swift
    /// let document = XMLTreeDocument(root: XMLTreeNode("ping"))
    /// try document.xmlString()   // <?xml version="1.0" encoding="UTF-8"?><ping/>
    /// ```
    public init(root: XMLTreeNode, declaration: Declaration? = Declaration()) {
        self.root = root
        self.declaration = declaration
    }

    /// Parses a document from bytes.
    ///
    /// - Parameters:
    ///   - data: the document.
    ///   - charset: the `charset` of the `Content-Type` it came with, if any. The charset is taken
    ///     from a byte-order mark, then this, then the XML declaration, else UTF-8 (RFC 7303).
    ///   - preservingWhitespace: when `false` (the default), whitespace between child elements (the
    ///     indentation of a pretty-printed document) is dropped; an element with any other text
    ///     keeps all of it. Pass `true` for mixed content such as `<p><b>a</b> <i>b</i></p>`.
    ///   - limits: how deep, how many elements, how many attributes per element;
    ///     ``XMLParsingLimits/default`` unless given.
    /// - Throws: ``XMLParsingError`` with the line and column of the problem: not well-formed, a
    ///   `<!DOCTYPE`, bad text, a charset its first bytes contradict, a NUL, or a limit passed.
    public init(
        data: Data, charset: String? = nil, preservingWhitespace: Bool = false,
        limits: XMLParsingLimits = .default
    ) throws(XMLParsingError) {
        // Charsets read: UTF-8, US-ASCII, ISO-8859-1/2, Windows-1252, UTF-16 and UTF-32. An element
        // with a CDATA section keeps all of its text too.
        let result = try XMLTreeParser.parse(data, charset: charset, preservingWhitespace: preservingWhitespace, limits: limits)
        guard let root = result.root else { throw XMLParsingError(reason: .noRootElement) }
        self.root = root
        declaration = result.declaration.map { raw in
            Declaration(
                version: raw.version ?? "1.0", encoding: raw.encoding,
                standalone: raw.standalone.map { $0 == "yes" })
        }
    }

    /// Parses a document from text. An `encoding` in its declaration is ignored: the text is
    /// already decoded.
    ///
    /// ```swift
    /// let document = try XMLTreeDocument(string: #"<user id="7"><name>Ada</name></user>"#)
    /// document.root[attribute: "id"]   // "7"
    /// ```
    /// - Throws: ``XMLParsingError`` with the line and column of the problem, as
    ///   `init(data:charset:preservingWhitespace:limits:)`.
    public init(string: String, preservingWhitespace: Bool = false, limits: XMLParsingLimits = .default) throws(XMLParsingError) {
        try self.init(data: Data(string.utf8), charset: "utf-8", preservingWhitespace: preservingWhitespace, limits: limits)
    }

    /// The document as XML text: the declaration (if any), then the root element.
    ///
    /// ```swift
    /// let document = XMLTreeDocument(root: XMLTreeNode("list", elements: [XMLTreeNode("item", text: "a")]))
    /// try document.xmlString()
    /// // <?xml version="1.0" encoding="UTF-8"?><list><item>a</item></list>
    /// try document.xmlString(.prettyPrinted)
    /// // <?xml version="1.0" encoding="UTF-8"?>
    /// // <list>
    /// //   <item>a</item>
    /// // </list>
    /// ```
    /// - Throws: ``XMLSerializationError`` for an invalid name, character or declaration.
    public func xmlString(_ formatting: XMLTreeFormatting = .compact) throws(XMLSerializationError) -> String {
        var text = ""
        if let declaration {
            text = try declaration.xmlString() + (formatting.indent == nil ? "" : "\n")
        }
        return text + (try root.xmlString(formatting))
    }

    /// The document as UTF-8 bytes; see ``xmlString(_:)``.
    ///
    /// ```swift
    /// let bytes = try document.xmlData()
    /// ```
    public func xmlData(_ formatting: XMLTreeFormatting = .compact) throws(XMLSerializationError) -> Data {
        Data(try xmlString(formatting).utf8)
    }
}

extension XMLTreeDocument.Declaration {
    /// `<?xml version="1.0" encoding="UTF-8"?>`, with `standalone` when set.
    func xmlString() throws(XMLSerializationError) -> String {
        guard RawDeclaration.isVersionNumber(version) else {
            throw .invalidDeclaration("version \(version.debugDescription)")
        }
        var text = "<?xml version=\"\(version)\""
        if encoding != nil { text += " encoding=\"UTF-8\"" }
        if let standalone { text += " standalone=\"\(standalone ? "yes" : "no")\"" }
        return text + "?>"
    }
}
