public import Foundation

/// Turns response bodies of some media types into `Decodable` values.
///
/// ``Call/resume(expecting:)`` picks a decoder by the response's `Content-Type`: JSON
/// (`application/json` and every `+json` type) with ``Configuration/decoder``, then the first of
/// ``Configuration/responseDecoders`` that reads the media type. An endpoint can name its own
/// with ``Requestable/responseDecoder``, which is then used whatever the `Content-Type`.
///
/// The `Accept` header of a call that expects a model lists the media types of the decoder(s)
/// that would read it, unless the endpoint or the configuration sets `Accept` itself.
///
/// ```swift
/// struct CSVDecoder: ResponseBodyDecoder {
///     var mediaTypes: [String] { ["text/csv"] }
///     func decode<T: Decodable>(_ type: T.Type, from response: Response) throws -> T {
///         try csvDecoder.decode(type, from: response.body)
///     }
/// }
/// var configuration = Configuration()
/// configuration.responseDecoders = [CSVDecoder()]
/// ```
public protocol ResponseBodyDecoder: Sendable {
    /// The media types this decoder reads, most preferred first, lower-case and without
    /// parameters (`"application/xml"`); sent in `Accept`.
    var mediaTypes: [String] { get }

    /// Whether this decoder reads bodies of `mediaType` (lower-case, without parameters).
    /// Default: whether ``mediaTypes`` contains it.
    func canDecode(mediaType: String) -> Bool

    /// Decodes the response's body as `type`.
    /// - Throws: anything; Courier wraps it in ``CourierError/decoding(_:)`` with the response
    ///   (a `DecodingError` is kept as ``DecodingFailure/Reason/decodingError(_:)``, any other
    ///   error as ``DecodingFailure/Reason/decoderError(_:)``).
    func decode<T: Decodable>(_ type: T.Type, from response: Response) throws -> T
}

extension ResponseBodyDecoder {
    /// Whether ``mediaTypes`` contains `mediaType`.
    public func canDecode(mediaType: String) -> Bool {
        mediaTypes.contains(mediaType)
    }
}

/// JSON with a `JSONDecoder`: `application/json` and every `+json` media type.
///
/// The client decodes JSON with ``Configuration/decoder``; name one of these as an endpoint's
/// ``Requestable/responseDecoder`` to decode that endpoint with other settings:
///
/// ```swift
/// var responseDecoder: (any ResponseBodyDecoder)? {
///     let decoder = JSONDecoder()
///     decoder.keyDecodingStrategy = .convertFromSnakeCase
///     return JSONBodyDecoder(decoder)
/// }
/// ```
public struct JSONBodyDecoder: ResponseBodyDecoder {
    /// The decoder used.
    package let decoder: JSONDecoder

    /// Wraps `decoder`.
    public init(_ decoder: JSONDecoder = JSONDecoder()) {
        self.decoder = decoder
    }

    /// `["application/json"]`.
    public var mediaTypes: [String] { ["application/json"] }

    /// `application/json` and any `…+json` type (`application/problem+json`, `application/vnd.api+json`).
    public func canDecode(mediaType: String) -> Bool {
        Self.isJSON(mediaType)
    }

    /// Decodes the body as JSON.
    public func decode<T: Decodable>(_ type: T.Type, from response: Response) throws -> T {
        try decoder.decode(T.self, from: response.body)
    }

    /// `application/json` or a `+json` structured-syntax suffix (RFC 6839).
    static func isJSON(_ mediaType: String) -> Bool {
        mediaType == "application/json" || mediaType.hasSuffix("+json")
    }
}
