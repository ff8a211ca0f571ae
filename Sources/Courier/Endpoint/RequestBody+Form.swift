import Foundation

extension RequestBody {
    /// The `Content-Type` of form bodies.
    static let formContentType = "application/x-www-form-urlencoded; charset=utf-8"

    /// An `application/x-www-form-urlencoded; charset=utf-8` body: the query string a URL would
    /// carry, without the `?`, written in order as ``QueryStringFormattingOptions`` says.
    ///
    /// ```swift
    /// var method: HTTPMethod { .post }
    /// var body: RequestBody? { .form(["name": "Ada Lovelace", "langs": ["en", "fr"], "remember": nil]) }
    /// // name=Ada%20Lovelace&langs%5B0%5D=en&langs%5B1%5D=fr&remember
    /// ```
    ///
    /// A NaN or infinite number fails the call with ``InvalidRequest/encodingFailed(_:underlyingError:)``.
    /// - Parameters:
    ///   - parameters: the fields; build them from an `Encodable` with
    ///     ``QueryParameters/init(encoding:)``.
    ///   - options: how the fields are written; `nil` uses the client's
    ///     ``Configuration/queryStringOptions``. HTML forms write a space as `+`:
    ///     `QueryStringFormattingOptions(spaceEncodingRule: .replacedWithDecodedPlus)`.
    public static func form(_ parameters: QueryParameters, options: QueryStringFormattingOptions? = nil) -> RequestBody {
        RequestBody(
            content: .deferred { configuration throws(CourierError) in
                let encoder = QueryStringEncoder(options: options ?? configuration.queryStringOptions)
                return Data(try encoder.encode(parameters).utf8)
            }, contentType: formContentType)
    }
}
