import Foundation

extension Call {
    /// Subscribes to the endpoint's Server-Sent Events (`text/event-stream`) and keeps the
    /// subscription alive like a browser's `EventSource`: when the connection drops or the server
    /// ends the stream, it waits and reconnects with `Last-Event-ID`, so each event arrives once.
    /// Each connection is a call through the whole pipeline, signed anew.
    ///
    /// ```swift
    /// for try await event in client.enqueue(Notifications()).events() {
    ///     if event.type == "logout" { return }   // leaving the loop closes the connection
    ///     show(event.data)
    /// }
    /// ```
    /// A `204` ends the sequence; another refused status throws ``CourierError/response(_:)``, a
    /// 200 that is not `text/event-stream` ``CourierError/decoding(_:)``; cancelling the task
    /// throws ``CourierError/cancelled``. The table in `Documentation/Transfers.md` has the rest.
    /// - Parameter options: reconnection delays, limits and timeouts.
    public func events(_ options: EventSource.Options = EventSource.Options()) -> EventSource {
        self.options.progress?.end()  // an event stream reports no progress
        return EventSource(client: client, endpoint: endpoint, options: options)
    }
}
