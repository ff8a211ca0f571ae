public import Foundation

extension XMLTreeNode {
    /// The text of this element and all its descendants, text and CDATA alike, joined in document
    /// order (the DOM's `textContent`).
    ///
    /// ```swift
    /// let p = try XMLTreeDocument(string: "<p>Hello <b>bold</b> <![CDATA[<world>]]></p>").root
    /// p.text   // "Hello bold <world>"
    /// ```
    public var text: String {
        // Depth-first with a work list of the children still to visit at each level, not
        // recursion: a tree can be deeper than the stack allows.
        var result = ""
        var pending: [ArraySlice<Child>] = [children[...]]
        while !pending.isEmpty {
            guard let child = pending[pending.count - 1].popFirst() else {
                pending.removeLast()
                continue
            }
            switch child {
            case .text(let text), .cdata(let text): result += text
            case .element(let node): pending.append(node.children[...])
            }
        }
        return result
    }

    /// ``text`` without the XML whitespace (space, tab, CR, LF) at either end.
    ///
    /// ```swift
    /// XMLTreeNode("name", text: "\n  Ada Lovelace\n").trimmedText   // "Ada Lovelace"
    /// ```
    public var trimmedText: String {
        Self.trimmingXMLWhitespace(text)
    }

    /// The ``text`` read as `type`: `Int`, `Double`, `Decimal`, `Bool` (`true`, `false`, `1`, `0`),
    /// `String`, or any ``XMLTextConvertible`` type. Numbers and booleans ignore surrounding
    /// whitespace; a `String` is the text as it is.
    ///
    /// ```swift
    /// let quantity = try item.firstChild(named: "quantity")!.value(Int.self)
    /// let price: Decimal = try item.firstChild(named: "price")!.value()
    /// let inStock = item[attribute: "stock"].flatMap(Bool.init(xmlText:))   // an attribute's value
    /// ```
    /// - Throws: ``XMLValueError`` naming the element, its text and the type, when the text is not
    ///   a valid `type` (`"12abc"` is not an `Int`, nor a `Decimal`).
    public func value<Value: XMLTextConvertible>(_ type: Value.Type = Value.self) throws(XMLValueError) -> Value {
        let text = self.text
        guard let value = Value(xmlText: text) else {
            throw XMLValueError(elementName: name, text: text, expectedType: "\(Value.self)")
        }
        return value
    }

    /// Drops XML whitespace (space, tab, CR, LF; not other Unicode spaces) at both ends.
    static func trimmingXMLWhitespace(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isXMLWhitespace($0) }),
            let last = scalars.lastIndex(where: { !isXMLWhitespace($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    static func isXMLWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }
}

/// A type that can be read from the text of an XML element, for ``XMLTreeNode/value(_:)``.
///
/// Conform your own types:
///
/// ```swift
/// struct SKU: XMLTextConvertible {
///     var code: String
///     init?(xmlText: String) {
///         guard xmlText.hasPrefix("SKU-") else { return nil }
///         code = String(xmlText.dropFirst(4))
///     }
/// }
/// let sku = try node.value(SKU.self)   // <sku>SKU-A1</sku>
/// ```
public protocol XMLTextConvertible {
    /// Reads a value from an element's whole text (untrimmed); `nil` when the text is not one.
    init?(xmlText: String)
}

extension String: XMLTextConvertible {
    /// The text as it is.
    ///
    /// ```swift
    /// let name = try node.value(String.self)
    /// ```
    public init?(xmlText: String) {
        self = xmlText
    }
}

extension Int: XMLTextConvertible {
    /// Decimal digits with an optional sign, surrounded by optional whitespace: `" -42 "`.
    ///
    /// ```swift
    /// Int(xmlText: " 42\n")   // 42
    /// ```
    public init?(xmlText: String) {
        self.init(XMLTreeNode.trimmingXMLWhitespace(xmlText))
    }
}

extension Double: XMLTextConvertible {
    /// A floating-point number as Swift reads it (`1.5`, `-2e3`, `INF`, `NaN`), surrounded by
    /// optional whitespace.
    ///
    /// ```swift
    /// Double(xmlText: "2.5e1")   // 25.0
    /// ```
    public init?(xmlText: String) {
        self.init(XMLTreeNode.trimmingXMLWhitespace(xmlText))
    }
}

extension Decimal: XMLTextConvertible {
    /// A decimal number (`12`, `-0.50`, `1.2e3`) with `.` as the separator, surrounded by optional
    /// whitespace. Unlike `Decimal(string:)`, trailing garbage is refused: `"12abc"` is `nil`.
    ///
    /// ```swift
    /// Decimal(xmlText: "9.50")   // 9.5
    /// ```
    public init?(xmlText: String) {
        let text = XMLTreeNode.trimmingXMLWhitespace(xmlText)
        guard Self.isDecimalLiteral(text),
            let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        else { return nil }
        self = value
    }

    /// `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`
    private static func isDecimalLiteral(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        func digits() -> Int {
            let count = scalars.prefix { $0.properties.numericType == .decimal && $0.isASCII }.count
            scalars = scalars.dropFirst(count)
            return count
        }
        if let sign = scalars.first, sign == "+" || sign == "-" { scalars = scalars.dropFirst() }
        var mantissa = digits()
        if scalars.first == "." {
            scalars = scalars.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if let e = scalars.first, e == "e" || e == "E" {
            scalars = scalars.dropFirst()
            if let sign = scalars.first, sign == "+" || sign == "-" { scalars = scalars.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return scalars.isEmpty
    }
}

extension Bool: XMLTextConvertible {
    /// `true` or `1`, `false` or `0` (XML Schema's boolean), surrounded by optional whitespace.
    ///
    /// ```swift
    /// Bool(xmlText: "1")      // true
    /// Bool(xmlText: "yes")    // nil
    /// ```
    public init?(xmlText: String) {
        switch XMLTreeNode.trimmingXMLWhitespace(xmlText) {
        case "true", "1": self = true
        case "false", "0": self = false
        default: return nil
        }
    }
}

/// An element's text is not a valid value of the type asked for.
///
/// ```swift
/// do {
///     _ = try XMLTreeNode("qty", text: "two").value(Int.self)
/// } catch {
///     print(error)   // the text of <qty> is not a valid Int: "two"
/// }
/// ```
public struct XMLValueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The qualified name of the element.
    ///
    /// ```swift
    /// error.elementName   // "qty"
    /// ```
    public var elementName: String
    /// The element's text.
    ///
    /// ```swift
    /// error.text   // "two"
    /// ```
    public var text: String
    /// The name of the type asked for, e.g. `"Int"`.
    ///
    /// ```swift
    /// error.expectedType   // "Int"
    /// ```
    public var expectedType: String

    /// Creates a value error.
    ///
    /// ```swift
    /// let error = XMLValueError(elementName: "qty", text: "two", expectedType: "Int")
    /// ```
    public init(elementName: String, text: String, expectedType: String) {
        self.elementName = elementName
        self.text = text
        self.expectedType = expectedType
    }

    /// Names the element and the type; the text is cut to 64 characters.
    ///
    /// ```swift
    /// print(error)   // the text of <qty> is not a valid Int: "two"
    /// ```
    public var description: String {
        let shown = text.count > 64 ? String(text.prefix(64)) + "…" : text
        return "the text of <\(elementName)> is not a valid \(expectedType): \(shown.debugDescription)"
    }
}
