import Courier
import Foundation

/// Runs `body` with every Courier request that uses the default transport answered by
/// `network`, never sent to the network.
///
/// Inside the scope, `Configuration.defaultTransport` sends to `network`: clients made with
/// `Client()`, token endpoints, revocation, discovery, the device flow, downloads and event
/// streams. A request that no route answers fails at once with `CourierError/transport(_:)`.
/// Child tasks and `Task { }` are in the scope; `Task.detached` is not, nor a client given a
/// transport of its own. With Swift Testing, the ``Testing/Trait/stubbedNetwork`` trait does the same.
///
/// - Parameters:
///   - network: the stub that answers; a new, empty one by default.
///   - isolation: the actor `body` runs on: the caller's.
///   - body: the code under test; it receives `network` to stub and inspect.
/// - Returns: what `body` returns.
/// - Throws: what `body` throws.
public func withStubbedNetwork<Value>(
    _ network: NetworkStub = NetworkStub(),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (NetworkStub) async throws -> Value
) async rethrows -> Value {
    // Clients made before the scope, outside the test, are in it too: the default transport is
    // looked up per request. The request is answered from `network`'s routes directly, without
    // URLSession or async-http-client, the same way on Linux and Apple platforms, so what runs is
    // everything above the transport: request building, middleware, authentication, retries, status
    // validation, decoding. An unmatched request's error names its method and URL, and the request
    // is listed in NetworkStub.unmatchedRequests. Scopes of parallel tests are independent, and
    // scopes nest (the innermost wins).
    try await DefaultTransportScope.$transport.withValue(StubbedNetworkTransport(network: network)) {
        try await body(network)
    }
}

extension NetworkStub {
    /// The stub of the scope the calling task is in (``withStubbedNetwork(_:isolation:_:)`` or
    /// the `.stubbedNetwork` trait); `nil` outside any scope.
    ///
    /// ```swift
    /// @Test(.stubbedNetwork) func fetchesTheUser() async throws {
    ///     let network = try #require(NetworkStub.current)
    ///     network.stub(.get, "/users/42", with: try .json(User(id: 42, name: "Ada")))
    /// }
    /// ```
    public static var current: NetworkStub? {
        (DefaultTransportScope.transport as? StubbedNetworkTransport)?.network
    }
}

/// The transport of a ``withStubbedNetwork(_:isolation:_:)`` scope: answers from the stub's
/// routes in the calling task, without URLSession. It adds no cookies.
struct StubbedNetworkTransport: Transport, StoredCookieSource, WebSocketTransport {
    let network: NetworkStub

    /// As the platform transports: requests carry `Accept-Encoding: gzip` as over the network.
    /// A stubbed body is handed over as it is (a stub that sets `Content-Encoding: gzip` gets
    /// its bytes back undecoded, as through URLSession's URL protocols).
    var decodesGzip: Bool { true }

    package func storedCookieHeader(for url: URL) -> String? { nil }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        try await respond(to: request, upgrade: nil)
    }

    /// A WebSocket stub plays its script; any other stub answers the upgrade request as it would
    /// any request (a `401` asks for a refresh).
    package func openWebSocket(_ request: TransportRequest, upgrade: WebSocketUpgrade) async throws(CourierError) -> StreamedResponse {
        try await respond(to: request, upgrade: upgrade)
    }

    private func respond(to request: TransportRequest, upgrade: WebSocketUpgrade?) async throws(CourierError) -> StreamedResponse {
        if Task.isCancelled { throw .cancelled }
        let url = request.url
        let recorded = RecordedRequest(
            method: request.head.method.rawValue, url: url, headers: request.head.headerFields,
            body: try await Self.bytes(of: request.body))
        guard let response = network.storage.respond(to: recorded) else {
            throw .transport(Self.unmatched(recorded, redaction: request.redaction))
        }
        if let delay = response.delay, delay > .zero {
            let waited = min(delay, request.timeout)
            do {
                try await Task.sleep(for: waited)
            } catch {
                throw .cancelled
            }
            if waited < delay {
                throw .transport(TransportFailure(URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url]), url: url))
            }
        }
        if let error = response.error {
            throw .transport(TransportFailure(error, url: url))
        }
        guard (100...599).contains(response.statusCode) else {
            let message = "CourierTesting: the stubbed status code \(response.statusCode) is not in 100–599"
            throw .transport(
                TransportFailure(
                    URLError(.badServerResponse, userInfo: [NSURLErrorFailingURLErrorKey: url, NSLocalizedDescriptionKey: message]),
                    url: url))
        }
        if let script = response.peerScript {
            guard let upgrade else {
                throw .transport(
                    TransportFailure(kind: .badResponse, url: url, message: "CourierTesting: a WebSocket stub answered a request that is not a WebSocket call"))
            }
            upgrade.deliver(WebSocketPeer.start(script, request: recorded))
        }
        return StreamedResponse(status: HTTPResponse.Status(code: response.statusCode), headers: response.headers, body: ResponseBody(response.body), url: url)
    }

    /// The failure of a request no route answers: it names the method, the path and the query
    /// (the items `redaction`, the call's, names secret redacted), which a stub compares; the
    /// URL, redacted, is the failure's `url`.
    static func unmatched(_ request: RecordedRequest, redaction: Redaction) -> TransportFailure {
        TransportFailure(
            kind: .other, url: request.url,
            message: "CourierTesting: no stub matches \(request.method) \(request.redactedTarget(redaction)); the request was not sent to the network")
    }

    /// The whole body, read to its end.
    private static func bytes(of body: TransportBody?) async throws(CourierError) -> Data {
        switch body {
        case nil: return Data()
        case .data(let data): return data
        case .stream(let stream):
            var reader = try stream.makeReader()
            var data = Data()
            while let chunk = try await reader.next() {
                data.append(chunk)
            }
            return data
        }
    }
}
