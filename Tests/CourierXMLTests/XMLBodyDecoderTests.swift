import Courier
import CourierTesting
import CourierXML
import Foundation
import Testing
import XMLCoder

struct Book: Decodable, Sendable, Equatable {
    var title: String
    var price: Double
}

@Suite("XMLBodyDecoder: XML responses through Client")
struct XMLBodyDecoderTests {
    static let book = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><book><title>Dune &amp; more</title><price>9.5</price></book>"

    @Test(
        "the client's XMLBodyDecoder is chosen by Content-Type",
        arguments: [
            "application/xml", "text/xml", "application/atom+xml", "text/xml; charset=utf-8", "Application/XML",
        ])
    func chosenByContentType(contentType: String) async throws {
        let network = stubNetwork(contentType: contentType, body: Self.book)
        let book = try await makeClient(network, decoders: [XMLBodyDecoder()]).enqueue(XMLEndpoint(method: .get))
            .resume(expecting: Book.self)
        #expect(book == Book(title: "Dune & more", price: 9.5))
    }

    @Test("without an XML decoder an XML response is an unsupported media type")
    func notRegistered() async {
        let network = stubNetwork(contentType: "application/xml", body: Self.book)
        let error = await courierError { try await makeClient(network).enqueue(XMLEndpoint(method: .get)).resume(expecting: Book.self) }
        guard case .decoding(let failure)? = error, case .unsupportedMediaType("application/xml") = failure.reason else {
            Issue.record("expected unsupportedMediaType, got \(String(describing: error))")
            return
        }
    }

    @Test("Accept lists JSON first and the XML types at q=0.9 when the decoder is the client's")
    func acceptFromConfiguration() async throws {
        let network = stubNetwork(body: Self.book)
        _ = try await makeClient(network, decoders: [XMLBodyDecoder()]).enqueue(XMLEndpoint(method: .get)).resume(expecting: Book.self)
        #expect(network.requests.last?.headerValue(for: "Accept") == "application/json, application/xml;q=0.9, text/xml;q=0.9")
    }

    @Test("an endpoint's XMLBodyDecoder decodes whatever the Content-Type, and Accept lists only XML")
    func perEndpoint() async throws {
        let network = stubNetwork(contentType: "text/plain", body: Self.book)
        let endpoint = XMLEndpoint(method: .get, responseDecoder: XMLBodyDecoder())
        let book = try await makeClient(network).enqueue(endpoint).resume(expecting: Book.self)
        #expect(book.title == "Dune & more")
        #expect(network.requests.last?.headerValue(for: "Accept") == "application/xml, text/xml")
    }

