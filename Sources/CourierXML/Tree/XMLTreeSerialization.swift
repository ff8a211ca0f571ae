import Foundation

/// How ``XMLTreeNode/xmlString(_:)`` lays out XML: compact, or pretty-printed with indentation.
///
/// ```swift
/// try node.xmlString()                                          // <a><b>1</b></a>
/// try node.xmlString(.prettyPrinted)                            // two spaces per level
/// try node.xmlString(.prettyPrinted(indentation: .tabs(1)))
/// ```
/// Pretty printing only puts line breaks and indentation between the children of an element that
/// holds nothing but elements; an element with text or CDATA is written as it is, so no
/// whitespace is ever added to text.
public struct XMLTreeFormatting: Sendable, Hashable {
    /// The indentation of one level.
    ///
    /// ```swift
    /// let formatting = XMLTreeFormatting.prettyPrinted(indentation: .spaces(4))
    /// ```
    public enum Indentation: Sendable, Hashable {
        /// This many spaces per level.
        ///
        /// ```swift
        /// try node.xmlString(.prettyPrinted(indentation: .spaces(4)))
        /// ```
        case spaces(Int)
        /// This many tabs per level.
        ///
        /// ```swift
        /// try node.xmlString(.prettyPrinted(indentation: .tabs(1)))
        /// ```
        case tabs(Int)
    }

    /// The indentation of one level; `nil` for compact output.
    let indent: String?

    /// No whitespace at all between elements.
    ///
    /// ```swift
    /// try node.xmlString(.compact)
    /// ```
    public static let compact = XMLTreeFormatting(indent: nil)

    /// One element per line, indented by two spaces per level.
    ///
    /// ```swift
    /// try document.xmlString(.prettyPrinted)
    /// ```
    public static let prettyPrinted = XMLTreeFormatting.prettyPrinted(indentation: .spaces(2))

    /// One element per line, indented by `indentation` per level (a negative count counts as 0).
    ///
    /// ```swift
    /// try document.xmlString(.prettyPrinted(indentation: .tabs(1)))
    /// ```
    public static func prettyPrinted(indentation: Indentation) -> XMLTreeFormatting {
        switch indentation {
        case .spaces(let count): XMLTreeFormatting(indent: String(repeating: " ", count: max(0, count)))
        case .tabs(let count): XMLTreeFormatting(indent: String(repeating: "\t", count: max(0, count)))
        }
    }
}

/// A tree that cannot be written as well-formed XML.
///
/// ```swift
/// do {
///     _ = try XMLTreeNode("first name", text: "Ada").xmlString()
/// } catch {
///     print(error)   // "first name" is not a valid XML name
/// }
/// ```
#if hasAttribute(nonexhaustive)
    @nonexhaustive
#endif
public enum XMLSerializationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An element or attribute name that is not an XML qualified name (empty, with a space, with
    /// two colons, starting with a digit, …).
    ///
    /// ```swift
    /// XMLSerializationError.invalidName("first name")
    /// ```
    case invalidName(String)
    /// Text, CDATA or an attribute value holds a character XML 1.0 cannot carry at all, not even
    /// as a character reference (NUL and most C0 controls, U+FFFE, U+FFFF).
    ///
    /// ```swift
    /// XMLSerializationError.invalidCharacter("\u{0}", elementName: "note")
    /// ```
    case invalidCharacter(Unicode.Scalar, elementName: String)
    /// The declaration's version is not `1.` followed by digits.
    ///
    /// ```swift
    /// XMLSerializationError.invalidDeclaration("version \"2.0\"")
    /// ```
    case invalidDeclaration(String)

    /// A sentence naming the offending name or character.
    ///
    /// ```swift
    /// print(error)   // "first name" is not a valid XML name
    /// ```
    public var description: String {
        switch self {
        case .invalidName(let name):
            "\(name.debugDescription) is not a valid XML name"
        case .invalidCharacter(let scalar, let elementName):
            "U+\(String(scalar.value, radix: 16, uppercase: true)) in <\(elementName)> cannot be written in XML 1.0"
        case .invalidDeclaration(let text):
            "invalid XML declaration: \(text)"
        }
    }
}

extension XMLTreeNode {
    /// This element as XML text, without a declaration.
    ///
    /// ```swift
    /// let node = XMLTreeNode("note", attributes: ["to": "Bob \"B\""], children: [.text("a < b & c"), .cdata("x]]>y")])
    /// try node.xmlString()
    /// // <note to="Bob &quot;B&quot;">a &lt; b &amp; c<![CDATA[x]]]]><![CDATA[>y]]></note>
    /// ```
    /// Text escapes `&`, `<`, `>` and CR; attribute values escape `&`, `<`, `>`, `"`, and tab, LF and
    /// CR as character references, so they survive attribute-value normalization. A `]]>` inside
    /// CDATA is split across two CDATA sections.
    /// - Throws: ``XMLSerializationError`` for an invalid name or a character XML cannot carry.
    public func xmlString(_ formatting: XMLTreeFormatting = .compact) throws(XMLSerializationError) -> String {
        var writer = XMLTreeWriter(indent: formatting.indent)
        try writer.write(self)
        return writer.output
    }
}

