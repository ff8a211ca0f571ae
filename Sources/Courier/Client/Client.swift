/// Sends endpoints and decodes what comes back.
///
/// ```swift
/// let client = Client(configuration: Configuration(timeout: .seconds(10)))
/// let user = try await client.enqueue(GetUser(id: 42)).resume(expecting: User.self)
/// ```
///
/// A client is cheap to share: create one per API and use it from any task.
public actor Client {
    /// The configuration the client was created with.
    public nonisolated let configuration: Configuration

    /// Creates a client.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Prepares a call to `endpoint`. Nothing is sent until the call is resumed.
    public nonisolated func enqueue(_ endpoint: some Requestable) -> Call {
        Call(client: self, endpoint: endpoint)
    }

    /// Builds, sends and validates one request.
    nonisolated func perform(_ endpoint: some Requestable) async throws(CourierError) -> Response {
        if Task.isCancelled { throw .cancelled }
        let request = try RequestBuilder.build(endpoint, configuration: configuration)
        let started = ContinuousClock.now
        let response: Response
        do {
            response = try await configuration.transport.send(request)
        } catch {
            configuration.logger.debug("\(request.head.method.rawValue) \(request.url.redactedForLogging) failed after \(ContinuousClock.now - started): \(error)")
            throw error
        }
        configuration.logger.debug("\(request.head.method.rawValue) \(request.url.redactedForLogging) \(response.statusCode) in \(ContinuousClock.now - started)")
        guard endpoint.acceptableStatusCodes.contains(response.statusCode) else {
            throw .response(response)
        }
        return response
    }
}
