import Foundation

extension StreamedResponse {
    /// The body as Server-Sent Events (`text/event-stream`), parsed as they arrive, for one
    /// connection: the sequence ends with the body. For a stream that reconnects after a drop and
    /// resumes from the last event ID, use ``Call/events(_:)``.
    ///
    /// The `Content-Type` is not checked here; ``Call/events(_:)`` requires `text/event-stream`.
    ///
    /// ```swift
    /// let response = try await client.enqueue(Ticker()).stream()
    /// for try await event in response.serverSentEvents() {
    ///     print(event.type, event.data)
    /// }
    /// ```
    /// - Parameters:
    ///   - maximumLineLength: the most bytes one line may have (1 MiB by default).
    ///   - maximumEventSize: the most bytes one event's data may have (8 MiB by default).
    /// - Returns: a sequence that throws a ``TransportFailure/Kind/responseTooLarge`` failure
    ///   (after delivering the events before it) when a limit is passed, and stops the transfer;
    ///   or what reading the body throws.
    public func serverSentEvents(
        maximumLineLength: Int = ServerSentEventParser.defaultMaximumLineLength,
        maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize
    ) -> ServerSentEvents {
        ServerSentEvents(
            body: body, url: url, parser: ServerSentEventParser(maximumLineLength: maximumLineLength, maximumEventSize: maximumEventSize))
    }
}

/// A streamed body's Server-Sent Events (``StreamedResponse/serverSentEvents(maximumLineLength:maximumEventSize:)``).
public struct ServerSentEvents: AsyncSequence, Sendable {
    /// An event, dispatched by an empty line.
    public typealias Element = ServerSentEvent
    /// Reading events fails only with ``CourierError``.
    public typealias Failure = CourierError

    let body: ResponseBody
    let url: URL
    let parser: ServerSentEventParser

    /// Starts reading the body.
    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: body.makeAsyncIterator(), body: body, url: url, parser: parser)
    }

    /// Reads events in order.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        /// Reading events fails only with ``CourierError``.
        public typealias Failure = CourierError

        var chunks: ResponseBody.Iterator
        let body: ResponseBody
        let url: URL
        /// Read by ``EventSource`` after the body ends: its last event ID and reconnection time.
        var parser: ServerSentEventParser
        /// Events parsed and not yet returned, from ``nextPending``.
        private var pending: [ServerSentEvent] = []
        private var nextPending = 0
        /// A limit passed: thrown once the events parsed before it are returned.
        private var failure: CourierError?

        init(chunks: ResponseBody.Iterator, body: ResponseBody, url: URL, parser: ServerSentEventParser) {
            self.chunks = chunks
            self.body = body
            self.url = url
            self.parser = parser
        }

        /// The next event, or `nil` at the end of the body (an unfinished last event is dropped).
        /// - Throws: a ``TransportFailure/Kind/responseTooLarge`` failure for a line or an event
        ///   past its limit, or what reading the body throws.
        public mutating func next() async throws(CourierError) -> ServerSentEvent? {
            while true {
                if nextPending < pending.count {
                    defer { nextPending += 1 }
                    return pending[nextPending]
                }
                pending.removeAll(keepingCapacity: true)
                nextPending = 0
                if let failure { throw failure }
                guard let chunk = try await chunks.next() else {
                    parser.finish()
                    return nil
                }
                do {
                    try parser.parse(chunk, into: &pending)
                } catch {
                    body.cancel()
                    guard case .transport(var transportFailure) = error else { throw error }
                    transportFailure.url = url
                    failure = .transport(transportFailure)
                }
            }
        }

        /// ``next()``; the isolation does not matter, as events are `Sendable`.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(CourierError) -> ServerSentEvent? {
            try await next()
        }
    }
}
