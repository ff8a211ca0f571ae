/// An XML element as a value: its name, its attributes in document order, and its children
/// (elements, text and CDATA sections). Comments and processing instructions are not kept.
///
/// Build one in code, or read one with ``XMLTreeDocument/init(data:charset:preservingWhitespace:limits:)``.
/// Names are qualified names as written (`soap:Body`); ``prefix`` and ``localName`` split them.
///
/// ```swift
/// let order = XMLTreeNode("order", attributes: ["id": "42"], elements: [
///     XMLTreeNode("item", attributes: ["sku": "A-1"], text: "Tea & biscuits"),
///     XMLTreeNode("total", text: "9.50"),
/// ])
/// try order.firstChild(named: "total")?.value(Decimal.self)   // 9.5
/// try order.xmlString()   // <order id="42"><item sku="A-1">Tea &amp; biscuits</item><total>9.50</total></order>
/// ```
public struct XMLTreeNode: Sendable, Hashable {
    // Named XMLTreeNode rather than XMLNode or XMLElement: Foundation has classes of those names on
    // macOS (and FoundationXML on Linux), and a file importing both Foundation and CourierXML would
    // find the short names ambiguous. namespaceDeclaration(forPrefix:) reads the `xmlns` attributes
    // of this element. A tree may be of any depth: comparing, hashing, writing, searching, reading
    // its text and freeing it never recurse, so none of them can overflow the stack.

    /// One attribute: a qualified name and its value (unescaped).
    ///
    /// ```swift
    /// let lang = XMLTreeNode.Attribute(name: "xml:lang", value: "en")
    /// ```
    public struct Attribute: Sendable, Hashable {
        /// The qualified name, e.g. `"id"` or `"xmlns:soap"`.
        ///
        /// ```swift
        /// lang.name   // "xml:lang"
        /// ```
        public var name: String
        /// The value, with references already replaced (`a & b`, not `a &amp; b`).
        ///
        /// ```swift
        /// XMLTreeNode.Attribute(name: "q", value: "a & b").value   // "a & b", written a &amp; b
        /// ```
        public var value: String

        /// Creates an attribute.
        ///
        /// ```swift
        /// let id = XMLTreeNode.Attribute(name: "id", value: "42")
        /// ```
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// One child of an element.
    ///
    /// ```swift
    /// let children: [XMLTreeNode.Child] = [.text("Price: "), .element(XMLTreeNode("b", text: "9")), .cdata("<raw>")]
    /// ```
    public enum Child: Sendable, Hashable {
        /// An element.
        ///
        /// ```swift
        /// let child = XMLTreeNode.Child.element(XMLTreeNode("b", text: "bold"))
        /// ```
        case element(XMLTreeNode)
        /// Character data, unescaped (`a < b`); written escaped.
        ///
        /// ```swift
        /// let child = XMLTreeNode.Child.text("a < b")   // written a &lt; b
        /// ```
        case text(String)
        /// A CDATA section's content, written back as a CDATA section.
        ///
        /// ```swift
        /// let child = XMLTreeNode.Child.cdata("<raw/>")   // written <![CDATA[<raw/>]]>
        /// ```
        case cdata(String)

        /// The element, if this child is one.
        ///
        /// ```swift
        /// let elements = node.children.compactMap(\.element)
        /// ```
        public var element: XMLTreeNode? {
            if case .element(let node) = self { return node }
            return nil
        }
    }

    /// The qualified name, e.g. `"order"` or `"soap:Envelope"`.
    ///
    /// ```swift
    /// XMLTreeNode("soap:Body").name   // "soap:Body"
    /// ```
    public var name: String
    /// The attributes in document order (namespace declarations such as `xmlns:soap` included).
    ///
    /// ```swift
    /// XMLTreeNode("a", attributes: ["id": "1", "lang": "en"]).attributes.map(\.name)   // ["id", "lang"]
    /// ```
    public var attributes: [Attribute]
    /// The children in document order.
    ///
    /// ```swift
    /// XMLTreeNode("p", text: "Hi").children   // [.text("Hi")]
    /// ```
    public var children: [Child] {
        get { storage.children }
        set {
            if isKnownUniquelyReferenced(&storage) {
                storage.children = newValue
            } else {
                storage = XMLTreeNodeStorage(newValue)
            }
        }
        _modify {
            // Copy on write: the storage is shared by copies of this node until one changes.
            if !isKnownUniquelyReferenced(&storage) { storage = XMLTreeNodeStorage(storage.children) }
            yield &storage.children
        }
    }

