import Foundation
import HTTPTypes
import Testing

@testable import Courier

// The leaks of issue 9, defect 6, each as it was reproduced. These tests use only API that
// existed before the fix, so they can be run against it (they all failed there).

/// The error `body` throws.
private func thrownError(_ body: () throws(CourierError) -> Void) -> CourierError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}

/// A transport request from plain values.
private func request(
    _ method: HTTPRequest.Method = .get, _ urlString: String, headers: [(String, String)] = [], body: Data? = nil
) -> TransportRequest {
    let url = URL(string: urlString)!
    let components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
    var fields = HTTPFields()
    for (name, value) in headers {
        fields.append(HTTPField(name: HTTPField.Name(name)!, value: value))
    }
    var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
    if let query = components.percentEncodedQuery { path += "?" + query }
    let head = HTTPRequest(
        method: method, scheme: components.scheme, authority: components.percentEncodedHost,
        path: path, headerFields: fields)
    return TransportRequest(head: head, body: body.map(TransportBody.data), timeout: .seconds(30), url: url)
}

@Suite("Secrets in output: the leaks of issue 9")
struct SecretLeakRegressionTests {
    // MARK: BaseURL errors

    @Test(
        "a token given as user-info is in no BaseURL error, its description or its payload",
        arguments: [
            "ghp_SECRET@api.example.com",
            "ghp_SECRET:x-oauth-basic@api.example.com",
            "https://ghp_SECRET:pw@api.example.com",
            "[ghp_SECRET@::1]",
            "ghp_SECRET@bücher.example",
            "ghp_SECRET@-bad-.example",
        ])
    func hostWithUserInfo(host: String) throws {
        let error = try #require(thrownError { () throws(CourierError) in _ = try BaseURL(host: host) })
        guard case .invalidRequest(.invalidHost(let named, let reason)) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(!named.contains("SECRET"), "\(named)")
        #expect(reason.contains("user-info"), "\(reason)")
        #expect(renderings(of: error, containing: "SECRET").isEmpty)
        #expect(!error.localizedDescription.contains("SECRET"))
        #expect(error.description.contains("api.example.com") || host.contains("::1") || host.contains("example"))
    }

    @Test(
        "a token in a base URL string is in no error, its description or its payload",
        arguments: [
            "https://ghp_SECRET:pw@api.example.com",
            "https://ghp_SECRET@api.example.com",
            "https://ghp_SECRET:pw@api.example.com/v1",
            "https://ghp_SECRET@api.example.com?x=1",
            "https://api.example.com/v1?access_token=SECRET",
            "https://api.example.com#access_token=SECRET",
            "https://u:SECRET/with/slash@api.example.com",
            "ftp://ghp_SECRET@api.example.com",
            "api.example.com?token=SECRET",
        ])
    func baseURLStringWithSecret(string: String) throws {
        let error = try #require(thrownError { () throws(CourierError) in _ = try BaseURL(string: string) })
        if case .invalidRequest(.invalidBaseURL(let kept, _)) = error {
            #expect(!kept.contains("SECRET"), "\(kept)")
        }
        #expect(renderings(of: error, containing: "SECRET").isEmpty, "\(error)")
        #expect(!error.localizedDescription.contains("SECRET"))
    }

    @Test(
        "invalid-request errors that echo input never echo its secret part",
        arguments: [
            InvalidRequest.invalidHeaderName("Authorization: Bearer SECRET"),
            .invalidHeaderName("X-Api-Key SECRET"),
            .invalidHeaderValue(name: "Authorization: Bearer SECRET"),
            .invalidPath("/items?access_token=SECRET", reason: "contains a query"),
            .invalidPath("/items;jsessionid=SECRET/x", reason: "demo"),
            .invalidURL("https://ghp_SECRET@api.example.com/p"),
            .invalidURL("https://ada:SECRET@api.example.com/p"),
            .invalidURL("https://api.example.com/p?a=1;access_token=SECRET"),
            .invalidURL("https://api.example.com/p?X-Amz-Signature=SECRET"),
            .invalidHost("SECRET@api.example.com", reason: "made by hand"),
            .invalidBaseURL("https://SECRET@api.example.com", reason: "made by hand"),
        ])
    func invalidRequestEchoes(problem: InvalidRequest) {
        #expect(renderings(of: problem, containing: "SECRET").isEmpty, "\(problem)")
        let error = CourierError.invalidRequest(problem)
        #expect(renderings(of: error, containing: "SECRET").isEmpty, "\(error)")
    }

