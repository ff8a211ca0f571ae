import Foundation
import HTTPTypes
import Testing

@testable import Courier

@Suite("Secret names by pattern")
struct SecretNamePatternTests {
    @Test(
        "isSecret(headerName:) is true for credential headers",
        arguments: [
            "Authorization", "authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key",
            "X-Auth-Token", "Api-Key", "X-Access-Token", "Private-Token", "X-Amz-Security-Token",
            "X-Amz-Signature", "X-Goog-Api-Key", "X-Client-Secret", "X-Password", "X-Passwd", "X-Pwd",
            "X-Session-Id", "Session", "X-CSRF-Token", "X-XSRF-TOKEN", "X-Auth-User", "x_auth_user", "Auth",
            "Authentication-Info", "X-Api-Credential", "X-JWT", "X-Passphrase", "Sec-WebSocket-Key",
            "Idempotency-Key",
        ])
    func secretHeaders(name: String) {
        #expect(Redaction.default.isSecret(headerName: name))
    }

    @Test(
        "isSecret(headerName:) is false for ordinary headers",
        arguments: [
            "Accept", "Accept-Encoding", "Content-Type", "Content-Length", "User-Agent", "Host",
            "WWW-Authenticate", "X-Request-ID", "Cache-Control", "Location", "Referer", "If-None-Match",
            "Traceparent", "X-Amz-Date", "X-Amz-Content-Sha256", "Keep-Alive", "X-OAuth-Scopes",
        ])
    func ordinaryHeaders(name: String) {
        #expect(!Redaction.default.isSecret(headerName: name))
    }

    @Test("the lists add names no pattern matches; exposed removes names whatever matched them")
    func listsAndExposed() {
        var redaction = Redaction.default
        #expect(!redaction.isSecret(headerName: "X-Tenant"))
        redaction.headers.insert("x_tenant")
        #expect(redaction.isSecret(headerName: "X-Tenant"))

        redaction.exposed = ["Idempotency-Key", "authorization", "token_type", "X-Tenant"]
        #expect(!redaction.isSecret(headerName: "Idempotency-Key"))
        #expect(!redaction.isSecret(headerName: "Authorization"))
        #expect(!redaction.isSecret(headerName: "X-Tenant"))  // exposed wins over the list too
        #expect(redaction.isSecret(headerName: "Proxy-Authorization"))
        #expect(!redaction.isSecret(fieldName: "tokenType"))
        #expect(redaction.isSecret(fieldName: "access_token"))
        #expect(!redaction.isSecret(queryItemName: "data%5Btoken_type%5D"))  // its only secret part is exposed
        #expect(redaction.isSecret(queryItemName: "token_type%5Baccess_token%5D"))

        let request = TransportRequest(
            head: HTTPRequest(
                method: .post, scheme: "https", authority: "h.example", path: "/p?code=c0de",
                headerFields: [.authorization: "Bearer B34RER", HTTPField.Name("Idempotency-Key")!: "k-1"]),
            body: .data(Data(#"{"token_type":"bearer","access_token":"S3CR3T"}"#.utf8)), timeout: .seconds(1),
            url: URL(string: "https://h.example/p?code=c0de")!)
        redaction.queryItems.remove("code")
        #expect(
            request.curlCommand(redaction: redaction)
                == #"curl -X 'POST' 'https://h.example/p?code=c0de' -H 'Authorization: Bearer B34RER' -H 'Idempotency-Key: k-1' --data-binary '{"access_token":"<redacted>","token_type":"bearer"}'"#
        )
        #expect(
            request.curlCommand()
                == #"curl -X 'POST' 'https://h.example/p?code=<redacted>' -H 'Authorization: Bearer <redacted>' -H 'Idempotency-Key: <redacted>' --data-binary '{"access_token":"<redacted>","token_type":"<redacted>"}'"#
        )
    }

    @Test("patterns can be changed, and .disabled hides nothing")
    func patterns() {
        var redaction = Redaction.default
        redaction.namePatterns.fragments.insert("PIN")
        #expect(redaction.isSecret(fieldName: "user_pin"))
        #expect(redaction.isSecret(headerName: "X-Pin-Code"))
        #expect(!Redaction.default.isSecret(fieldName: "user_pin"))

        let listsOnly = Redaction(namePatterns: Redaction.NamePatterns())
        #expect(listsOnly.isSecret(headerName: "Authorization"))  // listed in defaultHeaders
        #expect(!listsOnly.isSecret(headerName: "Private-Token"))

        #expect(!Redaction.disabled.isSecret(headerName: "Authorization"))
        #expect(!Redaction.disabled.isSecret(queryItemName: "access_token"))
        #expect(Redaction.disabled.redact(url: URL(string: "https://h.example/p?access_token=t")!) == "https://h.example/p?access_token=t")
        // User-info is never printed, whatever the redaction: it is not a name that can be exposed.
        #expect(Redaction.disabled.redact(url: URL(string: "https://u:p@h.example/")!) == "https://<redacted>@h.example/")
    }

    @Test(
        "NamePatterns.matches reads fragments anywhere and prefixes at the start, after an X-",
        arguments: [
            ("access_token", true), ("AccessToken", true), ("my-secret-thing", true), ("monkey", true),
            ("auth", true), ("x-auth-user", true), ("X_AUTH", true), ("oauth_state", false),
            ("author", true), ("www-authenticate", false), ("state", false), ("", false), ("---", false),
        ])
    func matches(name: String, expected: Bool) {
        #expect(Redaction.NamePatterns.standard.matches(name) == expected)
    }

    @Test(
        "structured and encoded query names are secret when a part is",
        arguments: [
            ("user%5Bpassword%5D", true), ("auth%5B0%5D%5Btoken%5D", true), ("user.password", true),
            ("access%255Ftoken", true), ("pass+word", true), ("user%5Bname%5D", false), ("page", false),
            ("code", true), ("zipcode", false), ("sig", true), ("design", false),
        ])
    func queryNames(name: String, expected: Bool) {
        #expect(Redaction.default.isSecret(queryItemName: name) == expected)
    }

    @Test(
        "redact(urlString:) reads what does not parse, hiding user-info and secret items",
        arguments: [
            ("ghp_S3CR3T@api.example.com", "<redacted>@api.example.com"),
            ("https://u:p/S3CR3T@h x/p?token=S3CR3T&a=1", "https://<redacted>@h x/p?token=<redacted>&a=1"),
            ("//u:S3CR3T@h.example/p", "//<redacted>@h.example/p"),
            ("/users/ada@example.com?token=S3CR3T", "/users/ada@example.com?token=<redacted>"),
            ("not a url ?password=S3CR3T#access_token=S3CR3T", "not a url ?password=<redacted>#access_token=<redacted>"),
            ("https://h.example/p;jsessionid=S3CR3T;v=1?a=1", "https://h.example/p;jsessionid=<redacted>;v=1?a=1"),
            ("https://ada@h.example/", "https://<redacted>@h.example/"),
            ("https://h.example:8443/a?b=1&&token=&c", "https://h.example:8443/a?b=1&&token=<redacted>&c"),
            ("api.example.com", "api.example.com"),
        ])
    func urlStrings(input: String, expected: String) {
        #expect(Redaction.default.redact(urlString: input) == expected)
    }
}