    /// Where ``children`` live: a class, so that freeing a deep tree can be made iterative (see
    /// ``XMLTreeNodeStorage``).
    var storage: XMLTreeNodeStorage

    /// Creates an element from its parts; attributes keep the order written.
    ///
    /// ```swift
    /// let p = XMLTreeNode("p", attributes: ["class": "note"], children: [.text("Hello "), .element(XMLTreeNode("b", text: "world"))])
    /// ```
    public init(_ name: String, attributes: KeyValuePairs<String, String> = [:], children: [Child] = []) {
        self.name = name
        self.attributes = attributes.map { Attribute(name: $0.key, value: $0.value) }
        storage = XMLTreeNodeStorage(children)
    }

    /// Creates an element that holds only text.
    ///
    /// ```swift
    /// let total = XMLTreeNode("total", attributes: ["currency": "EUR"], text: "9.50")
    /// ```
    public init(_ name: String, attributes: KeyValuePairs<String, String> = [:], text: String) {
        self.init(name, attributes: attributes, children: text.isEmpty ? [] : [.text(text)])
    }

    /// Creates an element that holds only elements.
    ///
    /// ```swift
    /// let list = XMLTreeNode("list", elements: [XMLTreeNode("item", text: "a"), XMLTreeNode("item", text: "b")])
    /// ```
    public init(_ name: String, attributes: KeyValuePairs<String, String> = [:], elements: [XMLTreeNode]) {
        self.init(name, attributes: attributes, children: elements.map(Child.element))
    }

    /// Creates an element with attributes given as values.
    ///
    /// ```swift
    /// let node = XMLTreeNode(name: "a", attributes: [XMLTreeNode.Attribute(name: "href", value: "/")], children: [.text("home")])
    /// ```
    public init(name: String, attributes: [Attribute], children: [Child]) {
        self.name = name
        self.attributes = attributes
        storage = XMLTreeNodeStorage(children)
    }

    /// The value of the first attribute with this qualified name; setting `nil` removes it, setting
    /// a value replaces it in place or appends it.
    ///
    /// ```swift
    /// var item = XMLTreeNode("item", attributes: ["sku": "A-1"], text: "Tea")
    /// item[attribute: "sku"]            // "A-1"
    /// item[attribute: "qty"] = "2"      // <item sku="A-1" qty="2">Tea</item>
    /// ```
    public subscript(attribute name: String) -> String? {
        get { attributes.first { $0.name == name }?.value }
        set {
            guard let value = newValue else {
                attributes.removeAll { $0.name == name }
                return
            }
            if let index = attributes.firstIndex(where: { $0.name == name }) {
                attributes[index].value = value
            } else {
                attributes.append(Attribute(name: name, value: value))
            }
        }
    }

    /// The prefix of the qualified name, `nil` when it has none: `"soap"` for `soap:Body`.
    ///
    /// ```swift
    /// XMLTreeNode("soap:Body").prefix   // "soap"
    /// ```
    public var prefix: String? {
        guard let colon = name.firstIndex(of: ":") else { return nil }
        return String(name[..<colon])
    }

    /// The name without its prefix: `"Body"` for `soap:Body`.
    ///
    /// ```swift
    /// XMLTreeNode("soap:Body").localName   // "Body"
    /// ```
    public var localName: String {
        guard let colon = name.firstIndex(of: ":") else { return name }
        return String(name[name.index(after: colon)...])
    }

    /// The namespace this element itself declares for `prefix` (`xmlns:prefix="…"`), or its default
    /// namespace (`xmlns="…"`) when `prefix` is `nil`. Declarations on ancestors are not seen: a
    /// node does not know its parent.
    ///
    /// ```swift
    /// let envelope = XMLTreeNode("soap:Envelope", attributes: ["xmlns:soap": "http://schemas.xmlsoap.org/soap/envelope/"])
    /// envelope.namespaceDeclaration(forPrefix: "soap")   // "http://schemas.xmlsoap.org/soap/envelope/"
    /// ```
    public func namespaceDeclaration(forPrefix prefix: String?) -> String? {
        self[attribute: prefix.map { "xmlns:\($0)" } ?? "xmlns"]
    }

    /// The element children, in document order.
    ///
    /// ```swift
    /// for item in order.elements { print(item.name) }
    /// ```
    public var elements: [XMLTreeNode] {
        children.compactMap(\.element)
    }
}
