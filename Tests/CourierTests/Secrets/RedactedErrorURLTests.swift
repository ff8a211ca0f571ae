import Foundation
import Testing

@testable import Courier

@Suite("A URL that may be kept in an error")
struct RedactedErrorURLTests {
    @Test(
        "redactedForErrors drops user-info and replaces secret values, keeping a valid URL",
        arguments: [
            (
                "https://ada:S3CR3T@api.example.com/v1/me?access_token=S3CR3T&page=2",
                "https://api.example.com/v1/me?access_token=%3Credacted%3E&page=2"
            ),
            (
                "https://ghp_S3CR3T@api.example.com/p;jsessionid=S3CR3T?a=1;X-Amz-Signature=S3CR3T#id_token=S3CR3T",
                "https://api.example.com/p;jsessionid=%3Credacted%3E?a=1;X-Amz-Signature=%3Credacted%3E#id_token=%3Credacted%3E"
            ),
            ("http://127.0.0.1:8080/plain?x=1", "http://127.0.0.1:8080/plain?x=1"),
        ])
    func redactedForErrors(input: String, expected: String) throws {
        let url = try #require(URL(string: input))
        let redacted = url.redactedForErrors
        #expect(redacted.absoluteString == expected)
        #expect(!redacted.absoluteString.contains("S3CR3T"))
        #expect(redacted.host == url.host)
        // Printed through a URLError, as a transport would report it.
        let error = URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: redacted])
        #expect(renderings(of: error, containing: "S3CR3T").isEmpty)
    }
}
