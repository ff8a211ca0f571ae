import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads a document into ``XMLTreeNode``s with Foundation's `XMLParser` (libxml2 on Linux).
///
/// Safe with untrusted input: the charset is settled and transcoded to UTF-8 first (and
/// `XMLParser` is given exactly those bytes), a `<!DOCTYPE` is refused before `XMLParser` sees
/// the document (so no entity is ever declared, hence no XXE and no entity expansion), and
/// external entities are not resolved anyway. Should a declaration reach `XMLParser` all the
/// same, the delegate stops at it. ``XMLParsingLimits`` bound depth, element count and attributes,
/// counted as `XMLParser` reports elements, so nothing deeper than the limit is ever built. The
/// tree is built without recursion, and text reported in pieces (at every entity or character
/// reference, every few hundred non-ASCII characters) is gathered in one buffer rather than by
/// concatenating strings, which would take quadratic time.
///
/// On Linux `XMLParser.parse()` can return `true` after reporting an error (a mismatched end tag,
/// content after the root element), and returns `true` for an empty document; every error the
/// delegate hears is therefore kept, and a missing root is an error of its own.
final class XMLTreeParser: NSObject, XMLParserDelegate {
    struct Result {
        /// The root element (`nil` when the tree was not built).
        var root: XMLTreeNode?
        /// The declaration as written, with its original `encoding`.
        var declaration: RawDeclaration?
        /// The document as parsed: UTF-8, its declaration saying so.
        var bytes: [UInt8]
    }

    /// Whether the text being gathered is character data or a CDATA section.
    private enum TextKind { case text, cdata }

    private let preservingWhitespace: Bool
    private let buildsTree: Bool
    private let limits: XMLParsingLimits
    private var attributeOrder: [[String]] = []
    private var tagIndex = 0
    private var stack: [XMLTreeNode] = []
    private var root: XMLTreeNode?
    private var depth = 0
    private var elementCount = 0
    private var closedRoot = false
    private var error: XMLParsingError?
    /// Text reported since the last element boundary, not yet added to the open element.
    private var pendingText = ""
    private var pendingKind: TextKind?
    /// What XMLCoder would spend joining text pieces, when the document is checked for it.
    private var textJoining: XMLCoderTextJoining?

    /// libxml2's `XML_WAR_*` codes, which FoundationXML reports as errors though parsing goes on
    /// (97: an XML version other than 1.0, 98: a bad `xml:lang`, …).
    private static let warnings: Set<Int> = [27, 93, 97, 98, 99, 100, 102, 106, 107]
    /// libxml2's `XML_ERR_DOCUMENT_END`: the document ends too early, or goes on after its root.
    private static let prematureEnd = 5

    private init(preservingWhitespace: Bool, buildsTree: Bool, limits: XMLParsingLimits) {
        self.preservingWhitespace = preservingWhitespace
        self.buildsTree = buildsTree
        self.limits = limits
    }

    /// Parses `data` (in `charset`, or as the document says) into a tree, or only checks that it
    /// is well-formed and within `limits` when `buildsTree` is `false`.
    static func parse(
        _ data: Data, charset: String?, preservingWhitespace: Bool = false,
        buildsTree: Bool = true, limits: XMLParsingLimits,
        checksTextJoining: Bool = false
    ) throws(XMLParsingError) -> Result {
        let document = try XMLCharset.utf8Document(data, charset: charset)
        let order = try XMLMarkupScanner.attributeOrder(document.bytes, maximumAttributes: limits.maximumAttributesPerElement)
        guard !order.isEmpty else {
            // Empty, or only a declaration, comments or text: XMLParser reports nothing for some.
            throw XMLParsingError(reason: .noRootElement, line: 1, column: 1)
        }
        let delegate = XMLTreeParser(preservingWhitespace: preservingWhitespace, buildsTree: buildsTree, limits: limits)
        delegate.attributeOrder = order
        if checksTextJoining { delegate.textJoining = XMLCoderTextJoining() }
        let parser = XMLParser(data: Data(document.bytes))
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        parser.delegate = delegate
        let finished = parser.parse()
        if let error = delegate.error { throw error }
        let code = parser.parserError.map { ($0 as NSError).code } ?? 0
        if (!finished || code != 0) && !Self.warnings.contains(code) {
            throw XMLParsingError(reason: .notWellFormed(code: code), line: parser.lineNumber, column: parser.columnNumber)
        }
        guard delegate.closedRoot else {
            // FoundationXML on Linux ends a truncated document (`<a><b>x</b>`) without an error.
            let end = XMLMarkupScanner.position(of: document.bytes.count, in: document.bytes)
            throw XMLParsingError(reason: .notWellFormed(code: Self.prematureEnd), line: end.line, column: end.column)
        }
        return Result(root: delegate.root, declaration: document.declaration, bytes: document.bytes)
    }

