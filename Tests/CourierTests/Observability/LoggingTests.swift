import Courier
import Foundation
import Logging
import Testing

/// Keeps every log line, for assertions.
final class CapturedLines: @unchecked Sendable {
    // `@unchecked Sendable`: `lines` is only touched under `lock`.
    private let lock = NSLock()
    private var lines: [(Logger.Level, String)] = []

    func add(_ level: Logger.Level, _ message: String) {
        lock.lock()
        lines.append((level, message))
        lock.unlock()
    }

    var all: [(Logger.Level, String)] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}

struct CapturingHandler: LogHandler {
    let captured: CapturedLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        captured.add(event.level, "\(event.message)")
    }
}

private struct SecretEndpoint: Requestable {
    var requiresAuthorization: Bool { true }
    var queryItems: [QueryItem]? { [QueryItem(name: "access_token", value: "S3CR3T-query"), QueryItem(name: "page", value: "2")] }
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath("/items") }
}

@Suite("Logging")
struct LoggingTests {
    private func client(_ transport: RecordingTransport, _ captured: CapturedLines) -> Client {
        makeClient(transport) {
            $0.logger = Logger(label: "test") { _ in CapturingHandler(captured: captured) }
            $0.authentication = .basic(BasicCredential(username: "ada", password: "S3CR3T-password"))
            $0.authorizedHosts = ["api.example.com"]
        }
    }

    @Test func oneDebugLinePerCallWithMethodRedactedURLAndStatusAndNoSecret() async throws {
        let captured = CapturedLines()
        _ = try await client(RecordingTransport(), captured).enqueue(SecretEndpoint()).resume()

        let lines = captured.all
        #expect(lines.count == 1)
        let (level, message) = try #require(lines.first)
        #expect(level == .debug)
        #expect(message.hasPrefix("GET https://api.example.com/items?access_token=<redacted>&page=2 200 in "))
        #expect(message.hasSuffix(", attempt 1"))
        #expect(!message.contains("S3CR3T"))
    }

    @Test func aFailedCallIsLoggedAtErrorLevelWithoutSecrets() async throws {
        let captured = CapturedLines()
        let transport = RecordingTransport { request throws(CourierError) in
            throw .transport(TransportFailure(URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: request.url]), url: request.url))
        }
        _ = try? await client(transport, captured).enqueue(SecretEndpoint()).resume()

        let lines = captured.all
        #expect(lines.map(\.0) == [.error])
        #expect(lines.allSatisfy { !$0.1.contains("S3CR3T") })
    }

    @Test func aRequestsDescriptionAndCURLHideTheCredentialTheTransportSaw() async throws {
        let transport = RecordingTransport()
        _ = try await client(transport, CapturedLines()).enqueue(SecretEndpoint()).resume()
        let request = try #require(await transport.last)
        let basic = Data("ada:S3CR3T-password".utf8).base64EncodedString()

        for text in [request.description, request.curlCommand(), "\(request)"] {
            #expect(!text.contains("S3CR3T"))
            #expect(!text.contains(basic))
        }
        #expect(request.curlCommand().contains("Authorization: Basic <redacted>"))
    }
}

@Suite("Descriptions never print secrets")
struct DescriptionRedactionTests {
    @Test func aQueryItemHidesASecretValue() {
        #expect(QueryItem(name: "access_token", value: "S3CR3T").description == "access_token=<redacted>")
        #expect(QueryItem(name: "page", value: "2").description == "page=2")
    }

    @Test(arguments: ["https://ada:S3CR3T@api.example.com/x?code=S3CR3T&page=2", "not a url ?password=S3CR3T"])
    func invalidURLErrorsHideSecrets(string: String) {
        for error in [CourierError.invalidRequest(.invalidURL(string)), .invalidRequest(.invalidBaseURL(string, reason: "bad"))] {
            #expect(!error.description.contains("S3CR3T"), "\(error)")
        }
    }
}
