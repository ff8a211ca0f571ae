/// How a call uses the client's ``HTTPCache`` (``Requestable/cachePolicy``), like
/// `URLRequest.CachePolicy`. Without a cache in the configuration every policy goes to the
/// network.
///
/// ```swift
/// struct Avatar: Requestable {
///     func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "cdn.example.com") }
///     func path() throws(CourierError) -> URLPath { try URLPath("/avatars/42.png") }
///     var cachePolicy: CachePolicy { .returnCachedElseLoad }   // an image that never changes
/// }
/// ```
public enum CachePolicy: Sendable, Hashable {
    /// RFC 9111: a fresh stored response answers; a stale one is revalidated; what the server
    /// allows is stored. The default.
    case useProtocolRules
    /// Ignores stored responses and asks the server; the answer is stored if it may be.
    case reload
    /// A stored response answers however old it is; without one the call goes to the network.
    case returnCachedElseLoad
    /// A stored response answers however old it is; without one the call fails with a
    /// `504 Gateway Timeout` response (``CourierError/response(_:)``) and nothing is sent.
    case onlyCached
}
