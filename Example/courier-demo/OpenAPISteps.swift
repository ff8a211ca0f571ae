import Courier
import CourierDemoAPI
import CourierOpenAPI
import Foundation
import OpenAPIRuntime

extension Demo {
    /// The demo API's client generated from Example/DemoAPIClient/openapi.yaml, sending through a
    /// Courier client: a password-grant sign-in, `calls` concurrent `getMe` operations with an
    /// expired token (one refresh for all), a `getUser` answered from Courier's HTTP cache the
    /// second time, and a streamed `uploadFile`.
    func generatedClient(calls: Int) async -> Outcome {
        do {
            let tokens = OAuth2TokenEndpoint(
                baseURL: api, path: try URLPath("/oauth/token"),
                clientAuthentication: .basic(clientID: DemoClient.id, clientSecret: DemoClient.secret),
                configuration: Courier.Configuration(transport: Courier.Configuration.defaultTransport), timeout: .seconds(10))
            var expired = try await tokens.password(username: DemoAccount.username, password: DemoAccount.password)
            expired.issuedAt = Date(timeIntervalSinceNow: -7_200)
            expired.expiresAt = Date(timeIntervalSinceNow: -3_600)
            let sent = SentRequests(Courier.Configuration.defaultTransport)
            var configuration = Courier.Configuration(
                transport: sent, timeout: .seconds(10), authentication: .bearer(TokenRefresher(store: InMemoryTokenStore(expired), tokenEndpoint: tokens)),
                authorizedHosts: [api.host])
            configuration.cache = HTTPCache()
            let generated = CourierDemoAPI.Client(
                serverURL: api.url,
                transport: CourierClientTransport(
                    Courier.Client(configuration: configuration),
                    unauthenticatedOperations: ["listUsers", "getUser", "createUser", "getAuthStats", "uploadFile"]))

            let before = try await generated.getAuthStats().ok.body.json
            let names = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<calls { group.addTask { try await generated.getMe().ok.body.json.name } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            let after = try await generated.getAuthStats().ok.body.json
            let refreshes = after.refreshGrants - before.refreshGrants

            let first = try await generated.getUser(path: .init(id: DemoAccount.userID)).ok.body.json
            let again = try await generated.getUser(path: .init(id: DemoAccount.userID)).ok.body.json
            let fetches = sent.count(of: "/v1/users/\(DemoAccount.userID)")

            let size = 4 << 20
            let (chunks, continuation) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
            let producer = Task {
                let chunk = ArraySlice(repeating: UInt8(ascii: "c"), count: 64 * 1024)
                for _ in 0..<(size / chunk.count) { continuation.yield(chunk) }
                continuation.finish()
            }
            let receipt = try await generated.uploadFile(body: .binary(HTTPBody(chunks, length: .known(Int64(size))))).created.body.json
            await producer.value

            guard refreshes == 1, names.count == calls, first == again, fetches == 1, receipt.bytes == size else {
                return .failed(
                    "expected 1 refresh for \(calls) operations, 1 fetch of the cached user and \(size) bytes uploaded; got \(refreshes) refreshes, \(names.count) answers, \(fetches) fetches, \(receipt.bytes) bytes"
                )
            }
            return .passed("1 refresh for \(calls) getMe, getUser cached (1 fetch for 2), \(size >> 20) MiB streamed by uploadFile")
        } catch let error as ClientError {
            // What Courier threw is under the generated client's error.
            guard let courierError = error.underlyingError as? CourierError else {
                return .failed("expected the generated operations to succeed, got \(error.underlyingError)")
            }
            return unexpected(courierError, expected: "the generated operations to succeed")
        } catch let error as CourierError {
            return unexpected(error, expected: "to sign in with the password grant")
        } catch {
            return .failed("expected the generated operations to succeed, got \(error)")
        }
    }
}

/// A transport that counts the requests that reach the network, by path, and passes them on.
private struct SentRequests: Transport {
    let base: any Transport
    private let paths = LockedState<[String: Int]>([:])

    init(_ base: any Transport) { self.base = base }

    var decodesGzip: Bool { base.decodesGzip }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        paths.withLock { $0[request.head.path ?? "", default: 0] += 1 }
        return try await base.send(request)
    }

    func count(of path: String) -> Int { paths.withLock { $0[path] ?? 0 } }
}
