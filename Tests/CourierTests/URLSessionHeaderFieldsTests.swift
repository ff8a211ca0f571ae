import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// How `URLSessionTransport` hands a request's fields to `URLRequest`: in one dictionary, as
/// `URLRequest.addValue(_:forHTTPHeaderField:)` would have folded them.
@Suite("URLSessionTransport: header fields as URLRequest takes them")
struct URLSessionHeaderFieldsTests {
    private func fields(_ pairs: [(String, String)]) -> HTTPFields {
        HTTPFields(pairs.compactMap { name, value in HTTPField.Name(name).map { HTTPField(name: $0, value: value) } })
    }

    @Test("each name as first written, repeated names (in any case) folded with ',' in order")
    func repeatedNamesAreFolded() {
        let dictionary = URLSessionTransport.headerDictionary(
            fields([("X-Trace", "a"), ("Accept", "application/json"), ("x-trace", "b"), ("X-TRACE", "c")]))
        #expect(dictionary == ["X-Trace": "a,b,c", "Accept": "application/json"])
    }

    @Test("Cookie is left out: the transport joins cookies with '; ' itself")
    func cookieIsLeftOut() {
        let dictionary = URLSessionTransport.headerDictionary(fields([("Cookie", "a=1"), ("cookie", "b=2"), ("X-Id", "7")]))
        #expect(dictionary == ["X-Id": "7"])
    }

    @Test("an empty value stays an empty field", arguments: [[("X-Empty", "")], [("X-Empty", ""), ("X-Empty", "")]])
    func emptyValues(pairs: [(String, String)]) {
        #expect(URLSessionTransport.headerDictionary(fields(pairs))["X-Empty"] == (pairs.count == 1 ? "" : ","))
    }

    @Test("replacing a field removes it in any case")
    func replaceIgnoresCase() {
        var headers = ["content-length": "99", "X-Id": "7"]
        URLSessionTransport.replace("Content-Length", with: "10", in: &headers)
        #expect(headers == ["Content-Length": "10", "X-Id": "7"])
    }
}
