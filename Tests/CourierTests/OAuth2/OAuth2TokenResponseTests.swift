import Foundation
import Testing

@testable import Courier

@Suite("OAuth2 token responses: parsing a 2xx into a credential")
struct OAuth2TokenResponseTests {
    private func refresh(
        _ body: String, status: Int = 200, credential: TokenCredential = OAuth2Fixtures.expiredCredential(),
        scope: String? = nil
    ) async throws(CourierError) -> TokenCredential {
        let endpoint = try OAuth2Fixtures.endpoint(OAuth2Fixtures.answering(status, body))
        return try await endpoint.refresh(credential, scope: scope)
    }

    /// The malformed-response reason of a refresh answered with `body`, checking the rest of the failure.
    private func malformedReason(_ body: String, status: Int = 200) async -> String? {
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in try await refresh(body, status: status) }
        guard let failure = OAuth2Fixtures.refreshFailure(error), case .malformedResponse(let reason) = failure.reason else {
            Issue.record("expected a malformed response failure, got \(String(describing: error))")
            return nil
        }
        #expect(failure.statusCode == status)
        #expect(failure.isPermanent == false)
        #expect(failure.oauth2Error == nil)
        return reason
    }

    @Test("a full response becomes a credential dated by the endpoint's clock")
    func fullResponse() async throws {
        let credential = try await refresh(#"{"access_token":"at-new","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-new","scope":"read write"}"#)
        #expect(
            credential
                == TokenCredential(
                    accessToken: "at-new", refreshToken: "rt-new",
                    expiresAt: OAuth2Fixtures.now.addingTimeInterval(3600), tokenType: "Bearer",
                    scope: "read write", issuedAt: OAuth2Fixtures.now))
    }

    @Test(
        "expires_in is read as an integer, a numeric string or a decimal",
        arguments: [
            ("3600", 3600.0), (#""3600""#, 3600), ("3599.5", 3599.5), (#""3599.5""#, 3599.5), (#"" 60 ""#, 60), ("0", 0), ("1e3", 1000),
        ])
    func expiresIn(json: String, seconds: Double) async throws {
        let credential = try await refresh(#"{"access_token":"a","token_type":"Bearer","expires_in":\#(json)}"#)
        #expect(credential.expiresAt == OAuth2Fixtures.now.addingTimeInterval(seconds))
        #expect(credential.issuedAt == OAuth2Fixtures.now)
    }

    @Test(
        "an absent or null expires_in means the expiry is unknown (nil), not a made-up lifetime",
        arguments: [
            #"{"access_token":"a","token_type":"Bearer"}"#, #"{"access_token":"a","token_type":"Bearer","expires_in":null}"#,
        ])
    func expiresInAbsent(json: String) async throws {
        let credential = try await refresh(json)
        #expect(credential.expiresAt == nil)
        #expect(credential.issuedAt == OAuth2Fixtures.now)
    }

    @Test(
        "a negative, non-numeric or non-finite expires_in is a malformed response naming expires_in",
        arguments: [
            "-1", #""-5""#, #""abc""#, #""""#, "true", "{}", "[3600]", #""inf""#, #""nan""#, #""1e999""#,
        ])
    func expiresInInvalid(json: String) async throws {
        let reason = await malformedReason(#"{"access_token":"a","token_type":"Bearer","expires_in":\#(json)}"#)
        #expect(reason?.hasPrefix("expires_in ") == true)
    }

    @Test(
        "a response without refresh_token (absent, null or empty) keeps the previous refresh token",
        arguments: [
            #"{"access_token":"a","token_type":"Bearer"}"#,
            #"{"access_token":"a","token_type":"Bearer","refresh_token":null}"#,
            #"{"access_token":"a","token_type":"Bearer","refresh_token":""}"#,
        ])
    func refreshTokenKept(json: String) async throws {
        let credential = try await refresh(json)
        #expect(credential.refreshToken == "rt-1")
        #expect(credential.accessToken == "a")
    }

    @Test("a rotated refresh_token replaces the previous one")
    func refreshTokenRotated() async throws {
        #expect(try await refresh(OAuth2Fixtures.tokenJSON).refreshToken == "rt-new")
    }

    @Test("scope: the response's wins, else the requested one, else the previous credential's")
    func scopePrecedence() async throws {
        let previous = OAuth2Fixtures.expiredCredential(scope: "read write")
        let noScope = #"{"access_token":"a","token_type":"Bearer"}"#
        #expect(try await refresh(#"{"access_token":"a","token_type":"Bearer","scope":"read"}"#, credential: previous).scope == "read")
        #expect(try await refresh(noScope, credential: previous, scope: "write").scope == "write")
        #expect(try await refresh(noScope, credential: previous).scope == "read write")
        #expect(try await refresh(noScope).scope == nil)
        #expect(try await refresh(#"{"access_token":"a","token_type":"Bearer","scope":""}"#, credential: previous).scope == "read write")
        #expect(try await refresh(#"{"access_token":"a","token_type":"Bearer","scope":["a","b"]}"#).scope == "a b")
    }

    /// Found by FuzzOAuth2TokenResponse: `"scope":[""]` parsed as an empty scope, which a later
    /// request would have sent as `scope=`.
    @Test(
        "scope tokens are normalized: empty entries and whitespace runs never make an empty or padded scope",
        arguments: [
            (#"[""]"#, nil), (#"["", " "]"#, nil), (#""   ""#, nil), (#""\t""#, nil),
            (#"["read", "", "write"]"#, "read write"), (#""  read   write ""#, "read write"),
            (#"["read write", "admin"]"#, "read write admin"),
        ] as [(String, String?)])
    func scopeNormalized(scopeJSON: String, expected: String?) async throws {
        let credential = try await refresh(#"{"access_token":"a","token_type":"Bearer","scope":"# + scopeJSON + "}")
        #expect(credential.scope == expected)
    }

    @Test("client_credentials: the requested scope stands in for an omitted one, and no refresh token is invented")
    func clientCredentialsScope() async throws {
        let endpoint = try OAuth2Fixtures.endpoint(
            OAuth2Fixtures.answering(200, #"{"access_token":"a","token_type":"Bearer","expires_in":60}"#),
            authentication: .basic(clientID: "app", clientSecret: "pw"))
        let credential = try await endpoint.clientCredentials(scope: "reports")
        #expect(credential.scope == "reports")
        #expect(credential.refreshToken == nil)
        #expect(try await endpoint.clientCredentials().scope == nil)
        let fromParameters = try await endpoint.requestToken(grantType: "password", parameters: [QueryItem(name: "scope", value: "p")])
        #expect(fromParameters.scope == "p")
    }

    @Test("token_type is kept as the server sent it, and a lower-case bearer still makes a Bearer header")
    func tokenTypeCase() async throws {
        let credential = try await refresh(#"{"access_token":"a","token_type":"bearer"}"#)
        #expect(credential.tokenType == "bearer")
        #expect(credential.authorizationValue == "Bearer a")
    }

    @Test("unknown fields (id_token, extensions) are ignored and a UTF-8 byte-order mark is tolerated")
    func unknownFields() async throws {
        let credential = try await refresh("\u{FEFF}" + #"{"access_token":"a","token_type":"Bearer","id_token":"x.y.z","ext":{"n":[1,2]},"expires_in":5}"#)
        #expect(credential.accessToken == "a")
        #expect(credential.expiresAt == OAuth2Fixtures.now.addingTimeInterval(5))
    }

    @Test(
        "a missing, null, empty or non-string access_token or token_type is a malformed response naming the field",
        arguments: [
            (#"{"token_type":"Bearer","refresh_token":"rt-secret"}"#, "access_token is missing"),
            (#"{"access_token":null,"token_type":"Bearer"}"#, "access_token is missing"),
            (#"{"access_token":"","token_type":"Bearer"}"#, "access_token is empty"),
            (#"{"access_token":42,"token_type":"Bearer"}"#, "access_token is not a string"),
            (#"{"access_token":"at-secret","refresh_token":"rt-secret"}"#, "token_type is missing"),
            (#"{"access_token":"at-secret","token_type":""}"#, "token_type is empty"),
            (#"{"access_token":"at-secret","token_type":["Bearer"]}"#, "token_type is not a string"),
            (#"{"access_token":"at-secret","token_type":"Bearer","refresh_token":7}"#, "refresh_token is not a string"),
            (#"{"access_token":"at-secret","token_type":"Bearer","scope":7}"#, "scope is neither a string nor an array of strings"),
        ])
    func missingFields(json: String, expected: String) async throws {
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in try await refresh(json) }
        let failure = try #require(OAuth2Fixtures.refreshFailure(error))
        #expect(failure == RefreshFailure(reason: .malformedResponse(expected), statusCode: 200, isPermanent: false))
        let text = String(describing: error)
        #expect(!text.contains("at-secret"))
        #expect(!text.contains("rt-secret"))
        #expect(!text.contains("rt-1"))
    }

    @Test(
        "an access_token with control characters or a token_type that is not a token is malformed, not sent later in a header",
        arguments: [
            #"{"access_token":"a\r\nX-Injected: 1","token_type":"Bearer"}"#,
            #"{"access_token":"a","token_type":"Bearer x"}"#,
        ])
    func headerUnsafeValues(json: String) async throws {
        let reason = await malformedReason(json)
        #expect(reason != nil)
        #expect(reason?.contains("X-Injected") == false)
    }

    @Test(
        "a 200 whose body is not JSON, is truncated, empty or not an object is a transient malformed response",
        arguments: [
            ("<html><body>Service maintenance</body></html>", "the body is not valid JSON (or is truncated)"),
            (#"{"access_token":"at-secret","token_type":"Bea"#, "the body is not valid JSON (or is truncated)"),
            (#"{"access_token":"#, "the body is not valid JSON (or is truncated)"),
            ("", "the body is empty"),
            (" \n", "the body is empty"),
            (#"["access_token"]"#, "the body is not a JSON object"),
            (#""at-secret""#, "the body is not a JSON object"),
            ("access_token=at-secret&token_type=bearer", "the body is not valid JSON (or is truncated)"),
        ])
    func notAJSONObject(body: String, expected: String) async throws {
        let reason = await malformedReason(body)
        #expect(reason == expected)
    }

    @Test("any 2xx status is read as a token response", arguments: [201, 203])
    func other2xx(status: Int) async throws {
        let endpoint = try OAuth2Fixtures.endpoint(OAuth2Fixtures.answering(status))
        #expect(try await endpoint.clientCredentials().accessToken == "at-new")
        let bad = try OAuth2Fixtures.endpoint(OAuth2Fixtures.answering(status, "nope"))
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in try await bad.clientCredentials() }
        #expect(OAuth2Fixtures.refreshFailure(error)?.statusCode == status)
    }

    @Test("a 200 carrying an OAuth2 error and no token (as GitHub answers) is a permanent rejection with the error")
    func errorBodyWith200() async throws {
        let body =
            #"{"error":"bad_refresh_token","error_description":"The refresh token passed is incorrect or expired.","error_uri":"https://docs.example.com/errors"}"#
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in try await refresh(body) }
        let failure = try #require(OAuth2Fixtures.refreshFailure(error))
        #expect(
            failure
                == RefreshFailure(
                    reason: .rejected,
                    oauth2Error: OAuth2Error(
                        code: "bad_refresh_token", errorDescription: "The refresh token passed is incorrect or expired.",
                        errorURI: "https://docs.example.com/errors"),
                    statusCode: 200, isPermanent: true))
    }
}
