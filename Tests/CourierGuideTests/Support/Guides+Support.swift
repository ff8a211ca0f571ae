// Per-guide scaffolding: names whose meaning differs from guide to guide (see Scaffolding.swift).

import Courier
import CourierEndpoints
import CourierTesting
import Crypto
import Foundation
import Metrics
import MetricsTestKit
import Tracing

#if AsyncHTTPClientLinked
    import AsyncHTTPClient

    /// Transports.md's `settings`, which its TLS blocks go on changing.
    nonisolated(unsafe) var settings = HTTPClient.Configuration()
#endif

extension AuthenticationGuide {
    /// Courier's own `package enum SHA256` is visible in this package's targets (never to a user's),
    /// which would make the guide's `HMAC<SHA256>` ambiguous here.
    typealias SHA256 = Crypto.SHA256

    static let user = "ada"

    struct Profile: Decodable, Sendable { var name: String }

    struct GetProfile: Requestable {
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
        func path() throws(CourierError) -> URLPath { try URLPath("/me") }
    }

    struct DeleteRepository: Requestable {
        let name: String
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
        func path() throws(CourierError) -> URLPath { try URLPath(segments: ["repos", name]) }
        var method: HTTPMethod { .delete }
    }

    struct SessionService: Sendable {
        func renew(_ credential: TokenCredential?) async throws -> TokenCredential { TokenCredential(accessToken: "renewed") }
    }
    static let sessionService = SessionService()

    static func askForConsent(to scopes: [String]) async {}

    /// Where an app keeps its refresh token, outside Courier.
    struct Database: Sendable {
        func saveRefreshToken(_ token: String?) async throws {}
    }
    static let database = Database()
}

extension ConnectivityGuide {
    struct Order: Decodable, Sendable { var id: Int }

    final class Banner: @unchecked Sendable {
        var isHidden = true
    }
    static let offlineBanner = Banner()
    static func showOfflineBanner() {}
}

extension GettingStartedGuide {
    struct Repository: Codable, Sendable { var name: String }
    struct SearchResult: Codable, Sendable { var items: [Repository] }
}

extension DeclarativeEndpointsGuide {
    struct Repository: Codable, Sendable { var name: String }
    struct NewGist: Codable, Sendable { var description: String }
    struct Gist: Codable, Sendable { var id: String }

    static let draft = NewGist(description: "notes")
    static let api = API(string: "https://api.example.com")
}

extension MiddlewareGuide {
    /// A second middleware, next to the guide's `RequestID`.
    struct Metrics: Middleware {
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            try await next(request)
        }
    }

    actor SessionStore {
        var hasSession = false
        func startSession() async throws { hasSession = true }
    }
    static let store = SessionStore()

    struct Keychain: Sendable {
        func rotateAPIKey() async throws {}
    }
    static let keychain = Keychain()

    static func show(_ result: Result<User, CourierError>) {}
}

extension ObservabilityGuide {
    static let tracer = NoOpTracer()
    static let factory = TestMetrics()
    static let metrics = TestMetrics()
    static let store = InMemoryTokenStore()

    /// The server of the guide's test: answers `GetUser(id: 42)`.
    static var stub: RecordingTransport {
        RecordingTransport(script: [.status(200, body: Data(#"{"id":42,"name":"Ada"}"#.utf8))])
    }
}

extension RequestsAndResponsesGuide {
    struct NewUser: Encodable, Sendable { var name: String }
    struct Balance: Decodable, Sendable { var balance: Int }

    struct Transfer: Requestable {
        let amount: Int
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
        var method: HTTPMethod { .post }
    }

    static let snake: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }()
    static let png = Data([0x89, 0x50, 0x4E, 0x47])
    static let thumbnail = png
    static var chunks: AsyncStream<Data> { AsyncStream { $0.finish() } }
    static var byteSequence: AsyncStream<UInt8> { AsyncStream { $0.finish() } }
}

extension RetriesGuide {
    struct GetStatus: Requestable {
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
        func path() throws(CourierError) -> URLPath { try URLPath("/status") }
    }
}

extension TestingGuide {
    /// A stub for the blocks that show `network.stub(…)` lines on their own: a new one at each
    /// use. Not one stub kept in a `static let`: its stored fixture bodies would live as long as
    /// the process, and LeakSanitizer reports a `Data` held that way as leaked (see
    /// .ci/lsan-suppressions.txt).
    static var network: NetworkStub { NetworkStub() }
    static let user = User(id: 42, name: "Ada")
    static let me = User(id: 1, name: "Me")
    static let report = ["rows": 3]
}

extension TransfersGuide {
    struct ExportOrders: Requestable {
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    }
    struct TailLog: Requestable {
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    }
    struct Changes: Requestable {
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    }
    struct Ticker: Requestable {
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    }
    struct Completions: Requestable {
        let prompt: String
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    }
    struct UploadReceipt: Decodable, Sendable { var id: String }

    @MainActor final class ProgressBar {
        var fraction = 0.0
    }
    @MainActor static let bar = ProgressBar()

    static let file = FileHandle.nullDevice
    static let chunks = [Data("data: a\n\n".utf8)]

    static func apply(_ change: Change) {}
    static func handle(_ event: ServerSentEvent) {}
}

extension XMLAndSOAPGuide {
    static let order = NewOrder(sku: "A-1", quantity: 1)
    static let body = Data("<a/>".utf8)
    static let response = Response(statusCode: 200, body: Data("<a/>".utf8), url: URL(string: "https://api.example.com")!)
}
