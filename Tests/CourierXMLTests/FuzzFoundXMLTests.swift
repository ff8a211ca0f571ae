import Courier
import Foundation
import Testing

@testable import CourierXML

/// Inputs the fuzz targets found that crashed FoundationXML (a `strlen(NULL)` for a processing
/// instruction without data); each must now be a typed error, through every entry point.
@Suite("XML inputs found by fuzzing")
struct FuzzFoundXMLTests {
    private struct Model: Decodable { var b: String? }

    @Test(
        "a processing instruction without data is refused, not handed to FoundationXML",
        arguments: [
            "<a><?foo?></a>", "<?foo?><a/>", "<a><?foo   ?></a>", "<a><?foo\n?></a>",
        ])
    func emptyProcessingInstruction(document: String) throws {
        #expect {
            _ = try XMLTreeDocument(data: Data(document.utf8))
        } throws: { error in
            (error as? XMLParsingError)?.reason == .emptyProcessingInstruction
        }
        let response = Response(
            statusCode: 200, headers: ["Content-Type": "application/xml"], body: Data(document.utf8),
            url: URL(string: "https://fuzz.invalid/")!)
        #expect(throws: (any Error).self) { _ = try XMLBodyDecoder().decode(Model.self, from: response) }
        #expect(throws: (any Error).self) { _ = try SOAPBodyDecoder().decode(Model.self, from: response) }
    }

    @Test(
        "processing instructions with data still parse",
        arguments: [
            #"<?xml version="1.0"?><a><?foo bar?></a>"#, "<a><?php echo 1; ?></a>",
        ])
    func processingInstructionsWithData(document: String) throws {
        #expect(try XMLTreeDocument(data: Data(document.utf8)).root.name == "a")
    }
}
