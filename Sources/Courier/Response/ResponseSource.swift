/// Where a response came from: the network, the client's ``HTTPCache``, or the cache after the
/// server confirmed the stored response with `304 Not Modified`.
///
/// ```swift
/// let response = try await client.enqueue(GetUser(id: 42)).resume()
/// if response.source == .cache { print("served without a request") }
/// ```
public enum ResponseSource: Sendable, Hashable {
    /// The server sent this response.
    case network
    /// A stored response, served without asking the server.
    case cache
    /// A stored response that the server confirmed (`304`), with the headers it updated.
    case revalidated
}
