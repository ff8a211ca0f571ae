// What the guides' blocks use without declaring it: the app around a snippet. Shared names are
// here; a name whose meaning differs from guide to guide is in that guide's <Guide>+Support.swift,
// a member of its namespace. Most blocks are only compiled, so most values are placeholders; the
// blocks that run (`<!-- guide: run -->`, `@Test`) use only CourierTesting's stubs.

import Courier
import CourierTesting
import Foundation
import Logging

struct User: Codable, Sendable, Equatable {
    var id: Int
    var name: String
}

struct GetUser: Requestable {
    let id: Int
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath(segments: ["users", String(id)]) }
}

let client = Client(configuration: Configuration(transport: RecordingTransport(script: [.status(200)])))

/// A configuration a block goes on changing (`configuration.tracer = …`).
nonisolated(unsafe) var configuration = Configuration()

let logger = Logger(label: "guide")

let tokenEndpoint = OAuth2TokenEndpoint(
    baseURL: try! BaseURL(host: "auth.example.com"),
    path: try! URLPath("/oauth/token"),
    clientAuthentication: .publicClient(clientID: "guide")
)
let tokens = tokenEndpoint
let endpoint = tokenEndpoint
let credential = TokenCredential(accessToken: "access", refreshToken: "refresh")
let stored = credential
let refresher = TokenRefresher(store: InMemoryTokenStore(), tokenEndpoint: tokenEndpoint)

let apiKey = "api-key"
let clientSecret = "client-secret"
let passphrase = "passphrase"
let password = "password"
let secret = "secret"
let token = "token"
let signedJWT = "header.payload.signature"
let ticket = "ticket-value"
let key = Data(repeating: 7, count: 32)
let extra = [QueryItem(name: "audience", value: "reports")]

let tokenFile = URL(fileURLWithPath: "/tmp/courier-guide/tokens")
let sharedTokenFile = tokenFile
let destination = URL(fileURLWithPath: "/tmp/courier-guide/download")
let stateURL = URL(fileURLWithPath: "/tmp/courier-guide/download.state")
let movie = URL(fileURLWithPath: "/tmp/courier-guide/movie.mp4")
let caURL = URL(fileURLWithPath: "/tmp/courier-guide/ca.pem")
let chainURL = URL(fileURLWithPath: "/tmp/courier-guide/chain.pem")
let keyURL = URL(fileURLWithPath: "/tmp/courier-guide/key.pem")

func openBrowser(_ url: URL) async throws {}
func showSignIn(message: String? = nil) async {}

/// Takes an expression statement's value, used or not: the generator wraps the guides' expression
/// statements in it (a guide shows `document.root.name   // "catalog"`; unused, it would warn).
func evaluate<T>(_ value: T) {}
