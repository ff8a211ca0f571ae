// What the CourierXML doc comments' examples use without declaring it (see Scaffolding.swift): the
// app around a snippet. Values are placeholders: these examples are compiled, not run.

import Courier
import CourierXML
import Foundation

/// A book, the model the XML decoding examples read.
struct XMLDocBook: Decodable, Sendable {
    var title: String
}

/// A response whose body is a small XML document.
let xmlDocResponse = Response(
    statusCode: 200, headers: ["Content-Type": "application/xml"], body: Data("<book><title>Dune</title></book>".utf8),
    url: URL(string: "https://api.example.com/books/1")!)

/// A SOAP 1.1 response whose payload is `<m:GetPriceResponse>`.
let xmlDocSOAPResponse = Response(
    statusCode: 200, headers: ["Content-Type": "text/xml; charset=utf-8"],
    body: Data(
        """
        <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>\
        <m:GetPriceResponse xmlns:m="urn:stock"><m:Price>1.5</m:Price></m:GetPriceResponse></soap:Body></soap:Envelope>
        """.utf8),
    url: URL(string: "https://stock.example.com/StockService")!)

/// The stock service's operation, sent as SOAP 1.1 with `SOAPBodyDecoder`.
struct XMLDocGetPrice: Requestable {
    let item: String
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "stock.example.com") }
    var method: HTTPMethod { .post }
    var body: RequestBody? { .soap(SOAPEnvelope(body: XMLDocGetPriceRequest(Item: item), namespace: "urn:stock")) }
    var responseDecoder: (any ResponseBodyDecoder)? { SOAPBodyDecoder() }
}

/// The payload of the stock service's request.
struct XMLDocGetPriceRequest: Encodable, Sendable {
    var Item: String
}

/// The payload of the stock service's answer.
struct XMLDocGetPriceResponse: Decodable, Sendable {
    var Price: Decimal
}

/// A SOAP 1.2 fault with two explanations.
let xmlDocFault = SOAPFault(
    version: .v1_2, code: SOAPFault.Code("Sender", namespace: SOAPVersion.v1_2.namespace),
    subcodes: [SOAPFault.Code("BadItem", namespace: "urn:stock")],
    reasons: [SOAPFault.Text("Unknown item", language: "en"), SOAPFault.Text("Article inconnu", language: "fr")],
    detail: XMLTreeNode("detail", elements: [XMLTreeNode("e:Code", attributes: ["xmlns:e": "urn:errors"], text: "42")]))

/// An order as a tree.
let xmlDocOrder = XMLTreeNode(
    "order", attributes: ["id": "42"],
    elements: [XMLTreeNode("item", attributes: ["sku": "A-1"], text: "Tea"), XMLTreeNode("total", text: "9.50")])

/// A parsed document.
let xmlDocDocument = XMLTreeDocument(root: xmlDocOrder)

extension DocCourierXMLCodingRequestBodyXMLGuide {
    struct NewOrder: Encodable, Sendable {
        var sku: String
        var quantity: Int
    }
}

extension DocCourierXMLCodingXMLBodyDecoderGuide {
    typealias Book = XMLDocBook
    static let response = xmlDocResponse
}

extension DocCourierXMLSOAPSOAPBodyDecoderGuide {
    typealias GetPriceRequest = XMLDocGetPriceRequest
    typealias GetPriceResponse = XMLDocGetPriceResponse
    static let response = xmlDocSOAPResponse

    /// An Atom feed.
    struct GetFeed: Requestable {
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "blog.example.com") }
        func path() throws(CourierError) -> URLPath { try URLPath("/feed.atom") }
    }
}

extension DocCourierXMLSOAPSOAPEnvelopeGuide {
    /// The body entry, written with XMLCoder.
    struct GetPrice: Encodable, Sendable {
        var Item: String
    }

    nonisolated(unsafe) static var envelope = SOAPEnvelope(body: XMLTreeNode("Ping"))
}

extension DocCourierXMLSOAPSOAPFaultGuide {
    typealias GetPrice = XMLDocGetPrice
    typealias Price = XMLDocGetPriceResponse
    static let fault = xmlDocFault

    struct GetQuote: Requestable {
        let symbol: String
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "stock.example.com") }
        var method: HTTPMethod { .post }
        var body: RequestBody? { .soap(SOAPEnvelope(body: XMLTreeNode("GetQuote", attributes: ["xmlns": "urn:stock"], text: symbol))) }
    }

    static func show(_ message: String) {}
}

extension DocCourierXMLTreeXMLParsingErrorGuide {
    static let error = XMLParsingError(reason: .notWellFormed(code: 76), line: 3, column: 5)
    static func log(_ message: String) {}
}

extension DocCourierXMLTreeXMLTreeDocumentGuide {
    nonisolated(unsafe) static var document = xmlDocDocument
}

extension DocCourierXMLTreeXMLTreeNodeGuide {
    static let lang = XMLTreeNode.Attribute(name: "xml:lang", value: "en")
    static let node = xmlDocOrder
    static let order = xmlDocOrder
}

extension DocCourierXMLTreeXMLTreeNodeFindingGuide {
    static let feed = XMLTreeNode(
        "feed", elements: [XMLTreeNode("title", text: "Blog"), XMLTreeNode("entry", elements: [XMLTreeNode("title", text: "Hello")])])
    static let order = xmlDocOrder
    static let catalog = XMLTreeNode("catalog", elements: [XMLTreeNode("book", attributes: ["price": "9.99"], text: "Dune")])
    static let envelope = XMLTreeNode("soap:Envelope", elements: [XMLTreeNode("soap:Body")])
    static let response = xmlDocSOAPResponse
}

extension DocCourierXMLTreeXMLTreeNodeTextGuide {
    static let item = XMLTreeNode(
        "item", attributes: ["stock": "true"], elements: [XMLTreeNode("quantity", text: "2"), XMLTreeNode("price", text: "9.50")])
    static let node = XMLTreeNode("sku", text: "SKU-A1")
    static let error = XMLValueError(elementName: "qty", text: "two", expectedType: "Int")
}

extension DocCourierXMLTreeXMLTreeSerializationGuide {
    static let node = XMLTreeNode("a", elements: [XMLTreeNode("b", text: "1")])
    static let document = xmlDocDocument
    static let error = XMLSerializationError.invalidName("first name")
}
