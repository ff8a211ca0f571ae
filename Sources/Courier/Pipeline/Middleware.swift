/// A step every request of a client (or of one endpoint) passes through, on its way to the
/// network and back: an async onion.
///
/// Each middleware gets the request and `next`, the rest of the pipeline. It can decorate the
/// request and call `next`; short-circuit (throw a ``CourierError`` or return a response of its
/// own); inspect or replace the response, its head at once and its body through
/// ``StreamedResponse/body``; or call `next` again.
///
/// ``Configuration/middleware`` runs first, outermost, in array order; then the endpoint's
/// ``Requestable/middleware``; then the cache (``Configuration/cache``), retry, authentication
/// and the transport (`print(client)` shows the whole order). So a middleware sees one outcome per call (a stored response, or the last
/// attempt: retries happen below it) and never the credentials Courier attaches. For calls
/// that want the body whole (``Call/resume()``) it sees a whole body
/// (``ResponseBody/wholeData``). Documentation/Middleware.md describes the order and bodies.
///
/// ```swift
/// struct RequestID: Middleware {
///     func intercept(_ request: TransportRequest, context: MiddlewareContext,
///                    next: Next) async throws(CourierError) -> StreamedResponse {
///         var request = request
///         request.head.headerFields[HTTPField.Name("X-Request-ID")!] = UUID().uuidString
///         return try await next(request)
///     }
/// }
/// let client = Client(configuration: Configuration(middleware: [RequestID()]))
/// ```
public protocol Middleware: Sendable {
    // Below the users' middleware: Courier's own stages, then the transport; the list is
    // Pipeline/Pipeline.swift, and `Client.description` prints it. A middleware that returns a
    // body of its own may stream it; the call collects it under the same limit.

    /// The rest of the pipeline: the next middleware, or authentication and the transport.
    typealias Next = @Sendable (TransportRequest) async throws(CourierError) -> StreamedResponse

    /// Handles one request.
    /// - Throws: any ``CourierError``; an error thrown by `next` may be rethrown, replaced or
    ///   recovered from.
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse
}

/// What a middleware knows about the call it is handling.
public struct MiddlewareContext: Sendable {
    /// The endpoint the request was built from.
    public let endpoint: any Requestable
    /// Whether the client's authentication will be applied below the middleware.
    public let requiresAuthorization: Bool
    /// The call's attempts, durations and bytes, recorded as the pipeline below goes.
    public let metrics: CallMetrics

    /// Creates a context (for testing middleware on its own).
    public init(endpoint: any Requestable, requiresAuthorization: Bool, metrics: CallMetrics = CallMetrics()) {
        self.endpoint = endpoint
        self.requiresAuthorization = requiresAuthorization
        self.metrics = metrics
    }
}
