import Courier
import CourierTesting
import CourierXML
import Foundation
import Testing

@Suite("Hostile XML: text in many pieces costs linear time", .heavy)
struct HostileTextTests {
    /// 150,000 references: one piece each, so XMLCoder would copy about 1.1 × 10^10 bytes.
    static let fragmented = "<a>" + String(repeating: "&amp;", count: 150_000) + "</a>"

    /// A ratio, not a time: four times the pieces must cost about four times the CPU (linear),
    /// not sixteen (quadratic, as joining the pieces one string at a time did). A ratio holds in
    /// debug and release builds and under the sanitizers, where one run is 5–15 times slower.
    @Test("text reported in 400,000 pieces (one per reference) is gathered in linear time")
    func textInPieces() throws {
        func document(pieces: Int) -> String {
            "<a>" + String(repeating: "&amp;", count: pieces / 2) + "x" + String(repeating: "&#233;", count: pieces / 2) + "</a>"
        }
        var small: XMLTreeDocument?
        var large: XMLTreeDocument?
        let smallCPU = try threadCPUTime { small = try XMLTreeDocument(string: document(pieces: 100_000)) }
        let largeCPU = try threadCPUTime { large = try XMLTreeDocument(string: document(pieces: 400_000)) }
        #expect(small?.root.text.unicodeScalars.count == 100_001)
        #expect(large?.root.children.count == 1)
        #expect(large?.root.text.unicodeScalars.count == 400_001)
        let ratio = largeCPU / smallCPU
        #expect(ratio < 8, "4× the pieces took \(ratio)× the CPU (\(smallCPU), then \(largeCPU)): not linear")
    }

    @Test(
        "XMLBodyDecoder refuses text XMLCoder would take seconds to join, at once; the tree reads it",
        arguments: ["references", "CRLF"])
    func xmlBodyRefusesFragmentedText(kind: String) throws {
        // One piece per reference, or one per CRLF line end.
        let xml = kind == "CRLF" ? "<a>" + String(repeating: "x\r\n", count: 200_000) + "</a>" : Self.fragmented
        let response = makeResponse(xml)
        var error: XMLParsingError?
        let cpu = threadCPUTime { error = parsingError { _ = try XMLBodyDecoder().decode(TopOnlyText.self, from: response) } }
        #expect(error?.reason == .textTooFragmented)
        // "At once" as a ratio, so it holds in debug, release and under the sanitizers: the
        // refusal costs about what reading the document into a tree costs (both linear), where
        // XMLCoder's joining would cost tens of times that (about 1.1 × 10^10 bytes copied).
        var tree: XMLTreeDocument?
        let treeCPU = try threadCPUTime { tree = try XMLTreeDocument(string: xml) }
        #expect((tree?.root.text.count ?? 0) >= 150_000)
        #expect(cpu < treeCPU * 4, "the refusal took \(cpu) of CPU, reading the tree \(treeCPU)")
    }

    @Test("SOAPBodyDecoder refuses a payload whose text XMLCoder would take seconds to join")
    func soapRefusesFragmentedText() throws {
        let response = makeResponse(HostileDocuments.envelope(Self.fragmented), contentType: "text/xml")
        #expect(parsingError { _ = try SOAPBodyDecoder().decode(TopOnlyText.self, from: response) }?.reason == .textTooFragmented)
        #expect(try response.soapPayload().text.count == 150_000)  // the tree reads it
    }

    @Test("text in fewer pieces still decodes: 50,000 references, and 300,000 Chinese characters")
    func belowTheBudget() throws {
        let references = "<a>" + String(repeating: "&amp;", count: 50_000) + "</a>"
        #expect(try XMLBodyDecoder().decode(TopOnlyText.self, from: makeResponse(references)).value == String(repeating: "&", count: 50_000))
        let chinese = String(repeating: "汉字", count: 150_000)
        #expect(try XMLBodyDecoder().decode(TopOnlyText.self, from: makeResponse("<a>\(chinese)</a>")).value == chinese)
        let response = makeResponse(HostileDocuments.envelope("<p>\(chinese)</p>"), contentType: "text/xml")
        #expect(try SOAPBodyDecoder().decode(TopOnlyText.self, from: response).value == chinese)
    }
}
