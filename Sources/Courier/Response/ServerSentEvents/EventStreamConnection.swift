import Foundation

/// The events of one ``EventSource`` connection: its streamed body read through a
/// ``ServerSentEventParser`` as the chunks arrive, until the body ends.
struct EventStreamConnection: Sendable {
    private var chunks: ResponseBody.Iterator
    /// The body, to stop its transfer.
    let body: ResponseBody
    private let url: URL
    /// Read by ``EventSource`` after each event and at the end: the last event ID and the
    /// reconnection time to go on with.
    private(set) var parser: ServerSentEventParser
    /// Events parsed and not yet returned, from ``nextPending``.
    private var pending: [ServerSentEvent] = []
    private var nextPending = 0
    /// A limit passed: thrown once the events parsed before it are returned.
    private var failure: CourierError?

    init(body: ResponseBody, url: URL, parser: ServerSentEventParser) {
        chunks = body.makeAsyncIterator()
        self.body = body
        self.url = url
        self.parser = parser
    }

    /// The next event, or `nil` at the end of the body (an unfinished last event is dropped).
    /// - Throws: a ``TransportFailure/Kind/responseTooLarge`` failure, with the response's URL,
    ///   for a line or an event past its limit (after the events before it, and stopping the
    ///   transfer), or what reading the body throws.
    mutating func next() async throws(CourierError) -> ServerSentEvent? {
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
}
