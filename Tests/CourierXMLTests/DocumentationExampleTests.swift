import Courier
import CourierXML
import Foundation
import Testing

/// The examples of Documentation/XMLAndSOAP.md, checked.
@Suite("Documentation/XMLAndSOAP.md examples")
struct DocumentationExampleTests {
    static let catalog = """
        <?xml version="1.0" encoding="UTF-8"?>
        <catalog xmlns:x="urn:x">
          <book id="b1" x:lang="en"><title>Dune</title><price>9.99</price></book>
          <book id="b2"><title>Emma</title><price>3.50</price></book>
        </catalog>
        """

    @Test("parsing, finding and typed values")
    func tree() throws {
        let document = try XMLTreeDocument(string: Self.catalog)
        let root = document.root
        #expect(document.declaration?.version == "1.0")
        #expect(root.children(named: "book").count == 2)
        #expect(root.firstChild(named: "book")?[attribute: "id"] == "b1")
        #expect(root.firstChild(named: "book")?.attributes.map(\.name) == ["id", "x:lang"])
        #expect(root.descendants(named: "title").map(\.text) == ["Dune", "Emma"])
        #expect(root.descendants { $0[attribute: "x:lang"] == "en" }.count == 1)
        let book = try #require(root.firstChild(named: "book"))
        #expect(book.text == "Dune9.99")
        #expect(try book.firstChild(named: "price")?.value(Decimal.self) == Decimal(string: "9.99"))
    }

    @Test("building and writing")
    func writing() throws {
        let order = XMLTreeNode(
            "order", attributes: ["id": "42", "note": "line 1\nline 2"],
            elements: [
                XMLTreeNode("item", attributes: ["sku": "A-1"], text: "Tea & biscuits"),
                XMLTreeNode("script", children: [.cdata("if a < b ]]> c")]),
            ])
        #expect(
            try order.xmlString() == """
                <order id="42" note="line 1&#10;line 2"><item sku="A-1">Tea &amp; biscuits</item>\
                <script><![CDATA[if a < b ]]]]><![CDATA[> c]]></script></order>
                """)
        #expect(
            try XMLTreeDocument(root: order).xmlString(.prettyPrinted) == """
                <?xml version="1.0" encoding="UTF-8"?>
                <order id="42" note="line 1&#10;line 2">
                  <item sku="A-1">Tea &amp; biscuits</item>
                  <script><![CDATA[if a < b ]]]]><![CDATA[> c]]></script>
                </order>
                """)
    }

    @Test("limits: each reader takes XMLParsingLimits")
    func limits() throws {
        var limits = XMLParsingLimits()
        limits.maximumDepth = 32
        var configuration = Configuration()
        configuration.responseDecoders = [XMLBodyDecoder(limits: limits)]
        #expect(SOAPBodyDecoder(limits: limits).limits.maximumDepth == 32)
        let body = Data("<a><b/></a>".utf8)
        #expect(try XMLTreeDocument(data: body, limits: XMLParsingLimits(maximumElementCount: 1_000_000)).root.elements.count == 1)
        let response = makeResponse(data: body)
        #expect(try response.xmlDocument(limits: limits).root.name == "a")
        #expect(parsingError { _ = try response.xmlDocument(limits: XMLParsingLimits(maximumDepth: 1)) }?.reason == .tooDeep(maximumDepth: 1))
    }
}