    @Test("an invalid header name is named up to its first invalid character")
    func headerNameStillNamed() {
        let text = InvalidRequest.invalidHeaderName("Authorization: Bearer SECRET").description
        #expect(text.contains("\"Authorization…\""), "\(text)")
        #expect(text.contains("U+3A"), "\(text)")
    }

    @Test("a host that is not authorized is named without its user-info")
    func hostNotAuthorized() {
        let error = CourierError.authentication(.hostNotAuthorized(host: "SECRET@api.example.com"))
        #expect(renderings(of: error, containing: "SECRET").isEmpty, "\(error)")
        #expect(error.description.contains("api.example.com"))
    }

    // MARK: Header names by pattern

    @Test(
        "a credential header is hidden by its name's pattern, not by a list",
        arguments: [
            "Api-Key", "X-Access-Token", "Private-Token", "X-Amz-Security-Token", "X-Goog-Api-Key",
            "Ocp-Apim-Subscription-Key", "X-Client-Secret", "X-Amz-Signature", "X-Password", "X-Session-Id",
            "Session", "X-CSRF-Token", "X-Auth-User", "X-Authorization", "Authentication-Info", "X-Api-Credential",
            "X-JWT-Assertion", "Proxy-Authorization", "Cookie", "X_Refresh_Token",
        ])
    func headerByPattern(name: String) {
        let sent = request(.post, "https://api.example.com/v1", headers: [(name, "SECRET-VALUE"), ("Accept", "application/json")])
        let outputs =
            [
                sent.curlCommand(),
                Redaction.default.redact(headers: sent.head.headerFields).map { "\($0.name): \($0.value)" }.joined(separator: "\n"),
            ] + everyRendering(of: sent) + everyRendering(of: HeaderItem(name: name, value: "SECRET-VALUE"))
        for output in outputs {
            #expect(!output.contains("SECRET"), "\(output)")
        }
        #expect(sent.curlCommand().contains("-H '\(name): <redacted>'"), "\(sent.curlCommand())")
        #expect(sent.curlCommand().contains("-H 'Accept: application/json'"))
    }

    // MARK: Query items, form fields and JSON keys

