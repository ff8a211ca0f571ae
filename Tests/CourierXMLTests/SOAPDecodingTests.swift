import Courier
import CourierTesting
import CourierXML
import Foundation
import Testing

struct GetPriceResponse: Decodable, Sendable, Equatable {
    var Price: Decimal
    var Currency: String
}

@Suite("SOAP responses: payloads and faults")
struct SOAPDecodingTests {
    static let v11 = SOAPVersion.v1_1.namespace
    static let v12 = SOAPVersion.v1_2.namespace

    static func envelope(_ version: SOAPVersion, prefix: String = "s", body: String, header: String = "") -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <\(prefix):Envelope xmlns:\(prefix)="\(version.namespace)">\(header)
          <\(prefix):Body>\(body)</\(prefix):Body>
        </\(prefix):Envelope>
        """
    }

    static let priceBody = """
        <m:GetPriceResponse xmlns:m="urn:stock"><m:Price>1.90</m:Price><m:Currency>EUR</m:Currency></m:GetPriceResponse>
        """

    static let fault11 = """
        <s:Fault>
          <faultcode>s:Client.Authentication</faultcode>
          <faultstring xml:lang="en">Invalid token</faultstring>
          <faultactor>urn:gateway</faultactor>
          <detail><e:Error xmlns:e="urn:errors"><e:Code>42</e:Code></e:Error></detail>
        </s:Fault>
        """

    static let fault12 = """
        <s:Fault xmlns:app="urn:app">
          <s:Code><s:Value>s:Sender</s:Value><s:Subcode><s:Value>app:BadItem</s:Value><s:Subcode><s:Value>app:Unknown</s:Value></s:Subcode></s:Subcode></s:Code>
          <s:Reason><s:Text xml:lang="en">Unknown item</s:Text><s:Text xml:lang="fr-FR">Article inconnu</s:Text></s:Reason>
          <s:Node>urn:node</s:Node>
          <s:Role>http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver</s:Role>
          <s:Detail><app:Item>Kiwi</app:Item></s:Detail>
        </s:Fault>
        """

    private func call<T: Decodable & Sendable>(
        _ type: T.Type, status: Int = 200, contentType: String = "text/xml; charset=utf-8",
        body: String, decoder: any ResponseBodyDecoder = SOAPBodyDecoder()
    )
        async -> (Result<T, CourierError>, NetworkStub)
    {
        let network = stubNetwork(status: status, contentType: contentType, body: body)
        let endpoint = XMLEndpoint(body: .soap(SOAPEnvelope(body: XMLTreeNode("Ping"))), responseDecoder: decoder)
        do {
            return (.success(try await makeClient(network).enqueue(endpoint).resume(expecting: T.self)), network)
        } catch {
            return (.failure(error), network)
        }
    }

    @Test(
        "the payload inside Body is decoded with XMLCoder, prefixes and all",
        arguments: [
            (SOAPVersion.v1_1, "text/xml; charset=utf-8"), (.v1_2, "application/soap+xml; charset=utf-8"),
        ])
    func payload(version: SOAPVersion, contentType: String) async throws {
        let body = Self.envelope(version, body: Self.priceBody, header: "<s:Header><h:T xmlns:h=\"urn:h\">1</h:T></s:Header>")
        let (result, network) = await call(GetPriceResponse.self, contentType: contentType, body: body)
        #expect(try result.get() == GetPriceResponse(Price: Decimal(string: "1.90")!, Currency: "EUR"))
        #expect(network.requests.last?.headerValue(for: "Accept") == "application/soap+xml, text/xml")
    }

    @Test("the payload's namespace may be declared on the envelope: soapPayload() gives the payload with it")
    func payloadAsTree() async throws {
        let body = """
            <soap:Envelope xmlns:soap="\(Self.v11)" xmlns:m="urn:stock"><soap:Body><m:Quote m:id="1"><m:Price>2</m:Price></m:Quote></soap:Body></soap:Envelope>
            """
        let (result, _) = await call(Data.self, body: body)
        let node = try makeResponse(data: try result.get(), contentType: "text/xml").soapPayload()
        #expect(node.name == "m:Quote")
        #expect(node.namespaceDeclaration(forPrefix: "m") == "urn:stock")
        #expect(node.attributes.first == .init(name: "m:id", value: "1"))
        #expect(try node.firstChild(named: "m:Price")?.value(Int.self) == 2)
    }

    @Test("a SOAP 1.1 fault in a 500 is read from the response: error.response?.soapFault")
    func fault11In500() async throws {
        let (result, _) = await call(GetPriceResponse.self, status: 500, body: Self.envelope(.v1_1, body: Self.fault11))
        guard case .failure(let error) = result, case .response(let response) = error else {
            Issue.record("expected .response, got \(result)")
            return
        }
        let fault = try #require(error.response?.soapFault)
        #expect(response.soapFault == fault)
        #expect(error.soapFault == fault)
        #expect(fault.version == .v1_1)
        #expect(fault.code == SOAPFault.Code("Client.Authentication", namespace: Self.v11))
        #expect(fault.category == .sender)
        #expect(fault.subcodes.isEmpty)
        #expect(fault.reasons == [SOAPFault.Text("Invalid token", language: "en")])
        #expect(fault.reason == "Invalid token")
        #expect(fault.role == "urn:gateway")
        #expect(fault.node == nil)
        #expect(try fault.detail?.firstDescendant(named: "e:Code")?.value(Int.self) == 42)
        #expect(fault.description == "SOAP fault Client.Authentication: Invalid token")
    }

    @Test("a SOAP 1.2 fault in a 500: code, subcodes, reasons with languages, node, role, detail")
    func fault12In500() async throws {
        let (result, _) = await call(
            GetPriceResponse.self, status: 500, contentType: "application/soap+xml",
            body: Self.envelope(.v1_2, body: Self.fault12))
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        let fault = try #require(error.response?.soapFault)
        #expect(fault.version == .v1_2)
        #expect(fault.code == SOAPFault.Code("Sender", namespace: Self.v12))
        #expect(fault.category == .sender)
        #expect(fault.subcodes == [SOAPFault.Code("BadItem", namespace: "urn:app"), SOAPFault.Code("Unknown", namespace: "urn:app")])
        #expect(fault.reasons == [SOAPFault.Text("Unknown item", language: "en"), SOAPFault.Text("Article inconnu", language: "fr-FR")])
        #expect(fault.reason(preferring: "fr") == "Article inconnu")
        #expect(fault.reason(preferring: "de") == "Unknown item")
        #expect(fault.node == "urn:node")
        #expect(fault.role == "http://www.w3.org/2003/05/soap-envelope/role/ultimateReceiver")
        #expect(fault.detail?.elements.first?.text == "Kiwi")
    }

    @Test("a fault in a 200 makes the decoder throw it: .decoding holds it, never a model", arguments: SOAPVersion.allCases)
    func faultIn200(version: SOAPVersion) async throws {
        let (result, _) = await call(GetPriceResponse.self, body: Self.envelope(version, body: version == .v1_1 ? Self.fault11 : Self.fault12))
        guard case .failure(let error) = result, case .decoding(let failure) = error,
            case .decoderError(let underlying) = failure.reason
        else {
            Issue.record("expected .decoding(.decoderError), got \(result)")
            return
        }
        let fault = try #require(underlying as? SOAPFault)
        #expect(fault.version == version)
        #expect(fault.category == .sender)
        #expect(error.soapFault == fault)
    }

    @Test("soapPayload() throws a fault in a 200 as SOAPBodyDecoder does, and a missing Body as keyNotFound")
    func soapPayloadErrors() {
        let faulty = makeResponse(Self.envelope(.v1_2, body: Self.fault12), contentType: "application/soap+xml")
        #expect(throws: CourierError.self) { _ = try faulty.soapPayload() }
        do {
            _ = try faulty.soapPayload()
        } catch {
            #expect(error.soapFault?.subcodes.count == 2)
        }
        do {
            _ = try makeResponse("<s:Envelope xmlns:s=\"\(Self.v11)\"/>", contentType: "text/xml").soapPayload()
            Issue.record("expected an error")
        } catch {
            guard case .keyNotFound? = error.decodingError else {
                Issue.record("expected keyNotFound, got \(error)")
                return
            }
        }
    }

    @Test(
        "standard codes map onto one category for both versions",
        arguments: [
            (SOAPVersion.v1_1, "Server", SOAPFault.Category.receiver), (.v1_1, "Client", .sender), (.v1_1, "Server.Busy", .receiver),
            (.v1_1, "VersionMismatch", .versionMismatch), (.v1_1, "MustUnderstand", .mustUnderstand),
            (.v1_2, "Receiver", .receiver), (.v1_2, "Sender", .sender), (.v1_2, "DataEncodingUnknown", .dataEncodingUnknown),
        ])
    func categories(version: SOAPVersion, code: String, category: SOAPFault.Category) {
        #expect(SOAPFault(version: version, code: .init(code, namespace: version.namespace)).category == category)
        #expect(SOAPFault(version: version, code: .init(code, namespace: "urn:other")).category == nil)
    }

    @Test("an envelope without a Body is a keyNotFound DecodingError")
    func missingBody() async {
        let body = "<s:Envelope xmlns:s=\"\(Self.v11)\"><s:Header/></s:Envelope>"
        let (result, _) = await call(GetPriceResponse.self, body: body)
        guard case .failure(let error) = result, case .keyNotFound(let key, _)? = error.decodingError else {
            Issue.record("expected keyNotFound, got \(result)")
            return
        }
        #expect(key.stringValue == "Body")
    }

    @Test("a Body in another namespace is not the SOAP Body")
    func foreignBody() async {
        let body = "<s:Envelope xmlns:s=\"\(Self.v11)\" xmlns:x=\"urn:x\"><x:Body>\(Self.priceBody)</x:Body></s:Envelope>"
        let (result, _) = await call(GetPriceResponse.self, body: body)
        guard case .failure(let error) = result, case .keyNotFound? = error.decodingError else {
            Issue.record("expected keyNotFound, got \(result)")
            return
        }
    }

    @Test("an empty Body is a valueNotFound DecodingError")
    func emptyBody() async {
        let (result, _) = await call(GetPriceResponse.self, body: Self.envelope(.v1_2, body: ""))
        guard case .failure(let error) = result, case .valueNotFound? = error.decodingError else {
            Issue.record("expected valueNotFound, got \(result)")
            return
        }
    }

    @Test(
        "a root that is not a SOAP Envelope is dataCorrupted",
        arguments: [
            "<Envelope><Body/></Envelope>",
            "<s:Envelope xmlns:s=\"urn:not-soap\"><s:Body/></s:Envelope>",
            "<book><title>Dune</title></book>",
        ])
    func notAnEnvelope(body: String) async {
        let (result, _) = await call(GetPriceResponse.self, body: body)
        guard case .failure(let error) = result, case .dataCorrupted(let context)? = error.decodingError else {
            Issue.record("expected dataCorrupted, got \(result)")
            return
        }
        #expect(context.debugDescription.contains("not a SOAP envelope"))
    }

    @Test("a payload of the wrong shape is XMLCoder's DecodingError, not a fault")
    func wrongShape() async {
        let body = Self.envelope(.v1_1, body: "<m:GetPriceResponse xmlns:m=\"urn:stock\"><m:Price>cheap</m:Price></m:GetPriceResponse>")
        let (result, _) = await call(GetPriceResponse.self, body: body)
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(error.decodingError != nil)
        #expect(error.soapFault == nil)
    }

    @Test(
        "malformed XML and DOCTYPEs are refused as by XMLBodyDecoder",
        arguments: [
            "<s:Envelope xmlns:s=\"\(SOAPVersion.v1_1.namespace)\"><s:Body></s:Envelope>",
            XMLTreeParsingTests.billionLaughs,
        ])
    func malformed(body: String) async {
        let (result, _) = await call(GetPriceResponse.self, body: body)
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(error.xmlParsingError != nil)
    }

    @Test("non-UTF-8 bytes are an invalidText failure")
    func invalidText() async {
        let network = stubNetwork(contentType: "text/xml", data: Data("<s:Envelope xmlns:s=\"\(Self.v11)\"><s:Body>".utf8) + Data([0xFF]))
        let endpoint = XMLEndpoint(method: .get, responseDecoder: SOAPBodyDecoder())
        let error = await courierError { try await makeClient(network).enqueue(endpoint).resume(expecting: GetPriceResponse.self) }
        guard case .decoding(let failure)? = error, case .invalidText = failure.reason else {
            Issue.record("expected invalidText, got \(String(describing: error))")
            return
        }
    }

    @Test(
        "soapFault is nil for responses that are not SOAP faults",
        arguments: [
            ("text/xml", envelope(.v1_1, body: priceBody)),
            ("application/json", "{\"faultcode\": 1}"),
            ("text/html", envelope(.v1_1, body: fault11)),
            ("text/xml", "<not xml"),
            ("text/xml", "<Fault/>"),
        ])
    func noFault(contentType: String, body: String) {
        #expect(makeResponse(body, contentType: contentType, status: 500).soapFault == nil)
    }

    @Test("soapFault reads a fault without a Content-Type too")
    func faultWithoutContentType() {
        #expect(makeResponse(Self.envelope(.v1_1, body: Self.fault11), contentType: nil, status: 500).soapFault?.reason == "Invalid token")
    }

    @Test("the SOAP decoder can be a client-wide decoder, chosen by Content-Type")
    func clientWide() async throws {
        let network = stubNetwork(contentType: "application/soap+xml", body: Self.envelope(.v1_2, body: Self.priceBody))
        let price = try await makeClient(network, decoders: [SOAPBodyDecoder()]).enqueue(XMLEndpoint(method: .get))
            .resume(expecting: GetPriceResponse.self)
        #expect(price.Currency == "EUR")
    }
}
