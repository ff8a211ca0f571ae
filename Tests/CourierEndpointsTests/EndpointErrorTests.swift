import Courier
import CourierEndpoints
import Foundation
import Testing

/// Mistakes in a modifier chain never crash and never send anything: the call fails with a typed
/// `CourierError` when it is resumed.
@Suite("Declarative endpoints: errors surface at resume")
struct EndpointErrorTests {
    private func invalidRequest(_ endpoint: some Requestable) async -> InvalidRequest? {
        let sent = await sendDeclared(endpoint)
        #expect(sent.count == 0, "nothing may be sent")
        guard case .failure(.invalidRequest(let reason)) = sent.result else {
            Issue.record("expected invalidRequest, got \(sent.result)")
            return nil
        }
        return reason
    }

    @Test("a bad path segment fails with invalidPath", arguments: ["", ".", ".."])
    func badSegment(segment: String) async {
        guard case .invalidPath(_, let reason)? = await invalidRequest(declaredAPI.get("users", segment)) else {
            Issue.record("expected invalidPath")
            return
        }
        #expect(!reason.isEmpty)
        guard case .invalidPath? = await invalidRequest(declaredAPI.get("users").appending("ok", segment)) else {
            Issue.record("expected invalidPath from appending")
            return
        }
    }

    @Test func aBadHeaderNameOrValueFailsBeforeSending() async {
        guard case .invalidHeaderName("Bad Name")? = await invalidRequest(declaredAPI.get("x").header("Bad Name", "v")) else {
            Issue.record("expected invalidHeaderName")
            return
        }
        guard case .invalidHeaderValue(name: "X-Injected")? = await invalidRequest(declaredAPI.get("x").header("X-Injected", "a\r\nEvil: 1")) else {
            Issue.record("expected invalidHeaderValue")
            return
        }
        guard case .reservedHeader("Content-Length")? = await invalidRequest(declaredAPI.post("x").header("Content-Length", "1")) else {
            Issue.record("expected reservedHeader")
            return
        }
    }

    @Test func aJSONValueThatThrowsWhileEncodingFailsWithEncodingFailed() async {
        struct Throws: Encodable, Sendable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(self, .init(codingPath: [], debugDescription: "refused"))
            }
        }
        guard case .encodingFailed(let message, _)? = await invalidRequest(declaredAPI.post("x").json(Throws())) else {
            Issue.record("expected encodingFailed")
            return
        }
        #expect(message.contains("refused"))
    }

    @Test("a NaN or infinite query number fails with encodingFailed", arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteQueryNumber(value: Double) async {
        guard case .encodingFailed(let message, _)? = await invalidRequest(declaredAPI.get("x").query("ratio", value)) else {
            Issue.record("expected encodingFailed")
            return
        }
        #expect(message.contains("ratio"))
        guard case .encodingFailed? = await invalidRequest(declaredAPI.get("x").query("f", Float(value))) else {
            Issue.record("expected encodingFailed for a Float")
            return
        }
    }

    @Test func aQueryOrFormEncodableThatIsNotKeyedFailsWithEncodingFailed() async {
        guard case .encodingFailed? = await invalidRequest(declaredAPI.get("x").query(encoding: [1, 2])) else {
            Issue.record("expected encodingFailed from query(encoding:)")
            return
        }
        guard case .encodingFailed? = await invalidRequest(declaredAPI.post("x").form(encoding: "single")) else {
            Issue.record("expected encodingFailed from form(encoding:)")
            return
        }
    }

    @Test func theFirstMistakeOfTheChainIsReported() async {
        let endpoint = declaredAPI.get("users", "..").query(encoding: [1]).appending("")
        guard case .invalidPath(let path, _)? = await invalidRequest(endpoint) else {
            Issue.record("expected the path error, which came first")
            return
        }
        #expect(path.contains(".."))
    }

    @Test func aNonPositiveTimeoutFailsWithInvalidTimeout() async {
        guard case .invalidTimeout(.zero)? = await invalidRequest(declaredAPI.get("x").timeout(.zero)) else {
            Issue.record("expected invalidTimeout")
            return
        }
    }

    @Test(
        "an API string that is not a base URL fails each call, never at declaration",
        arguments: [
            "api.example.com", "ftp://api.example.com", "https://api.example.com?x=1", "https://api.example.com#f",
            "https://", "https://api.example.com:99999", "https://bad host.invalid/v1", "https://api.example.com/v1?x=1",
            "https://api.example.com/v1#frag", "https://api.example.com//v1", "https://api.example.com/a/../b",
        ])
    func invalidAPIString(string: String) async {
        let api = API(string: string)
        let reason = await invalidRequest(api.get("users"))
        #expect(reason != nil)
    }

    @Test func anAPIStringWithUserInfoIsRefusedWithoutPrintingIt() async {
        for string in ["https://ada:s3cret@api.example.com/v1", "https://ada:s3/cret@api.example.com", "https://ghp_TOKEN@api.example.com"] {
            let sent = await sendDeclared(API(string: string).get("users"))
            #expect(sent.count == 0)
            guard case .failure(let error) = sent.result else {
                Issue.record("expected a failure for \(string)")
                continue
            }
            let printed = "\(error) \(String(reflecting: error))"
            #expect(!printed.contains("s3cret") && !printed.contains("cret") && !printed.contains("ghp_TOKEN"), "\(printed)")
        }
    }

    @Test func anAPIPathWithASecretQueryIsRefusedWithTheSecretRedacted() async {
        let sent = await sendDeclared(API(string: "https://api.example.com/v1?access_token=SECRET").get("users"))
        guard case .failure(.invalidRequest(.invalidPath(let path, _))) = sent.result else {
            Issue.record("expected invalidPath, got \(sent.result)")
            return
        }
        #expect(!path.contains("SECRET"))
        #expect(!"\(sent.result)".contains("SECRET"))
    }

    @Test(
        "valid API strings give the base URL and path",
        arguments: [
            ("https://api.example.com", "https://api.example.com/users"),
            ("https://api.example.com/", "https://api.example.com/users"),
            ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/users"),
            ("http://[::1]:8080/a/b/", "http://[::1]:8080/a/b/users"),
            ("HTTPS://API.Example.com/v1/%7Euser", "https://api.example.com/v1/%7Euser/users"),
        ])
    func validAPIString(string: String, expected: String) async throws {
        let request = try #require(await sendDeclared(API(string: string).get("users")).request)
        #expect(request.url.absoluteString == expected)
    }
}
