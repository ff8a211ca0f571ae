import Foundation

extension Call {
    /// Sends the request and returns as soon as the response head has arrived and its status is
    /// one the endpoint accepts, with the body still arriving: for large or endless responses
    /// (exports, logs, newline-delimited JSON, event streams) that should not be held in memory.
    ///
    /// Read the body as it comes with `for try await chunk in response.body`, line by line with
    /// ``StreamedResponse/lines(maximumLength:)``, or as newline-delimited JSON values with
    /// ``StreamedResponse/decodedLines(_:decoder:maximumLength:)``. The transfer has
    /// backpressure: bytes are read from the connection as fast as the reader takes them.
    /// Cancelling the reading task, calling ``ResponseBody/cancel()`` or dropping the body
    /// unread stops the transfer on the wire.
    ///
    /// ```swift
    /// let response = try await client.enqueue(ExportOrders()).stream()
    /// for try await order in response.decodedLines(Order.self) {
    ///     try await archive.insert(order)
    /// }
    /// ```
    ///
    /// What differs from ``resume()``:
    /// - ``Configuration/maximumResponseSize`` does not limit an accepted body, which is never
    ///   held whole; a refused status's body is still read whole under it, for the error.
    /// - The timeout (``Requestable/timeout`` or ``Configuration/timeout``) still covers the
    ///   whole exchange, the body included: give an endpoint that streams for long a timeout to
    ///   match.
    /// - Retries (``Configuration/retryPolicy``) cover the attempts up to an accepted head; a
    ///   connection lost mid-body is thrown by the body's reader, not retried.
    /// - For ``Client/runExclusively(_:)`` the call is in flight until its head has arrived.
    ///
    /// - Throws: as ``resume()``: ``CourierError/invalidRequest(_:)`` before sending;
    ///   ``CourierError/transport(_:)`` or ``CourierError/cancelled`` until the head arrives;
    ///   ``CourierError/response(_:)`` with the whole error body for a status code the endpoint
    ///   does not accept. Errors after the head come from reading the body.
    public func stream() async throws(CourierError) -> StreamedResponse {
        var options = options
        options.collectsBody = false
        if let progress = options.progress {
            // Upload progress only: the body is the caller's to count. Both end with the head.
            defer { progress.end() }
            options.progress = nil
            options.uploadMeter = progress.uploadMeter
            return try await client.send(endpoint, options: options)
        }
        return try await client.send(endpoint, options: options)
    }
}
