// What the doc-comment examples of CourierTesting, CourierEndpoints, CourierOpenAPI, CourierOAuth
// and CourierConnectivity use without declaring it (see Scaffolding.swift). A file's `Doc…Guide`
// enum conforms to its module's context protocol below, whose static members its examples see
// unqualified; a name only one file needs is an extension of that file's enum.

import Courier
import CourierConnectivity
import CourierEndpoints
import CourierOAuth
import CourierOpenAPI
import CourierTesting
import Foundation

// MARK: - CourierTesting

/// What the examples of CourierTesting's stubs and fixtures name: the test's `network`, its
/// `fixtures` folder, a decoded `request`…
protocol DocTestingContext {}

let docTestingNetwork = NetworkStub()

struct DocTestingNewUser: Codable, Sendable, Equatable {
    var name: String
}

extension DocTestingContext {
    typealias NewUser = DocTestingNewUser
    static var network: NetworkStub { docTestingNetwork }
    static var fixtures: FixtureDirectory { FixtureDirectory(URL(fileURLWithPath: "/tmp/courier-guide/Fixtures")) }
    static var transport: FixtureTransport { FixtureTransport(directory: fixtures) }
    static var request: RecordedRequest { RecordedRequest(method: "GET", url: URL(string: "https://api.example.com/search?q=swift")!) }
    /// A fixture file.
    static var url: URL { URL(fileURLWithPath: "/tmp/courier-guide/Fixtures/users/42/GET.response") }
    static var png: Data { Data([0x89, 0x50, 0x4E, 0x47]) }
    static var user: User { User(id: 42, name: "Ada") }
}

extension DocCourierTestingFixturesFixtureDirectoryGuide: DocTestingContext {}
extension DocCourierTestingFixturesFixtureErrorGuide: DocTestingContext {}
extension DocCourierTestingFixturesFixtureTransportGuide: DocTestingContext {}
extension DocCourierTestingWebSocketPeerGuide: DocTestingContext {}
extension DocCourierTestingNetworkStubGuide: DocTestingContext {}
extension DocCourierTestingRecordedRequestGuide: DocTestingContext {}
extension DocCourierTestingStubResponseGuide: DocTestingContext {}

extension DocCourierTestingTestConnectivityMonitorGuide {
    static let network = TestConnectivityMonitor(.satisfied)
}

// MARK: - CourierEndpoints

/// What the examples of CourierEndpoints name: the app's `api`, its models, a `login`…
protocol DocEndpointsContext {}

struct DocEndpointsNewGist: Encodable, Sendable {
    var description: String
    var files: [String: String]
}

struct DocEndpointsGist: Decodable, Sendable {
    var id: String
}

struct DocEndpointsRepository: Decodable, Sendable {
    var name: String
}

/// The app's endpoints, as Endpoint+Response.swift's example declares them (`GitHub`).
enum DocEndpointsGitHub {
    static let api = API(string: "https://api.github.example")
    static func user(_ login: String) -> Endpoint<BodyForbidden, User> {
        api.get("users", login).returning(User.self)
    }
}

struct DocEndpointsUploadAudit: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        try await next(request)
    }
}

enum DocEndpointsSession {
    static let active = Constraint(name: "session", isSatisfied: { true }, satisfy: {})
}

extension DocEndpointsContext {
    typealias NewGist = DocEndpointsNewGist
    typealias Gist = DocEndpointsGist
    typealias Repository = DocEndpointsRepository
    typealias GitHub = DocEndpointsGitHub
    typealias UploadAudit = DocEndpointsUploadAudit
    typealias Session = DocEndpointsSession
    static var api: API { API(string: "https://api.example.com") }
    static var login: String { "octocat" }
    static var owner: String { "apple" }
    static var repo: String { "swift" }
    static var number: Int { 42 }
    /// A cache key (Scaffolding's `key` is a `Data`).
    static var key: String { "avatars" }
    static var newGist: NewGist { NewGist(description: "notes", files: files) }
    static var files: [String: String] { ["notes.txt": "Buy milk"] }
    static var png: Data { Data([0x89, 0x50, 0x4E, 0x47]) }
    static var report: URL { URL(fileURLWithPath: "/tmp/courier-guide/report.pdf") }
    static var snakeCaseDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}

extension DocCourierEndpointsAPIGuide: DocEndpointsContext {}
extension DocCourierEndpointsBodyPolicyGuide: DocEndpointsContext {}
extension DocCourierEndpointsEndpointGuide: DocEndpointsContext {}
extension DocCourierEndpointsEndpointBodyGuide: DocEndpointsContext {}
extension DocCourierEndpointsEndpointDescriptionGuide: DocEndpointsContext {}
extension DocCourierEndpointsEndpointModifiersGuide: DocEndpointsContext {}
extension DocCourierEndpointsEndpointPathAndQueryGuide: DocEndpointsContext {}
extension DocCourierEndpointsTypedCallGuide: DocEndpointsContext {}
extension DocCourierEndpointsTypedCallCombineGuide: DocEndpointsContext {}

// MARK: - CourierOpenAPI

