public import Courier

extension Call {
    /// Opens a WebSocket to the endpoint (an `http` base URL is sent as `ws`, `https` as `wss`).
    ///
    /// The upgrade request is an ordinary call: host and path checks, headers, middleware,
    /// authentication (a `401` refreshes the credential once and retries, as for any call),
    /// logging, tracing and CourierTesting's stubs apply to it.
    ///
    /// ```swift
    /// let socket = try await client.enqueue(chat).webSocket(WebSocket.Options(subprotocols: ["chat.v2"]))
    /// ```
    /// - Throws: `CourierError.response(_:)` when the server refused the upgrade (its status and
    ///   body kept); `InvalidRequest.webSocketUnavailable(_:)` for a method other than `GET`, a
    ///   body, or a transport that cannot open WebSockets; a `badResponse` transport failure for a
    ///   handshake that does not follow RFC 6455; otherwise what any call throws.
    public func webSocket(_ options: WebSocket.Options = WebSocket.Options()) async throws(CourierError) -> WebSocket {
        WebSocket(try await openWebSocket(options.settings))
    }

    /// Keeps a WebSocket open across drops: runs `body` with a socket and, when it throws because
    /// the connection was lost or went silent or the server closed with 1001, 1011–1014 or one of
    /// `refreshingOn`, opens another after the policy's full-jitter backoff and runs `body` again. A
    /// `refreshingOn` close refreshes the bearer credential first, once for all sockets signed with it.
    ///
    /// ```swift
    /// try await client.enqueue(prices).webSocket(reconnecting: .default) { socket in
    ///     try await socket.send(.text("subscribe"))
    ///     for try await message in socket.messages { print(message) }
    /// }
    /// ```
    /// - Throws: what `body` throws when it is not worth another try or after `policy.maxAttempts`
    ///   sockets in a row failed to open or ended before a message; a failed refresh.
    public func webSocket<Value>(
        _ options: WebSocket.Options = WebSocket.Options(), reconnecting policy: RetryPolicy, refreshingOn: Set<UInt16> = [1008, 4401, 4403],
        _ body: (WebSocket) async throws -> Value
    ) async throws -> Value {
        try await reconnectingWebSocket(options.settings, reconnecting: policy, refreshingOn: refreshingOn) { session in
            try await body(WebSocket(session))
        }
    }
}
