import Courier
import CourierTesting
import CourierXML
import Foundation
import Testing

@Suite("Hostile XML: limits on depth, elements and attributes; deep trees without recursion", .heavy)
struct HostileStructureTests {
    static let depthLimit = XMLParsingLimits.default.maximumDepth

    @Test("the helper really runs on a 512 KB stack (as a secondary thread on Apple platforms)")
    func smallStack() async throws {
        let size = try await onSmallStack { currentThreadStackSize() }
        #if canImport(Glibc)
            #expect(size == appleSecondaryThreadStack)
        #endif
    }

    @Test("the defaults: depth 128, 100,000 elements, 256 attributes per element")
    func defaults() {
        #expect(
            XMLParsingLimits.default
                == XMLParsingLimits(
                    maximumDepth: 128, maximumElementCount: 100_000,
                    maximumAttributesPerElement: 256))
        #expect(XMLBodyDecoder().limits == .default)
        #expect(SOAPBodyDecoder().limits == .default)
    }

    @Test("10,000 nested elements are XMLBodyDecoder's typed depth error (not a crash in XMLCoder), on a 512 KB stack")
    func deepXMLBody() async throws {
        let response = makeResponse(HostileDocuments.nested(10_000))
        let error = try await onSmallStack { parsingError { _ = try XMLBodyDecoder().decode(TopOnly.self, from: response) } }
        // At the '>' of the 129th <a>.
        #expect(error == XMLParsingError(reason: .tooDeep(maximumDepth: Self.depthLimit), line: 1, column: 3 * (Self.depthLimit + 1)))
    }

    @Test("10,000 nested elements in a SOAP body are SOAPBodyDecoder's typed depth error, on a 512 KB stack")
    func deepSOAPBody() async throws {
        let response = makeResponse(HostileDocuments.envelope(HostileDocuments.nested(10_000)), contentType: "text/xml")
        let error = try await onSmallStack { parsingError { _ = try SOAPBodyDecoder().decode(TopOnly.self, from: response) } }
        #expect(error?.reason == .tooDeep(maximumDepth: Self.depthLimit))
        #expect(try await onSmallStack { response.soapFault } == nil)
        #expect(try await onSmallStack { parsingError { _ = try response.soapPayload() } }?.reason == .tooDeep(maximumDepth: Self.depthLimit))
    }

    @Test("through the client, a deep document fails the call with .decoding holding the depth error")
    func deepThroughClient() async {
        let network = stubNetwork(body: HostileDocuments.nested(10_000))
        let error = await courierError {
            try await makeClient(network, decoders: [XMLBodyDecoder()]).enqueue(XMLEndpoint(method: .get)).resume(expecting: TopOnly.self)
        }
        #expect(error?.xmlParsingError?.reason == .tooDeep(maximumDepth: Self.depthLimit))
    }

    @Test("a document exactly at the depth limit still decodes on a 512 KB stack; one level more is refused")
    func atTheLimit() async throws {
        let decoded = try await onSmallStack {
            try XMLBodyDecoder().decode(TopOnly.self, from: makeResponse(HostileDocuments.nested(Self.depthLimit)))
        }
        #expect(decoded == TopOnly())
        let tree = try await onSmallStack { try XMLTreeDocument(string: HostileDocuments.nested(Self.depthLimit)) }
        #expect(tree.root.text == "x")
        let error = try await onSmallStack {
            parsingError { _ = try XMLBodyDecoder().decode(TopOnly.self, from: makeResponse(HostileDocuments.nested(Self.depthLimit + 1))) }
        }
        #expect(error?.reason == .tooDeep(maximumDepth: Self.depthLimit))
    }

    @Test("a SOAP envelope exactly at the depth limit still decodes on a 512 KB stack")
    func soapAtTheLimit() async throws {
        // Envelope and Body are two levels; the payload takes the rest.
        let response = makeResponse(HostileDocuments.envelope(HostileDocuments.nested(Self.depthLimit - 2)), contentType: "text/xml")
        let decoded = try await onSmallStack { try SOAPBodyDecoder().decode(TopOnly.self, from: response) }
        #expect(decoded == TopOnly())
    }

    @Test("the depth limit is configurable on each reader", arguments: [1, 5, 500])
    func configurableDepth(limit: Int) throws {
        let limits = XMLParsingLimits(maximumDepth: limit)
        #expect(try XMLTreeDocument(string: HostileDocuments.nested(limit), limits: limits).root.name == "a")
        let tooDeep = XMLParsingError.Reason.tooDeep(maximumDepth: limit)
        #expect(parsingError { _ = try XMLTreeDocument(string: HostileDocuments.nested(limit + 1), limits: limits) }?.reason == tooDeep)
        let response = makeResponse(HostileDocuments.nested(limit + 1))
        #expect(parsingError { _ = try XMLBodyDecoder(limits: limits).decode(TopOnly.self, from: response) }?.reason == tooDeep)
        #expect(parsingError { _ = try response.xmlDocument(limits: limits) }?.reason == tooDeep)
        #expect(
            parsingError { _ = try XMLTreeDocument(string: "<a/>", limits: XMLParsingLimits(maximumDepth: 0)) }?.reason
                == .tooDeep(maximumDepth: 0))
    }

    @Test("a 50,000-deep document (limit raised) is parsed, written, read, compared, hashed and freed on a 512 KB stack")
    func deepTree() async throws {
        let xml = HostileDocuments.nested(50_000)
        let limits = XMLParsingLimits(maximumDepth: 50_000)
        let summary = try await onSmallStack {
            let document = try XMLTreeDocument(string: xml, limits: limits)
            let copy = try XMLTreeDocument(string: xml, limits: limits)
            var changed = document
            changed.root.children = [.element(XMLTreeNode("b"))]  // copy on write: `document` keeps its tree
            let written = try document.root.xmlString()
            return (
                written == xml, document.root.text, document == copy, document.hashValue == copy.hashValue,
                document == changed, document.root.firstDescendant { $0.children == [.text("x")] } != nil
            )
        }
        #expect(summary.0)
        #expect(summary.1 == "x")
        #expect(summary.2 && summary.3)
        #expect(!summary.4)
        #expect(summary.5)
        // One level more than the raised limit is still refused.
        #expect(
            parsingError { _ = try XMLTreeDocument(string: HostileDocuments.nested(50_001), limits: limits) }?.reason
                == .tooDeep(maximumDepth: 50_000))
    }

    @Test("a tree built in code 100,000 levels deep is freed without recursion, also while a copy of a branch lives on")
    func deepTreeInCode() async throws {
        let kept = try await onSmallStack {
            var node = XMLTreeNode("leaf", text: "x")
            var middle: XMLTreeNode?
            for level in 0..<100_000 {
                node = XMLTreeNode("a", elements: [node])
                if level == 50_000 { middle = node }
            }
            let written = try node.xmlString().utf8.count
            node = XMLTreeNode("gone")  // frees the 50,000 levels above `middle`
            return (middle!.text, written)
        }
        #expect(kept.0 == "x")  // and `middle`, 50,001 levels deep, is freed on return
        #expect(kept.1 == 100_000 * 7 + "<leaf>x</leaf>".utf8.count)
    }

    @Test("100,001 elements are refused by default, before XMLCoder sees them")
    func defaultElementCount() {
        let xml = "<r>" + String(repeating: "<i/>", count: 100_000) + "</r>"
        let expected = XMLParsingError.Reason.tooManyElements(maximumElementCount: 100_000)
        #expect(parsingError { _ = try XMLBodyDecoder().decode(TopOnly.self, from: makeResponse(xml)) }?.reason == expected)
    }

    @Test("more elements than the limit are a typed error", arguments: [1, 10, 1_000])
    func elementCount(limit: Int) throws {
        let limits = XMLParsingLimits(maximumElementCount: limit)
        let fits = "<r>" + String(repeating: "<i/>", count: limit - 1) + "</r>"
        #expect(try XMLTreeDocument(string: fits, limits: limits).root.elements.count == limit - 1)
        let tooMany = "<r>" + String(repeating: "<i/>", count: limit) + "</r>"
        let expected = XMLParsingError.Reason.tooManyElements(maximumElementCount: limit)
        #expect(parsingError { _ = try XMLTreeDocument(string: tooMany, limits: limits) }?.reason == expected)
        #expect(
            parsingError { _ = try XMLBodyDecoder(limits: limits).decode(TopOnly.self, from: makeResponse(tooMany)) }?.reason
                == expected)
        #expect(
            parsingError { _ = try SOAPBodyDecoder(limits: limits).decode(TopOnly.self, from: makeResponse(tooMany)) }?.reason
                == expected)
    }

    @Test("more attributes on one element than the limit are refused before XMLParser reads them, in time linear in their number")
    func attributeCount() throws {
        let attributes = { (count: Int) in (0..<count).map { " a\($0)=\"1\"" }.joined() }
        #expect(try XMLTreeDocument(string: "<r\(attributes(256))/>").root.attributes.count == 256)
        #expect(
            parsingError { _ = try XMLTreeDocument(string: "<r><i\(attributes(257))/></r>") }
                == XMLParsingError(reason: .tooManyAttributes(maximumAttributesPerElement: 256), line: 1, column: 4))
        // libxml2 checks 30,000 attributes for duplicates in about 0.25 s (quadratic); they never reach it.
        let hostile = "<r\(attributes(30_000))/>"
        var error: XMLParsingError?
        let cpu = threadCPUTime { error = parsingError { _ = try XMLBodyDecoder().decode(TopOnly.self, from: makeResponse(hostile)) } }
        #expect(error?.reason == .tooManyAttributes(maximumAttributesPerElement: 256))
        #expect(cpu < .seconds(1), "took \(cpu) of CPU")
        let raised = XMLParsingLimits(maximumAttributesPerElement: 1_000)
        #expect(try XMLTreeDocument(string: "<r\(attributes(1_000))/>", limits: raised).root.attributes.count == 1_000)
    }

    @Test("errors describe the limit that was passed")
    func descriptions() {
        #expect(
            XMLParsingError(reason: .tooDeep(maximumDepth: 128), line: 1, column: 388).description
                == "XML elements nest deeper than the limit of 128 at line 1, column 388")
        #expect(
            XMLParsingError(reason: .tooManyElements(maximumElementCount: 10)).description
                == "XML document has more elements than the limit of 10")
        #expect(
            XMLParsingError(reason: .tooManyAttributes(maximumAttributesPerElement: 256)).description
                == "XML element has more attributes than the limit of 256")
        #expect(
            XMLParsingError(reason: .nullCharacter, line: 2, column: 4).description
                == "XML document holds a NUL character (U+0000) at line 2, column 4")
        #expect(
            XMLParsingError(reason: .charsetMismatch(charset: "utf-8", detected: "UTF-16LE"), line: 1, column: 1).description
                == "XML document is read as utf-8 but its first bytes are UTF-16LE at line 1, column 1")
    }
}
