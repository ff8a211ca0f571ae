public import Courier
public import Foundation
public import HTTPTypes
public import OpenAPIRuntime

/// A swift-openapi-runtime `ClientTransport` that sends every operation of a generated client
/// through a Courier `Client`, with its authentication (to `Configuration.authorizedHosts`
/// only), retries, cache, middleware, redaction, tracing, metrics and stubs, as any call.
///
/// ```swift
/// let courier = Courier.Client(configuration: configuration)
/// let api = Client(serverURL: try Servers.Server1.url(), transport: CourierClientTransport(courier))  // the generated Client
/// let user = try await api.getUser(path: .init(id: 1)).ok.body.json
/// ```
///
/// Every status reaches the generated code; a failure is thrown as the `CourierError`, which
/// the generated client wraps in `ClientError`. Which bodies are read whole or streamed, and
/// under which limit: the OpenAPI guide.
public struct CourierClientTransport: ClientTransport {
    /// The Courier client the operations are sent through.
    public let client: Courier.Client

    /// The operations sent without the configuration's credential (the document's public
    /// operations, `security: []`); every other one requires it, as a `Requestable` does by
    /// default.
    public let unauthenticatedOperations: Set<String>

    /// A transport that sends operations through `client`.
    /// - Parameters:
    ///   - client: the Courier client whose configuration the operations get.
    ///   - unauthenticatedOperations: the `operationId`s sent without a credential. The
    ///     generator does not pass on the document's security requirements, so list the public
    ///     ones. Every other operation gets the configuration's credential as a `Requestable`
    ///     that requires authorization does: when the configuration has an authentication but no
    ///     credential yet (an empty token store), it fails with `AuthenticationFailure.missingCredential`
    ///     and nothing is sent; with `Authentication.none` there is nothing to attach and it is
    ///     sent as it is.
    public init(_ client: Courier.Client, unauthenticatedOperations: Set<String> = []) {
        self.client = client
        self.unauthenticatedOperations = unauthenticatedOperations
    }

    /// The server URLs last split: a generated client passes the same one to every operation.
    private let servers = ServerCache()

    /// Sends `request` with `body` to `baseURL` through ``client`` as the operation
    /// `operationID`.
    /// - Throws: a `CourierError`: `InvalidRequest` for a base URL, path,
    ///   query or header Courier refuses to send (nothing is sent), and the errors of
    ///   `resume()` otherwise; never for a status.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let operation = try await OperationRequest(
            request, body: body, server: try servers.server(for: baseURL),
            requiresAuthorization: !unauthenticatedOperations.contains(operationID))
        let collects = ResponseHandling.readsWhole(request)
        let response = try await client.enqueue(operation.endpoint).send(
            operation: operationID, encodedQuery: operation.encodedQuery, collectingBody: collects)
        return (
            HTTPResponse(status: response.head.status, headerFields: response.head.headers),
            try ResponseHandling.body(of: response, for: request, limit: client.configuration.maximumResponseSize)
        )
    }
}

/// The server URLs last split, so that a generated client's operations, which all pass the same
/// URL, parse it once (and a few clients sharing the transport do not take turns).
private final class ServerCache: Sendable {
    private static let capacity = 4
    private let recent = LockedState<[OperationRequest.Server]>([])

    /// `url` split, from the cache when it is one of the URLs last split.
    /// - Throws: as `OperationRequest.Server.init(_:)`.
    func server(for url: URL) throws(CourierError) -> OperationRequest.Server {
        if let cached = recent.withLock({ $0.first { $0.url == url } }) { return cached }
        let server = try OperationRequest.Server(url)
        recent.withLock { recent in
            if recent.count == Self.capacity { recent.removeFirst() }
            recent.append(server)
        }
        return server
    }
}
