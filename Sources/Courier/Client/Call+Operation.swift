import Foundation

extension Call {
    /// Sends the call for the generated OpenAPI operation `operationID` (CourierOpenAPI's way
    /// in): the one path of every call, with the operation naming its span, metrics and log
    /// lines.
    /// - Parameters:
    ///   - encodedQuery: the query as the generated code percent-encoded it, sent as it is.
    ///   - collectingBody: whether the body is read whole as in ``resume()`` (inside the retry
    ///     loop, under the size limit), or streams as in ``stream()``.
    /// - Throws: as ``resume()`` or ``stream()``.
    package func send(operation operationID: String, encodedQuery: String?, collectingBody: Bool) async throws(CourierError) -> StreamedResponse {
        var options = options
        options.operationID = operationID
        options.encodedQuery = encodedQuery
        options.collectsBody = collectingBody
        return try await client.send(endpoint, options: options)
    }
}
