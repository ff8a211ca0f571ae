import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// Hostile review of `Response.decode(_:using:)`: every bad body is a typed
/// `CourierError.decoding` that keeps the response, never a crash and never silently wrong text.
@Suite("Hostile review (shape II): decoding hostile bodies")
struct DecodeHostileBodyTests {
    struct Model: Decodable, Sendable, Equatable { var id: Int }

    final class Node: Decodable, Sendable {
        let children: [Node]
    }

    static let url = URL(string: "https://api.example.com/x")!

    static func response(_ body: [UInt8], contentType: String? = nil) -> Response {
        var headers = HTTPFields()
        if let contentType { headers[.contentType] = contentType }
        return Response(status: .ok, headers: headers, body: Data(body), url: url)
    }

    /// The decoding failure `decode` threw, checking that it kept the response.
    static func failure<T: Decodable>(_ type: T.Type, of response: Response, sourceLocation: SourceLocation = #_sourceLocation) -> DecodingFailure? {
        do {
            let value = try response.decode(type)
            Issue.record("decoded \(value) from a bad body", sourceLocation: sourceLocation)
            return nil
        } catch {
            guard case .decoding(let failure) = error else {
                Issue.record("expected a decoding error, got \(error)", sourceLocation: sourceLocation)
                return nil
            }
            #expect(failure.response.body == response.body, sourceLocation: sourceLocation)
            #expect(failure.response.statusCode == response.statusCode, sourceLocation: sourceLocation)
            return failure
        }
    }

    // MARK: - String targets

    @Test("a String from a body in an unknown charset is unsupportedCharset, keeping the response")
    func unknownCharset() {
        let failure = Self.failure(String.self, of: Self.response(Array("hi".utf8), contentType: "text/plain; charset=x-klingon"))
        guard case .unsupportedCharset(let charset)? = failure?.reason else {
            Issue.record("\(String(describing: failure))")
            return
        }
        #expect(charset == "x-klingon")
    }

    /// Foundation reads `61 00 62` as UTF-16LE "a", silently dropping the odd byte; a 5-byte
    /// UTF-32 body read as one character. A truncated body is not text.
    @Test(
        "a UTF-16 or UTF-32 body cut inside a code unit is invalidText, not text missing its last bytes",
        arguments: [
            ("utf-16le", [0x61, 0x00, 0x62] as [UInt8]),
            ("utf-16be", [0x00, 0x61, 0x00]),
            ("utf-16", [0xFF, 0xFE, 0x61, 0x00, 0x62]),
            ("utf-32le", [0x61, 0, 0, 0, 0x62]),
            ("utf-32", [0x61]),
        ])
    func truncatedWideText(charset: String, bytes: [UInt8]) {
        let failure = Self.failure(String.self, of: Self.response(bytes, contentType: "text/plain; charset=\(charset)"))
        guard case .invalidText(let named)? = failure?.reason else {
            Issue.record("\(String(describing: failure))")
            return
        }
        #expect(named == charset)
    }

    @Test(
        "a byte-order mark is dropped from the text, whatever the Unicode charset",
        arguments: [
            ("utf-8", [0xEF, 0xBB, 0xBF, 0x68, 0x69] as [UInt8]),
            ("utf-16", [0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00]),
            ("utf-16le", [0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00]),
            ("utf-16be", [0xFE, 0xFF, 0x00, 0x68, 0x00, 0x69]),
            ("utf-32le", [0xFF, 0xFE, 0, 0, 0x68, 0, 0, 0, 0x69, 0, 0, 0]),
        ])
    func byteOrderMark(charset: String, bytes: [UInt8]) throws {
        #expect(try Self.response(bytes, contentType: "text/plain; charset=\(charset)").decode(String.self) == "hi")
    }

    @Test("UTF-16 text without a mark is read big-endian, as RFC 2781 says")
    func utf16WithoutMark() throws {
        #expect(try Self.response([0x00, 0x68, 0x00, 0x69], contentType: "text/plain; charset=UTF-16").decode(String.self) == "hi")
    }

    @Test(
        "malformed text in its charset is invalidText",
        arguments: [
            ("utf-8", [0xC3, 0x28] as [UInt8]),
            ("us-ascii", [0x61, 0xFF]),
            ("utf-16le", [0x00, 0xD8, 0x61, 0x00]),
            ("utf-32le", [0x00, 0x00, 0x11, 0x00]),
        ])
    func malformedText(charset: String, bytes: [UInt8]) {
        let failure = Self.failure(String.self, of: Self.response(bytes, contentType: "text/plain; charset=\(charset)"))
        guard case .invalidText? = failure?.reason else {
            Issue.record("\(String(describing: failure))")
            return
        }
    }