    @Test("the decoder factory is used for each response")
    func customDecoder() async throws {
        let network = stubNetwork(body: "<book><TITLE>Emma</TITLE><PRICE>3</PRICE></book>")
        let decoder = XMLBodyDecoder {
            let decoder = XMLDecoder()
            decoder.keyDecodingStrategy = .custom { keys in
                XMLBodyDecoderTests.Key(stringValue: keys.last!.stringValue.lowercased())
            }
            return decoder
        }
        let book = try await makeClient(network, decoders: [decoder]).enqueue(XMLEndpoint(method: .get)).resume(expecting: Book.self)
        #expect(book == Book(title: "Emma", price: 3))
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static let latin1Title: Data = Data("<book><title>".utf8) + Data([0x45, 0x6D, 0xE9]) + Data("</title><price>1</price></book>".utf8)
    static let utf16Book: Data = Data([0xFF, 0xFE]) + "<book><title>Emé</title><price>1</price></book>".data(using: .utf16LittleEndian)!
    static let utf8BOMBook: Data = Data([0xEF, 0xBB, 0xBF]) + Data("<book><title>Emé</title><price>1</price></book>".utf8)
    static let charsetCases: [(Data, String)] = [
        (Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>".utf8) + latin1Title, "application/xml"),
        (latin1Title, "text/xml; charset=iso-8859-1"),
        (utf16Book, "application/xml"),
        (utf8BOMBook, "application/xml"),
    ]

    @Test("the charset comes from the Content-Type, a byte-order mark or the declaration", arguments: charsetCases)
    func charsets(data: Data, contentType: String) async throws {
        let network = stubNetwork(contentType: contentType, data: data)
        let book = try await makeClient(network, decoders: [XMLBodyDecoder()]).enqueue(XMLEndpoint(method: .get)).resume(expecting: Book.self)
        #expect(book.title == "Emé")
    }

    @Test(
        "bytes that are not valid UTF-8 fail with invalidText, never a crash",
        arguments: [
            Data([0x3C, 0x61, 0x3E, 0xFF, 0xFE, 0x3C, 0x2F, 0x61, 0x3E]),
            Data("<book><title>".utf8) + Data([0xC3, 0x28]) + Data("</title></book>".utf8),
        ])
    func invalidUTF8(data: Data) async {
        let network = stubNetwork(data: data)
        let error = await courierError {
            try await makeClient(network, decoders: [XMLBodyDecoder()]).enqueue(XMLEndpoint(method: .get)).resume(expecting: Book.self)
        }
        guard case .decoding(let failure)? = error, case .invalidText(charset: "utf-8") = failure.reason else {
            Issue.record("expected invalidText, got \(String(describing: error))")
            return
        }
    }

    @Test("an unknown charset fails with unsupportedCharset")
    func unknownCharset() {
        let response = makeResponse("<book/>", contentType: "application/xml; charset=klingon")
        #expect {
            _ = try XMLBodyDecoder().decode(Book.self, from: response)
        } throws: { error in
            guard case .decoding(let failure) = error as? CourierError, case .unsupportedCharset("klingon") = failure.reason else { return false }
            return true
        }
    }

    @Test(
        "XML that does not parse is a DecodingError.dataCorrupted holding the XMLParsingError",
        arguments: [
            ("<book>\n<title>Dune</book>", 2),
            ("<book><title>Dune</title></book>trailing<", 1),
            ("<book/><book/>", 1),
            ("<book><title>Dune</title>", 1),
            ("", 0),
        ])
    func malformed(body: String, line: Int) async {
        let network = stubNetwork(body: body)
        let error = await courierError {
            try await makeClient(network, decoders: [XMLBodyDecoder()]).enqueue(XMLEndpoint(method: .get)).resume(expecting: Book.self)
        }
        let parsing = error?.xmlParsingError
        #expect(parsing != nil, "got \(String(describing: error))")
        if line > 0 { #expect(parsing?.line ?? 0 >= line) }
    }

    @Test("XMLCoder's error context cannot crash the decoder, even when a factory turns it on")
    func errorContextIsOff() {
        let response = makeResponse("<book>\n\n\n<title>Dune</title>\n\n\n<price>x</oops></book>")
        let decoder = XMLBodyDecoder {
            let decoder = XMLDecoder()
            decoder.errorContextLength = 200
            return decoder
        }
        #expect(throws: DecodingError.self) { _ = try decoder.decode(Book.self, from: response) }
    }

    @Test(
        "a well-formed body of the wrong shape is XMLCoder's DecodingError",
        arguments: [
            "<book><title>Dune</title></book>",
            "<book><title>Dune</title><price>cheap</price></book>",
        ])
    func wrongShape(body: String) async {
        let network = stubNetwork(body: body)
        let error = await courierError {
            try await makeClient(network, decoders: [XMLBodyDecoder()]).enqueue(XMLEndpoint(method: .get)).resume(expecting: Book.self)
        }
        #expect(error?.decodingError != nil, "got \(String(describing: error))")
        #expect(error?.xmlParsingError == nil)
    }

    @Test("a DOCTYPE (external entity, billion laughs) is refused before any entity is read", arguments: [true, false])
    func documentTypeRefused(externalEntity: Bool) async throws {
        let body = try externalEntity ? XMLTreeParsingTests.externalEntityDocument() : XMLTreeParsingTests.billionLaughs
        let network = stubNetwork(body: body)
        let error = await courierError {
            try await makeClient(network, decoders: [XMLBodyDecoder()]).enqueue(XMLEndpoint(method: .get)).resume(expecting: Book.self)
        }
        #expect(error?.xmlParsingError?.reason == .documentTypeNotAllowed)
        #expect(!String(describing: error).contains(XMLTreeParsingTests.secret))
    }
}
