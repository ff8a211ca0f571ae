import CourierXML
import Foundation
import Testing

@Suite("XMLTreeDocument: parsing")
struct XMLTreeParsingTests {
    static let secret = "COURIER-XXE-SECRET-7d1f"

    /// A document whose entity would read a local file, written for the test.
    static func externalEntityDocument() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-xxe-\(UUID().uuidString).txt")
        try secret.write(to: url, atomically: true, encoding: .utf8)
        return """
            <?xml version="1.0"?>
            <!DOCTYPE book [<!ENTITY xxe SYSTEM "\(url.absoluteString)">]>
            <book><title>&xxe;</title><price>1</price></book>
            """
    }

    static let billionLaughs = """
        <?xml version="1.0"?>
        <!DOCTYPE lolz [
         <!ENTITY lol "lol">
         <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
         <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
         <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
         <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
         <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
         <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
         <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
         <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
         <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
        ]>
        <lolz>&lol9;</lolz>
        """

    @Test(
        "attributes keep document order (XMLParser hands them over in a dictionary)",
        arguments: [
            ["z", "y", "x", "w", "v", "u", "t", "s"],
            ["id", "xmlns:m", "m:kind", "lang", "b", "a", "href", "class"],
            ["a", "b", "c", "d", "e", "f", "g", "h"],
        ])
    func attributeOrder(names: [String]) throws {
        let attributes = names.enumerated().map { "\($1)=\"\($0)\"" }.joined(separator: " ")
        let singleQuoted = attributes.replacingOccurrences(of: "\"", with: "'")
        let document = try XMLTreeDocument(string: "<root><e \(attributes)/><e\n  \(singleQuoted) ></e></root>")
        #expect(document.root.elements.count == 2)
        for element in document.root.elements {
            #expect(element.attributes.map(\.name) == names)
            #expect(element.attributes.map(\.value) == names.indices.map(String.init))
        }
    }

    @Test("names keep their prefix; prefix, localName and namespace declarations are read from them")
    func namespaces() throws {
        let document = try XMLTreeDocument(
            string: """
                <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns="urn:default"><soap:Body m:id="1" xmlns:m="urn:m"/></soap:Envelope>
                """)
        let root = document.root
        #expect(root.name == "soap:Envelope")
        #expect(root.prefix == "soap")
        #expect(root.localName == "Envelope")
        #expect(root.namespaceDeclaration(forPrefix: "soap") == "http://schemas.xmlsoap.org/soap/envelope/")
        #expect(root.namespaceDeclaration(forPrefix: nil) == "urn:default")
        let body = try #require(root.firstChild(named: "soap:Body"))
        #expect(body[attribute: "m:id"] == "1")
        #expect(XMLTreeNode("plain").prefix == nil)
    }

    @Test("text, references and CDATA are kept as children; adjacent pieces are merged")
    func children() throws {
        let root = try XMLTreeDocument(string: "<a>x &amp; &lt;y&gt; &#x263A;<![CDATA[<raw> & ]]><![CDATA[more]]><b/>tail</a>").root
        #expect(root.children == [.text("x & <y> ☺"), .cdata("<raw> & more"), .element(XMLTreeNode("b")), .text("tail")])
    }

    @Test("comments and processing instructions are dropped")
    func commentsDropped() throws {
        let root = try XMLTreeDocument(string: "<!-- a --><?pi x?><a><!-- b -->t<?pi y?>u</a>").root
        #expect(root.children == [.text("tu")])
    }

    @Test("whitespace between elements is dropped unless asked to be kept")
    func whitespace() throws {
        let xml = "<a>\n  <b> x </b>\n  <c>  </c>\n</a>"
        let dropped = try XMLTreeDocument(string: xml).root
        #expect(dropped.children == [.element(XMLTreeNode("b", text: " x ")), .element(XMLTreeNode("c", text: "  "))])
        let kept = try XMLTreeDocument(string: xml, preservingWhitespace: true).root
        #expect(kept.children.count == 5)
        #expect(kept.children.first == .text("\n  "))
    }

    @Test("whitespace is kept in mixed content: any other text or CDATA keeps all of it")
    func mixedContent() throws {
        #expect(try XMLTreeDocument(string: "<p>x <b>a</b> <i>b</i></p>").root.text == "x a b")
        #expect(try XMLTreeDocument(string: "<p><b>a</b> <![CDATA[c]]></p>").root.text == "a c")
        #expect(try XMLTreeDocument(string: "<p><b>a</b> <i>b</i></p>").root.text == "ab")
        #expect(try XMLTreeDocument(string: "<p><b>a</b> <i>b</i></p>", preservingWhitespace: true).root.text == "a b")
    }

    @Test("the declaration is read: version, encoding, standalone (XML 1.1's version warning is not an error)")
    func declaration() throws {
        let document = try XMLTreeDocument(string: "<?xml version=\"1.1\" encoding='ISO-8859-1' standalone=\"yes\"?><a/>")
        #expect(document.declaration == XMLTreeDocument.Declaration(version: "1.1", encoding: "ISO-8859-1", standalone: true))
        #expect(try XMLTreeDocument(string: "<a/>").declaration == nil)
    }

    @Test(
        "a document that does not parse is a typed error with its line and column",
        arguments: [
            ("<a>\n<b>\n</a>", 3),
            ("<a>\n\n  <b x=1/></a>", 3),
            ("<a></a>\n<b/>", 2),
            ("<a>&undefined;</a>", 1),
            ("<a b=\"1\" b=\"2\"/>", 1),
            ("<a>", 1),
            ("<a>\n<b>x</b>", 2),
            ("<1a/>", 1),
        ])
    func malformed(xml: String, line: Int) {
        #expect {
            _ = try XMLTreeDocument(string: xml)
        } throws: { error in
            guard let error = error as? XMLParsingError, case .notWellFormed(let code) = error.reason else { return false }
            return code > 0 && error.line == line && error.column > 0
        }
    }

    @Test("a document without a root element is an error, though XMLParser reports none", arguments: ["", "  \n", "<?xml version=\"1.0\"?>", "<!-- only -->"])
    func noRoot(xml: String) {
        #expect {
            _ = try XMLTreeDocument(string: xml)
        } throws: { error in
            (error as? XMLParsingError)?.reason == .noRootElement
        }
    }

    @Test("bytes that are not valid UTF-8 are an invalidText error at their position")
    func invalidUTF8() {
        let data = Data("<a>\n<b>ok</b>\n<c>".utf8) + Data([0xFF]) + Data("</c></a>".utf8)
        #expect(throws: XMLParsingError(reason: .invalidText(charset: "utf-8"), line: 3, column: 4)) {
            _ = try XMLTreeDocument(data: data)
        }
    }

    @Test(
        "ISO-8859-1, UTF-16 and a charset parameter are read as such",
        arguments: [
            (Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>".utf8) + Data([0xE9]) + Data("</a>".utf8), nil),
            (Data("<a>".utf8) + Data([0xE9]) + Data("</a>".utf8), "iso-8859-1"),
            (Data([0xFE, 0xFF]) + "<a>é</a>".data(using: .utf16BigEndian)!, nil),
            ("<?xml version=\"1.0\" encoding=\"UTF-16\"?><a>é</a>".data(using: .utf16LittleEndian)!, nil),
        ] as [(Data, String?)])
    func charsets(data: Data, charset: String?) throws {
        #expect(try XMLTreeDocument(data: data, charset: charset).root.text == "é")
    }

    @Test("the charset parameter wins over the declaration (RFC 7303)")
    func charsetParameterWins() throws {
        let data = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>é</a>".utf8)
        let document = try XMLTreeDocument(data: data, charset: "utf-8")
        #expect(document.root.text == "é")
        #expect(document.declaration?.encoding == "ISO-8859-1")
    }

    @Test("an external entity is refused, and the file it names is never read")
    func externalEntity() throws {
        let xml = try Self.externalEntityDocument()
        #expect(throws: XMLParsingError.self) { _ = try XMLTreeDocument(string: xml) }
        do {
            _ = try XMLTreeDocument(string: xml)
        } catch {
            #expect(error.reason == .documentTypeNotAllowed)
            #expect(error.line == 2)
            #expect(!String(describing: error).contains(Self.secret))
        }
    }

    @Test("a billion-laughs document is refused at once")
    func billionLaughs() {
        // The thread's CPU time, not the wall clock: under the sanitizers the machine is busy, and
        // "at once" means the DOCTYPE was refused before any expansion (which would take minutes).
        let cpu = threadCPUTime {
            #expect(throws: XMLParsingError(reason: .documentTypeNotAllowed, line: 2, column: 1)) {
                _ = try XMLTreeDocument(string: Self.billionLaughs)
            }
        }
        #expect(cpu < .seconds(1), "took \(cpu) of CPU")
    }

    @Test("the error describes itself with the position")
    func errorDescription() {
        let error = XMLParsingError(reason: .notWellFormed(code: 76), line: 3, column: 5)
        #expect(error.description == "XML is not well-formed (tag name mismatch, XMLParser error 76) at line 3, column 5")
    }
}
