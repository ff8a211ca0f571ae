public import Courier

/// A call to an endpoint that declares its response type (``ResponseDeclaring``, such as an
/// ``Endpoint`` after ``Endpoint/returning(_:)``): ``model()`` returns the decoded model, and
/// `resume()` the `Response`, as on every `Call`.
///
/// ```swift
/// let user = try await client.enqueue(GitHub.user("octocat")).model()      // a User
/// let response = try await client.enqueue(GitHub.user("octocat")).resume()  // the Response
/// ```
///
/// Everything else a `Call` does (streaming, downloads, progress, server-sent events) is on
/// ``call``; written directly on `client.enqueue(endpoint)`, those members are found too, as
/// the compiler then picks the `enqueue(_:)` that returns a `Call`.
public struct TypedCall<Model: Decodable & Sendable>: Sendable {
    /// The untyped call: its `Call.resume()` returns the validated `Response`.
    public let call: Call

    /// Sends the request and decodes the body as `Model`, exactly as
    /// `Call.resume(expecting:)` does (the same `Accept` header, decoders and errors).
    /// - Throws: as `Call.resume(expecting:)`: `CourierError.invalidRequest(_:)` before
    ///   sending, `CourierError.transport(_:)` or `CourierError.cancelled` while sending,
    ///   `CourierError.response(_:)` for a status code the endpoint does not accept,
    ///   `CourierError.decoding(_:)` when the body does not decode.
    public func model() async throws(CourierError) -> Model {
        try await call.resume(expecting: Model.self)
    }

    /// Sends the request and decodes the body as `Model`, like ``model()``, calling
    /// `completion` exactly once with the outcome (see `Call.resume(expecting:completion:)`).
    /// - Returns: a handle that cancels the call.
    @discardableResult
    public func model(completion: @escaping @Sendable (Result<Model, CourierError>) -> Void) -> CallHandle {
        call.resume(expecting: Model.self, completion: completion)
    }
}

extension Client {
    /// Prepares a call to an endpoint that declares its response type; nothing is sent until the
    /// call is resumed, and ``TypedCall/model()`` returns the decoded model.
    ///
    /// ```swift
    /// let user: User = try await client.enqueue(api.get("users", "octocat").returning(User.self)).model()
    /// ```
    ///
    /// For such endpoints the compiler picks this over the `enqueue(_:)` that returns a `Call`.
    /// Where a `Call` is wanted instead, say so: `let call: Call = client.enqueue(endpoint)`,
    /// or use ``TypedCall/call``.
    public nonisolated func enqueue<Declaring: ResponseDeclaring>(_ endpoint: Declaring) -> TypedCall<Declaring.ResponseModel> {
        TypedCall(call: enqueue(endpoint) as Call)
    }
}
