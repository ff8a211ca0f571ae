public import Courier
public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Receives one OAuth2 redirect on the loopback interface (`127.0.0.1`, and `::1` when the host
/// has it) on a port the kernel picks, for command-line and desktop tools (RFC 8252 §7.3, §8.3).
///
/// The socket listens from `init` until the redirect came, the wait timed out or was cancelled,
/// or ``close()`` was called. It binds only loopback addresses and prints and logs nothing.
/// macOS, Mac Catalyst and Linux only: on iOS, tvOS, watchOS and visionOS the app is suspended
/// while the browser is in front, so nothing would answer the redirect (use
/// `ASWebAuthenticationSession` there). A sandboxed macOS app needs the
/// `com.apple.security.network.server` entitlement to listen.
/// ``AuthorizationCodeFlow/signIn(authorizationEndpoint:tokenEndpoint:scope:additionalParameters:issuer:requiresIssuer:callbackPath:successHTML:failureHTML:timeout:openBrowser:)``
/// does all of this in one call.
///
/// ```swift
/// let receiver = try LoopbackRedirectReceiver(callbackPath: "/callback")
/// let flow = try AuthorizationCodeFlow(authorizationEndpoint: authorize, tokenEndpoint: tokens, redirectURI: receiver.redirectURI)
/// async let redirect = receiver.waitForRedirect(timeout: .seconds(300), state: flow.state)
/// openInBrowser(flow.authorizationURL)
/// let credential = try await flow.complete(with: redirect)
/// ```
@available(iOS, unavailable)
@available(macCatalyst, introduced: 13.1)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@available(visionOS, unavailable)
public final class LoopbackRedirectReceiver: Sendable {
    // While waiting it answers:
    // - a `GET` of the callback path: the redirect. It gets the success or failure page and ends
    //   the wait; the listening sockets are closed before the wait returns. A callback that is not
    //   the awaited one (a `state` other than the flow's, or a target that makes no URL) gets the
    //   failure page and the wait goes on: any local process can request the callback, and the
    //   browser's redirect must still find the port open;
    // - another path (`/favicon.ico`, a probe): 404; another method on the callback path: 405; a
    //   target that is not a path: 400; a head over 8 KiB: 431. The wait goes on;
    // - a connection that sends no complete head within 5 seconds is closed, and at most 16
    //   connections are read at once (more wait in the kernel's queue), so a stalled or hostile
    //   local client cannot keep the browser's request from being read.
    //
    // It never binds `0.0.0.0`, and runs its socket loop (`poll(2)` with a wake pipe, no sleeping)
    // on a thread of its own, off Swift's cooperative pool. Any local process can connect to a
    // loopback port: that is why the flow checks `state` and PKCE binds the code to this process's
    // verifier. Not available on watchOS, where normal apps cannot use BSD sockets (Apple's TN3135).

    /// The page a browser gets for a redirect that carries a code, and, in
    /// ``AuthorizationCodeFlow/signIn(authorizationEndpoint:tokenEndpoint:scope:additionalParameters:issuer:requiresIssuer:callbackPath:successHTML:failureHTML:timeout:openBrowser:)``,
    /// one that passed every check: plain, short, and without external resources.
    public static let defaultSuccessHTML =
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Signed in</title></head>"
        + "<body><p>Signed in. You can close this window and return to the application.</p></body></html>"

    /// The page a browser gets for any other redirect (an `error=`, a wrong `state`…).
    public static let defaultFailureHTML =
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Sign-in failed</title></head>"
        + "<body><p>Sign-in failed. Return to the application for details.</p></body></html>"

    /// How long a connection may take to send its request head, by default.
    static let defaultConnectionReadTimeout: Duration = .seconds(5)
    /// How many connections are read at once.
    static let maximumConnections = 16
    /// How long the page may take to be written.
    static let pageWriteTimeoutMilliseconds: Int32 = 2000

    /// `http://127.0.0.1:<port><callbackPath>`: register this (with any port, RFC 8252 §7.3)
    /// and use it as the flow's redirect URI.
    public let redirectURI: URL
    /// The port the kernel picked.
    public let port: Int
    /// The path the redirect must request, e.g. `/callback`.
    public let callbackPath: String
    /// The page sent with a successful redirect.
    public let successHTML: String
    /// The page sent with a failed one.
    public let failureHTML: String
    /// How long a connection may take to send its request head before it is closed.
    let connectionReadTimeout: Duration

    private let state: LockedState<State>

    private enum State {
        /// Listening, not yet waiting.
        case ready(listeners: [Int32])
        /// The socket loop runs; writing to `wake` stops it.
        case waiting(wakeRead: Int32, wake: Int32)
        /// The listening sockets are closed.
        case finished
    }

    /// Starts listening on `127.0.0.1` (and `::1` on the same port when possible) on an
    /// ephemeral port. Nothing is accepted until ``waitForRedirect(timeout:state:)``; connections
    /// made before wait in the kernel's queue.
    ///
    /// - Parameters:
    ///   - callbackPath: the path of the redirect URI: starts with `/`, and holds only RFC 3986
    ///     unreserved characters, sub-delimiters, `:`, `@` and `/` (no query, no `%`).
    ///   - successHTML: the page for a successful redirect; see ``defaultSuccessHTML``.
    ///   - failureHTML: the page for a failed one; see ``defaultFailureHTML``.
    /// - Throws: `CourierError.invalidRequest(_:)` with `InvalidRequest.invalidPath(_:reason:)`
    ///   for a bad `callbackPath`; `CourierError.authentication(_:)` with
    ///   `AuthenticationFailure.authorizationFailed(_:)` and `AuthorizationFailure.unavailable(_:underlyingError:)`
    ///   when no loopback socket can listen.
    public convenience init(
        callbackPath: String = "/callback",
        successHTML: String = LoopbackRedirectReceiver.defaultSuccessHTML,
        failureHTML: String = LoopbackRedirectReceiver.defaultFailureHTML
    ) throws(CourierError) {
        try self.init(
            callbackPath: callbackPath, successHTML: successHTML, failureHTML: failureHTML,
            connectionReadTimeout: Self.defaultConnectionReadTimeout)
    }

    /// The receiver with another head deadline (tests make it long, to show that a stalled
    /// connection does not hold the redirect up).
    init(callbackPath: String, successHTML: String, failureHTML: String, connectionReadTimeout: Duration) throws(CourierError) {
        guard callbackPath.hasPrefix("/"),
            callbackPath.utf8.allSatisfy({ PercentEncoding.isUnreserved($0) || PercentEncoding.isSubDelim($0) || ":@/".utf8.contains($0) })
        else {
            throw .invalidRequest(
                .invalidPath(callbackPath, reason: "a callback path starts with / and holds only unreserved characters, sub-delimiters, :, @ and /"))
        }
        let backlog = Int32(Self.maximumConnections)
        var listeners: [Int32] = []
        let port: UInt16
        do {
            let ipv4 = try LoopbackSocket.listenOnLoopback(ipv6: false, port: 0, backlog: backlog)
            listeners.append(ipv4.descriptor)
            port = ipv4.port
        } catch {
            throw .authentication(.authorizationFailed(.unavailable("cannot listen on 127.0.0.1: \(error)", underlyingError: error)))
        }
        // ::1 on the same port, for a browser that resolves the name another way; a host without
        // IPv6, or with the port taken on ::1, just does without.
        if let ipv6 = try? LoopbackSocket.listenOnLoopback(ipv6: true, port: port, backlog: backlog) {
            listeners.append(ipv6.descriptor)
        }
        guard let redirectURI = URL(string: "http://127.0.0.1:\(port)\(callbackPath)") else {
            listeners.forEach(LoopbackSocket.closeDescriptor)
            throw .invalidRequest(.invalidPath(callbackPath, reason: "does not make a URL"))
        }
        self.redirectURI = redirectURI
        self.port = Int(port)
        self.callbackPath = callbackPath
        self.successHTML = successHTML
        self.failureHTML = failureHTML
        self.connectionReadTimeout = connectionReadTimeout
        self.state = LockedState(.ready(listeners: listeners))
    }

    deinit {
        close()
    }

    /// Waits for the redirect and returns it, e.g. `http://127.0.0.1:53682/callback?code=…&state=…`.
    /// Call it once; the listening sockets are closed when it returns or throws.
    ///
    /// ```swift
    /// let redirect = try await receiver.waitForRedirect(timeout: .seconds(120), state: flow.state)
    /// ```
    /// A callback with neither `code` nor `error`, or whose `state` is not `state`, gets
    /// ``failureHTML`` and the wait goes on. The redirect itself is checked by ``AuthorizationCodeFlow``.
    /// - Parameters:
    ///   - timeout: how long to wait for the redirect; must be positive.
    ///   - state: the `state` the redirect must carry; `nil` accepts any.
    /// - Throws: `CourierError.cancelled` when the task is cancelled or ``close()`` is called;
    ///   `AuthenticationFailure.authorizationFailed(_:)` with `.timedOut` after `timeout`,
    ///   `.malformedResponse` for a callback that makes no URL, or `.unavailable` when the receiver
    ///   was already used or closed; `InvalidRequest.invalidTimeout(_:)` for a non-positive timeout.
    public func waitForRedirect(timeout: Duration = .seconds(300), state: String? = nil) async throws(CourierError) -> URL {
        // The browser gets successHTML when the redirect has a `code` and no `error`, and failureHTML
        // otherwise. A callback that is not the redirect does not end the wait, so that another local
        // process cannot end the sign-in by requesting the callback first: pass the flow's state.
        // Cancellation and close() close the sockets at once; a socket failure is .unavailable too.
        try await receive(timeout: timeout) { redirect in Self.handle(redirect, state: state) }.get()
    }

    /// What ``waitForRedirect(timeout:state:)`` makes of a callback: `rejected` without `code`
    /// and `error`, or without exactly one `state` equal to `state` (when given); else `success`
    /// with a `code` and no `error`, `failure` otherwise.
    static func handle(_ redirect: URL, state: String?) -> Handled<URL> {
        let items = URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let names = items.map(\.name)
        guard names.contains("code") || names.contains("error") else { return .rejected }
        if let state {
            let states = items.filter { $0.name == "state" }
            guard states.count == 1, let received = states[0].value, PKCE.constantTimeEquals(received, state) else { return .rejected }
        }
        return names.contains("code") && !names.contains("error") ? .success(redirect) : .failure(redirect)
    }

    /// Stops listening: before a wait, closes the sockets; during one, ends it with
    /// `CourierError.cancelled`. Calling it again does nothing.
    public func close() {
        state.withLock { state in
            switch state {
            case .ready(let listeners):
                listeners.forEach(LoopbackSocket.closeDescriptor)
                state = .finished
            case .waiting(_, let wake):
                LoopbackSocket.wake(wake)
            case .finished:
                break
            }
        }
    }

    /// What `receive` hands the socket loop: the outcome for the flow, and whether the browser
    /// gets the success page; or `rejected`: not the awaited redirect, answered with the failure
    /// page while the wait goes on.
    enum Handled<Value: Sendable>: Sendable {
        case success(Value)
        case failure(Value)
        case error(CourierError)
        case rejected
    }

    /// Waits for the redirect and lets `handle` decide what it means: its result is returned (a
    /// `.success` or `.failure` value, or an error thrown), and the browser gets the success
    /// page for `.success`, the failure page otherwise. A `.rejected` callback gets the failure
    /// page and the wait goes on.
    func receive<Value: Sendable>(
        timeout: Duration,
        handle: @escaping @Sendable (URL) -> Handled<Value>
    ) async -> Result<Value, CourierError> {
        guard timeout > .zero else { return .failure(.invalidRequest(.invalidTimeout(timeout))) }
        let wakePipe: (read: Int32, write: Int32)
        do {
            wakePipe = try LoopbackSocket.makePipe()
        } catch {
            close()
            return .failure(.authentication(.authorizationFailed(.unavailable("cannot make a wake pipe: \(error)", underlyingError: error))))
        }
        let listeners: [Int32]? = state.withLock { state in
            guard case .ready(let listeners) = state else { return nil }
            state = .waiting(wakeRead: wakePipe.read, wake: wakePipe.write)
            return listeners
        }
        guard let listeners else {
            LoopbackSocket.closeDescriptor(wakePipe.read)
            LoopbackSocket.closeDescriptor(wakePipe.write)
            return .failure(.authentication(.authorizationFailed(.unavailable("the loopback receiver was already used or closed"))))
        }
        let loop = LoopbackReceiverLoop(
            listeners: listeners, wake: wakePipe.read, deadline: .now + timeout, port: port, callbackPath: callbackPath,
            connectionReadTimeout: connectionReadTimeout,
            successPage: LoopbackResponse.make(status: 200, reason: "OK", html: successHTML),
            failurePage: LoopbackResponse.make(status: 400, reason: "Bad Request", html: failureHTML))
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, CourierError>, Never>) in
                Thread.detachNewThread {
                    let outcome = loop.run(handle: handle)
                    self.finishWaiting()
                    continuation.resume(returning: outcome)
                }
            }
        } onCancel: {
            self.close()
        }
    }

    /// After the loop closed its sockets: closes the wake pipe, under the lock, so that
    /// ``close()`` never writes to a closed pipe.
    private func finishWaiting() {
        state.withLock { state in
            if case .waiting(let wakeRead, let wake) = state {
                LoopbackSocket.closeDescriptor(wakeRead)
                LoopbackSocket.closeDescriptor(wake)
            }
            state = .finished
        }
    }
}

