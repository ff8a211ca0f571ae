import Foundation

extension Call {
    /// Sends the request and returns once the response head has arrived with a status the
    /// endpoint accepts, the body still arriving: for large or endless responses. Read it with
    /// `for try await chunk in response.body`, ``StreamedResponse/lines(maximumLength:)`` or
    /// ``StreamedResponse/decodedLines(_:decoder:maximumLength:)``; reading has backpressure, and
    /// cancelling the reader, ``ResponseBody/cancel()`` or dropping the body stops the transfer.
    ///
    /// ```swift
    /// let response = try await client.enqueue(ExportOrders()).stream()
    /// for try await order in response.decodedLines(Order.self) { try await archive.insert(order) }
    /// ```
    /// Unlike ``resume()``: an accepted body has no size limit; the timeout still covers the whole
    /// exchange; retries end with the head (a connection lost mid-body is the reader's error).
    /// - Throws: as ``resume()`` until the head arrives (a refused status's body is read whole
    ///   for the error); errors after the head come from reading the body.
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
