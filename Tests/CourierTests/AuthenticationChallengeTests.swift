import Foundation
import HTTPTypes
import Testing

@testable import Courier

private typealias Challenge = AuthenticationChallenge
private typealias Parameter = AuthenticationChallenge.Parameter

@Suite("WWW-Authenticate: reading challenges (RFC 9110 §11.6.1, RFC 6750 §3)")
struct AuthenticationChallengeTests {
    @Test("the RFC 9110 §11.6.1 example: two challenges, a token value, an escaped quote")
    func rfcExample() {
        let challenges = Challenge.parse(#"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#)
        #expect(
            challenges == [
                Challenge(
                    scheme: "Newauth",
                    parameters: [
                        Parameter(name: "realm", value: "apps"), Parameter(name: "type", value: "1"),
                        Parameter(name: "title", value: #"Login to "apps""#),
                    ]),
                Challenge(scheme: "Basic", parameters: [Parameter(name: "realm", value: "simple")]),
            ])
    }

    @Test("RFC 6750 §3 Bearer challenges: realm, error, error_description, error_uri and scope")
    func bearer() throws {
        let field =
            #"Bearer realm="example", error="invalid_token", error_description="The access token expired", "#
            + #"error_uri="https://example.com/e/1", scope="openid profile  email""#
        let challenge = try #require(Challenge.parse(field).first)
        #expect(challenge.hasScheme("bearer"))
        #expect(challenge[parameter: "realm"] == "example")
        #expect(challenge[parameter: "error"] == "invalid_token")
        #expect(challenge[parameter: "error_description"] == "The access token expired")
        #expect(challenge[parameter: "error_uri"] == "https://example.com/e/1")
        #expect(challenge.scopes == ["openid", "profile", "email"])
        #expect(challenge.token68 == nil)
    }

    @Test("a challenge without parameters has no realm, error or scopes")
    func bareScheme() throws {
        let challenge = try #require(Challenge.parse("Bearer").first)
        #expect(challenge == Challenge(scheme: "Bearer"))
        #expect(challenge[parameter: "realm"] == nil && challenge[parameter: "error"] == nil && challenge.scopes.isEmpty)
    }

    @Test(
        "token68 stands alone after its scheme, with trailing '=' padding",
        arguments: [
            ("Negotiate YIIBhgYGKwYBBQUC", [Challenge(scheme: "Negotiate", token68: "YIIBhgYGKwYBBQUC")]),
            ("Basic dXNlcjpwYXNz==", [Challenge(scheme: "Basic", token68: "dXNlcjpwYXNz==")]),
            ("Foo a-._~+/9=  ", [Challenge(scheme: "Foo", token68: "a-._~+/9=")]),
            // The grammar reads a lone `name=` as a token68, not as a parameter without a value.
            ("Bearer realm=", [Challenge(scheme: "Bearer", token68: "realm=")]),
            (
                "Negotiate abc=, Basic realm=x",
                [
                    Challenge(scheme: "Negotiate", token68: "abc="),
                    Challenge(scheme: "Basic", parameters: [Parameter(name: "realm", value: "x")]),
                ]
            ),
        ])
    func token68(field: String, expected: [AuthenticationChallenge]) {
        #expect(Challenge.parse(field) == expected)
    }

    @Test(
        "several challenges in one field, with empty list elements and optional whitespace",
        arguments: [
            ("Basic, Bearer", ["Basic", "Bearer"]),
            (" ,, Basic realm=\"a\" ,\t, Bearer error=invalid_token ,", ["Basic", "Bearer"]),
            ("Basic , realm=a, Bearer", ["Basic", "Bearer"]),
            ("Basic realm = \"a\"\t,DPoP algs=\"ES256 PS256\", Bearer", ["Basic", "DPoP", "Bearer"]),
        ])
    func severalChallenges(field: String, schemes: [String]) {
        #expect(Challenge.parse(field).map(\.scheme) == schemes)
    }

    @Test("parameter names are case-insensitive and stored in lower case; values keep their case")
    func caseInsensitiveNames() throws {
        let challenge = try #require(Challenge.parse(#"BEARER Realm="Api", ERROR=Invalid_Token"#).first)
        #expect(challenge.parameters == [Parameter(name: "realm", value: "Api"), Parameter(name: "error", value: "Invalid_Token")])
        #expect(challenge[parameter: "REALM"] == "Api")
        #expect(challenge[parameter: "error"] == "Invalid_Token")
        #expect(challenge.hasScheme("Bearer") && !challenge.hasScheme("Basic"))
        #expect(Parameter(name: "X-Mixed", value: "V").name == "x-mixed")
    }

    @Test("quoted-strings: escapes, commas, equals signs, tabs and non-ASCII text are values, not structure")
    func quotedStrings() throws {
        let challenge = try #require(Challenge.parse("Custom a=\"x, b=y\", c=\"back\\\\slash\", d=\"tab\\\there\", e=\"café ✓\", f=\"\"").first)
        #expect(
            challenge.parameters == [
                Parameter(name: "a", value: "x, b=y"), Parameter(name: "c", value: #"back\slash"#),
                Parameter(name: "d", value: "tab\there"), Parameter(name: "e", value: "café ✓"), Parameter(name: "f", value: ""),
            ])
    }

    @Test(
        "a malformed challenge ends the reading; the complete challenges before it are kept",
        arguments: [
            (#"Bearer error="unterminated"#, []),
            (#"Basic realm="a", Bearer error="unterminated"#, ["Basic"]),
            ("Bearer realm=\"a\", error=", []),  // no value
            ("Bearer a=1, realm=, Basic", []),
            ("Bearer realm x", []),  // a parameter without "="
            ("Bearer realm=a b", []),  // two tokens as one value
            ("Bearer realm=\"a\"\"b\"", []),  // a quote after a value
            ("Bearer =x", []),  // no name
            ("Bearer\"x\"", []),  // no space after the scheme
            ("=Basic", []),  // no scheme
            ("Bearer realm=a, realm=b", []),  // a name twice
            ("Bearer realm=a, REALM=b", []),  // a name twice, in other case
            ("Negotiate abc, realm=x", ["Negotiate"]),  // token68 takes no parameters
            ("Basic realm=\"a\u{7F}\"", []),  // DEL in a quoted-string
            ("Basic realm=\"a\u{01}\"", []),  // a control character
            ("Basic realm=\"a\\\u{01}\"", []),  // an escaped control character
            ("Basic realm=\"a\\", []),  // a backslash at the end
            ("Basic realm=é", []),  // non-ASCII outside quotes
            ("Bäsic realm=a", []),
            ("Basic, Bearer realm=\"x\", =", ["Basic"]),  // garbage after a parameter
        ])
    func malformed(field: String, keptSchemes: [String]) {
        #expect(Challenge.parse(field).map(\.scheme) == keptSchemes)
    }

    @Test("empty and whitespace-only fields have no challenges", arguments: ["", " ", ",", " , ,\t"])
    func empty(field: String) {
        #expect(Challenge.parse(field).isEmpty)
    }

    @Test("a field longer than 8 KiB gives no challenges; one of exactly 8 KiB is read")
    func fieldLengthLimit() {
        let prefix = "Basic realm=\""
        let fits = prefix + String(repeating: "a", count: Challenge.maximumFieldLength - prefix.utf8.count - 1) + "\""
        #expect(fits.utf8.count == Challenge.maximumFieldLength)
        #expect(Challenge.parse(fits).first?[parameter: "realm"]?.count == Challenge.maximumFieldLength - prefix.utf8.count - 1)
        #expect(Challenge.parse(String(fits.dropLast()) + "a\"").isEmpty)
    }

    @Test("at most 16 challenges are read from a field; later ones are ignored")
    func challengeLimit() {
        let field = (1...40).map { "S\($0) p=\($0)" }.joined(separator: ", ")
        let challenges = Challenge.parse(field)
        #expect(challenges.count == Challenge.maximumChallenges)
        #expect(challenges.map(\.scheme) == (1...16).map { "S\($0)" })
    }

    @Test("a challenge with 32 parameters is read; one with 33 is malformed")
    func parameterLimit() {
        func field(_ count: Int) -> String {
            "Basic, Custom " + (1...count).map { "p\($0)=v" }.joined(separator: ", ")
        }
        #expect(Challenge.parse(field(32)).last?.parameters.count == 32)
        #expect(Challenge.parse(field(33)).map(\.scheme) == ["Basic"])
    }

    @Test("a pathological field is read in linear time: 4,000 empty elements and 2,700 one-letter challenges")
    func pathologicalFields() {
        #expect(Challenge.parse(String(repeating: ",", count: 8_000)).isEmpty)
        let manyBareSchemes = String(repeating: "a,", count: 4_000)
        #expect(Challenge.parse(manyBareSchemes).count == Challenge.maximumChallenges)
        #expect(Challenge.parse("x " + String(repeating: "a=\"\",", count: 1_600)).isEmpty)  // a name repeated
    }

    @Test(
        "every parsed challenge written back as a field value reads as itself",
        arguments: [
            #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#,
            "Negotiate YIIBhgYGKwYBBQUC==, Bearer",
            #"Bearer error="insufficient_scope", scope="a b", error_description="back\\slash \"quoted\" café""#,
        ])
    func roundTrip(field: String) {
        let challenges = Challenge.parse(field)
        #expect(!challenges.isEmpty)
        #expect(Challenge.parse(challenges.map(\.fieldValue).joined(separator: ", ")) == challenges)
        for challenge in challenges {
            #expect(Challenge.parse(challenge.fieldValue) == [challenge])
        }
    }

    @Test("the description shows scheme and parameters but only the length of a token68")
    func description() {
        #expect(
            Challenge.parse(#"Bearer realm="api", error=invalid_token"#).first?.description
                == #"Bearer realm="api", error="invalid_token""#)
        let negotiate = Challenge.parse("Negotiate c2VydmVyLXNlY3JldA==").first
        #expect(negotiate?.description == "Negotiate <token68: 20 characters>")
        #expect(negotiate?.description.contains("c2Vy") == false)
    }

    @Test("Response reads every WWW-Authenticate field, in order, and no other header")
    func responseFields() throws {
        var headers = HTTPFields()
        headers.append(HTTPField(name: .wwwAuthenticate, value: #"Basic realm="a""#))
        headers.append(HTTPField(name: .proxyAuthenticate, value: "Proxy x=y"))
        headers.append(HTTPField(name: .wwwAuthenticate, value: #"Bearer error="invalid_token", Negotiate"#))
        headers.append(HTTPField(name: .wwwAuthenticate, value: #"Broken realm="x"#))
        headers.append(HTTPField(name: .wwwAuthenticate, value: "DPoP algs=ES256"))
        let response = Response(status: .unauthorized, headers: headers, url: try #require(URL(string: "https://api.example.com/")))
        #expect(response.authenticationChallenges.map(\.scheme) == ["Basic", "Bearer", "Negotiate", "DPoP"])
        #expect(response.authenticationChallenges[1][parameter: "error"] == "invalid_token")
    }

    @Test("the Authentication guide's example: a 403's insufficient_scope challenge reaches the caller through the error")
    func guideExample() async throws {
        let transport = RecordingTransport(
            status: 403,
            headers: HTTPFields([
                "WWW-Authenticate": #"Bearer realm="api", error="insufficient_scope", scope="repo delete_repo""#
            ]))
        do {
            _ = try await makeClient(transport).enqueue(TestEndpoint(method: .delete)).resume()
            Issue.record("a 403 must fail")
        } catch {
            let bearer = error.response?.authenticationChallenges.first { $0.hasScheme("Bearer") }
            #expect(bearer?[parameter: "error"] == "insufficient_scope")
            #expect(bearer?.scopes == ["repo", "delete_repo"])
            #expect(bearer?[parameter: "realm"] == "api")
        }
    }

    @Test("a response with no WWW-Authenticate field has no challenges")
    func responseWithoutChallenges() throws {
        let response = Response(statusCode: 401, url: try #require(URL(string: "https://api.example.com/")))
        #expect(response.authenticationChallenges.isEmpty)
    }

    @Test("a response's challenges are capped at 16 across all its fields")
    func responseChallengeLimit() throws {
        var headers = HTTPFields()
        for index in 1...10 {
            headers.append(HTTPField(name: .wwwAuthenticate, value: "A\(index), B\(index)"))
        }
        let response = Response(status: .unauthorized, headers: headers, url: try #require(URL(string: "https://api.example.com/")))
        let schemes = response.authenticationChallenges.map(\.scheme)
        #expect(schemes.count == Challenge.maximumChallenges)
        #expect(schemes.prefix(3) == ["A1", "B1", "A2"] && schemes.last == "B8")
    }
}
