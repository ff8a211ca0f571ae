import Courier
import CourierTesting
import CourierXML
import Foundation
import Testing
import XMLCoder

struct NewOrder: Encodable, Sendable {
    var sku: String
    var quantity: Int
}

enum Colour: String, Encodable, Sendable { case red }

struct Spaced: Encodable, Sendable {
    var name = "Ada"
    enum CodingKeys: String, CodingKey { case name = "first name" }
}

struct Note: Encodable, Sendable {
    var text: String
}

@Suite("RequestBody.xml: XMLCoder bodies")
struct XMLRequestBodyTests {
    private func send(_ body: RequestBody) async throws -> RecordedRequest {
        let network = stubNetwork(body: "<ok/>")
        _ = try await makeClient(network).enqueue(XMLEndpoint(body: body)).resume()
        return try #require(network.requests.last)
    }

    @Test("the body is XMLCoder's document, byte for byte, with the declaration and the XML Content-Type")
    func byteExact() async throws {
        let request = try await send(.xml(NewOrder(sku: "A&B <1>", quantity: 2), rootKey: "order"))
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<order><sku>A&amp;B &lt;1&gt;</sku><quantity>2</quantity></order>")
        #expect(request.headerValue(for: "Content-Type") == "application/xml; charset=utf-8")
    }

    @Test("the root element is named after the type by default, and a nil header writes no declaration")
    func defaultRootKeyNoHeader() async throws {
        let request = try await send(.xml(NewOrder(sku: "A", quantity: 1), header: nil))
        #expect(String(decoding: request.body, as: UTF8.self) == "<NewOrder><sku>A</sku><quantity>1</quantity></NewOrder>")
    }

    @Test("the encoder factory is used")
    func customEncoder() async throws {
        let request = try await send(
            .xml(
                NewOrder(sku: "A", quantity: 1), rootKey: "order",
                encoder: {
                    let encoder = XMLEncoder()
                    encoder.keyEncodingStrategy = .uppercased
                    return encoder
                }, header: nil))
        #expect(String(decoding: request.body, as: UTF8.self) == "<order><SKU>A</SKU><QUANTITY>1</QUANTITY></order>")
    }

    @Test("a carriage return in text is sent as a character reference, so it survives parsing")
    func carriageReturn() async throws {
        let request = try await send(.xml(Note(text: "a\r\nb"), rootKey: "note", header: nil))
        #expect(String(decoding: request.body, as: UTF8.self) == "<note><text>a&#13;\nb</text></note>")
        #expect(try XMLTreeDocument(data: request.body).root.firstChild(named: "text")?.text == "a\r\nb")
    }

    @Test(
        "output that is not well-formed XML fails with encodingFailed and nothing is sent",
        arguments: ["a key that is not an XML name", "a control character"])
    func illFormedOutputIsRefused(reason: String) async throws {
        let body: RequestBody = reason.hasPrefix("a key") ? .xml(Spaced()) : .xml(Note(text: "bell \u{7}"))
        let network = stubNetwork(body: "<ok/>")
        let error = await courierError { try await makeClient(network).enqueue(XMLEndpoint(body: body)).resume() }
        guard case .invalidRequest(.encodingFailed(let message, _))? = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("not well-formed"))
        #expect(network.requests.isEmpty)
    }

    @Test(
        "a single value at the top level is an encoding error, not XMLCoder's fatalError",
        arguments: [
            RequestBody.xml("text"), .xml(42), .xml(Date()), .xml(Colour.red), .xml(Decimal(1)),
            .xml(URL(string: "https://example.com")!), .xml(Optional<String>.none),
        ])
    func singleValueTopLevel(body: RequestBody) async {
        let network = stubNetwork(body: "<ok/>")
        let error = await courierError { try await makeClient(network).enqueue(XMLEndpoint(body: body)).resume() }
        guard case .invalidRequest(.encodingFailed(let message, _))? = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("single value"))
        #expect(network.requests.isEmpty)
    }

    @Test("arrays and dictionaries are fine at the top level")
    func collectionsAtTopLevel() async throws {
        let request = try await send(.xml(["a", "b"], rootKey: "list", header: nil))
        #expect(String(decoding: request.body, as: UTF8.self) == "<list><list>a</list><list>b</list></list>")
    }

    @Test("a header declaring an encoding other than UTF-8 is refused: the bytes are UTF-8")
    func nonUTF8Header() async {
        let body = RequestBody.xml(Note(text: "é"), header: XMLHeader(version: 1.0, encoding: "ISO-8859-1"))
        let error = await courierError { try await makeClient(stubNetwork(body: "<ok/>")).enqueue(XMLEndpoint(body: body)).resume() }
        guard case .invalidRequest(.encodingFailed(let message, _))? = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("ISO-8859-1"))
    }
}
