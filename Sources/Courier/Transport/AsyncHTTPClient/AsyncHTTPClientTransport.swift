#if AsyncHTTPClientLinked
    public import AsyncHTTPClient
    package import Foundation
    import HTTPTypes
    import NIOCore
    import NIOHTTP1
    import NIOHTTPCompression
    import NIOSSL

    /// A ``Transport`` over swift-server/async-http-client (SwiftNIO).
    ///
    /// On Linux it is several times faster than URLSession, streams both ways with backpressure
    /// (a slow reader slows the socket, nothing piles up in memory), and never stalls one request
    /// behind another's streamed upload.
    ///
    /// Each transport owns an `HTTPClient` configured for Courier: redirects are **not** followed
    /// by async-http-client (which strips only four headers and follows https→http), gzip and
    /// deflate bodies are decoded (and counted against ``TransportRequest/maximumResponseSize``
    /// after decoding), and connections are pooled per host.
    ///
    /// Decoding is bounded while it happens, not only once the bytes reach Courier: async-http-client
    /// inflates a whole socket read at once (a 64 KiB read of a gzip bomb is 64 MiB), so each
    /// client has a decompression limit: the request's ``TransportRequest/maximumResponseSize``
    /// rounded up to a power of two, at least 1 MiB. Requests whose limits round differently use
    /// different clients (and connection pools), made when first needed. A client you pass in
    /// (``init(client:)``) keeps the decompression it was configured with.
    ///
    /// ```swift
    /// let client = Client(configuration: Configuration(transport: AsyncHTTPClientTransport()))
    /// ```
    ///
    /// Keep one transport per process (``shared``) or per configuration and share it: each owns a
    /// connection pool. A transport you create shuts its client down when the last reference to it
    /// goes (a response still streaming keeps it).
    ///
    /// Redirects are followed by Courier, with the same policy as ``URLSessionTransport``: secret
    /// headers never go to another origin, `https` never goes to `http`, a 307/308 sends its body
    /// again when it can (a single-use stream cannot) and only to the same origin unless the
    /// request's ``TransportRequest/redirectMode`` allows another (else the 3xx is the response),
    /// ``RedirectMode/never`` follows nothing, and the response reports the URL it came from. The call's deadline covers every hop.
    ///
    /// TLS is configured with async-http-client's own settings (``init(configuration:pinning:)``):
    /// trust roots (a private CA), a client certificate (mutual TLS); public-key pins are checked
    /// on every new connection to a pinned host before any request is written to it (see
    /// ``PinningPolicy``).
    ///
    /// Cookies are not stored: a server-side process talks to many APIs for many users, and a
    /// process-wide cookie jar would carry one user's session into another's requests. Send the
    /// `Cookie` header yourself where an API needs one.
    @available(watchOS, unavailable, message: "watchOS allows low-level networking only for audio streaming apps (TN3135): use URLSessionTransport")
    public final class AsyncHTTPClientTransport: Transport {
        /// The client requests to hosts without pins go through.
        let client: HTTPClient
        /// One client per pinned host: its connections are checked against that host's pins
        /// (async-http-client's connection hooks do not say which host a connection is for).
        let pinnedClients: [String: HTTPClient]
        /// The pins, to find the pinned client of a host (exact name or wildcard).
        private let pinning: PinningPolicy
        /// Whether this transport made its clients, and so shuts them down.
        let ownsClients: Bool
        /// The configuration its clients were made from (owned clients only), to make one for
        /// another decompression limit.
        private let baseConfiguration: HTTPClient.Configuration?
        /// Clients for decompression limits other than the default's, by pin key (`nil`: not
        /// pinned) and limit (`nil`: none), made when first needed.
        private let clientsByLimit = LockedState<[ClientKey: HTTPClient]>([:])

        private struct ClientKey: Hashable {
            var pinKey: String?
            var limit: Int?
        }
        /// Whether the client traces requests itself (a client you passed, configured with a
        /// tracer): Courier then leaves the trace context to it, so that a request carries one
        /// `traceparent`, not two.
        let clientTraces: Bool

        /// A transport shared by every configuration that names none: one connection pool for the
        /// process, with async-http-client's default settings and Courier's own (see
        /// ``init(configuration:pinning:)``).
        ///
        /// It is not async-http-client's `HTTPClient.shared`, which follows redirects itself (with
        /// credentials, and from `https` to `http`).
        public static let shared = AsyncHTTPClientTransport()

        /// Creates a transport with its own connection pool and async-http-client's default
        /// settings.
        public convenience init() {
            self.init(verified: Self.withCourierSettings(HTTPClient.Configuration()), pinning: .none)
        }

        /// Creates a transport with its own connection pool (one more per pinned host), with
        /// async-http-client's settings (TLS trust roots and client certificate, proxy, HTTP
        /// version, pool size) and public-key `pinning` checked on every new connection.
        ///
        /// Courier keeps four settings its own: redirects are followed by Courier, not by
        /// async-http-client; gzip and deflate are decoded within each call's size limit; a failed
        /// connection is not retried (``RetryPolicy`` decides); async-http-client traces nothing
        /// (Courier traces each request). A `connect` timeout left unset is the call's deadline;
        /// without a TLS configuration of yours, connections need TLS 1.2 at least.
        ///
        /// ```swift
        /// import AsyncHTTPClient
        ///
        /// var settings = HTTPClient.Configuration()
        /// settings.tlsConfiguration = privateCA                    // NIOSSL's TLSConfiguration
        /// settings.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 16
        /// let transport = try AsyncHTTPClientTransport(configuration: settings, pinning: pins)
        /// ```
        /// - Throws: ``CourierError/invalidRequest(_:)`` with
        ///   ``InvalidRequest/invalidTLSConfiguration(_:)`` when the TLS configuration cannot make
        ///   a context (a client key that does not match its certificate).
        public convenience init(configuration: HTTPClient.Configuration, pinning: PinningPolicy = .none) throws(CourierError) {
            if let tls = configuration.tlsConfiguration {
                do {
                    _ = try NIOSSLContext(configuration: tls)
                } catch {
                    throw .invalidRequest(
                        .invalidTLSConfiguration("the TLS configuration cannot be used (a client key that does not match its certificate?): \(error)"))
                }
            }
            self.init(verified: Self.withCourierSettings(configuration), pinning: pinning)
        }

        /// Creates a transport over a client you own, configured as you choose; you shut it down
        /// after the transport's last request. Pins do not apply to it.
        ///
        /// Configure it with `redirectConfiguration: .disallow`, or async-http-client follows
        /// redirects itself, bypassing Courier's credential-stripping policy; and with
        /// `tracing.tracer = nil`, unless you want async-http-client's own spans (which show the
        /// query string unredacted) under Courier's: Courier then writes no `traceparent`.
        ///
        /// ```swift
        /// import AsyncHTTPClient
        ///
        /// var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        /// configuration.tracing.tracer = nil
        /// let transport = AsyncHTTPClientTransport(client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration))
        /// ```
        public init(client: HTTPClient) {
            self.client = client
            self.pinnedClients = [:]
            self.pinning = .none
            self.ownsClients = false
            self.baseConfiguration = nil
            self.clientTraces = client.tracer != nil
        }

        /// `configuration` with Courier's own settings: TLS 1.2 at least unless the caller gave a
        /// TLS configuration, no redirects followed, decompression
        /// bounded by the default response limit, no connection retries, no tracer, and each
        /// call's own deadline instead of async-http-client's 10 s connect timeout (which also
        /// bounds the wait for a pooled connection, so it would fail requests queued behind a
        /// busy pool).
        static func withCourierSettings(_ configuration: HTTPClient.Configuration) -> HTTPClient.Configuration {
            var configuration = configuration
            if configuration.tlsConfiguration == nil {
                // async-http-client's own default would accept TLS 1.0 and 1.1.
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.minimumTLSVersion = .tlsv12
                configuration.tlsConfiguration = tls
            }
            configuration.redirectConfiguration = .disallow
            if configuration.timeout.connect == nil { configuration.timeout.connect = .hours(1) }
            configuration.decompression = .enabled(limit: Self.decompressionLimit(for: Courier.Configuration.defaultMaximumResponseSize))
            // A failed connection fails its request at once, with the real reason (an untrusted
            // certificate, a pin mismatch, a refused port); Courier's ``RetryPolicy`` retries.
            configuration.connectionPool.retryConnectionEstablishment = false
            // Courier traces every request itself (a span per attempt and per redirect, with a
            // redacted URL) and writes its trace context; async-http-client's own span would
            // duplicate each one, put the query string in the clear, and add a second `traceparent`.
            configuration.tracing.tracer = nil
            return configuration
        }

        /// A transport over clients made from `base` (Courier's settings applied), one more per
        /// pinned host.
        private init(verified base: HTTPClient.Configuration, pinning: PinningPolicy) {
            client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: base)
            var pinned: [String: HTTPClient] = [:]
            // One client per key of the policy: a wildcard's subdomains share theirs.
            for (host, pins) in pinning.pinsByHost {
                var hostConfiguration = base
                Self.installPinCheck(Self.pinCheck(host: host, pins: pins), in: &hostConfiguration)
                pinned[host] = HTTPClient(eventLoopGroupProvider: .singleton, configuration: hostConfiguration)
            }
            pinnedClients = pinned
            self.pinning = pinning
            ownsClients = true
            baseConfiguration = base
            clientTraces = false
        }

        deinit {
            guard ownsClients else { return }
            let clients = [client] + pinnedClients.values + clientsByLimit.withLock { Array($0.values) }
            Task {
                for client in clients { try? await client.shutdown() }
            }
        }

        /// The client for requests to `url`'s host: the one checking its pins (exact name or
        /// wildcard), or the unpinned one.
        func client(for url: URL) -> HTTPClient {
            guard !pinnedClients.isEmpty, let host = url.host, let key = pinning.pinKey(for: host) else { return client }
            return pinnedClients[key] ?? client
        }

        /// The client for `request`, whose body may be ``TransportRequest/maximumResponseSize``
        /// bytes once decoded: ``client(for:)-(URL)`` when its decompression limit is the default
        /// one (or the client is yours), else one with the limit ``decompressionLimit(for:)``,
        /// made once. The request's URL is parsed only when some host is pinned.
        func client(for request: TransportRequest) -> HTTPClient {
            let maximumResponseSize = request.maximumResponseSize
            let limit = Self.decompressionBytes(for: maximumResponseSize)
            guard let baseConfiguration, limit != Self.decompressionBytes(for: Courier.Configuration.defaultMaximumResponseSize) else {
                return pinnedClients.isEmpty ? client : client(for: request.url)
            }
            let pinKey = pinnedClients.isEmpty ? nil : request.url.host.flatMap { pinning.pinKey(for: $0) }
            let key = ClientKey(pinKey: pinKey.flatMap { pinnedClients[$0] == nil ? nil : $0 }, limit: limit)
            return clientsByLimit.withLock { clients in
                if let client = clients[key] { return client }
                var configuration = baseConfiguration
                if let pinKey = key.pinKey, let pins = pinning.pinsByHost[pinKey] {
                    Self.installPinCheck(Self.pinCheck(host: pinKey, pins: pins), in: &configuration)
                }
                // No limit (a stream): the exchange inflates, a piece at a time (``BodyInflater``).
                configuration.decompression = limit == nil ? .disabled : .enabled(limit: Self.decompressionLimit(for: maximumResponseSize))
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                clients[key] = client
                return client
            }
        }

        /// The TLS settings (`nil` for `http`) and pin check of a WebSocket to `host`: the
        /// transport's own.
        /// - Throws: ``InvalidRequest/webSocketUnavailable(_:)`` for a transport made from your own
        ///   `HTTPClient`, whose settings it cannot read, or one that sends through a proxy.
        func webSocketSettings(for host: String, secure: Bool) throws(CourierError) -> (TLSConfiguration?, (@Sendable (any Channel) -> EventLoopFuture<Void>)?)
        {
            guard let baseConfiguration else {
                throw .invalidRequest(
                    .webSocketUnavailable(
                        "a transport made from your own HTTPClient does not show its TLS and proxy settings; make it with init(configuration:pinning:)"))
            }
            guard baseConfiguration.proxy == nil else {
                // Connecting around the proxy would reveal what it hides; no tunnel is made yet.
                throw .invalidRequest(.webSocketUnavailable("the transport sends through a proxy, and WebSockets do not go through one yet"))
            }
            guard secure else { return (nil, nil) }
            let tls = baseConfiguration.tlsConfiguration ?? .makeClientConfiguration()
            guard let key = pinning.pinKey(for: host), let pins = pinning.pinsByHost[key] else { return (tls, nil) }
            return (tls, Self.pinCheck(host: key, pins: pins))
        }

        /// Whether the client for `request` leaves bodies as they arrived, for the exchange to
        /// inflate: a request without a size limit, on a client this transport made.
        func inflatesItself(_ request: TransportRequest) -> Bool {
            baseConfiguration != nil && Self.decompressionBytes(for: request.maximumResponseSize) == nil
        }

        /// async-http-client's decompression limit for a response limit of `maximumResponseSize`
        /// bytes: that limit rounded up to a power of two, at least 1 MiB (so that a few clients
        /// serve every limit), or none for no limit. Courier still enforces the exact limit; this
        /// one stops async-http-client from inflating far past it in memory first.
        static func decompressionLimit(for maximumResponseSize: Int?) -> NIOHTTPDecompression.DecompressionLimit {
            decompressionBytes(for: maximumResponseSize).map { .size($0) } ?? .none
        }

        /// The byte count of ``decompressionLimit(for:)``, or `nil` for none.
        static func decompressionBytes(for maximumResponseSize: Int?) -> Int? {
            guard let maximumResponseSize, maximumResponseSize < 1 << 61 else { return nil }
            var bytes = 1 << 20
            while bytes < maximumResponseSize { bytes <<= 1 }
            return bytes
        }

        /// Runs `check` on every new connection of `configuration`'s client, before the caller's
        /// own connection hooks (which it used to replace: a caller's logging hook then never ran
        /// for a pinned host). A connection the check refuses never reaches them.
        static func installPinCheck(
            _ check: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>, in configuration: inout HTTPClient.Configuration
        ) {
            func chained(_ own: (@Sendable (any Channel) -> EventLoopFuture<Void>)?) -> @Sendable (any Channel) -> EventLoopFuture<Void> {
                guard let own else { return check }
                return { channel in check(channel).flatMap { own(channel) } }
            }
            configuration.http1_1ConnectionDebugInitializer = chained(configuration.http1_1ConnectionDebugInitializer)
            configuration.http2ConnectionDebugInitializer = chained(configuration.http2ConnectionDebugInitializer)
        }

        /// A connection hook that lets a connection to `host` into the pool only when its server
        /// presented one of `pins`: it runs after the TLS handshake (certificate and host name
        /// already validated) and before any request is written. A failing connection is closed
        /// here, because async-http-client does not close a connection its hook refused.
        static func pinCheck(host: String, pins: Set<PinningPolicy.Pin>) -> @Sendable (any Channel) -> EventLoopFuture<Void> {
            let policy = PinningPolicy([host: Array(pins)])
            return { channel in
                channel.nioSSL_peerCertificate().flatMapThrowing { certificate in
                    let key = try certificate.map { Data(try $0.extractPublicKey().toSPKIBytes()) }
                    try policy.check(host: host, publicKeyInfo: key)
                }.flatMapError { error in
                    let failure: PinningFailure
                    switch error {
                    case let mismatch as PinningFailure:
                        failure = mismatch
                    case ChannelPipelineError.notFound:
                        // No TLS handler at all: a pinned host reached over plain `http`.
                        failure = PinningFailure(host: host, presented: nil, pins: pins, reason: "the connection is not TLS, so no key was presented")
                    default:
                        failure = PinningFailure(host: host, presented: nil, pins: pins, reason: "the server's key could not be read (\(error))")
                    }
                    channel.eventLoop.execute { channel.close(promise: nil) }
                    return channel.eventLoop.makeFailedFuture(failure)
                }
            }
        }

        /// `true`: gzip and deflate bodies are decoded, and the limit counts the decoded bytes.
        public var decodesGzip: Bool { true }

        /// Sends the request and returns once the response head has arrived; the body streams
        /// (errors after the head, the deadline included, are thrown by its reader).
        /// - Throws: ``CourierError/transport(_:)`` (no connection, timed out, the connection lost
        ///   before the head); ``CourierError/cancelled`` when the calling task is cancelled; the
        ///   request body's own error when it fails.
        public func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
            if Task.isCancelled { throw .cancelled }
            let deadline = DispatchTime.now().advanced(byBounded: request.timeout)
            var current = request
            var redirects = 0
            while true {
                let sender = client(for: current)
                let (outgoing, upload) = try Self.request(for: current, loops: sender.eventLoopGroup)
                let response: HTTPClientResponse
                do {
                    response = try await sender.execute(outgoing, deadline: NIODeadline.uptimeNanoseconds(deadline.uptimeNanoseconds))
                } catch {
                    upload?.end()
                    throw AsyncHTTPClientExchange.failure(error, url: current.url)
                }
                guard let next = Self.redirect(after: response, to: current, original: request) else {
                    let exchange = AsyncHTTPClientExchange(
                        transport: self, location: current.location, maximumResponseSize: request.maximumResponseSize, upload: upload,
                        isHead: current.head.method == .head, inflates: inflatesItself(current))
                    return try await exchange.start(response, deadline: deadline)
                }
                // The 3xx's body is not read: dropping it ends that exchange, and its upload.
                upload?.end()
                redirects += 1
                if redirects > RedirectPolicy.maximumRedirects {
                    throw .transport(TransportFailure(URLError(.httpTooManyRedirects), url: current.url))
                }
                current = next
                if let attempt = AttemptTrace.current {
                    Self.trace(redirect: response, of: attempt, to: &current)
                }
            }
        }

        /// The request that follows `response` to `request`, under Courier's one redirect policy
        /// (``RedirectPolicy``), or `nil` when the response is the answer: not a redirect, no
        /// usable `Location`, a downgrade from `https`, a body that would have to be sent again
        /// and cannot be or may not go to the new origin, or a request that follows none.
        ///
        /// async-http-client follows nothing itself (its own following strips only four headers
        /// and follows `https` → `http`).
        @inline(never)
        static func redirect(after response: HTTPClientResponse, to request: TransportRequest, original: TransportRequest) -> TransportRequest? {
            let status = Int(response.status.code)
            guard request.redirectMode.followsRedirects, RedirectPolicy.isRedirect(status), let location = response.headers.first(name: "Location"),
                let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
                RedirectPolicy.allowsFollowing(from: request.url, to: target)
            else { return nil }
            var next = request
            next.url = target
            if RedirectPolicy.becomesGet(status: status, method: request.head.method.rawValue) {
                next.head.method = .get
                next.body = nil
                next.head.headerFields[.contentType] = nil
            } else if let body = request.body {
                // 307/308 (or 301/302 of a PUT) must send the body again: not when it is gone, nor
                // to another origin unless the request opted in.
                guard body.isReplayable,
                    RedirectPolicy.mayResendBody(to: target, original: original.url, previous: request.url, mode: request.redirectMode)
                else { return nil }
            }
            if !RedirectPolicy.keepsCredentials(to: target, original: original.url, previous: request.url) {
                next.head.headerFields = RedirectPolicy.stripped(next.head.headerFields, redaction: request.redaction)
            }
            return next
        }

        /// Ends the span of the request that got `response` and starts the redirect's, whose
        /// trace context replaces the previous one in `next`. Out of line: traced calls only.
        @inline(never)
        static func trace(redirect response: HTTPClientResponse, of attempt: AttemptTrace, to next: inout TransportRequest) {
            let fields = attempt.redirected(statusCode: Int(response.status.code), to: next.url, method: next.head.method.rawValue)
            for field in fields {
                next.head.headerFields[field.name] = field.value.isEmpty ? nil : field.value  // empty: the hop gets none
            }
        }

        /// The async-http-client request for `request`, and the lifetime of its streamed body (if
        /// it has one), which the caller ends with the exchange. Not inlined into `send`, whose
        /// async frame every call allocates.
        /// - Throws: ``InvalidRequest/invalidURL(_:)`` when the head makes no URL (the client never
        ///   sends such a request; another caller of the transport might).
        @inline(never)
        static func request(for request: TransportRequest, loops: any EventLoopGroup) throws(CourierError) -> (HTTPClientRequest, RequestBodyLifetime?) {
            guard let url = request.absoluteString else { throw RequestBuilder.invalidURL(request) }
            var outgoing = HTTPClientRequest(url: url)
            outgoing.method = NIOHTTP1.HTTPMethod(rawValue: request.head.method.rawValue)
            outgoing.headers.reserveCapacity(request.head.headerFields.count)
            // One Cookie field, its pairs joined with "; " (RFC 6265 §5.4: a client sends at most
            // one), gathered in the same pass over the fields.
            var cookies: [String] = []
            for field in request.head.headerFields {
                if field.name == .cookie {
                    cookies.append(field.value)
                } else {
                    outgoing.headers.add(name: field.name.rawName, value: field.value)
                }
            }
            if !cookies.isEmpty {
                outgoing.headers.add(name: "Cookie", value: cookies.joined(separator: "; "))
            }
            switch request.body {
            case .data(let data)?:
                outgoing.body = .bytes(ByteBuffer(bytes: data))
            case .stream(let stream)?:
                let lifetime = RequestBodyLifetime()
                outgoing.body = .stream(
                    BodyStreamBuffers(stream: stream, lifetime: lifetime, loops: loops),
                    length: stream.length.map { .known($0) } ?? .unknown)
                return (outgoing, lifetime)
            case nil:
                break
            }
            return (outgoing, nil)
        }
    }

    /// A ``BodyStream`` as the `ByteBuffer`s async-http-client sends, read once per send.
    ///
    /// async-http-client (1.37) hands each part to the connection's event loop and asks for the
    /// next one at once; it pauses the producer only once the loop has run those writes and found
    /// the socket full. A producer faster than a busy loop (2 cores shared with the server)
    /// therefore queues parts without bound: a 1 GiB upload peaked at 44–177 MiB. So after each
    /// `paceInterval` bytes the iterator waits for `pace`, a round trip through every loop of
    /// the client's group (which one carries the connection is not known), by which time the
    /// parts handed over before it have been written or have paused the producer.
    struct BodyStreamBuffers: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let stream: BodyStream
        let lifetime: RequestBodyLifetime
        /// Waits until what was handed to async-http-client so far has reached its event loops.
        let pace: @Sendable () async -> Void
        /// The bytes handed over between two waits for `pace`.
        let paceInterval: Int

        /// Paced through `loops`: every MiB, and every MiB per 4 loops on a larger group, so that
        /// a round trip through many loops stays a small share of the upload's work.
        init(stream: BodyStream, lifetime: RequestBodyLifetime, loops: any EventLoopGroup) {
            let count = loops.makeIterator().reduce(0) { count, _ in count + 1 }
            self.init(stream: stream, lifetime: lifetime, paceInterval: Swift.max(1, count / 4) << 20) { await Self.drain(loops) }
        }

        init(stream: BodyStream, lifetime: RequestBodyLifetime, paceInterval: Int, pace: @escaping @Sendable () async -> Void) {
            self.stream = stream
            self.lifetime = lifetime
            self.paceInterval = paceInterval
            self.pace = pace
        }

        func makeAsyncIterator() -> Iterator {
            do throws(CourierError) {
                return Iterator(reader: .success(try stream.makeReader()), lifetime: lifetime, pace: pace, paceInterval: paceInterval)
            } catch {
                return Iterator(reader: .failure(error), lifetime: lifetime, pace: pace, paceInterval: paceInterval)
            }
        }

        /// Returns once a task submitted to each of `loops` (all at once) has run, after
        /// everything submitted to that loop before.
        static func drain(_ loops: any EventLoopGroup) async {
            let done = loops.makeIterator().map { $0.submit {} }
            for future in done {
                // A loop that is shutting down fails the request anyway.
                try? await future.get()
            }
        }

        struct Iterator: AsyncIteratorProtocol {
            var reader: Result<BodyStream.Reader, CourierError>
            let lifetime: RequestBodyLifetime
            let pace: @Sendable () async -> Void
            let paceInterval: Int
            var sincePace = 0

            mutating func next() async throws -> ByteBuffer? {
                switch reader {
                case .failure(let error):
                    throw error
                case .success(var open):
                    if sincePace >= paceInterval {
                        sincePace = 0
                        await pace()
                    }
                    let chunk = try await lifetime.read { () async throws(CourierError) -> Data? in try await open.next() }
                    reader = .success(open)
                    sincePace += chunk?.count ?? 0
                    return chunk.map { ByteBuffer(bytes: $0) }
                }
            }
        }
    }

    /// How long async-http-client may go on reading a request body: until the exchange it
    /// belongs to ends.
    ///
    /// async-http-client (1.37) reads a streamed request body in a task of its own and does not
    /// cancel that task when the request fails: by the deadline, by the caller's cancellation,
    /// or when the response ends before the upload does. A producer that is waiting for bytes
    /// that never come (a stalled upload) would stay suspended forever, holding its memory.
    /// Courier ends the lifetime when the exchange ends, and that cancels the reading task while
    /// it waits in the producer, so the producer sees an ordinary cancellation and returns.
    ///
    /// The reading task is held as an `UnsafeCurrentTask`, which does not keep the task alive.
    /// It is only used under the lock and only between ``read(_:)``'s registration and its
    /// deregistration, while the task is suspended inside ``read(_:)`` and so certainly alive;
    /// cancelling a task from another thread is safe.
    ///
    /// `@unchecked Sendable`: `reading` (not `Sendable`) is only read and written under `ended`'s lock.
    final class RequestBodyLifetime: @unchecked Sendable {
        /// Whether the lifetime has ended; its lock also guards `reading`.
        private let ended = LockedState(false)
        /// The task inside ``read(_:)``, used only as the class comment says.
        private var reading: UnsafeCurrentTask?

        /// Runs `read` (one read of the body's producer) so that ``end()`` can cancel it.
        /// - Throws: ``CourierError/cancelled`` when the lifetime has already ended (nothing is
        ///   read); whatever `read` throws.
        func read(_ read: () async throws(CourierError) -> Data?) async throws(CourierError) -> Data? {
            let hasEnded = withUnsafeCurrentTask { task in
                ended.withLock { ended in
                    reading = task
                    return ended
                }
            }
            defer { ended.withLock { _ in reading = nil } }
            if hasEnded { throw .cancelled }
            return try await read()
        }

        /// Ends the lifetime: a read in progress is cancelled and later reads fail at once.
        func end() {
            ended.withLock { ended in
                ended = true
                reading?.cancel()
                reading = nil
            }
        }
    }

    @available(watchOS, unavailable, message: "watchOS allows low-level networking only for audio streaming apps (TN3135): use URLSessionTransport")
    extension AsyncHTTPClientTransport: StoredCookieSource {
        /// None: async-http-client keeps no cookie storage.
        package func storedCookieHeader(for url: URL) -> String? { nil }
    }
#endif
