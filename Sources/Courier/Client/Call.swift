/// One prepared request to an endpoint, made by ``Client/enqueue(_:)``.
///
/// Resume it to send the request. A call can be resumed more than once; each resume sends
/// the request anew. Cancelling the `Task` that awaits a resume cancels the network request
/// and ends the call with ``CourierError/cancelled``.
public struct Call: Sendable {
    let client: Client
    let endpoint: any Requestable

    /// Sends the request and decodes the body as `type`: JSON with the client's decoder, `Data`
    /// as raw bytes, `String` as text in the response's charset, ``EmptyResponse`` for
    /// 204/205/HEAD.
    ///
    /// ```swift
    /// let users = try await client.enqueue(ListUsers()).resume(expecting: [User].self)
    /// ```
    /// - Throws: ``CourierError/invalidRequest(_:)`` before sending; ``CourierError/transport(_:)``
    ///   or ``CourierError/cancelled`` while sending; ``CourierError/response(_:)`` for a status
    ///   code the endpoint does not accept; ``CourierError/decoding(_:)`` when the body does not
    ///   decode.
    public func resume<T: Decodable & Sendable>(expecting type: T.Type) async throws(CourierError) -> T {
        let response = try await resume()
        return try response.decode(type, using: client.configuration.decoder)
    }

    /// Sends the request and returns the response, validated against the endpoint's
    /// ``Requestable/acceptableStatusCodes``.
    /// - Throws: as ``resume(expecting:)``, without the decoding error.
    public func resume() async throws(CourierError) -> Response {
        try await client.perform(endpoint)
    }
}
