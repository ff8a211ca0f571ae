import Courier
import CourierOAuth
import CourierTesting
import FlyingFox
import Foundation
import Testing

/// Inside `withStubbedNetwork`, every kind of request that uses `Configuration.defaultTransport`
/// goes to the scope's stub and never to the network. Each test aims its requests at a real
/// server on 127.0.0.1 that records every request it gets: the stub must have the request, the
/// server none.
@Suite("A stubbed-network scope keeps every default-transport request off the network", .loopback, .timeLimit(.minutes(1)))
struct StubbedNetworkIntegrationTests {
    /// Runs `body` with a server that answers every request `500` and records it.
    private static func withWatchedServer(
        _ body: (TestServer, BaseURL) async throws -> Void
    ) async throws -> [String] {
        let hits = Recorder<String>()
        try await TestServer.run { server in
            await server.route("*") { request in
                await hits.record("\(request.method.rawValue) \(request.path)")
                return FlyingFox.HTTPResponse(statusCode: .internalServerError)
            }
            try await body(server, server.baseURL)
        }
        return await hits.values
    }

    private static let credential = TokenCredential(
        accessToken: "AT-OLD", refreshToken: "RT-1", expiresAt: Date().addingTimeInterval(-60))

    private static let tokenResponse = #"{"access_token":"AT-NEW","token_type":"Bearer","expires_in":3600}"#

    @Test func outsideAnyScopeTheDefaultTransportReachesTheNetwork() async throws {
        let hits = try await Self.withWatchedServer { server, _ in
            let result = await Client().enqueue(try server.endpoint("/users/1")).result()
            #expect(result.rejectedStatus == 500)
        }
        #expect(hits == ["GET /users/1"])
    }