@available(iOS, unavailable)
@available(macCatalyst, introduced: 13.1)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@available(visionOS, unavailable)
extension LoopbackRedirectReceiver.Handled {
    /// The value, or the error.
    func get() throws(CourierError) -> Value {
        switch self {
        case .success(let value), .failure(let value): value
        case .error(let error): throw error
        case .rejected: throw .authentication(.authorizationFailed(.malformedResponse("not the awaited redirect")))
        }
    }
}

@available(iOS, unavailable)
@available(macCatalyst, introduced: 13.1)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@available(visionOS, unavailable)
extension LoopbackRedirectReceiver: CustomStringConvertible {
    /// `LoopbackRedirectReceiver(http://127.0.0.1:<port>/callback)`.
    public var description: String {
        "LoopbackRedirectReceiver(\(redirectURI.absoluteString))"
    }
}

/// The receiver's socket loop, run on a thread of its own: owns the listening sockets and
/// every accepted connection, and closes them all before it returns.
@available(iOS, unavailable)
@available(macCatalyst, introduced: 13.1)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@available(visionOS, unavailable)
struct LoopbackReceiverLoop: Sendable {
    var listeners: [Int32]
    var wake: Int32
    var deadline: ContinuousClock.Instant
    var port: Int
    var callbackPath: String
    var connectionReadTimeout: Duration
    var successPage: [UInt8]
    var failurePage: [UInt8]

