import Courier
import CourierTesting
import Foundation
import Testing

@Suite("OAuth2 typed grants: password and JWT bearer")
struct GrantsTests {
    @Test("password sends grant_type, username, password, scope, then the client's parameters", arguments: OAuth2AuthenticationCase.all)
    func passwordBody(mode: OAuth2AuthenticationCase) async throws {
        let transport = OAuth2Fixtures.answering()
        let endpoint = try OAuth2Fixtures.endpoint(transport, authentication: mode.authentication)
        let credential = try await endpoint.password(
            username: "alice@example.com", password: "p&ss=w rd+", scope: "profile",
            additionalParameters: [QueryItem(name: "audience", value: "api")])
        let request = try #require(await transport.last)
        #expect(
            request.bodyText
                == "grant_type=password&username=alice%40example.com&password=p%26ss%3Dw%20rd%2B&scope=profile&audience=api" + mode.bodySuffix)
        #expect(request.basicCredentials == mode.basicCredentials)
        #expect(credential.scope == "profile")
        #expect(credential.accessToken == "at-new")
    }

    @Test("jwtBearer sends the RFC 7523 grant type and the assertion", arguments: OAuth2AuthenticationCase.all)
    func jwtBearerBody(mode: OAuth2AuthenticationCase) async throws {
        let transport = OAuth2Fixtures.answering()
        let endpoint = try OAuth2Fixtures.endpoint(transport, authentication: mode.authentication)
        _ = try await endpoint.jwtBearer(assertion: "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.sig", scope: "reports.read")
        #expect(
            await transport.last?.bodyText
                == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.sig&scope=reports.read"
                + mode.bodySuffix)
    }

    @Test("an empty assertion is an invalid request, and nothing is sent")
    func emptyAssertion() async throws {
        let transport = OAuth2Fixtures.answering()
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in
            try await OAuth2Fixtures.endpoint(transport).jwtBearer(assertion: "")
        }
        guard case .invalidRequest? = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(await transport.count == 0)
    }

    @Test("additional parameters may not repeat what the grant sets", arguments: ["grant_type", "username", "password", "scope", "client_id"])
    func reserved(name: String) async throws {
        let transport = OAuth2Fixtures.answering()
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in
            try await OAuth2Fixtures.endpoint(transport).password(
                username: "u", password: "p", scope: "s", additionalParameters: [QueryItem(name: name, value: "x")])
        }
        guard case .invalidRequest(.encodingFailed(let why, _))? = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(why.contains(name))
        #expect(await transport.count == 0)
    }

    @Test("a wrong password is the endpoint's permanent invalid_grant, and the password is in no error text")
    func wrongPassword() async throws {
        let transport = OAuth2Fixtures.answering(400, #"{"error":"invalid_grant","error_description":"bad credentials"}"#)
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in
            try await OAuth2Fixtures.endpoint(transport).password(username: "alice", password: "SECRET-PASSWORD")
        }
        let failure = try #require(OAuth2Fixtures.refreshFailure(error))
        #expect(failure.isPermanent)
        #expect(failure.oauth2Error?.code == "invalid_grant")
        var dumped = ""
        dump(error, to: &dumped)
        #expect(!"\(String(describing: error)) \(dumped)".contains("SECRET-PASSWORD"))
    }
}