    @Test("a charset given quoted and in capitals is understood")
    func quotedCharset() throws {
        #expect(try Self.response([0xE9], contentType: #"text/plain; CHARSET="ISO-8859-1""#).decode(String.self) == "é")
    }

    // MARK: - Models, Data, EmptyResponse

    @Test("an empty body for a non-optional model is a decoding error keeping the response")
    func emptyBodyForAModel() {
        let failure = Self.failure(Model.self, of: Self.response([], contentType: "application/json"))
        guard case .decodingError? = failure?.reason else {
            Issue.record("\(String(describing: failure))")
            return
        }
        #expect(failure?.expectedType == "Model")
    }

    @Test(
        "malformed JSON is a decoding error",
        arguments: [
            #"{"id": "#, #"{"id": 1"#, "[", "\u{0}", #"{"id": 1e999999}"#, #"{"id": 9223372036854775808}"#, "nul",
        ])
    func malformedJSON(_ json: String) {
        let failure = Self.failure(Model.self, of: Self.response(Array(json.utf8), contentType: "application/json"))
        #expect(failure != nil)
    }

    @Test("JSON nested 100,000 deep is a decoding error, not a stack overflow")
    func deeplyNestedJSON() {
        let depth = 100_000
        let json = String(repeating: #"{"children":["#, count: depth) + String(repeating: "]}", count: depth)
        _ = Self.failure(Node.self, of: Self.response(Array(json.utf8), contentType: "application/json"))
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        _ = Self.failure(Model.self, of: Self.response(Array(arrays.utf8)))
    }

    @Test("a large JSON array of 200,000 models decodes")
    func largeJSON() throws {
        let json = "[" + (0..<200_000).map { #"{"id":\#($0)}"# }.joined(separator: ",") + "]"
        let models = try Self.response(Array(json.utf8), contentType: "application/json").decode([Model].self)
        #expect(models.count == 200_000)
        #expect(models.last == Model(id: 199_999))
    }

    @Test("JSON with a UTF-8 byte-order mark, and JSON in UTF-16, decode")
    func jsonWithMarkAndInUTF16() throws {
        #expect(try Self.response([0xEF, 0xBB, 0xBF] + Array(#"{"id":1}"#.utf8)).decode(Model.self) == Model(id: 1))
        let utf16 = try #require(#"{"id":2}"#.data(using: .utf16))
        #expect(try Self.response(Array(utf16), contentType: "application/json; charset=utf-16").decode(Model.self) == Model(id: 2))
    }

    @Test("Data and EmptyResponse take any body, in any charset, whatever the Content-Type")
    func dataAndEmptyResponseTakeAnything() throws {
        let hostile: [UInt8] = [0xFF, 0xFE, 0x00, 0xD8, 0xC3]
        let response = Self.response(hostile, contentType: "text/plain; charset=x-unknown")
        #expect(try response.decode(Data.self) == Data(hostile))
        #expect(try response.decode(EmptyResponse.self) == EmptyResponse())
        #expect(try Self.response([]).decode(Data.self).isEmpty)
        #expect(try Self.response([]).decode(String.self) == "")
    }

    @Test("an Optional model from an empty or null body: null decodes, empty is a decoding error")
    func optionalModels() throws {
        #expect(try Self.response(Array("null".utf8)).decode(Model?.self) == nil)
        _ = Self.failure(Model?.self, of: Self.response([]))
    }

    @Test("a decoder that throws a non-DecodingError keeps the response as decoderError")
    func throwingDecoder() {
        struct Refuses: ResponseBodyDecoder {
            struct Nope: Error {}
            var mediaTypes: [String] { ["application/x-nope"] }
            func decode<T: Decodable>(_ type: T.Type, from response: Response) throws -> T { throw Nope() }
        }
        let response = Self.response(Array("x".utf8), contentType: "application/x-nope")
        do {
            _ = try response.decode(Model.self, using: Refuses())
            Issue.record("decoded")
        } catch {
            guard case .decoding(let failure) = error, case .decoderError(let underlying) = failure.reason else {
                Issue.record("\(error)")
                return
            }
            #expect(underlying is Refuses.Nope)
            #expect(failure.response.body == response.body)
        }
    }
}
