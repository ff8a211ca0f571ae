import Foundation
import Testing

@testable import Courier

/// Buffered calls read at most ``Configuration/maximumResponseSize`` bytes of body. These tests use
/// a transport that ignores the limit: the client enforces it all the same. The real transport
/// stops reading at the limit (`ResponseSizeIntegrationTests`).
@Suite("Response size limit")
struct ResponseSizeLimitTests {
    private struct Sized: Requestable {
        var maximumResponseSize: Int?
        var requiresAuthorization: Bool { false }
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    }

    private static func isTooLarge(_ error: any Error, limit: Int) -> Bool {
        guard case .transport(let failure)? = error as? CourierError else { return false }
        return failure.kind == .responseTooLarge && failure.message?.contains("\(limit) bytes") == true
    }

    @Test func theDefaultIs32MiB() {
        #expect(Configuration().maximumResponseSize == 32 << 20)
        #expect(Configuration.defaultMaximumResponseSize == 33_554_432)
    }

    @Test("a body one byte past the limit fails; one at the limit passes", arguments: [0, 1, 1_000])
    func theLimitIsExact(limit: Int) async throws {
        let atLimit = makeClient(RecordingTransport(body: Data(count: limit))) { $0.maximumResponseSize = limit }
        #expect(try await atLimit.enqueue(Sized()).resume().body.count == limit)
        let past = makeClient(RecordingTransport(body: Data(count: limit + 1))) { $0.maximumResponseSize = limit }
        await #expect { _ = try await past.enqueue(Sized()).resume() } throws: { Self.isTooLarge($0, limit: limit) }
    }

    @Test func anEndpointLimitReplacesTheConfigurations() async throws {
        let client = makeClient(RecordingTransport(body: Data(count: 100))) { $0.maximumResponseSize = 10 }
        #expect(try await client.enqueue(Sized(maximumResponseSize: 100)).resume().body.count == 100)
        await #expect { _ = try await client.enqueue(Sized(maximumResponseSize: 99)).resume() } throws: { Self.isTooLarge($0, limit: 99) }
    }

    @Test func noLimitWhenTheConfigurationSaysNil() async throws {
        let client = makeClient(RecordingTransport(body: Data(count: 40 << 20))) { $0.maximumResponseSize = nil }
        #expect(try await client.enqueue(Sized()).resume().body.count == 40 << 20)
    }

    @Test func theTransportIsToldTheLimit() async throws {
        let transport = RecordingTransport()
        _ = try await makeClient(transport) { $0.maximumResponseSize = 1234 }.enqueue(Sized()).resume()
        #expect(await transport.last?.maximumResponseSize == 1234)
        _ = try await makeClient(transport).enqueue(Sized(maximumResponseSize: 77)).resume()
        #expect(await transport.last?.maximumResponseSize == 77)
    }

    @Test func aTooLargeResponseIsNeverRetried() async {
        let transport = RecordingTransport(body: Data(count: 11))
        let client = makeClient(transport) {
            $0.maximumResponseSize = 10
            $0.retryPolicy = .default
        }
        await #expect(throws: CourierError.self) { _ = try await client.enqueue(Sized()).resume() }
        #expect(await transport.count == 1)
        #expect(!RetryPolicy.isRetryable(.responseTooLarge))
    }
}

/// The `URLError`s Courier makes itself carry no user-info and no secret query value: they get
/// printed. They use the same redaction as every other error URL (`URL.redactedForErrors`).
@Suite("Errors Courier makes keep secrets out of their URL")
struct CourierMadeURLErrorTests {
    @Test func aTimeoutsURLErrorHasNoSecrets() throws {
        let url = try #require(URL(string: "https://user:pw@api.example.com/v1/me?access_token=SECRET#frag"))
        guard case .failure(.transport(let failure)) = Completion(end: .timedOut).outcome(for: url) else {
            Issue.record("expected a transport failure")
            return
        }
        let urlError = try #require(failure.urlError)
        #expect(urlError.failingURL?.absoluteString == "https://api.example.com/v1/me?access_token=%3Credacted%3E#frag")
        for text in [String(describing: urlError), urlError.localizedDescription, "\(urlError.userInfo)", failure.description] {
            #expect(!text.contains("SECRET") && !text.contains("pw"), "\(text)")
        }
    }
}