    private struct Connection {
        var descriptor: Int32
        var buffer: [UInt8] = []
        var deadline: ContinuousClock.Instant
    }

    func run<Value: Sendable>(handle: (URL) -> LoopbackRedirectReceiver.Handled<Value>) -> Result<Value, CourierError> {
        // Every descriptor is closed exactly once: a second close could close a descriptor that
        // another thread has opened under the same number in between.
        var listeners = self.listeners
        var connections: [Connection] = []
        defer {
            for connection in connections { LoopbackSocket.closeDescriptor(connection.descriptor) }
            listeners.forEach(LoopbackSocket.closeDescriptor)
        }
        while true {
            let now = ContinuousClock.now
            if now >= deadline { return .failure(.authentication(.authorizationFailed(.timedOut))) }
            connections.removeAll { connection in
                guard connection.deadline <= now else { return false }
                LoopbackSocket.closeDescriptor(connection.descriptor)
                return true
            }

            var entries = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let accepting = connections.count < LoopbackRedirectReceiver.maximumConnections
            if accepting {
                entries += listeners.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            }
            entries += connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            let nextDeadline = connections.map(\.deadline).reduce(deadline, min)
            do {
                _ = try LoopbackSocket.wait(&entries, timeoutMilliseconds: Self.milliseconds(from: now, to: nextDeadline))
            } catch {
                return .failure(.authentication(.authorizationFailed(.unavailable("the loopback receiver failed: \(error)", underlyingError: error))))
            }
            if entries[0].revents != 0 { return .failure(.cancelled) }

            // Read the connections that were ready (before accepting, so that indices match).
            let connectionEntries = entries.suffix(connections.count)
            var finished: Set<Int32> = []
            for (entry, index) in zip(connectionEntries, connections.indices) where entry.revents != 0 {
                let descriptor = connections[index].descriptor
                let room = LoopbackRequestHead.maximumSize - connections[index].buffer.count
                switch LoopbackSocket.receive(descriptor, into: &connections[index].buffer, limit: max(room, 1)) {
                case .wouldBlock:
                    continue
                case .closed:
                    finished.insert(descriptor)
                    continue
                case .data:
                    break
                }
                switch LoopbackRequestHead.parse(connections[index].buffer) {
                case .incomplete:
                    continue
                case .tooLarge:
                    respond(descriptor, LoopbackResponse.headTooLarge)
                case .malformed:
                    respond(descriptor, LoopbackResponse.badRequest)
                case .complete(let head):
                    switch LoopbackRoute(head, callbackPath: callbackPath) {
                    case .notFound:
                        respond(descriptor, LoopbackResponse.notFound)
                    case .methodNotAllowed:
                        respond(descriptor, LoopbackResponse.methodNotAllowed)
                    case .badRequest:
                        respond(descriptor, LoopbackResponse.badRequest)
                    case .redirect(let target):
                        // A target that makes no URL, or a callback that is not the awaited one
                        // (another local process can request it): the failure page, and the wait
                        // goes on, so that the browser's redirect still finds the port open.
                        let handled = URL(string: "http://127.0.0.1:\(port)\(target)").map(handle) ?? .rejected
                        if case .rejected = handled {
                            respond(descriptor, failurePage)
                            break
                        }
                        // The one request: stop listening first, then answer and return.
                        listeners.forEach(LoopbackSocket.closeDescriptor)
                        listeners = []
                        let page: [UInt8]
                        if case .success = handled { page = successPage } else { page = failurePage }
                        LoopbackSocket.sendAll(descriptor, page, timeoutMilliseconds: LoopbackRedirectReceiver.pageWriteTimeoutMilliseconds)
                        LoopbackSocket.finish(descriptor)
                        connections.remove(at: index)
                        return Result { () throws(CourierError) in try handled.get() }
                    }
                }
                finished.insert(descriptor)
            }
            connections.removeAll { connection in
                guard finished.contains(connection.descriptor) else { return false }
                LoopbackSocket.closeDescriptor(connection.descriptor)
                return true
            }

            // Accept what is pending, up to the connection limit.
            guard accepting else { continue }
            for entry in entries.dropFirst().prefix(listeners.count) where entry.revents != 0 {
                while connections.count < LoopbackRedirectReceiver.maximumConnections {
                    let accepted: Int32?
                    do {
                        accepted = try LoopbackSocket.acceptConnection(entry.fd)
                    } catch {
                        return .failure(.authentication(.authorizationFailed(.unavailable("the loopback receiver failed: \(error)", underlyingError: error))))
                    }
                    guard let accepted else { break }
                    let connectionDeadline = min(ContinuousClock.now + connectionReadTimeout, deadline)
                    connections.append(Connection(descriptor: accepted, deadline: connectionDeadline))
                }
            }
        }
    }

    /// Answers a request that is not the redirect and ends its connection (the caller closes it).
    private func respond(_ descriptor: Int32, _ response: [UInt8]) {
        LoopbackSocket.sendWithoutWaiting(descriptor, response)
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// The milliseconds from `now` to `deadline`, rounded up (so the loop never wakes just
    /// before a deadline and spins), between 0 and `Int32.max`.
    static func milliseconds(from now: ContinuousClock.Instant, to deadline: ContinuousClock.Instant) -> Int32 {
        let remaining = now.duration(to: deadline)
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return Int32.max }
        let total = milliseconds.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: total)
    }
}
