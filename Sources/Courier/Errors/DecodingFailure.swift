/// An accepted response whose body could not be turned into the expected type.
///
/// The ``response`` is kept whole so that the caller can look at what actually arrived.
public struct DecodingFailure: Error, Sendable {
    /// Why decoding failed.
    #if hasAttribute(nonexhaustive)
        @nonexhaustive
    #endif
    public enum Reason: Sendable {
        /// The decoder threw; the `DecodingError` is kept.
        case decodingError(DecodingError)
        /// The body is not valid text in the charset the response declared (or UTF-8 by default).
        case invalidText(charset: String)
        /// The response declared a charset Courier cannot decode.
        case unsupportedCharset(String)
        /// The decoder threw an error that is not a `DecodingError`; its description is kept.
        case other(String)
        /// A ``ResponseBodyDecoder`` threw an error that is not a `DecodingError` (a SOAP fault
        /// in a 200 response, say); the error is kept.
        case decoderError(any Error)
        /// No decoder reads the response's media type (lower-case, without parameters), e.g. an
        /// HTML error page where JSON was expected.
        case unsupportedMediaType(String)
    }

    /// Why decoding failed.
    public var reason: Reason
    /// The response whose body could not be decoded.
    public var response: Response
    /// The name of the type that was expected, e.g. `"User"`.
    public var expectedType: String

    /// Creates a decoding failure.
    public init(reason: Reason, response: Response, expectedType: String) {
        self.reason = reason
        self.response = response
        self.expectedType = expectedType
    }

    /// The `DecodingError`, when the decoder threw one.
    public var decodingError: DecodingError? {
        if case .decodingError(let error) = reason { return error }
        return nil
    }
}

extension DecodingFailure: CustomStringConvertible {
    /// The expected type, the reason (with the coding path, not the body) and the response summary.
    public var description: String {
        let why: String
        switch reason {
        case .decodingError(let error):
            why = Self.describe(error)
        case .invalidText(let charset):
            why = "body is not valid \(charset) text"
        case .unsupportedCharset(let charset):
            why = "unsupported charset \(charset.debugDescription)"
        case .other(let text):
            why = text
        case .decoderError(let error):
            why = String(describing: error)
        case .unsupportedMediaType(let mediaType):
            why = "no decoder reads \(mediaType)"
        }
        return "cannot decode \(expectedType): \(why) (\(response))"
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }
            return keys.isEmpty ? "at the top level" : "at \(keys.joined())"
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "type mismatch for \(type) \(path(context))"
        case .valueNotFound(let type, let context):
            return "missing value of \(type) \(path(context))"
        case .keyNotFound(let key, let context):
            return "missing key \(key.stringValue.debugDescription) \(path(context))"
        case .dataCorrupted(let context):
            return "data corrupted \(path(context)): \(context.debugDescription)"
        @unknown default:
            return "decoding error"
        }
    }
}
