import Foundation

extension Call {
    /// The loop behind CourierWebSockets' reconnecting `Call.webSocket(_:reconnecting:refreshingOn:_:)`,
    /// which documents it: runs `body` with a socket, and opens another after the ends worth another
    /// try.
    package func reconnectingWebSocket<Value>(
        _ settings: WebSocketSettings, reconnecting policy: RetryPolicy, refreshingOn: Set<UInt16>,
        _ body: (WebSocketSession) async throws -> Value
    ) async throws -> Value {
        var reconnection = WebSocketReconnection(policy: policy, refreshingOn: refreshingOn, canRefresh: client.bearerRefresher != nil)
        var random = SystemRandomNumberGenerator()
        while true {
            // The credential the socket is signed with: a close asking for a refresh renews it only
            // if no other socket renewed it meanwhile (N sockets closed at once refresh once).
            let signedWith = try? await client.bearerRefresher?.currentCredential()
            let outcome: Result<Value, any Error>
            var received = 0
            do {
                let socket = try await openWebSocket(settings)
                do {
                    outcome = .success(try await body(socket))
                } catch {
                    outcome = .failure(error)
                }
                received = socket.receivedMessages.withLock { $0 }
                await socket.close()
            } catch {
                outcome = .failure(error)
            }
            guard case .failure(let error) = outcome else { return try outcome.get() }
            guard let failure = error as? CourierError else { throw error }
            switch reconnection.next(after: failure, receivedMessages: received, random: &random) {
            case .stop:
                throw failure
            case .reconnect(let delay, let refresh):
                if refresh, let refresher = client.bearerRefresher {
                    var renewed: TokenCredential?
                    if let signedWith { renewed = try await refresher.replacement(forRejected: signedWith) }
                    if renewed == nil { _ = try await refresher.forceRefresh() }
                }
                do {
                    try await client.configuration.clock.sleep(for: delay)
                } catch {
                    throw CourierError.cancelled
                }
            }
        }
    }
}

extension Client {
    /// The ``TokenRefresher`` that signs this client's calls, if any.
    nonisolated var bearerRefresher: TokenRefresher? {
        if case .bearer(let refresher) = configuration.authentication { return refresher }
        return nil
    }
}

/// When ``Call/reconnectingWebSocket(_:reconnecting:refreshingOn:_:)`` opens a socket again: a pure value fed
/// how each socket ended.
struct WebSocketReconnection {
    enum Decision: Equatable {
        case stop
        /// Wait `delay`, refresh the credential first when `refresh`, then reopen.
        case reconnect(after: Duration, refresh: Bool)
    }

    let policy: RetryPolicy
    let refreshingOn: Set<UInt16>
    let canRefresh: Bool
    /// Sockets in a row that failed to open or ended before a message arrived.
    private(set) var failures = 0

    init(policy: RetryPolicy, refreshingOn: Set<UInt16>, canRefresh: Bool) {
        self.policy = policy
        self.refreshingOn = refreshingOn
        self.canRefresh = canRefresh
    }

    /// The close codes a server sends when trying again later may work (RFC 6455 §7.4.1, IANA):
    /// going away, internal error, service restart, try again later, bad gateway.
    static let transientCloseCodes: Set<UInt16> = [1001, 1011, 1012, 1013, 1014]

    /// What to do after a socket (or its opening) ended with `error`, its reader having had
    /// `receivedMessages` messages.
    mutating func next(after error: CourierError, receivedMessages: Int, random: inout some RandomNumberGenerator) -> Decision {
        let refresh: Bool
        switch error {
        // Without a credential to refresh, a code of refreshingOn is worth another try only if it
        // is one anyway (1001 in refreshingOn).
        case .webSocketClosed(let code, _) where refreshingOn.contains(code) && canRefresh:
            refresh = true
        case .webSocketClosed(let code, _) where Self.transientCloseCodes.contains(code):
            refresh = false
        case .transport(let failure) where RetryPolicy.isRetryable(failure.kind):
            refresh = false
        case .response(let response) where policy.retryableStatusCodes.contains(response.statusCode):
            refresh = false
        default:
            return .stop
        }
        // A socket that delivered messages starts a new streak.
        failures = receivedMessages > 0 ? 0 : failures + 1
        guard failures < max(policy.maxAttempts, 1) else { return .stop }
        return .reconnect(after: policy.jitteredBackoff(after: max(failures, 1), random: &random), refresh: refresh)
    }
}
