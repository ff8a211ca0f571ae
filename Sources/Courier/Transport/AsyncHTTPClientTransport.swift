#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import HTTPTypes
    import NIOCore
    import NIOHTTP1

    /// A ``Transport`` over swift-server/async-http-client (SwiftNIO).
    ///
    /// On Linux it is several times faster than corelibs URLSession (measured in `Benchmarks/`),
    /// streams both ways with backpressure (a slow reader slows the socket, nothing piles up in
    /// memory), and never stalls one request behind another's streamed upload.
    ///
    /// Each transport owns an `HTTPClient` configured for Courier: redirects are **not** followed
    /// by async-http-client (which strips only four headers and follows https→http), gzip and
    /// deflate bodies are decoded (and counted against ``TransportRequest/maximumResponseSize``
    /// after decoding), and connections are pooled per host.
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
    /// again when it can (a single-use stream cannot: the 3xx is then the response), and the
    /// response reports the URL it came from. The call's deadline covers every hop.
    ///
    /// Not yet: TLS pinning and client certificates, proxies, HTTP/2 settings.
    public final class AsyncHTTPClientTransport: Transport {
        /// The client requests go through.
        let client: HTTPClient

        /// A transport shared by every configuration that names none: one connection pool for the
        /// process.
        public static let shared = AsyncHTTPClientTransport()

        /// Creates a transport with its own connection pool.
        /// - Parameters:
        ///   - maximumConnectionsPerHost: the HTTP/1.1 connections kept open to one host (a soft
        ///     limit: more requests than this wait for a free connection).
        ///   - idleTimeout: how long an unused pooled connection stays open.
        public init(maximumConnectionsPerHost: Int = 8, idleTimeout: Duration = .seconds(60)) {
            let configuration = HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                // Each call's own deadline governs (``TransportRequest/timeout``); async-http-client's
                // 10 s default would also fail requests queued behind a busy pool.
                timeout: HTTPClient.Configuration.Timeout(connect: .hours(1)),
                connectionPool: HTTPClient.Configuration.ConnectionPool(
                    idleTimeout: TimeAmount(idleTimeout),
                    concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, maximumConnectionsPerHost)),
                decompression: .enabled(limit: .none))
            client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        }

        deinit {
            let client = client
            Task { try? await client.shutdown() }
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
            let deadline = DispatchTime.now() + request.timeout.timeInterval
            var current = request
            var redirects = 0
            while true {
                let url = current.url
                let response: HTTPClientResponse
                do {
                    response = try await client.execute(
                        Self.request(for: current), deadline: NIODeadline.uptimeNanoseconds(deadline.uptimeNanoseconds))
                } catch {
                    throw AsyncHTTPClientExchange.failure(error, url: url)
                }
                guard let next = Self.redirect(after: response, to: current, original: request) else {
                    let exchange = AsyncHTTPClientExchange(transport: self, url: url, maximumResponseSize: request.maximumResponseSize)
                    return try await exchange.start(response, deadline: deadline)
                }
                // The 3xx's body is not read: dropping it ends that exchange.
                redirects += 1
                if redirects > RedirectPolicy.maximumRedirects {
                    throw .transport(TransportFailure(URLError(.httpTooManyRedirects), url: url))
                }
                current = next
            }
        }

        /// The request that follows `response` to `request`, under Courier's one redirect policy
        /// (``RedirectPolicy``), or `nil` when the response is the answer: not a redirect, no
        /// usable `Location`, a downgrade from `https`, or a body that would have to be sent
        /// again and cannot be.
        ///
        /// async-http-client follows nothing itself (its own following strips only four headers
        /// and follows `https` → `http`).
        @inline(never)
        static func redirect(after response: HTTPClientResponse, to request: TransportRequest, original: TransportRequest) -> TransportRequest? {
            let status = Int(response.status.code)
            guard RedirectPolicy.isRedirect(status), let location = response.headers.first(name: "Location"),
                let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
                RedirectPolicy.allowsFollowing(from: request.url, to: target)
            else { return nil }
            var next = request
            next.url = target
            if RedirectPolicy.becomesGet(status: status, method: request.head.method.rawValue) {
                next.head.method = .get
                next.body = nil
                next.head.headerFields[.contentType] = nil
            } else if let body = request.body, !body.isReplayable {
                return nil  // 307/308 (or 301/302 of a PUT) must send the body again, and it is gone
            }
            if !RedirectPolicy.keepsCredentials(to: target, original: original.url, previous: request.url) {
                next.head.headerFields = RedirectPolicy.stripped(next.head.headerFields, redaction: request.redaction)
            }
            return next
        }

        /// The async-http-client request for `request`. Not inlined into `send`, whose async frame
        /// every call allocates.
        @inline(never)
        static func request(for request: TransportRequest) -> HTTPClientRequest {
            var outgoing = HTTPClientRequest(url: request.url.absoluteString)
            outgoing.method = NIOHTTP1.HTTPMethod(rawValue: request.head.method.rawValue)
            outgoing.headers.reserveCapacity(request.head.headerFields.count)
            for field in request.head.headerFields {
                outgoing.headers.add(name: field.name.rawName, value: field.value)
            }
            switch request.body {
            case .data(let data)?:
                outgoing.body = .bytes(ByteBuffer(bytes: data))
            case .stream(let stream)?:
                outgoing.body = .stream(BodyStreamBuffers(stream: stream), length: stream.length.map { .known($0) } ?? .unknown)
            case nil:
                break
            }
            return outgoing
        }
    }

    /// A ``BodyStream`` as the `ByteBuffer`s async-http-client sends, read once per send.
    struct BodyStreamBuffers: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let stream: BodyStream

        func makeAsyncIterator() -> Iterator {
            do throws(CourierError) {
                return Iterator(reader: .success(try stream.makeReader()))
            } catch {
                return Iterator(reader: .failure(error))
            }
        }

        struct Iterator: AsyncIteratorProtocol {
            var reader: Result<BodyStream.Reader, CourierError>

            mutating func next() async throws -> ByteBuffer? {
                switch reader {
                case .failure(let error):
                    throw error
                case .success(var open):
                    let chunk = try await open.next()
                    reader = .success(open)
                    return chunk.map { ByteBuffer(bytes: $0) }
                }
            }
        }
    }

    extension TimeAmount {
        /// `duration`, to the nanosecond.
        init(_ duration: Duration) {
            let (seconds, attoseconds) = duration.components
            self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        }
    }
#endif
