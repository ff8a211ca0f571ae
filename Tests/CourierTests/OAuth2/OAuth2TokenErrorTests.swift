import Courier
import Foundation
import Testing

@Suite("OAuth2 token endpoint failures: rejected, transient, transport, cancellation")
struct OAuth2TokenErrorTests {
    private func failure(status: Int, body: String, contentType: String = "application/json") async throws -> RefreshFailure {
        let transport = OAuth2Fixtures.answering(status, body, contentType: contentType)
        let endpoint = try OAuth2Fixtures.endpoint(transport, authentication: .basic(clientID: "app", clientSecret: "s3cr=t&+ %/x"))
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in
            try await endpoint.refresh(OAuth2Fixtures.expiredCredential(refreshToken: "rt-secret"))
        }
        #expect(await transport.count == 1)
        let text = String(describing: error)
        #expect(!text.contains("rt-secret"))
        #expect(!text.contains("s3cr"))
        return try #require(OAuth2Fixtures.refreshFailure(error), "expected refreshFailed, got \(text)")
    }

    @Test("400 invalid_grant is a permanent rejection with error, description, uri and status")
    func invalidGrant() async throws {
        let failure = try await failure(
            status: 400,
            body: #"{"error":"invalid_grant","error_description":"Refresh token revoked","error_uri":"https://auth.example.com/docs/errors#invalid_grant"}"#)
        #expect(
            failure
                == RefreshFailure(
                    reason: .rejected,
                    oauth2Error: OAuth2Error(
                        code: "invalid_grant", errorDescription: "Refresh token revoked",
                        errorURI: "https://auth.example.com/docs/errors#invalid_grant"),
                    statusCode: 400, isPermanent: true))
    }

    @Test("401 invalid_client is a permanent rejection")
    func invalidClient() async throws {
        let failure = try await failure(status: 401, body: #"{"error":"invalid_client"}"#)
        #expect(
            failure
                == RefreshFailure(
                    reason: .rejected, oauth2Error: OAuth2Error(code: "invalid_client"),
                    statusCode: 401, isPermanent: true))
    }

    @Test(
        "400 or 401 without an OAuth2 JSON body is still a permanent rejection, with no OAuth2 error",
        arguments: [
            (400, "Bad Request"), (401, ""), (400, #"{"message":"nope"}"#), (401, #"{"error":42}"#), (400, #"["invalid_grant"]"#),
            (400, #"{"error":"invalid_gr"#),
        ])
    func rejectedWithoutErrorBody(status: Int, body: String) async throws {
        let failure = try await failure(status: status, body: body, contentType: "text/plain")
        #expect(failure == RefreshFailure(reason: .rejected, oauth2Error: nil, statusCode: status, isPermanent: true))
    }

    @Test("an error body is read leniently: a non-string description or uri is dropped, the code kept")
    func lenientErrorBody() async throws {
        let failure = try await failure(status: 400, body: #"{"error":"invalid_request","error_description":{"en":"x"},"error_uri":7,"extra":true}"#)
        #expect(failure.oauth2Error == OAuth2Error(code: "invalid_request"))
    }

    @Test(
        "any other status is a transient unexpected status, with the OAuth2 error when the body has one",
        arguments: [
            (503, #"{"error":"temporarily_unavailable"}"#, "temporarily_unavailable" as String?),
            (500, "<html>Internal Server Error</html>", nil), (502, "", nil), (429, #"{"error":"slow_down"}"#, "slow_down"),
            (404, "Not Found", nil), (403, #"{"error":"access_denied"}"#, "access_denied"), (302, "", nil),
        ])
    func transientStatus(status: Int, body: String, code: String?) async throws {
        let failure = try await failure(status: status, body: body)
        #expect(
            failure
                == RefreshFailure(
                    reason: .unexpectedStatus, oauth2Error: code.map { OAuth2Error(code: $0) },
                    statusCode: status, isPermanent: false))
    }

    @Test(
        "a transport failure (timeout, no connection, DNS) is transient and keeps the TransportFailure whole",
        arguments: [
            TransportFailure(URLError(.timedOut), url: URL(string: "https://auth.example.com/oauth/token")),
            TransportFailure(URLError(.cannotConnectToHost)),
            TransportFailure(kind: .dnsFailure, message: "no such host"),
        ])
    func transportFailure(transportFailure: TransportFailure) async throws {
        let transport = OAuth2Fixtures.failing(with: .transport(transportFailure))
        let endpoint = try OAuth2Fixtures.endpoint(transport)
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in try await endpoint.refresh(OAuth2Fixtures.expiredCredential()) }
        let failure = try #require(OAuth2Fixtures.refreshFailure(error))
        #expect(failure == RefreshFailure(reason: .transport(transportFailure), isPermanent: false))
        #expect(failure.statusCode == nil)
        #expect(await transport.count == 1)
    }

    @Test("a timeout keeps the URLError's timedOut code")
    func timeoutKeepsURLError() async throws {
        let endpoint = try OAuth2Fixtures.endpoint(
            OAuth2Fixtures.failing(with: .transport(TransportFailure(URLError(.timedOut)))),
            timeout: .milliseconds(250))
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in try await endpoint.clientCredentials() }
        guard case .transport(let kept)? = OAuth2Fixtures.refreshFailure(error)?.reason else {
            Issue.record("expected a transport reason, got \(String(describing: error))")
            return
        }
        #expect(kept.kind == .timedOut)
        #expect(kept.urlError?.code == .timedOut)
    }

    @Test("cancellation reported by the transport passes through as .cancelled, not as a refresh failure")
    func cancelledByTransport() async throws {
        let endpoint = try OAuth2Fixtures.endpoint(OAuth2Fixtures.failing(with: .cancelled))
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in try await endpoint.refresh(OAuth2Fixtures.expiredCredential()) }
        guard case .cancelled? = error else {
            Issue.record("expected .cancelled, got \(String(describing: error))")
            return
        }
    }

    @Test("cancelling the calling task while the token request is in flight ends it with .cancelled")
    func cancellingTheTask() async throws {
        let transport = OAuth2HangingTransport()
        let endpoint = try OAuth2Fixtures.endpoint(transport)
        let task = Task { () async -> CourierError? in
            await OAuth2Fixtures.error { () async throws(CourierError) in try await endpoint.refresh(OAuth2Fixtures.expiredCredential()) }
        }
        while await transport.started == 0 { await Task.yield() }
        task.cancel()
        let error = await task.value
        guard case .cancelled? = error else {
            Issue.record("expected .cancelled, got \(String(describing: error))")
            return
        }
    }

    @Test("an invalid-request error from the transport passes through unchanged")
    func invalidRequestFromTransport() async throws {
        let endpoint = try OAuth2Fixtures.endpoint(OAuth2Fixtures.failing(with: .invalidRequest(.invalidURL("x"))))
        let error = await OAuth2Fixtures.error { () async throws(CourierError) in try await endpoint.clientCredentials() }
        guard case .invalidRequest(.invalidURL("x"))? = error else {
            Issue.record("expected the transport's invalidRequest, got \(String(describing: error))")
            return
        }
    }
}
