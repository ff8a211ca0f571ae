import Foundation

extension Call {
    /// Subscribes to the endpoint's Server-Sent Events (`text/event-stream`) and keeps the
    /// subscription alive: when the connection drops or the server ends the stream, the source
    /// waits and reconnects, sending `Last-Event-ID` so that the server resumes after the last
    /// event delivered, like a browser's `EventSource`.
    ///
    /// ```swift
    /// for try await event in client.enqueue(Notifications()).events() {
    ///     switch event.type {
    ///     case "message": show(event.data)
    ///     case "logout": return                     // leaving the loop closes the connection
    ///     default: break
    ///     }
    /// }
    /// ```
    ///
    /// Each connection is a new call through the whole pipeline (middleware, retry,
    /// authentication, observation): it is signed anew, so a bearer token that expired while the
    /// stream was open is refreshed before the reconnection. Requests send
    /// `Accept: text/event-stream`, `Cache-Control: no-store` and, once the server has set an
    /// event ID, `Last-Event-ID`. The endpoint's timeout is replaced by
    /// ``EventSource/Options/connectionTimeout`` (an event stream is endless); with
    /// ``EventSource/Options/idleTimeout``, a stream silent for that long is reconnected too.
    ///
    /// How it ends:
    /// - `204 No Content`: the server says "stop"; the sequence ends (`nil`), no reconnection.
    /// - Another status the endpoint does not accept, or a 2xx other than 200 and 204: it throws
    ///   ``CourierError/response(_:)`` with the response, and does not reconnect.
    /// - A 200 whose `Content-Type` is not `text/event-stream`: it throws
    ///   ``CourierError/decoding(_:)`` with ``DecodingFailure/Reason/unsupportedMediaType(_:)``.
    /// - A connection that cannot be made for a reason a retry may cure (the failures
    ///   ``RetryPolicy`` retries: timed out, lost, refused, DNS), a stream cut off by any transport
    ///   failure, or a stream the server ends: reconnection after the delay
    ///   ``EventSource/Options`` describes, until ``EventSource/Options/maximumReconnectAttempts``
    ///   (none by default). Events are delivered once: the reconnection asks for what follows the
    ///   last complete event.
    /// - Other failures (invalid request, authentication, TLS or pinning before the stream opened,
    ///   a line or an event past its limit) are thrown.
    /// - Cancelling the task that iterates ends the sequence at once with
    ///   ``CourierError/cancelled`` and stops the transfer; so does leaving the loop.
    ///
    /// - Parameter options: reconnection delays and limits; the defaults suit most servers.
    /// - Returns: the events, in order, each delivered once.
    public func events(_ options: EventSource.Options = EventSource.Options()) -> EventSource {
        self.options.progress?.end()  // an event stream reports no progress
        return EventSource(client: client, endpoint: endpoint, options: options)
    }
}
