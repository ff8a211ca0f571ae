import CourierXML
import Foundation
import Testing

@Suite("XMLTreeNode: finding elements")
struct XMLTreeFindingTests {
    /// a > (b#1 > (c#1 > d#1), d#2), c#2 > d#3, d#4
    static let tree = XMLTreeNode(
        "a",
        elements: [
            XMLTreeNode(
                "b", attributes: ["n": "1"],
                elements: [
                    XMLTreeNode("c", attributes: ["n": "1"], elements: [XMLTreeNode("d", attributes: ["n": "1"])]),
                    XMLTreeNode("d", attributes: ["n": "2"]),
                ]),
            XMLTreeNode("c", attributes: ["n": "2"], elements: [XMLTreeNode("d", attributes: ["n": "3"])]),
            XMLTreeNode("d", attributes: ["n": "4"]),
        ])

    private func numbers(_ nodes: [XMLTreeNode]) -> [String] {
        nodes.compactMap { $0[attribute: "n"] }
    }

    @Test("children: the first level only")
    func children() {
        #expect(numbers(Self.tree.children(named: "d")) == ["4"])
        #expect(numbers(Self.tree.children(named: "c")) == ["2"])
        #expect(Self.tree.firstChild(named: "d")?[attribute: "n"] == "4")
        #expect(Self.tree.firstChild(named: "zzz") == nil)
        #expect(Self.tree.elements.map(\.name) == ["b", "c", "d"])
    }

    @Test("descendants depth-first are in document order")
    func depthFirst() {
        #expect(numbers(Self.tree.descendants(named: "d")) == ["1", "2", "3", "4"])
        #expect(Self.tree.firstDescendant(named: "d")?[attribute: "n"] == "1")
        #expect(numbers(Self.tree.descendants { _ in true }) == ["1", "1", "1", "2", "2", "3", "4"])
    }

    @Test("descendants breadth-first go level by level")
    func breadthFirst() {
        #expect(numbers(Self.tree.descendants(named: "d", order: .breadthFirst)) == ["4", "2", "3", "1"])
        #expect(Self.tree.firstDescendant(named: "d", order: .breadthFirst)?[attribute: "n"] == "4")
        #expect(Self.tree.firstDescendant(named: "c", order: .breadthFirst)?[attribute: "n"] == "2")
        #expect(Self.tree.firstDescendant(named: "c", order: .depthFirst)?[attribute: "n"] == "1")
    }

    @Test("descendants exclude the element itself")
    func excludesSelf() {
        #expect(Self.tree.descendants(named: "a").isEmpty)
    }

    @Test("names compare exactly; a predicate matches local names whatever the prefix")
    func qualifiedNames() throws {
        let root = try XMLTreeDocument(string: "<s:E xmlns:s=\"urn:s\"><s:Body><Body/></s:Body></s:E>").root
        #expect(root.descendants(named: "Body").count == 1)
        #expect(root.descendants(named: "s:Body").count == 1)
        #expect(root.descendants { $0.localName == "Body" }.count == 2)
        #expect(root.firstChild { $0.localName == "Body" }?.name == "s:Body")
        #expect(root.children { $0.prefix == "s" }.count == 1)
    }

    @Test("a deep tree is searched without recursion")
    func deepTree() {
        var node = XMLTreeNode("leaf")
        for _ in 0..<2_000 { node = XMLTreeNode("n", elements: [node]) }
        #expect(node.firstDescendant(named: "leaf") != nil)
        #expect(node.firstDescendant(named: "leaf", order: .breadthFirst) != nil)
    }
}

@Suite("XMLTreeNode: text and typed values")
struct XMLTreeValueTests {
    @Test("text joins text and CDATA of all descendants; trimmedText drops surrounding XML whitespace")
    func text() throws {
        let root = try XMLTreeDocument(string: "<p>\n Hello <b>bold</b> <![CDATA[<world>]]>\t</p>").root
        #expect(root.text == "\n Hello bold <world>\t")
        #expect(root.trimmedText == "Hello bold <world>")
        #expect(XMLTreeNode("a", text: "\u{A0}x\u{A0}").trimmedText == "\u{A0}x\u{A0}")
    }

    @Test("Int values", arguments: [(" 42 ", 42), ("-7", -7), ("+3", 3), ("\n0\n", 0)])
    func ints(text: String, expected: Int) throws {
        #expect(try XMLTreeNode("v", text: text).value(Int.self) == expected)
    }

    @Test("Double values", arguments: [("2.5", 2.5), (" -1e3 ", -1000), ("INF", .infinity), ("7", 7)])
    func doubles(text: String, expected: Double) throws {
        #expect(try XMLTreeNode("v", text: text).value(Double.self) == expected)
    }

    @Test("Decimal values keep their digits", arguments: [("9.50", "9.5"), ("0.1", "0.1"), (" -12 ", "-12"), ("1.2e3", "1200"), (".5", "0.5")])
    func decimals(text: String, expected: String) throws {
        #expect(try XMLTreeNode("v", text: text).value(Decimal.self) == Decimal(string: expected))
    }

    @Test("Bool values: true, false, 1, 0", arguments: [("true", true), ("false", false), (" 1 ", true), ("0", false)])
    func bools(text: String, expected: Bool) throws {
        #expect(try XMLTreeNode("v", text: text).value(Bool.self) == expected)
    }

    @Test("String values are the text as it is")
    func strings() throws {
        let value: String = try XMLTreeNode("v", text: " a & b ").value()
        #expect(value == " a & b ")
    }

    @Test(
        "text that is not a valid value is a typed error naming element, text and type",
        arguments: [
            ("12abc", "Int"), ("1.5", "Int"), ("", "Int"), ("twelve", "Double"), ("12abc", "Decimal"), ("1.2.3", "Decimal"),
            ("e5", "Decimal"), ("yes", "Bool"), ("TRUE", "Bool"),
        ])
    func invalid(text: String, type: String) {
        let node = XMLTreeNode("qty", text: text)
        let expected = XMLValueError(elementName: "qty", text: text, expectedType: type)
        #expect(throws: expected) {
            switch type {
            case "Int": _ = try node.value(Int.self)
            case "Double": _ = try node.value(Double.self)
            case "Decimal": _ = try node.value(Decimal.self)
            default: _ = try node.value(Bool.self)
            }
        }
    }

    @Test("the value error's description names the element and the type")
    func valueErrorDescription() {
        let error = XMLValueError(elementName: "qty", text: "two", expectedType: "Int")
        #expect(error.description == #"the text of <qty> is not a valid Int: "two""#)
    }
}
