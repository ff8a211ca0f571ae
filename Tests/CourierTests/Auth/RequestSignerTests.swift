import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// `Authentication.signed`: a user's signer, run once per attempt, under the same host rules.
@Suite("Request signers: once per attempt, only to authorized origins")
struct RequestSignerTests {
    /// Records every attempt it signs and adds a header naming the attempt.
    private actor CountingSigner: RequestSigner {
        private(set) var attempts: [Int] = []
        func sign(_ request: inout TransportRequest, context: SigningContext) async throws(CourierError) {
            attempts.append(context.attempt)
            request.head.headerFields[.authorization] = "Sig attempt=\(context.attempt)"
        }
    }

    /// Moves the request to another host while signing.
    private struct MovingSigner: RequestSigner {
        func sign(_ request: inout TransportRequest, context: SigningContext) async throws(CourierError) {
            request.head.authority = "elsewhere.example.net"
            request.head.headerFields[.authorization] = "Sig x"
        }
    }

    @Test("a signer is called once per attempt, retries included, and each attempt carries its own signature")
    func oncePerAttempt() async throws {
        let signer = CountingSigner()
        let statuses = LockedState([503, 503, 200])
        let transport = RecordingTransport { request throws(CourierError) in
            Response(statusCode: statuses.withLock { $0.removeFirst() }, url: request.url)
        }
        let client = makeClient(transport) {
            $0.authentication = .signed(signer)
            $0.authorizedHosts = ["api.example.com"]
            $0.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .zero, maxDelay: .zero)
        }
        _ = try await client.enqueue(TestEndpoint()).resume()
        #expect(await signer.attempts == [1, 2, 3])
        #expect(await transport.requests.map { $0.header("Authorization") } == ["Sig attempt=1", "Sig attempt=2", "Sig attempt=3"])
    }

    @Test("a signer is not called for an endpoint that needs no authorization, nor for an unauthorized origin")
    func notCalledWhereNoCredentialGoes() async {
        let signer = CountingSigner()
        let transport = RecordingTransport()
        let client = makeClient(transport) {
            $0.authentication = .signed(signer)
            $0.authorizedHosts = ["other.example.com"]
        }
        let result = await client.enqueue(TestEndpoint()).result()
        guard case .failure(.authentication(.hostNotAuthorized)) = result else {
            Issue.record("expected hostNotAuthorized, got \(result)")
            return
        }
        #expect(await signer.attempts.isEmpty)
        #expect(await transport.count == 0)
    }

    @Test("a signer that moves the request to an unlisted origin fails the call, and nothing is sent")
    func aMovingSignerIsChecked() async {
        let transport = RecordingTransport()
        let client = makeClient(transport) {
            $0.authentication = .signed(MovingSigner())
            $0.authorizedHosts = ["api.example.com"]
        }
        let result = await client.enqueue(TestEndpoint()).result()
        guard case .failure(.authentication(.hostNotAuthorized(let host))) = result else {
            Issue.record("expected hostNotAuthorized, got \(result)")
            return
        }
        #expect(host == "elsewhere.example.net")
        #expect(await transport.count == 0)
    }

    @Test(
        "APIKeySigner puts the key in a header or a query item, and every printout hides it",
        arguments: [
            APIKeySigner(header: "X-Partner", key: "K3Y-VALUE"),
            APIKeySigner(queryItem: "partner", key: "K3Y VALUE&x=1"),
        ])
    func apiKey(signer: APIKeySigner) async throws {
        let transport = RecordingTransport()
        let client = makeClient(transport) {
            $0.authentication = .signed(signer)
            $0.authorizedHosts = ["api.example.com"]
        }
        _ = try await client.enqueue(TestEndpoint(queryItems: [QueryItem(name: "q", value: "1")])).resume()
        let sent = try #require(await transport.last)
        switch signer.placement {
        case .header(let name):
            #expect(sent.header(name) == "K3Y-VALUE")
        case .queryItem:
            #expect(sent.url.query(percentEncoded: true) == "q=1&partner=K3Y%20VALUE%26x%3D1")
        }
        // A name no pattern matches is still hidden: the signer adds it to the request's redaction.
        for text in [
            sent.curlCommand(), String(describing: sent), String(describing: signer), String(reflecting: signer),
            {
                var out = ""; dump(signer, to: &out); return out
            }(),
        ] {
            #expect(!text.contains("K3Y"), "\(text)")
        }
    }

    @Test("APIKeySigner refuses a framing header's name and a key with control characters")
    func apiKeyRefusals() async {
        for signer in [APIKeySigner(header: "Content-Length", key: "1"), APIKeySigner(header: "X-Key", key: "a\r\nX-Injected: 1")] {
            let transport = RecordingTransport()
            let client = makeClient(transport) {
                $0.authentication = .signed(signer)
                $0.authorizedHosts = ["api.example.com"]
            }
            let result = await client.enqueue(TestEndpoint()).result()
            #expect(throws: CourierError.self) { try result.get() }
            #expect(await transport.count == 0)
        }
    }
}
