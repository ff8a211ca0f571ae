import Foundation

/// One prepared request to an endpoint, made by `Client.enqueue(_:)`.
///
/// Resume it to send the request. A call can be resumed more than once; each resume sends
/// the request anew. Cancelling the `Task` that awaits a resume cancels the network request
/// and ends the call with ``CourierError/cancelled``.
public struct Call: Sendable {
    let client: Client
    let endpoint: any Requestable
    /// What this call changes beside its endpoint (a progress observer's meters).
    var options = CallOptions()

    /// Sends the request and decodes the body as `type`, with the decoder its `Content-Type`
    /// calls for: JSON (`application/json`, any `+json`, or no `Content-Type`) with the client's
    /// decoder, another media type with the first of ``Configuration/responseDecoders`` that
    /// reads it, or the endpoint's own ``Requestable/responseDecoder``. `Data` gives the raw
    /// bytes, `String` the text in the response's charset, ``EmptyResponse`` accepts any body
    /// (204/205/HEAD). Sends an `Accept` header to match, unless one is set.
    ///
    /// ```swift
    /// let users = try await client.enqueue(ListUsers()).resume(expecting: [User].self)
    /// ```
    /// - Throws: ``CourierError/invalidRequest(_:)`` before sending; ``CourierError/transport(_:)``
    ///   or ``CourierError/cancelled`` while sending; ``CourierError/response(_:)`` for a status
    ///   code the endpoint does not accept (an RFC 9457 body is readable as
    ///   ``Response/problemDetails``); ``CourierError/decoding(_:)`` when the body does not
    ///   decode or no decoder reads its media type.
    public func resume<T: Decodable & Sendable>(expecting type: T.Type) async throws(CourierError) -> T {
        // Only the configuration's decoders are read, not a copy of all of it kept in this async
        // frame (which every call's task allocates).
        let decoders = client.configuration.responseDecoders
        let preferred = endpoint.responseDecoder
        var options = options
        options.accept = Self.accept(for: type, preferred: preferred, decoders: decoders)
        if let progress = options.progress { options.observe(progress) }
        defer { options.progress?.end() }
        // The response carries the client's decoders and the endpoint's (set in `Client.send`):
        // the one decoding path, which `Response.decode(_:)` takes too.
        return try await client.send(endpoint, options: options).collected.decode(type)
    }

    /// The `Accept` value for a call expecting `type`: the endpoint's decoder's media types, or
    /// JSON first and then the configuration's other decoders (`q=0.9`); `text/plain` first for
    /// `String`; none for `Data` and ``EmptyResponse`` (any body will do).
    static func accept<T>(for type: T.Type, preferred: (any ResponseBodyDecoder)?, decoders: [any ResponseBodyDecoder]) -> String? {
        if T.self == Data.self || T.self == EmptyResponse.self { return nil }
        if T.self == String.self { return "text/plain, */*;q=0.8" }
        if let preferred { return preferred.mediaTypes.joined(separator: ", ") }
        if decoders.isEmpty { return "application/json" }
        var types = ["application/json"]
        for mediaType in decoders.flatMap(\.mediaTypes) where !types.contains(mediaType) {
            types.append(mediaType)
        }
        return ([types[0]] + types.dropFirst().map { "\($0);q=0.9" }).joined(separator: ", ")
    }

    /// Sends the request and returns the response, validated against the endpoint's
    /// ``Requestable/acceptableStatusCodes``.
    /// - Throws: as ``resume(expecting:)``, without the decoding error.
    public func resume() async throws(CourierError) -> Response {
        guard let progress = options.progress else { return try await client.send(endpoint, options: options).collected }
        defer { progress.end() }
        var options = options
        options.observe(progress)
        return try await client.send(endpoint, options: options).collected
    }
}
