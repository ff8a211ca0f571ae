import Testing

@testable import Courier

@Suite("HTTP methods")
struct HTTPMethodTests {
    @Test("standard methods have their RFC 9110 names")
    func standardMethods() {
        let methods: [HTTPMethod] = [.get, .head, .post, .put, .patch, .delete, .options]
        #expect(methods.map(\.rawValue) == ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
    }

    @Test("custom methods must be tokens", arguments: ["PURGE", "PROPFIND", "M-SEARCH", "x!#$%&'*+.^_`|~1"])
    func acceptsTokens(token: String) throws {
        #expect(try HTTPMethod(validating: token).rawValue == token)
        #expect(HTTPMethod(rawValue: token)?.rawValue == token)
    }

    @Test("non-token methods are rejected", arguments: ["", "GET ", "G ET", "GET\r\n", "GÉT", "(GET)", "GET/1", "a:b", "a\"b"])
    func rejectsNonTokens(token: String) {
        #expect(HTTPMethod(rawValue: token) == nil)
        #expect {
            _ = try HTTPMethod(validating: token)
        } throws: { error in
            if case .invalidRequest(.invalidMethod(token)) = error as? CourierError { return true }
            return false
        }
    }

    @Test("only GET and HEAD refuse a body")
    func bodies() throws {
        #expect(!HTTPMethod.get.allowsRequestBody)
        #expect(!HTTPMethod.head.allowsRequestBody)
        #expect(HTTPMethod.post.allowsRequestBody)
        #expect(HTTPMethod.delete.allowsRequestBody)
        #expect(try HTTPMethod(validating: "PURGE").allowsRequestBody)
    }
}
