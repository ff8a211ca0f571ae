import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// Builds a transport request from plain values, keeping header order.
private func makeRequest(
    _ urlString: String, headers: [(String, String)] = [], body: TransportBody? = nil
) -> TransportRequest {
    makeRequest(.get, urlString, headers: headers, body: body)
}

/// Builds a transport request with a method from plain values, keeping header order.
private func makeRequest(
    _ method: HTTPRequest.Method,
    _ urlString: String,
    headers: [(String, String)] = [],
    body: TransportBody? = nil
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
        method: method, scheme: components.scheme, authority: components.percentEncodedHost, path: path,
        headerFields: fields)
    return TransportRequest(head: head, body: body, timeout: .seconds(30), url: url)
}

private let form = "application/x-www-form-urlencoded"

/// A request that carries one secret somewhere, and a non-secret that must stay visible.
struct SecretCase: Sendable, CustomTestStringConvertible {
    let kind: String
    let request: TransportRequest
    let visible: [String]
    var secret: String { "S3CR3T-\(kind)" }
    var testDescription: String { kind }

    init(_ kind: String, visible: [String] = [], _ make: (String) -> TransportRequest) {
        self.kind = kind
        self.request = make("S3CR3T-\(kind)")
        self.visible = visible
    }

    static let all: [SecretCase] = [
        // Headers
        SecretCase("authorization", visible: ["Bearer", "Accept: application/json"]) {
            makeRequest("https://api.example.com/me", headers: [("Authorization", "Bearer \($0)"), ("Accept", "application/json")])
        },
        SecretCase("basic", visible: ["Basic <redacted>"]) {
            makeRequest("https://api.example.com/me", headers: [("authorization", "Basic \($0)")])
        },
        SecretCase("unknown-scheme") {
            makeRequest("https://api.example.com/me", headers: [("Authorization", "\($0) trailing")])
        },
        SecretCase("proxy-authorization") {
            makeRequest("https://api.example.com/me", headers: [("Proxy-Authorization", "Basic \($0)")])
        },
        SecretCase("cookie", visible: ["X-Trace: 42"]) {
            makeRequest("https://api.example.com/me", headers: [("Cookie", "a=1, b=\($0); c=3"), ("X-Trace", "42")])
        },
        SecretCase("repeated-cookie") {
            makeRequest("https://api.example.com/me", headers: [("Cookie", "a=1"), ("Cookie", "b=\($0)")])
        },
        SecretCase("x-api-key") {
            makeRequest("https://api.example.com/me", headers: [("X-API-KEY", $0)])
        },
        SecretCase("x-auth-token") {
            makeRequest("https://api.example.com/me", headers: [("x-auth-token", $0)])
        },
        SecretCase("referer-url", visible: ["state=ok"]) {
            makeRequest("https://api.example.com/me", headers: [("Referer", "https://app.example.com/cb?code=\($0)&state=ok")])
        },
        // Query items
        SecretCase("access_token", visible: ["page=2"]) { makeRequest("https://api.example.com/me?access_token=\($0)&page=2") },
        SecretCase("refresh_token") { makeRequest("https://api.example.com/t?refresh_token=\($0)") },
        SecretCase("id_token") { makeRequest("https://api.example.com/t?id_token=\($0)") },
        SecretCase("client_secret") { makeRequest("https://api.example.com/t?client_id=app&client_secret=\($0)") },
        SecretCase("code", visible: ["state=xyz"]) { makeRequest("https://app.example.com/cb?code=\($0)&state=xyz") },
        SecretCase("password") { makeRequest("https://api.example.com/login?user=bob&password=\($0)") },
        SecretCase("api_key") { makeRequest("https://api.example.com/v1?api_key=\($0)") },
        SecretCase("apiKey-camel") { makeRequest("https://api.example.com/v1?apiKey=\($0)") },
        SecretCase("token") { makeRequest("https://api.example.com/v1?token=\($0)") },
        SecretCase("percent-encoded-name") { makeRequest("https://api.example.com/v1?access%5Ftoken=\($0)") },
        SecretCase("double-encoded-name") { makeRequest("https://api.example.com/v1?access%255Ftoken=\($0)") },
        SecretCase("mixed-case-name") { makeRequest("https://api.example.com/v1?Access_TOKEN=\($0)") },
        SecretCase("repeated-item", visible: ["token=<redacted>&token=<redacted>"]) {
            makeRequest("https://api.example.com/v1?token=first&token=\($0)")
        },
        SecretCase("nested-bracket", visible: ["user%5Bname%5D=bob"]) {
            makeRequest("https://api.example.com/v1?user%5Bname%5D=bob&user%5Bpassword%5D=\($0)")
        },
        SecretCase("array-name") { makeRequest("https://api.example.com/v1?password%5B%5D=\($0)") },
        SecretCase("fragment") { makeRequest("https://app.example.com/cb#access_token=\($0)&token_type=bearer") },
        SecretCase("userinfo", visible: ["https://<redacted>@api.example.com"]) { makeRequest("https://bob:\($0)@api.example.com/v1") },
        // Form bodies
        SecretCase("form-password", visible: ["username=bob", "grant_type=password"]) {
            makeRequest(
                .post, "https://id.example.com/token", headers: [("Content-Type", form)],
                body: .data(Data("grant_type=password&username=bob&password=\($0)".utf8)))
        },
        SecretCase("form-refresh_token") {
            makeRequest(
                .post, "https://id.example.com/token", headers: [("Content-Type", "\(form); charset=utf-8")],
                body: .data(Data("grant_type=refresh_token&refresh_token=\($0)&scope=read".utf8)))
        },
        SecretCase("form-client_secret") {
            makeRequest(
                .post, "https://id.example.com/token", headers: [("Content-Type", form)],
                body: .data(Data("client_id=app&client_secret=\($0)".utf8)))
        },
        SecretCase("form-nested", visible: ["user%5Bname%5D=bob"]) {
            makeRequest(
                .post, "https://id.example.com/users", headers: [("Content-Type", form)],
                body: .data(Data("user%5Bname%5D=bob&user%5Bpassword%5D=\($0)".utf8)))
        },
        SecretCase("form-unlabelled") {
            makeRequest(
                .post, "https://id.example.com/token",
                body: .data(Data("grant_type=password&password=\($0)".utf8)))
        },
        SecretCase("form-not-text") {
            makeRequest(
                .post, "https://id.example.com/token", headers: [("Content-Type", form)],
                body: .data(Data("password=\($0) with spaces".utf8)))
        },
        // JSON bodies
        SecretCase("json-password", visible: [#""username":"bob""#]) {
            makeRequest(
                .post, "https://api.example.com/login", headers: [("Content-Type", "application/json")],
                body: .data(Data(#"{"username":"bob","password":"\#($0)"}"#.utf8)))
        },
        SecretCase("json-nested") {
            makeRequest(
                .post, "https://api.example.com/login", headers: [("Content-Type", "application/vnd.api+json")],
                body: .data(Data(#"{"data":[{"attributes":{"refreshToken":"\#($0)"}}]}"#.utf8)))
        },
        // Bodies never shown
        SecretCase("binary-body") {
            makeRequest(
                .put, "https://api.example.com/blob", headers: [("Content-Type", "application/octet-stream")],
                body: .data(Data([0, 1, 2]) + Data($0.utf8)))
        },
        SecretCase("long-text-body") {
            makeRequest(
                .post, "https://api.example.com/notes", headers: [("Content-Type", "text/plain")],
                body: .data(Data((String(repeating: "x", count: 5000) + $0).utf8)))
        },
    ]
}

@Suite("Redaction")
struct RedactionTests {
    @Test("a secret appears nowhere in what Courier prints", arguments: SecretCase.all)
    func secretIsHidden(_ secretCase: SecretCase) {
        let redaction = Redaction.default
        let request = secretCase.request
        let outputs = [
            redaction.redact(url: request.url),
            redaction.describe(request),
            request.curlCommand(),
            request.curlCommand(redaction: redaction),
            redaction.redact(headers: request.head.headerFields).map { "\($0.name.rawName): \($0.value)" }
                .joined(separator: "\n"),
        ]
        for output in outputs {
            #expect(!output.contains(secretCase.secret), "\(output)")
            #expect(!output.contains("S3CR3T"), "\(output)")
        }
        let curl = request.curlCommand()
        for text in secretCase.visible {
            #expect(curl.contains(text), "\(curl)")
        }
    }

    @Test("a response's Set-Cookie and query secrets never appear in its description")
    func responseDescription() {
        var headers = HTTPFields()
        headers.append(HTTPField(name: .setCookie, value: "session=S3CR3T-set-cookie; HttpOnly"))
        headers.append(HTTPField(name: .setCookie, value: "other=S3CR3T-second, Expires=Wed, 21 Oct 2026 07:28:00 GMT"))
        headers.append(HTTPField(name: .contentType, value: "application/json; charset=utf-8"))
        let response = Response(
            status: .ok, headers: headers, body: Data(#"{"access_token":"S3CR3T-body"}"#.utf8),
            url: URL(string: "https://api.example.com/me?access_token=S3CR3T-query&page=2")!)
        let description = Redaction.default.describe(response)
        #expect(!description.contains("S3CR3T"))
        #expect(description == "HTTP 200 from https://api.example.com/me?access_token=<redacted>&page=2 (3 headers, 30 bytes of application/json)")
        let shown = Redaction.default.redact(headers: response.headers)
        #expect(shown[values: .setCookie] == ["<redacted>", "<redacted>"])
        #expect(shown[.contentType] == "application/json; charset=utf-8")
    }

    @Test(
        "URL-valued headers are redacted like URLs, relative references too",
        arguments: [
            ("https://h.example/cb?code=S3CR3T&state=s", "https://h.example/cb?code=<redacted>&state=s"),
            ("/session/1?token=S3CR3T&page=2", "/session/1?token=<redacted>&page=2"),
            ("//cdn.example/a;jsessionid=S3CR3T/b", "//cdn.example/a;jsessionid=<redacted>/b"),
            ("/plain/path", "/plain/path"),
            ("text/plain", "text/plain"),
        ])
    func urlValuedHeaders(value: String, shown: String) throws {
        let name = try #require(HTTPField.Name("Location"))

        #expect(Redaction.default.redact(headers: [name: value])[name] == shown)
    }

    @Test("request descriptions give sizes, never bodies")
    func requestDescription() {
        let post = makeRequest(
            .post, "https://h.example/p?code=S3CR3T&x=1",
            headers: [("Content-Type", form), ("Accept", "*/*"), ("Authorization", "Bearer t")],
            body: .data(Data(repeating: UInt8(ascii: "a"), count: 120)))
        #expect(Redaction.default.describe(post) == "POST https://h.example/p?code=<redacted>&x=1 (3 headers, 120-byte body)")
        let get = makeRequest("https://h.example/", headers: [("Accept", "*/*")])
        #expect(Redaction.default.describe(get) == "GET https://h.example/ (1 header, no body)")
    }

    @Test(
        "URLs keep everything but secrets",
        arguments: [
            ("https://h.example/p", "https://h.example/p"),
            ("https://h.example:8443/a/b?x=1&y", "https://h.example:8443/a/b?x=1&y"),
            ("http://[::1]:8080/p?token=abc", "http://[::1]:8080/p?token=<redacted>"),
            ("https://bob@h.example/", "https://<redacted>@h.example/"),
            ("https://bob:pw@h.example/", "https://<redacted>@h.example/"),
            ("https://h.example/p?a=1;token=t;b=2", "https://h.example/p?a=1;token=<redacted>;b=2"),
            ("https://h.example/p;jsessionid=s/q;v=1", "https://h.example/p;jsessionid=<redacted>/q;v=1"),
            ("https://h.example/p?a=1&&token=&b", "https://h.example/p?a=1&&token=<redacted>&b"),
            ("https://h.example/p?token", "https://h.example/p?token"),
            ("https://h.example/p?code=1&decode=2&zipcode=3", "https://h.example/p?code=<redacted>&decode=2&zipcode=3"),
            ("https://h.example/p?auth.password=1", "https://h.example/p?auth.password=<redacted>"),
            ("https://h.example/p?Client-Secret=1", "https://h.example/p?Client-Secret=<redacted>"),
            ("https://h.example/p?pass+word=1", "https://h.example/p?pass+word=<redacted>"),
            ("https://h.example/p#section", "https://h.example/p#section"),
        ])
    func urls(_ input: String, _ expected: String) {
        #expect(Redaction.default.redact(url: URL(string: input)!) == expected)
    }

    @Test(
        "form bodies",
        arguments: [
            ("a=1&password=x", "a=1&password=<redacted>"),
            ("user%5Bpassword%5D=x&user%5Bname%5D=y", "user%5Bpassword%5D=<redacted>&user%5Bname%5D=y"),
            ("token=a&token=b&token", "token=<redacted>&token=<redacted>&token"),
            ("", ""),
        ])
    func formBodies(_ input: String, _ expected: String) {
        #expect(Redaction.default.redact(formBody: Data(input.utf8)) == expected)
    }

    @Test(
        "bytes that are not form-encoded text are not a form",
        arguments: [
            Data("a=1 b".utf8), Data("a=1\n".utf8), Data([0x61, 0x3D, 0xFF]), Data("a=é".utf8),
        ])
    func notForms(_ body: Data) {
        #expect(Redaction.default.redact(formBody: body) == nil)
    }

    @Test("the lists can be changed")
    func configurableLists() {
        let request = makeRequest(
            "https://h.example/p?code=c0de&sig=S1G",
            headers: [("X-Tenant-Secret", "T3NANT"), ("Authorization", "Bearer B34RER")])
        var redaction = Redaction.default
        redaction.exposed.insert("x-tenant-secret")  // shown, although it matches `secret`
        redaction.exposed.insert("Authorization")
        redaction.queryItems.insert("SIG")
        redaction.queryItems.remove("code")
        let curl = request.curlCommand(redaction: redaction)
        #expect(curl == "curl 'https://h.example/p?code=c0de&sig=<redacted>' -H 'X-Tenant-Secret: T3NANT' -H 'Authorization: Bearer B34RER'")
        #expect(redaction != Redaction.default)

        #expect(request.curlCommand(redaction: .disabled).contains("T3NANT"))
        #expect(Redaction.disabled.redact(url: request.url) == "https://h.example/p?code=c0de&sig=S1G")

        let formOnly = Redaction(formFields: ["pin"], namePatterns: Redaction.NamePatterns())
        #expect(formOnly.redact(formBody: Data("pin=1234&password=x".utf8)) == "pin=<redacted>&password=x")
        #expect(Redaction(formFields: ["pin"]).redact(formBody: Data("pin=1234&password=x".utf8)) == "pin=<redacted>&password=<redacted>")
        #expect(Redaction() == Redaction.default)
    }

    @Test(
        "cURL commands",
        arguments: [
            (makeRequest("https://h.example/p"), "curl 'https://h.example/p'"),
            (makeRequest(.head, "https://h.example/p"), "curl --head 'https://h.example/p'"),
            (makeRequest("http://[::1]:8080/p?token=t"), "curl --globoff 'http://[::1]:8080/p?token=<redacted>'"),
            (
                makeRequest(.delete, "https://h.example/p", headers: [("X-Note", "it's \"quoted\" $HOME `x`")]),
                #"curl -X 'DELETE' 'https://h.example/p' -H 'X-Note: it'\''s "quoted" $HOME `x`'"#
            ),
            (
                makeRequest(
                    .post, "https://h.example/p?user%5Bpassword%5D=x",
                    headers: [("Content-Type", form), ("Accept", "*/*")],
                    body: .data(Data("grant_type=password&password=p'w".utf8))),
                "curl -X 'POST' 'https://h.example/p?user%5Bpassword%5D=<redacted>' -H 'Content-Type: application/x-www-form-urlencoded' -H 'Accept: */*' --data-binary 'grant_type=password&password=<redacted>'"
            ),
            (
                makeRequest(
                    .post, "https://h.example/p", headers: [("Content-Type", "text/plain")],
                    body: .data(Data("it's fine".utf8))),
                #"curl -X 'POST' 'https://h.example/p' -H 'Content-Type: text/plain' --data-binary 'it'\''s fine'"#
            ),
            (
                makeRequest(
                    .put, "https://h.example/p", headers: [("Content-Type", "image/png")],
                    body: .data(Data([0x89, 0x50, 0x4E, 0x47]))),
                "curl -X 'PUT' 'https://h.example/p' -H 'Content-Type: image/png' --data-binary @-  # 4 bytes of image/png, not shown"
            ),
            (
                makeRequest(.post, "https://h.example/p", body: .data(Data())),
                "curl -X 'POST' 'https://h.example/p' --data-binary ''"
            ),
            (
                makeRequest(
                    .post, "https://h.example/p", headers: [("Content-Type", "application/json")],
                    body: .data(Data(#"{"b":[1,{"token":"t"}],"a":"x/y"}"#.utf8))),
                #"curl -X 'POST' 'https://h.example/p' -H 'Content-Type: application/json' --data-binary '{"a":"x/y","b":[1,{"token":"<redacted>"}]}'"#
            ),
            (
                makeRequest(
                    .post, "https://h.example/p", headers: [("Content-Type", "text/plain")],
                    body: .data(Data(repeating: UInt8(ascii: "a"), count: 5000))),
                "curl -X 'POST' 'https://h.example/p' -H 'Content-Type: text/plain' --data-binary @-  # 5000 bytes of text/plain, not shown"
            ),
        ])
    func curl(_ request: TransportRequest, _ expected: String) {
        #expect(request.curlCommand() == expected)
    }

    @Test("a form or JSON body past 64 KiB is described, not parsed, even when its redacted form would be short")
    func largeBodiesAreNotParsed() {
        let assertion = String(repeating: "a", count: 70_000)
        let json = makeRequest(
            .post, "https://h.example/t", headers: [("Content-Type", "application/json")],
            body: .data(Data(#"{"assertion":"\#(assertion)"}"#.utf8)))
        #expect(
            json.curlCommand()
                == "curl -X 'POST' 'https://h.example/t' -H 'Content-Type: application/json' --data-binary @-  # 70016 bytes of application/json, not shown")
        let small = makeRequest(
            .post, "https://h.example/t", headers: [("Content-Type", "application/json")],
            body: .data(Data(#"{"assertion":"\#(assertion.prefix(60_000))"}"#.utf8)))
        #expect(small.curlCommand().hasSuffix(#"--data-binary '{"assertion":"<redacted>"}'"#))
    }

    @Test("streamed bodies are described, never read")
    func streamedBody() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("redaction-\(UUID().uuidString).bin")
        try Data("password=S3CR3T".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let stream = try BodyStream(file: file)
        let request = makeRequest(
            .post, "https://h.example/up", headers: [("Content-Type", "application/octet-stream")],
            body: .stream(stream))
        #expect(
            request.curlCommand()
                == "curl -X 'POST' 'https://h.example/up' -H 'Content-Type: application/octet-stream' --data-binary @-  # streamed body, 15 bytes of application/octet-stream, not shown"
        )
        #expect(Redaction.default.describe(request) == "POST https://h.example/up (1 header, streamed 15-byte body)")
    }

    /// Single-quoted output, fed back through `sh`, gives back the exact text.
    @Test(
        "shell quoting round-trips through sh",
        arguments: [
            "plain", "it's", "''", "a'b'c", #"back\slash"#, "$HOME `id` \"q\" !x", "tab\tand\nnewline",
        ])
    func shellRoundTrip(_ value: String) throws {
        let request = makeRequest("https://h.example/p", headers: [("X-Value", value)])
        let command = request.curlCommand(redaction: .disabled)
        let sent = try #require(request.head.headerFields[HTTPField.Name("X-Value")!])
        let quoted = try #require(command.components(separatedBy: " -H ").last)
        let shell = URL(fileURLWithPath: "/bin/sh")
        guard FileManager.default.isExecutableFile(atPath: shell.path) else { return }
        let process = Process()
        process.executableURL = shell
        process.arguments = ["-c", "printf %s \(quoted)"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(String(decoding: output, as: UTF8.self) == "X-Value: \(sent)")
    }
}