/// Writes nodes as XML text, without recursion: a tree can be deeper than the stack allows.
struct XMLTreeWriter {
    let indent: String?
    var output = ""

    /// An element whose start tag is written and whose children are being written.
    private struct Frame {
        let node: XMLTreeNode
        let children: [XMLTreeNode.Child]
        let depth: Int
        /// Its children go on lines of their own (pretty-printing, and it holds only elements).
        let indented: Bool
        var next = 0
    }

    mutating func write(_ root: XMLTreeNode) throws(XMLSerializationError) {
        var stack: [Frame] = []
        if let frame = try open(root, depth: 0, inline: false) { stack.append(frame) }
        while let frame = stack.last {
            guard frame.next < frame.children.count else {
                if let indent, frame.indented { output += "\n" + String(repeating: indent, count: frame.depth) }
                output += "</" + frame.node.name + ">"
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].next += 1
            switch frame.children[frame.next] {
            case .element(let element):
                if let indent, frame.indented { output += "\n" + String(repeating: indent, count: frame.depth + 1) }
                // Once a level is written inline (it has text), everything inside it is too.
                if let child = try open(element, depth: frame.depth + 1, inline: !frame.indented) { stack.append(child) }
            case .text(let text):
                try appendEscaped(text, in: frame.node.name, attribute: false)
            case .cdata(let text):
                try appendCDATA(text, in: frame.node.name)
            }
        }
    }

    /// Writes the start tag (or the whole element, when empty); the frame for its children.
    private mutating func open(_ node: XMLTreeNode, depth: Int, inline: Bool) throws(XMLSerializationError) -> Frame? {
        try Self.checkName(node.name)
        output += "<" + node.name
        for attribute in node.attributes {
            try Self.checkName(attribute.name)
            output += " " + attribute.name + "=\""
            try appendEscaped(attribute.value, in: node.name, attribute: true)
            output += "\""
        }
        let children = node.children
        guard !children.isEmpty else {
            output += "/>"
            return nil
        }
        output += ">"
        let indented = indent != nil && !inline && children.allSatisfy(\.isElement)
        return Frame(node: node, children: children, depth: depth, indented: indented)
    }

    private mutating func appendEscaped(_ text: String, in elementName: String, attribute: Bool) throws(XMLSerializationError) {
        for scalar in text.unicodeScalars {
            try Self.checkCharacter(scalar, in: elementName)
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\r": output += "&#13;"
            case "\"" where attribute: output += "&quot;"
            case "\n" where attribute: output += "&#10;"
            case "\t" where attribute: output += "&#9;"
            default: output.unicodeScalars.append(scalar)
            }
        }
    }

    /// `text` in CDATA sections, each `]]>` split across two. `.literal` compares scalars: a
    /// character-level search skips a `]]>` that a combining mark follows, which would end the
    /// section early and let the rest of the text be read as markup.
    private mutating func appendCDATA(_ text: String, in elementName: String) throws(XMLSerializationError) {
        for scalar in text.unicodeScalars {
            try Self.checkCharacter(scalar, in: elementName)
        }
        output += "<![CDATA[" + text.replacingOccurrences(of: "]]>", with: "]]]]><![CDATA[>", options: .literal) + "]]>"
    }

    /// XML 1.0 `Char`: tab, LF, CR, U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF.
    static func checkCharacter(_ scalar: Unicode.Scalar, in elementName: String) throws(XMLSerializationError) {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return
        default: throw .invalidCharacter(scalar, elementName: elementName)
        }
    }

    /// An XML 1.0 `Name` that is also a namespace-well-formed qualified name: at most one colon,
    /// neither first nor last.
    static func checkName(_ name: String) throws(XMLSerializationError) {
        let scalars = Array(name.unicodeScalars)
        guard let first = scalars.first, isNameStart(first), first != ":",
            scalars.dropFirst().allSatisfy(isNameCharacter),
            scalars.last != ":", scalars.count(where: { $0 == ":" }) <= 1
        else {
            throw .invalidName(name)
        }
    }

    private static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3A, 0x41...0x5A, 0x5F, 0x61...0x7A, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D,
            0x37F...0x1FFF, 0x200C...0x200D, 0x2070...0x218F, 0x2C00...0x2FEF, 0x3001...0xD7FF,
            0xF900...0xFDCF, 0xFDF0...0xFFFD, 0x10000...0xEFFFF:
            true
        default:
            false
        }
    }

    private static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x2D, 0x2E, 0x30...0x39, 0xB7, 0x300...0x36F, 0x203F...0x2040: true
        default: isNameStart(scalar)
        }
    }
}
