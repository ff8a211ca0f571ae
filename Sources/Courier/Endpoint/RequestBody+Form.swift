import Foundation

extension RequestBody {
    /// The `Content-Type` of form bodies.
    static let formContentType = "application/x-www-form-urlencoded; charset=utf-8"

    /// An `application/x-www-form-urlencoded; charset=utf-8` body from flat items, in order: the
    /// query string a URL would carry, without the `?`. A `nil` value gives a bare name.
    ///
    /// ```swift
    /// var method: HTTPMethod { .post }
    /// var body: RequestBody? { .form([QueryItem(name: "name", value: "Ada Lovelace"), QueryItem(name: "remember")]) }
    /// // name=Ada%20Lovelace&remember
    /// ```
    ///
    /// - Parameters:
    ///   - items: the fields, written in order.
    ///   - options: how names and values are written; `nil` uses the client's
    ///     ``Configuration/queryStringOptions``. HTML forms write a space as `+`:
    ///     `QueryStringFormattingOptions(spaceEncodingRule: .replacedWithDecodedPlus)`.
    public static func form(_ items: [QueryItem], options: QueryStringFormattingOptions? = nil) -> RequestBody {
        form(items: items, parameters: nil, options: options)
    }

    /// An `application/x-www-form-urlencoded; charset=utf-8` body from nested parameters,
    /// written as ``QueryStringFormattingOptions`` says, names in sorted order.
    ///
    /// ```swift
    /// var body: RequestBody? { .form(["user": ["name": "Ada", "langs": ["en", "fr"]]]) }
    /// // user%5Blangs%5D%5B0%5D=en&user%5Blangs%5D%5B1%5D=fr&user%5Bname%5D=Ada
    /// ```
    ///
    /// A NaN or infinite number fails the call with ``InvalidRequest/encodingFailed(_:underlyingError:)``.
    /// - Parameters:
    ///   - parameters: the fields; build them from an `Encodable` with
    ///     ``QueryParameters/init(encoding:)``.
    ///   - options: how the fields are written; `nil` uses the client's
    ///     ``Configuration/queryStringOptions``.
    public static func form(_ parameters: QueryParameters, options: QueryStringFormattingOptions? = nil) -> RequestBody {
        form(items: [], parameters: parameters, options: options)
    }

    private static func form(
        items: [QueryItem], parameters: QueryParameters?,
        options: QueryStringFormattingOptions?
    ) -> RequestBody {
        RequestBody(
            content: .deferred { configuration throws(CourierError) in
                let encoder = QueryStringEncoder(options: options ?? configuration.queryStringOptions)
                return Data(try encoder.encode(items: items, parameters: parameters).utf8)
            }, contentType: formContentType)
    }
}