    @Test(
        "query items, form fields and JSON keys are hidden by pattern and after `;`",
        arguments: [
            ("https://api.example.com/p?a=1;access_token=SECRET", nil as String?, nil as String?),
            ("https://api.example.com/p?a=1&X-Amz-Signature=SECRET&X-Amz-Date=20260101", nil, nil),
            ("https://api.example.com/p?X-Amz-Security-Token=SECRET", nil, nil),
            ("https://api.example.com/p?session_id=SECRET", nil, nil),
            ("https://api.example.com/p?auth=SECRET", nil, nil),
            ("https://api.example.com/p;jsessionid=SECRET?a=1", nil, nil),
            ("https://ghp_SECRET@api.example.com/p", nil, nil),
            ("https://api.example.com/p#id_token=SECRET;state=1", nil, nil),
            ("https://api.example.com/p", "application/x-www-form-urlencoded", "a=1;password=SECRET"),
            ("https://api.example.com/p", "application/x-www-form-urlencoded", "grant_type=x&private_key=SECRET"),
            ("https://api.example.com/p", "application/json", #"{"authorization":"Bearer SECRET"}"#),
            ("https://api.example.com/p", "application/json", #"{"headers":{"Authorization":"SECRET","Accept":"*/*"}}"#),
            ("https://api.example.com/p", "application/json", #"{"a":[{"b":{"apiKey":"SECRET"}}]}"#),
            ("https://api.example.com/p", "application/json", #"{"user":{"sessionToken":"SECRET"}}"#),
            ("https://api.example.com/p", "application/json", #"{"credentials":{"user":"u","pw":"SECRET"}}"#),
            ("https://api.example.com/p", nil, #"{"client_secret":"SECRET"}"#),
        ])
    func parametersByPattern(url: String, contentType: String?, body: String?) {
        let sent = request(
            body == nil ? .get : .post, url,
            headers: contentType.map { [("Content-Type", $0)] } ?? [],
            body: body.map { Data($0.utf8) })
        let outputs =
            [sent.curlCommand(), Redaction.default.redact(url: sent.url), Redaction.default.describe(sent)]
            + everyRendering(of: sent)
        for output in outputs {
            #expect(!output.contains("SECRET"), "\(output)")
        }
    }

    @Test("what is not secret stays visible")
    func notSecretStaysVisible() {
        let sent = request(
            .post, "https://api.example.com/p?a=1;page=2&X-Amz-Date=20260101",
            headers: [("Content-Type", "application/json"), ("WWW-Authenticate", "Bearer realm=x")],
            body: Data(#"{"authorization":"Bearer SECRET","user":"ada","items":[1,2]}"#.utf8))
        let curl = sent.curlCommand()
        #expect(
            curl
                == #"curl -X 'POST' 'https://api.example.com/p?a=1;page=2&X-Amz-Date=20260101' -H 'Content-Type: application/json' -H 'WWW-Authenticate: Bearer realm=x' --data-binary '{"authorization":"<redacted>","items":[1,2],"user":"ada"}'"#
        )
    }

    // MARK: Values that hold secrets

    @Test("no rendering of a credential shows its tokens or password")
    func credentials() throws {
        let token = TokenCredential(
            accessToken: "SECRET-ACCESS", refreshToken: "SECRET-REFRESH",
            expiresAt: Date(timeIntervalSince1970: 1_800_000_000), scope: "read")
        let basic = BasicCredential(username: "ada", password: "SECRET-PASSWORD")
        let values: [Any] = [
            token, basic, Authentication.basic(basic), AuthEvent.refreshed(token), [token], Optional(token) as Any,
            OAuth2ClientAuthentication.basic(clientID: "app", clientSecret: "SECRET-CLIENT"),
        ]
        for value in values {
            #expect(renderings(of: value, containing: "SECRET").isEmpty, "\(everyRendering(of: value))")
        }
        var dumped = ""
        dump(token, to: &dumped)
        #expect(dumped.contains("read"))  // the mirror still shows what is not secret
        #expect(dumped.contains("<redacted>"))
        // Codable is how stores keep a credential: it must still encode the real tokens.
        let encoded = String(decoding: try JSONEncoder().encode(token), as: UTF8.self)
        #expect(encoded.contains("SECRET-ACCESS") && encoded.contains("SECRET-REFRESH"))
        #expect(try JSONDecoder().decode(TokenCredential.self, from: Data(encoded.utf8)) == token)
    }

    @Test("no rendering of a header or query item shows a secret value, and others show theirs")
    func items() {
        for value: Any in [
            HeaderItem(name: "Authorization", value: "Bearer SECRET"), HeaderItem(name: "Private-Token", value: "SECRET"),
            HeaderItem(name: "Authorization: Bearer SECRET", value: ""), HeaderItem(name: "X", value: "SECRET\r\nX-Forged: 1"),
            QueryItem(name: "access_token", value: "SECRET"), QueryItem(name: "X-Amz-Signature", value: "SECRET"),
            [QueryItem(name: "api-key", value: "SECRET")],
        ] {
            #expect(renderings(of: value, containing: "SECRET").isEmpty, "\(everyRendering(of: value))")
        }
        #expect(HeaderItem(name: "Authorization", value: "Bearer SECRET").description == "Authorization: Bearer <redacted>")
        #expect(HeaderItem.accept("application/json").description == "Accept: application/json")
        #expect(QueryItem(name: "page", value: "2").description == "page=2")
    }

    @Test("no rendering of a response or a transport failure shows a cookie, a body or a secret query item")
    func responsesAndFailures() throws {
        let url = try #require(URL(string: "https://ghp_SECRET@api.example.com/v1/me?api_key=SECRET&page=2"))
        let response = Response(
            statusCode: 401, headers: ["Set-Cookie": "session=SECRET", "X-Trace": "42"],
            body: Data(#"{"token":"SECRET"}"#.utf8), url: url)
        let failure = TransportFailure(URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url]), url: url)
        let values: [Any] = [
            response, failure, CourierError.response(response), CourierError.transport(failure),
            CourierError.decoding(DecodingFailure(reason: .other("x"), response: response, expectedType: "User")),
            CourierError.authentication(.refreshFailed(RefreshFailure(reason: .transport(failure), isPermanent: false))),
        ]
        for value in values {
            #expect(renderings(of: value, containing: "SECRET").isEmpty, "\(everyRendering(of: value))")
        }
        // The URL is still there, with what is not secret.
        #expect(failure.description == "timedOut, URLError -1001 (timedOut), for https://<redacted>@api.example.com/v1/me?api_key=<redacted>&page=2")
    }
}
