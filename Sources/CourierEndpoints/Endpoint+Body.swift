public import Courier
public import Foundation

/// The body modifiers: only for methods that may carry a body (``BodyAllowed``). On a GET or HEAD
/// endpoint they do not exist, so the mistake is caught by the compiler:
///
/// ```swift
/// #if false   // error: referencing instance method 'json(_:encoder:)' on 'Endpoint' requires
///             // the types 'BodyForbidden' and 'BodyAllowed' be equivalent
///     let wrong = api.get("users").json(user)
/// #endif
/// ```
///
/// An endpoint made with ``API/request(method:_:)`` has them whatever its method: a body on a GET
/// or HEAD made that way fails the call with `InvalidRequest.bodyNotAllowed(method:)`.
/// Each sets the whole body, replacing one set before.
extension Endpoint where Policy == BodyAllowed {
    /// This endpoint with `body`: any `RequestBody` (text, raw data, a file, a stream, a
    /// multipart form, XML with CourierXML).
    ///
    /// ```swift
    /// api.put("avatars", login).body(.data(png, contentType: "image/png"))
    /// api.post("uploads").body(.file(URL(fileURLWithPath: "/tmp/report.pdf")))
    /// ```
    public func body(_ body: RequestBody) -> Self {
        with { $0.body = body }
    }

    /// This endpoint with `value` as a JSON body, encoded when the request is built with
    /// `encoder` or, when `nil`, the client's `Configuration.encoder`. Sent as
    /// `application/json` (see `RequestBody.json(_:encoder:)`).
    ///
    /// ```swift
    /// api.post("gists").json(NewGist(description: "notes", files: files))
    /// ```
    ///
    /// An encoder that throws fails the call with `InvalidRequest.encodingFailed(_:underlyingError:)` when it is
    /// resumed; nothing is sent.
    public func json(_ value: some Encodable & Sendable, encoder: JSONEncoder? = nil) -> Self {
        body(.json(value, encoder: encoder))
    }

    /// This endpoint with an `application/x-www-form-urlencoded` body of flat fields, in order
    /// (see `RequestBody.form(_:options:)`).
    ///
    /// ```swift
    /// api.post("session").form([QueryItem(name: "user", value: "ada"), QueryItem(name: "remember")])
    /// // user=ada&remember
    /// ```
    public func form(_ items: [QueryItem], options: QueryStringFormattingOptions? = nil) -> Self {
        body(.form(items, options: options))
    }

    /// This endpoint with an `application/x-www-form-urlencoded` body of nested fields, names in
    /// sorted order (see `RequestBody.form(_:options:)`).
    ///
    /// ```swift
    /// api.post("profile").form(["user": ["name": "Ada", "langs": ["en", "fr"]]])
    /// // user%5Blangs%5D%5B0%5D=en&user%5Blangs%5D%5B1%5D=fr&user%5Bname%5D=Ada
    /// ```
    ///
    /// A NaN or infinite number fails the call with `InvalidRequest.encodingFailed(_:underlyingError:)`.
    public func form(_ parameters: QueryParameters, options: QueryStringFormattingOptions? = nil) -> Self {
        body(.form(parameters, options: options))
    }

    /// This endpoint with an `application/x-www-form-urlencoded` body of the fields `value`
    /// encodes (see `QueryParameters.init(encoding:)`).
    ///
    /// ```swift
    /// struct Login: Encodable { var user: String; var remember: Bool }
    /// api.post("session").form(encoding: Login(user: "ada", remember: true))
    /// // remember=true&user=ada
    /// ```
    ///
    /// A value that does not encode fails the call with `InvalidRequest.encodingFailed(_:underlyingError:)`
    /// when it is resumed.
    public func form(encoding value: some Encodable, options: QueryStringFormattingOptions? = nil) -> Self {
        do throws(CourierError) {
            return form(try QueryParameters(encoding: value), options: options)
        } catch {
            return with { $0.record(error) }
        }
    }
}
