import Courier
import CourierTesting
import CourierXML
import Foundation
import Testing

struct GetPriceRequest: Encodable, Sendable {
    var Item: String
}

@Suite("SOAP requests: envelopes, Content-Type and action")
struct SOAPEnvelopeTests {
    static let payload = XMLTreeNode("m:GetPrice", attributes: ["xmlns:m": "urn:stock"], elements: [XMLTreeNode("m:Item", text: "Apples & Pears")])

    private func send(_ body: RequestBody, headers: [HeaderItem]? = nil) async throws -> RecordedRequest {
        let network = stubNetwork(contentType: "text/xml", body: "<ok/>")
        _ = try await makeClient(network).enqueue(XMLEndpoint(headerItems: headers, body: body)).resume()
        return try #require(network.requests.last)
    }

    @Test("SOAP 1.1: soap: prefix, text/xml and a quoted SOAPAction, byte for byte")
    func soap11() async throws {
        let request = try await send(.soap(SOAPEnvelope(version: .v1_1, body: Self.payload), action: "urn:stock#GetPrice"))
        #expect(
            String(decoding: request.body, as: UTF8.self) == """
                <?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">\
                <soap:Body><m:GetPrice xmlns:m="urn:stock"><m:Item>Apples &amp; Pears</m:Item></m:GetPrice></soap:Body></soap:Envelope>
                """)
        #expect(request.headerValue(for: "Content-Type") == "text/xml; charset=utf-8")
        #expect(request.headerValue(for: "SOAPAction") == "\"urn:stock#GetPrice\"")
    }

    @Test("SOAP 1.2: env: prefix, application/soap+xml with the action parameter, no SOAPAction, byte for byte")
    func soap12() async throws {
        let request = try await send(.soap(SOAPEnvelope(version: .v1_2, body: Self.payload), action: "urn:stock#GetPrice"))
        #expect(
            String(decoding: request.body, as: UTF8.self) == """
                <?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope">\
                <env:Body><m:GetPrice xmlns:m="urn:stock"><m:Item>Apples &amp; Pears</m:Item></m:GetPrice></env:Body></env:Envelope>
                """)
        #expect(request.headerValue(for: "Content-Type") == "application/soap+xml; charset=utf-8; action=\"urn:stock#GetPrice\"")
        #expect(request.headerValue(for: "SOAPAction") == nil)
    }

    @Test("without an action: SOAP 1.1 still sends SOAPAction \"\", SOAP 1.2 has no action parameter")
    func noAction() async throws {
        let v11 = try await send(.soap(SOAPEnvelope(version: .v1_1, body: Self.payload)))
        #expect(v11.headerValue(for: "SOAPAction") == "\"\"")
        let v12 = try await send(.soap(SOAPEnvelope(version: .v1_2, body: Self.payload)))
        #expect(v12.headerValue(for: "Content-Type") == "application/soap+xml; charset=utf-8")
    }

    @Test("quotes and backslashes in the action are escaped in the quoted string", arguments: SOAPVersion.allCases)
    func actionQuoting(version: SOAPVersion) {
        let action = #"urn:a"b\c"#
        #expect(version.contentType(action: action).hasSuffix(version == .v1_2 ? #"; action="urn:a\"b\\c""# : "utf-8"))
        #expect(version.headers(action: action).map(\.value) == (version == .v1_1 ? [#""urn:a\"b\\c""#] : []))
    }

    @Test("an endpoint's SOAPAction replaces the body's")
    func endpointOverridesAction() async throws {
        let request = try await send(
            .soap(SOAPEnvelope(body: Self.payload), action: "urn:body"),
            headers: [HeaderItem(name: "SOAPAction", value: "\"urn:endpoint\"")])
        #expect(request.headerValue(for: "SOAPAction") == "\"urn:endpoint\"")
    }

    @Test("header entries go in a Header element before the Body; a custom prefix is used throughout")
    func headerEntriesAndPrefix() throws {
        let token = XMLTreeNode("t:Token", attributes: ["xmlns:t": "urn:t", "S:mustUnderstand": "1"], text: "abc")
        let envelope = SOAPEnvelope(version: .v1_1, prefix: "S", header: [token], body: XMLTreeNode("Ping"))
        #expect(
            try envelope.document().xmlString() == """
                <?xml version="1.0" encoding="UTF-8"?><S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/">\
                <S:Header><t:Token xmlns:t="urn:t" S:mustUnderstand="1">abc</t:Token></S:Header><S:Body><Ping/></S:Body></S:Envelope>
                """)
    }

    @Test("an Encodable body is written with XMLCoder, in the namespace given")
    func encodableBody() async throws {
        let envelope = SOAPEnvelope(version: .v1_2, body: GetPriceRequest(Item: "Apples"), rootKey: "GetPrice", namespace: "urn:stock")
        let request = try await send(.soap(envelope, action: "urn:GetPrice"))
        #expect(
            String(decoding: request.body, as: UTF8.self) == """
                <?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope">\
                <env:Body><GetPrice xmlns="urn:stock"><Item>Apples</Item></GetPrice></env:Body></env:Envelope>
                """)
    }

    @Test("pretty-printed envelopes")
    func prettyPrinted() throws {
        let xml = try SOAPEnvelope(body: XMLTreeNode("Ping", elements: [XMLTreeNode("At", text: "now")])).document().xmlString(.prettyPrinted)
        #expect(
            xml == """
                <?xml version="1.0" encoding="UTF-8"?>
                <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">
                  <soap:Body>
                    <Ping>
                      <At>now</At>
                    </Ping>
                  </soap:Body>
                </soap:Envelope>
                """)
    }

    @Test("a body that cannot be written fails the call with encodingFailed, and nothing is sent")
    func invalidBody() async {
        let network = stubNetwork(body: "<ok/>")
        let body = RequestBody.soap(SOAPEnvelope(body: XMLTreeNode("bad name")))
        let error = await courierError { try await makeClient(network).enqueue(XMLEndpoint(body: body)).resume() }
        guard case .invalidRequest(.encodingFailed(let message, _))? = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(message.contains("bad name"))
        #expect(network.requests.isEmpty)
    }

    @Test("versions know their namespaces and media types")
    func versions() {
        #expect(SOAPVersion(namespace: "http://schemas.xmlsoap.org/soap/envelope/") == .v1_1)
        #expect(SOAPVersion(namespace: "http://www.w3.org/2003/05/soap-envelope") == .v1_2)
        #expect(SOAPVersion(namespace: "urn:other") == nil)
        #expect(SOAPVersion.v1_1.mediaType == "text/xml")
        #expect(SOAPVersion.v1_2.mediaType == "application/soap+xml")
    }
}
