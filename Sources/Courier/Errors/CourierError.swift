public import Foundation

/// Every error a Courier API throws.
///
/// Public throwing APIs are declared `throws(CourierError)`, so a `catch` sees this type without
/// casting. Each case keeps its evidence (the `URLError`, the rejected response, the `DecodingError`).
/// It and the failure enums it carries may gain cases: `switch` needs an `@unknown default`.
///
/// ```swift
/// do {
///     let user = try await client.enqueue(GetUser(id: 42)).resume(expecting: User.self)
/// } catch .response(let response) where response.statusCode == 404 {
///     // not found
/// } catch {
///     print(error)   // never prints header values or whole bodies
/// }
/// ```
#if hasAttribute(nonexhaustive)
    @nonexhaustive
#endif
public indirect enum CourierError: Error, Sendable {
    /// The request could not be built or must not be sent: a bad host, path, method, header, or
    /// a body that is not allowed or could not be encoded; nothing was sent then. Also a
    /// streamed body whose source failed while it was being sent
    /// (``InvalidRequest/bodySourceFailed(_:underlyingError:)``): the request was stopped part-way, never
    /// completed short or long.
    case invalidRequest(InvalidRequest)
    /// The request did not produce an HTTP response: a timeout, no connectivity, a lost
    /// connection, a TLS failure. The underlying `URLError` is kept.
    case transport(TransportFailure)
    /// The caller's `Task` was cancelled; the network request was cancelled with it.
    case cancelled
    /// The server answered with a status code the endpoint does not accept (by default,
    /// anything outside 200–299). The whole response is kept.
    case response(Response)
    /// A response arrived and was accepted, but its body could not be decoded into the
    /// expected type.
    case decoding(DecodingFailure)
    /// Authentication failed or could not be attempted.
    case authentication(AuthenticationFailure)
    /// A ``Constraint`` the endpoint declared could not be satisfied (its `satisfy` failed, or
    /// the call waited longer than the constraint's timeout). Nothing was sent.
    case constraint(ConstraintFailure)
    /// A WebSocket's peer closed it with a code other than 1000 or none, or an operation was tried
    /// on a socket already closed (CourierWebSockets); `code` is the close code (RFC 6455 §7.4, e.g.
    /// 1008, policy violation) and `reason` the peer's reason, as sent (at most 123 bytes).
    case webSocketClosed(code: UInt16, reason: String)
}

extension CourierError: CustomStringConvertible {
    /// A one-line summary that names the problem without printing header values or bodies in full.
    public var description: String {
        switch self {
        case .invalidRequest(let problem):
            return "Invalid request: \(problem)"
        case .transport(let failure):
            return "Transport failure: \(failure)"
        case .cancelled:
            return "Cancelled"
        case .response(let response):
            return "Unacceptable response: \(response)"
        case .decoding(let failure):
            return "Decoding failure: \(failure)"
        case .authentication(let failure):
            return "Authentication failure: \(failure)"
        case .constraint(let failure):
            return "\(failure)"
        case .webSocketClosed(let code, let reason):
            return "WebSocket closed: \(WebSocketClose(code: code, reason: reason))"
        }
    }
}

extension CourierError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}

extension CourierError {
    /// The HTTP response the error carries, if any: for ``response(_:)`` and ``decoding(_:)``.
    public var response: Response? {
        switch self {
        case .response(let response): response
        case .decoding(let failure): failure.response
        default: nil
        }
    }

    /// The `URLError` underneath a ``transport(_:)`` failure, if there is one.
    public var urlError: URLError? {
        if case .transport(let failure) = self { return failure.urlError }
        return nil
    }
}
