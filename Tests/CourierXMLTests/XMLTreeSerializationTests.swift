import CourierXML
import Foundation
import Testing

@Suite("XMLTreeNode: building and writing")
struct XMLTreeSerializationTests {
    @Test("text escapes &, < and > (and CR); compact output has no whitespace")
    func textEscaping() throws {
        let node = XMLTreeNode("a", children: [.text("1 < 2 && 3 > 2 ]]> \r\n"), .element(XMLTreeNode("b"))])
        #expect(try node.xmlString() == "<a>1 &lt; 2 &amp;&amp; 3 &gt; 2 ]]&gt; &#13;\n<b/></a>")
    }

    @Test("attribute values escape &, <, > and \", and tab, LF and CR as character references")
    func attributeEscaping() throws {
        let node = XMLTreeNode("a", attributes: ["v": "a&b<c>d\"e'f\tg\nh\ri"])
        let xml = try node.xmlString()
        #expect(xml == "<a v=\"a&amp;b&lt;c&gt;d&quot;e'f&#9;g&#10;h&#13;i\"/>")
        #expect(try XMLTreeDocument(string: xml).root[attribute: "v"] == "a&b<c>d\"e'f\tg\nh\ri")
    }

    @Test(
        "CDATA stays CDATA, and a ]]> inside is split over two sections",
        arguments: [
            ("<raw> & stuff", "<![CDATA[<raw> & stuff]]>"),
            ("a]]>b", "<![CDATA[a]]]]><![CDATA[>b]]>"),
            ("]]>]]>", "<![CDATA[]]]]><![CDATA[>]]]]><![CDATA[>]]>"),
            ("", "<![CDATA[]]>"),
            // A combining mark after the ">" once hid the "]]>" from a character-level search, and
            // the section ended there: "<b/>" became markup.
            ("a]]>\u{0301}<b/>", "<![CDATA[a]]]]><![CDATA[>\u{0301}<b/>]]>"),
        ])
    func cdata(content: String, expected: String) throws {
        let node = XMLTreeNode("a", children: [.cdata(content)])
        let xml = try node.xmlString()
        #expect(xml == "<a>\(expected)</a>")
        let reparsed = try XMLTreeDocument(string: xml).root
        #expect(reparsed.text == content)
        if !content.isEmpty { #expect(reparsed.children == [.cdata(content)]) }
    }

    @Test("pretty printing indents elements that hold only elements, and leaves text alone")
    func prettyPrinted() throws {
        let document = XMLTreeDocument(
            root: XMLTreeNode(
                "order", attributes: ["id": "1"],
                elements: [
                    XMLTreeNode("item", text: "Tea"),
                    XMLTreeNode("p", children: [.text("mixed "), .element(XMLTreeNode("b", elements: [XMLTreeNode("i", text: "x")]))]),
                    XMLTreeNode("empty"),
                    XMLTreeNode("nested", elements: [XMLTreeNode("deep", text: "1")]),
                ]))
        #expect(
            try document.xmlString(.prettyPrinted) == """
                <?xml version="1.0" encoding="UTF-8"?>
                <order id="1">
                  <item>Tea</item>
                  <p>mixed <b><i>x</i></b></p>
                  <empty/>
                  <nested>
                    <deep>1</deep>
                  </nested>
                </order>
                """)
        #expect(
            try document.root.xmlString(.prettyPrinted(indentation: .tabs(1)))
                == "<order id=\"1\">\n\t<item>Tea</item>\n\t<p>mixed <b><i>x</i></b></p>\n\t<empty/>\n\t<nested>\n\t\t<deep>1</deep>\n\t</nested>\n</order>")
        #expect(try XMLTreeNode("a", elements: [XMLTreeNode("b")]).xmlString(.prettyPrinted(indentation: .spaces(4))) == "<a>\n    <b/>\n</a>")
    }

    @Test("the declaration: always UTF-8, standalone when set, none when nil")
    func declaration() throws {
        let root = XMLTreeNode("a")
        #expect(try XMLTreeDocument(root: root).xmlString() == "<?xml version=\"1.0\" encoding=\"UTF-8\"?><a/>")
        #expect(
            try XMLTreeDocument(root: root, declaration: .init(encoding: "ISO-8859-1", standalone: false)).xmlString()
                == "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?><a/>")
        #expect(try XMLTreeDocument(root: root, declaration: .init(encoding: nil)).xmlString() == "<?xml version=\"1.0\"?><a/>")
        #expect(try XMLTreeDocument(root: root, declaration: nil).xmlString() == "<a/>")
        #expect(try XMLTreeDocument(root: root).xmlData() == Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?><a/>".utf8))
        #expect(throws: XMLSerializationError.invalidDeclaration("version \"2\"")) {
            _ = try XMLTreeDocument(root: root, declaration: .init(version: "2")).xmlString()
        }
    }

    @Test("a name that is not an XML qualified name is refused", arguments: ["", "first name", "1st", "a:b:c", ":a", "a:", "a<b", "a\"b"])
    func invalidNames(name: String) {
        #expect(throws: XMLSerializationError.invalidName(name)) { _ = try XMLTreeNode(name).xmlString() }
        #expect(throws: XMLSerializationError.invalidName(name)) {
            _ = try XMLTreeNode(name: "a", attributes: [.init(name: name, value: "v")], children: []).xmlString()
        }
    }

    @Test("valid names include prefixes, dots, hyphens and non-ASCII letters", arguments: ["soap:Body", "_a.b-c", "été", "x1"])
    func validNames(name: String) throws {
        #expect(try XMLTreeNode(name).xmlString() == "<\(name)/>")
    }

    @Test("characters XML 1.0 cannot carry are refused", arguments: ["\u{0}", "\u{1}", "\u{1B}", "\u{FFFE}", "\u{FFFF}"])
    func invalidCharacters(character: String) {
        let scalar = character.unicodeScalars.first!
        #expect(throws: XMLSerializationError.invalidCharacter(scalar, elementName: "a")) { _ = try XMLTreeNode("a", text: "x\(character)").xmlString() }
        #expect(throws: XMLSerializationError.invalidCharacter(scalar, elementName: "a")) {
            _ = try XMLTreeNode("a", children: [.cdata(character)]).xmlString()
        }
        #expect(throws: XMLSerializationError.invalidCharacter(scalar, elementName: "a")) { _ = try XMLTreeNode("a", attributes: ["v": character]).xmlString() }
    }

    @Test("the attribute subscript reads, replaces in place, appends and removes")
    func attributeSubscript() {
        var node = XMLTreeNode("a", attributes: ["x": "1", "y": "2"])
        #expect(node[attribute: "y"] == "2")
        node[attribute: "x"] = "9"
        node[attribute: "z"] = "3"
        #expect(node.attributes.map(\.name) == ["x", "y", "z"])
        #expect(node[attribute: "x"] == "9")
        node[attribute: "y"] = nil
        #expect(node.attributes == [.init(name: "x", value: "9"), .init(name: "z", value: "3")])
    }

    static let documents = [
        "<a/>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><catalog xmlns=\"urn:c\" xmlns:x=\"urn:x\"><book id=\"b1\" x:lang=\"en\"><title>Dune &amp; Co</title><price>9.99</price></book><book id=\"b2\"/></catalog>",
        "<p>Hello <b>bold</b> and <![CDATA[<raw>]]> &lt;text&gt; ☺</p>",
        "<a v=\"&#9;tab &#10;lf &#13;cr &quot;q&quot; &amp; &lt;\"><b>\n  <c>x</c>  y  </b></a>",
        "<?xml version=\"1.0\" standalone=\"yes\"?>\n<!-- c -->\n<root>\n  <one>1</one>\n  <two>\n    <three t=\"3\"/>\n  </two>\n</root>",
        "<a><![CDATA[x]]]]><![CDATA[>y]]></a>",
    ]

    @Test("parse, write, parse again: the same tree, compact or pretty-printed", arguments: documents)
    func roundTrip(xml: String) throws {
        let document = try XMLTreeDocument(string: xml)
        for formatting in [XMLTreeFormatting.compact, .prettyPrinted, .prettyPrinted(indentation: .tabs(1))] {
            let written = try document.xmlString(formatting)
            #expect(try XMLTreeDocument(string: written) == document, "\(written)")
        }
    }
}