    @Test func aClientCreatedOutsideTheScopeSendsToTheStub() async throws {
        let client = Client()
        let hits = try await Self.withWatchedServer { server, base in
            try await withStubbedNetwork { network in
                network.stub(.get, "/users/1", with: .json(#"{"id":1}"#))
                let response = try await client.enqueue(try server.endpoint("/users/1")).resume()
                #expect(response.statusCode == 200)
                #expect(network.requests.map(\.url.absoluteString) == ["\(base)/users/1"])
            }
        }
        #expect(hits.isEmpty)
    }

    @Test func aClientCreatedInsideTheScopeSendsToTheStub() async throws {
        let hits = try await Self.withWatchedServer { server, base in
            try await withStubbedNetwork { network in
                network.stub(.get, "/users/1", with: .json(#"{"id":1}"#))
                _ = try await Client().enqueue(try server.endpoint("/users/1")).resume()
                #expect(network.requests.map(\.url.absoluteString) == ["\(base)/users/1"])
            }
        }
        #expect(hits.isEmpty)
    }

    @Test func aTokenRefreshSendsToTheStub() async throws {
        let hits = try await Self.withWatchedServer { _, base in
            let tokens = OAuth2TokenEndpoint(baseURL: base, path: try URLPath("/token"), clientAuthentication: .publicClient(clientID: "app"))
            let refresher = TokenRefresher(store: InMemoryTokenStore(Self.credential), tokenEndpoint: tokens)
            try await withStubbedNetwork { network in
                network.stub(.post, "/token", with: .json(Self.tokenResponse))
                let renewed = try await refresher.validCredential()
                #expect(renewed.accessToken == "AT-NEW")
                let request = try #require(network.requests.first)
                #expect(request.url.absoluteString == "\(base)/token")
                #expect(String(decoding: request.body, as: UTF8.self).contains("grant_type=refresh_token"))
            }
        }
        #expect(hits.isEmpty)
    }

    @Test func aRevocationSendsToTheStub() async throws {
        let hits = try await Self.withWatchedServer { _, base in
            let revocation = OAuth2RevocationEndpoint(
                baseURL: base, path: try URLPath("/revoke"), clientAuthentication: .publicClient(clientID: "app"))
            try await withStubbedNetwork { network in
                network.stub(.post, "/revoke", with: .status(200))
                try await revocation.revoke("RT-1", hint: .refreshToken)
                let request = try #require(network.requests.first)
                #expect(request.url.absoluteString == "\(base)/revoke")
                #expect(String(decoding: request.body, as: UTF8.self).contains("token=RT-1"))
            }
        }
        #expect(hits.isEmpty)
    }

    @Test func discoverySendsToTheStub() async throws {
        let hits = try await Self.withWatchedServer { _, base in
            try await withStubbedNetwork { network in
                network.stub(
                    .get, "/.well-known/oauth-authorization-server",
                    with: .json(#"{"issuer":"\#(base)","token_endpoint":"\#(base)/token"}"#))
                let metadata = try await AuthorizationServerMetadata.discover(issuer: try #require(URL(string: "\(base)")))
                #expect(metadata.issuer == "\(base)")
                #expect(network.requests.map(\.path) == ["/.well-known/oauth-authorization-server"])
            }
        }
        #expect(hits.isEmpty)
    }

    @Test func theDeviceFlowSendsToTheStub() async throws {
        let hits = try await Self.withWatchedServer { _, base in
            let tokens = OAuth2TokenEndpoint(baseURL: base, path: try URLPath("/token"), clientAuthentication: .publicClient(clientID: "app"))
            let flow = DeviceAuthorizationFlow(
                deviceAuthorizationEndpoint: try #require(URL(string: "\(base)/device")), tokenEndpoint: tokens,
                clock: TestClock(sleepsReturnImmediately: true))
            try await withStubbedNetwork { network in
                network.stub(
                    .post, "/device",
                    with: .json(#"{"device_code":"DC","user_code":"ABCD-EFGH","verification_uri":"https://example.com/device","expires_in":600}"#))
                network.stub(.post, "/token", with: .json(Self.tokenResponse))
                let credential = try await flow.run { _ in }
                #expect(credential.accessToken == "AT-NEW")
                #expect(network.requests.map(\.path) == ["/device", "/token"])
            }
        }
        #expect(hits.isEmpty)
    }

    @Test func aDownloadSendsToTheStub() async throws {
        let folder = try TemporaryFolder()
        let destination = folder.url.appendingPathComponent("file.bin")
        let bytes = Data((0..<10_000).map { UInt8($0 % 251) })
        let hits = try await Self.withWatchedServer { server, _ in
            try await withStubbedNetwork { network in
                network.stub(.get, "/file.bin", with: .data(bytes))
                let file = try await Client().enqueue(try server.endpoint("/file.bin")).download(to: destination)
                #expect(file.byteCount == Int64(bytes.count))
                #expect(try Data(contentsOf: destination) == bytes)
                #expect(network.requests.map(\.path) == ["/file.bin"])
            }
        }
        #expect(hits.isEmpty)
    }

    @Test func anEventStreamSendsToTheStub() async throws {
        let hits = try await Self.withWatchedServer { server, _ in
            try await withStubbedNetwork { network in
                network.stub(
                    .get, "/events",
                    with: .data(Data("id: 1\ndata: hello\n\n".utf8), headers: HTTPFields(["Content-Type": "text/event-stream"])), times: 1)
                network.stub(.get, "/events", with: .status(204))  // the reconnection: "stop"
                var received: [String] = []
                var options = EventSource.Options()
                options.clock = TestClock(sleepsReturnImmediately: true)
                for try await event in Client().enqueue(try server.endpoint("/events")).events(options) {
                    received.append(event.data)
                }
                #expect(received == ["hello"])
                #expect(network.requests.map(\.path) == ["/events", "/events"])
                #expect(network.requests.last?.headerValue(for: "Last-Event-ID") == "1")
            }
        }
        #expect(hits.isEmpty)
    }

    @Test func anUnmatchedRequestFailsNamingItAndNeverReachesTheNetwork() async throws {
        let hits = try await Self.withWatchedServer { server, base in
            try await withStubbedNetwork { network in
                let result = await Client().enqueue(try server.endpoint("/missing")).result()
                guard case .failure(let error) = result else {
                    Issue.record("expected a failure, got \(result)")
                    return
                }
                #expect("\(error)".contains("\(base)/missing"))
                #expect("\(error)".contains("no stub matches GET /missing"))
                #expect(network.unmatchedRequests.map(\.path) == ["/missing"])
            }
        }
        #expect(hits.isEmpty)
    }

    @Test func anUnmatchedTokenRefreshFailsNamingTheRequest() async throws {
        let hits = try await Self.withWatchedServer { _, base in
            let tokens = OAuth2TokenEndpoint(baseURL: base, path: try URLPath("/token"), clientAuthentication: .publicClient(clientID: "app"))
            let refresher = TokenRefresher(store: InMemoryTokenStore(Self.credential), tokenEndpoint: tokens)
            await withStubbedNetwork { _ in
                do {
                    _ = try await refresher.validCredential()
                    Issue.record("expected the refresh to fail")
                } catch {
                    #expect("\(error)".contains("no stub matches POST /token"))
                }
            }
        }
        #expect(hits.isEmpty)
    }
}

extension Result where Success == Response, Failure == CourierError {
    /// The status of the response a `.response` failure carries.
    fileprivate var rejectedStatus: Int? {
        if case .failure(.response(let response)) = self { return response.statusCode }
        return nil
    }
}
