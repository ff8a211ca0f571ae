/// A step every request of a client (or of one endpoint) passes through, on its way to the
/// network and back: an async onion.
///
/// Each middleware gets the request and `next`, the rest of the pipeline. It can
/// - decorate the request, then `return try await next(request)`;
/// - short-circuit: throw a ``CourierError`` or return a response of its own without calling
///   `next`;
/// - inspect or replace the response `next` returned: its head at once, its body by reading,
///   wrapping or replacing ``StreamedResponse/body``;
/// - call `next` again (a retry of its own).
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
///
/// **Order.** ``Configuration/middleware`` runs first, outermost, in array order; then the
/// endpoint's ``Requestable/middleware``; then Courier's own stages: retry, authentication
/// (host check, signing, the 401 replay) and attempt observation (log line, metrics); then the
/// transport (the list is in `Pipeline/CallPipeline.swift`). So the first middleware sees the
/// request first and the response last, sees one outcome per call (retries happen below it),
/// and every middleware sees the request before credentials are attached: a logging middleware
/// cannot leak a token it never saw.
///
/// **Bodies.** For calls that want the body whole (``Call/resume()``,
/// ``Call/resume(expecting:)``) the transport stage reads it, up to
/// ``TransportRequest/maximumResponseSize``, before the response goes up: so a connection lost
/// mid-body is retried like one lost before the head, and every middleware sees a whole body
/// (``ResponseBody/wholeData``). A middleware that returns a body of its own may stream it; the
/// call collects it under the same limit.
public protocol Middleware: Sendable {
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
