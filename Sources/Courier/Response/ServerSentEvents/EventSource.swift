import Foundation

/// An endpoint's Server-Sent Events over as many connections as it takes (``Call/events(_:)``).
///
/// Iterating it opens the first connection; each iterator has connections of its own.
public struct EventSource: AsyncSequence, Sendable {
    /// An event, in the order the server sent it.
    public typealias Element = ServerSentEvent
    /// Reading events fails only with ``CourierError``.
    public typealias Failure = CourierError

    let client: Client
    let endpoint: any Requestable
    /// How it reconnects.
    package let options: Options

    /// Starts reading: the first connection opens on the first ``Iterator/next()``.
    public func makeAsyncIterator() -> Iterator {
        Iterator(source: self)
    }

    /// Reads events in order, reconnecting as needed.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        /// Reading events fails only with ``CourierError``.
        public typealias Failure = CourierError

        let source: EventSource
        private let clock: any Clock<Duration>
        /// The events of the connection open now, if any.
        private var connection: EventStreamConnection?
        /// Between connections: the last event ID and the reconnection time to go on with.
        private var parser: ServerSentEventParser
        /// Reconnections since the last event was delivered.
        private var failures = 0
        /// Whether the connection open now (or the last one) delivered an event.
        private var deliveredEvents = false
        /// Connections in a row that ended sooner than ``Options/minimumReconnectionDelay`` after
        /// they opened: only the first of them may reconnect sooner than the floor, events or not,
        /// so a server that sends one event and closes cannot make a reconnection loop.
        private var shortConnections = 0
        /// When the connection open now was opened, on ``elapsed``.
        private var openedAt: Duration?
        private let elapsed: ElapsedTime
        private var isFinished = false
        private var random = SystemRandomNumberGenerator()

        init(source: EventSource) {
            self.source = source
            let clock = source.options.clock ?? source.client.configuration.clock
            self.clock = clock
            elapsed = ElapsedTime(clock)
            parser = ServerSentEventParser(
                maximumLineLength: source.options.maximumLineLength, maximumEventSize: source.options.maximumEventSize,
                lastEventID: source.options.lastEventID)
        }

        /// The next event, or `nil` once the server answered `204 No Content` (or ended the
        /// stream when no more reconnections are allowed).
        /// - Throws: what ends the sequence, as ``Call/events(_:)`` lists; after a throw the
        ///   iterator returns `nil`.
        public mutating func next() async throws(CourierError) -> ServerSentEvent? {
            while !isFinished {
                if Task.isCancelled { throw finish(.cancelled) }
                guard var current = connection else {
                    try await connect()
                    continue
                }
                let outcome: Result<ServerSentEvent?, CourierError>
                do {
                    outcome = .success(try await current.next())
                } catch {
                    outcome = .failure(error)
                }
                parser = current.parser
                switch outcome {
                case .success(let event?):
                    connection = current
                    failures = 0
                    deliveredEvents = true
                    return event
                case .success(nil):
                    connection = nil
                    try await waitToReconnect(after: nil)
                case .failure(let error):
                    connection = nil
                    parser.finish()
                    try await waitToReconnect(after: error, whileReading: true)
                }
            }
            return nil
        }

        /// ``next()``; the isolation does not matter, as events are `Sendable`.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(CourierError) -> ServerSentEvent? {
            try await next()
        }

        /// Opens a connection: sets ``connection``, ends the sequence on a 204, or waits to try again.
        private mutating func connect() async throws(CourierError) {
            let options = EventStreamRequest.options(lastEventID: parser.lastEventID, connectionTimeout: source.options.connectionTimeout)
            let response: StreamedResponse
            do {
                response = try await source.client.send(source.endpoint, options: options)
            } catch {
                try await waitToReconnect(after: error)
                return
            }
            switch response.statusCode {
            case 200:
                let mediaType = response.head.mediaType
                guard mediaType == "text/event-stream" else {
                    response.body.cancel()
                    throw finish(
                        .decoding(
                            DecodingFailure(
                                reason: .unsupportedMediaType(mediaType ?? "none"), response: Response(head: response.head, body: Data()),
                                expectedType: String(describing: ServerSentEvent.self))))
                }
                var body = response.body
                if let idleTimeout = source.options.idleTimeout {
                    body = body.stoppingWhenIdle(for: Swift.min(idleTimeout, Duration.longestWait), clock: clock, url: response.url)
                }
                connection = EventStreamConnection(body: body, url: response.url, parser: parser)
                openedAt = elapsed.now()
            case 204:
                response.body.cancel()
                isFinished = true
            default:
                // WHATWG: any other status fails the connection for good. Its body is kept, under
                // the usual limit.
                let limit = source.endpoint.maximumResponseSize ?? source.client.configuration.maximumResponseSize
                let rejected: Response
                do {
                    rejected = try await response.collect(upTo: limit)
                } catch {
                    throw finish(error)
                }
                throw finish(.response(rejected))
            }
        }

        /// After a drop (`error`) or a clean end (`nil`): throws what must not be retried, ends the
        /// sequence when no more reconnections are allowed, else waits the reconnection delay.
        ///
        /// Before a stream is open, the transport failures ``RetryPolicy`` retries are worth
        /// another connection. Once it is open, any transport failure is a dropped connection
        /// (WHATWG: the user agent reestablishes it), whatever the transport calls it: a body cut
        /// short reads as `connectionLost` over one transport and `other` or `badResponse` over
        /// another. Only a limit the stream passed is final.
        private mutating func waitToReconnect(after error: CourierError?, whileReading: Bool = false) async throws(CourierError) {
            if let error {
                guard case .transport(let failure) = error,
                    whileReading ? failure.kind != .responseTooLarge : RetryPolicy.isRetryable(failure.kind)
                else { throw finish(error) }
            }
            if let maximum = source.options.maximumReconnectAttempts, failures >= maximum {
                if let error { throw finish(error) }
                isFinished = true
                return
            }
            if let opened = openedAt {
                openedAt = nil
                shortConnections = elapsed.now() - opened < source.options.minimumReconnectionDelay ? shortConnections + 1 : 0
            }
            let delay = source.options.reconnectionDelay(
                serverRetry: parser.reconnectionTime, failures: failures, afterEvents: deliveredEvents && shortConnections <= 1,
                random: &random)
            failures += 1
            deliveredEvents = false
            do {
                try await clock.sleep(for: delay)
            } catch {
                throw finish(.cancelled)
            }
        }

        /// Ends the sequence, stopping any transfer, and returns `error` to throw.
        private mutating func finish(_ error: CourierError) -> CourierError {
            connection?.body.cancel()
            connection = nil
            isFinished = true
            return error
        }
    }
}
