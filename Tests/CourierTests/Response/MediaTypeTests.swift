import Foundation
import Testing

@testable import Courier

@Suite("Media types read byte by byte")
struct MediaTypeTests {
    static let contentTypes: [String?] = [
        nil, "", " ", ";", "application/json", "Application/JSON", "APPLICATION/JSON; charset=utf-8",
        " application/json ;charset=utf-8", "\tapplication/json\t", "application/problem+json", "application/vnd.api+JSON",
        "application/json5", "application/jsonx", "text/json", "+json", "json", "text/html; charset=utf-8", "TEXT/PLAIN",
        "application/xml", "application/jsön", "applicatıon/json", "application/+json", "a/b+json;x=y",
    ]

    @Test("the JSON check on bytes agrees with mediaType and JSONBodyDecoder.isJSON", arguments: contentTypes)
    func theByteCheckAgrees(contentType: String?) {
        let response = Response(
            statusCode: 200, headers: contentType.map { ["Content-Type": $0] } ?? [:],
            url: URL(string: "https://example.com/")!)
        #expect(response.isJSONOrUntyped == (response.mediaType.map(JSONBodyDecoder.isJSON) ?? true))
    }

    @Test(
        "mediaType lower-cases and trims, and hands back an already bare type as it is",
        arguments: [
            ("application/json", "application/json"), ("Application/JSON", "application/json"),
            (" text/html ; charset=utf-8", "text/html"), ("\t", nil), ("TEXT/Plain;", "text/plain"),
        ] as [(String, String?)])
    func mediaType(contentType: String, expected: String?) {
        let response = Response(statusCode: 200, headers: ["Content-Type": contentType], url: URL(string: "https://example.com/")!)
        #expect(response.mediaType == expected)
    }
}