extension DocCourierOpenAPICourierClientTransportGuide {
    /// Stand-ins for what swift-openapi-generator generates from the app's `openapi.yaml`.
    enum Servers {
        enum Server1 {
            static func url() throws -> URL { URL(string: "https://api.example.com")! }
        }
    }

    struct Client {
        struct Path { var id: Int }
        struct Output {
            var ok: OK { get throws { OK() } }
        }
        struct OK {
            var body: Body { Body() }
        }
        struct Body {
            var json: User { get throws { User(id: 1, name: "Ada") } }
        }
        init(serverURL: URL, transport: CourierClientTransport) {}
        func getUser(path: Path) async throws -> Output { Output() }
    }
}

// MARK: - CourierOAuth

/// What the examples of CourierOAuth name: the app's authorization endpoint, a `flow`, a
/// `revocation` endpoint…
protocol DocOAuthContext {}

extension DocOAuthContext {
    static var authorize: URL { URL(string: "https://auth.example.com/authorize")! }
    static var redirectURL: URL { URL(string: "com.example.app:/oauth/callback?code=abc&state=xyz")! }
    static var deviceEndpoint: URL { URL(string: "https://auth.example.com/device")! }
    static var refreshToken: String { "refresh" }
    static var codeFlow: AuthorizationCodeFlow {
        try! AuthorizationCodeFlow(authorizationEndpoint: authorize, tokenEndpoint: tokens, redirectURI: redirectURL)
    }
    static var deviceFlow: DeviceAuthorizationFlow {
        DeviceAuthorizationFlow(deviceAuthorizationEndpoint: deviceEndpoint, tokenEndpoint: tokens)
    }
    static var revocation: OAuth2RevocationEndpoint {
        OAuth2RevocationEndpoint(
            baseURL: try! BaseURL(host: "auth.example.com"), path: try! URLPath("/oauth/revoke"),
            clientAuthentication: .publicClient(clientID: "my-app"))
    }
    static var metadata: AuthorizationServerMetadata {
        let json = #"{"issuer": "https://auth.example.com", "token_endpoint": "https://auth.example.com/token"}"#
        return try! JSONDecoder().decode(AuthorizationServerMetadata.self, from: Data(json.utf8))
    }
    static func openInBrowser(_ url: URL) {}
    static func show(_ code: String, at url: URL) {}
    static func showQRCode(_ url: URL) {}
}

extension DocCourierOAuthAuthorizationCodeAuthorizationCodeFlowGuide: DocOAuthContext {
    static var flow: AuthorizationCodeFlow { codeFlow }
}
extension DocCourierOAuthAuthorizationCodeLoopbackRedirectReceiverGuide: DocOAuthContext {
    static var flow: AuthorizationCodeFlow { codeFlow }
    static var receiver: LoopbackRedirectReceiver { try! LoopbackRedirectReceiver() }
}
extension DocCourierOAuthDeviceAuthorizationDeviceAuthorizationGuide: DocOAuthContext {
    static var flow: DeviceAuthorizationFlow { deviceFlow }
}
extension DocCourierOAuthDeviceAuthorizationDeviceAuthorizationFlowGuide: DocOAuthContext {
    static var flow: DeviceAuthorizationFlow { deviceFlow }
}
extension DocCourierOAuthDiscoveryAuthorizationServerMetadataGuide: DocOAuthContext {}
extension DocCourierOAuthDiscoveryAuthorizationServerMetadataDiscoveryGuide: DocOAuthContext {}
extension DocCourierOAuthRevocationOAuth2RevocationEndpointGuide: DocOAuthContext {}
extension DocCourierOAuthRevocationRevocationOutcomeGuide: DocOAuthContext {}
extension DocCourierOAuthRevocationTokenRefresherRevocationGuide: DocOAuthContext {}

// MARK: - CourierConnectivity

/// What the examples of CourierConnectivity name: the app's `monitor` and its offline banner.
protocol DocConnectivityContext {}

final class DocConnectivityBanner: @unchecked Sendable {
    var isHidden = true
}

let docConnectivityBanner = DocConnectivityBanner()
let docConnectivityNetwork = TestConnectivityMonitor(.satisfied)

extension DocConnectivityContext {
    static var monitor: ConnectivityMonitor { docConnectivityNetwork.monitor }
    static var banner: DocConnectivityBanner { docConnectivityBanner }
    static var offlineBanner: DocConnectivityBanner { docConnectivityBanner }
    static var network: TestConnectivityMonitor { docConnectivityNetwork }
    static func showOfflineBanner() {}
    static func syncPendingChanges() async {}
}

extension DocCourierConnectivityConnectivityMonitorGuide: DocConnectivityContext {}
extension DocCourierConnectivityConnectivityPathGuide: DocConnectivityContext {}

extension DocCourierWebSocketsWebSocketGuide {
    /// A WebSocket endpoint.
    static let chat = GetUser(id: 1)
}

extension DocCourierWebSocketsCallWebSocketGuide {
    /// WebSocket endpoints.
    static let chat = GetUser(id: 1)
    static let prices = GetUser(id: 1)
}