    /// Records the first error and stops `XMLParser`.
    private func fail(_ reason: XMLParsingError.Reason, _ parser: XMLParser) {
        guard error == nil else { return }
        error = XMLParsingError(reason: reason, line: parser.lineNumber, column: parser.columnNumber)
        parser.abortParsing()
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        guard error == nil else { return }
        depth += 1
        elementCount += 1
        // Counted before anything is built: nothing past a limit reaches the tree or XMLCoder.
        if depth > limits.maximumDepth {
            return fail(.tooDeep(maximumDepth: limits.maximumDepth), parser)
        }
        if elementCount > limits.maximumElementCount {
            return fail(.tooManyElements(maximumElementCount: limits.maximumElementCount), parser)
        }
        if attributes.count > limits.maximumAttributesPerElement {
            // The scanner refuses these first; kept so the limit never rests on the scanner alone.
            return fail(.tooManyAttributes(maximumAttributesPerElement: limits.maximumAttributesPerElement), parser)
        }
        textJoining?.startElement()
        guard buildsTree else { return }
        flushText()
        let names = tagIndex < attributeOrder.count ? attributeOrder[tagIndex] : []
        tagIndex += 1
        var ordered = names.compactMap { name in attributes[name].map { XMLTreeNode.Attribute(name: name, value: $0) } }
        if ordered.count != attributes.count {
            // Cannot happen without entities; keep every attribute, in a stable order.
            ordered = attributes.sorted { $0.key < $1.key }.map { XMLTreeNode.Attribute(name: $0.key, value: $0.value) }
        }
        stack.append(XMLTreeNode(name: elementName, attributes: ordered, children: []))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard error == nil else { return }
        depth -= 1
        if depth == 0 { closedRoot = true }
        textJoining?.endElement()
        guard buildsTree else { return }
        flushText()
        guard var node = stack.popLast() else { return }
        if !preservingWhitespace, Self.isElementContent(node.children) {
            node.children.removeAll { $0.element == nil }
        }
        if stack.isEmpty {
            root = node
        } else {
            stack[stack.count - 1].children.append(.element(node))
        }
    }

    /// Elements separated by whitespace only: the whitespace is indentation, not content. Any
    /// other text or a CDATA section makes it mixed content, kept as it is.
    private static func isElementContent(_ children: [XMLTreeNode.Child]) -> Bool {
        var hasElement = false
        for child in children {
            switch child {
            case .element: hasElement = true
            case .text(let text): if !text.unicodeScalars.allSatisfy(XMLTreeNode.isXMLWhitespace) { return false }
            case .cdata: return false
            }
        }
        return hasElement
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        countJoining(string.utf8.count, parser)
        gather(string, as: .text)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        countJoining(CDATABlock.count, parser)
        gather(String(decoding: CDATABlock, as: UTF8.self), as: .cdata)
    }

    private func countJoining(_ length: Int, _ parser: XMLParser) {
        guard error == nil, depth > 0, textJoining?.add(length) == false else { return }
        fail(.textTooFragmented, parser)
    }

    /// Adds a piece of text to the buffer; adjacent pieces of one kind become one child.
    private func gather(_ string: String, as kind: TextKind) {
        guard buildsTree, error == nil, !stack.isEmpty else { return }
        if pendingKind != kind { flushText() }
        pendingText += string
        pendingKind = kind
    }

    /// Moves the gathered text into the open element.
    private func flushText() {
        guard let kind = pendingKind, !stack.isEmpty else { return }
        stack[stack.count - 1].children.append(kind == .text ? .text(pendingText) : .cdata(pendingText))
        pendingText = ""
        pendingKind = nil
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        let code = (parseError as NSError).code
        guard !Self.warnings.contains(code) else { return }
        fail(.notWellFormed(code: code), parser)
    }

    // A document type declaration is refused before XMLParser runs, so none of these is ever
    // called; should one be, the declaration is refused here too, before any entity is used.

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        fail(.documentTypeNotAllowed, parser)
    }

    func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) {
        fail(.documentTypeNotAllowed, parser)
    }

    func parser(
        _ parser: XMLParser, foundUnparsedEntityDeclarationWithName name: String, publicID: String?,
        systemID: String?, notationName: String?
    ) {
        fail(.documentTypeNotAllowed, parser)
    }

    func parser(_ parser: XMLParser, foundElementDeclarationWithName elementName: String, model: String) {
        fail(.documentTypeNotAllowed, parser)
    }

    func parser(
        _ parser: XMLParser, foundAttributeDeclarationWithName attributeName: String, forElement elementName: String,
        type: String?, defaultValue: String?
    ) {
        fail(.documentTypeNotAllowed, parser)
    }

    func parser(_ parser: XMLParser, foundNotationDeclarationWithName name: String, publicID: String?, systemID: String?) {
        fail(.documentTypeNotAllowed, parser)
    }

    /// FoundationXML asks this for any entity it does not know, an undeclared `&undefined;`
    /// included: nothing is resolved, and libxml2 reports the undeclared entity.
    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        nil
    }
}
