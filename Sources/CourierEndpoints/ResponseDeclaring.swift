public import Courier

/// An endpoint that names the type its responses decode to, so that a call needs no
/// `expecting:`: `client.enqueue(endpoint)` returns a ``TypedCall`` whose ``TypedCall/model()``
/// gives that type. An endpoint that does not conform gets a plain `Call`, as before.
///
/// ```swift
/// struct GetUser: ResponseDeclaring {
///     typealias ResponseModel = User
///     let id: Int
///     func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
///     func path() throws(CourierError) -> URLPath { try URLPath(segments: ["users", String(id)]) }
/// }
/// let user = try await client.enqueue(GetUser(id: 42)).model()   // a User
/// ```
public protocol ResponseDeclaring: Requestable {
    // Endpoint conforms once returning(_:) has named a Decodable model.

    /// What a successful response decodes to (`Data`, `String` and `EmptyResponse` work as in
    /// `Call.resume(expecting:)`).
    associatedtype ResponseModel: Decodable & Sendable
}
