#if AsyncHTTPClientLinked
    import Courier
    import Foundation
    import NIOCore
    import NIOHTTP1
    import NIOHTTP2
    import NIOPosix
    import NIOSSL
    import NIOTLS

    /// An in-process HTTPS server (SwiftNIO, NIOSSL) on `127.0.0.1` with an ephemeral port, one per
    /// test, serving a certificate of `Fixtures/TLS`.
    ///
    /// ```swift
    /// try await TLSTestServer.run(leaf: .rsa, requiresClientCertificate: true) { server in
    ///     _ = try await client.enqueue(server.endpoint("/hello")).resume()
    ///     #expect(server.log.requests.map(\.path) == ["/hello"])
    /// }
    /// ```
    ///
    /// It answers `GET /hello` with `200` and `{"greeting":"hello"}`, `GET /unavailable` with `503`
    /// (a status a retry policy retries), anything else with `404`, over
    /// HTTP/1.1 or, when the client offers it through ALPN, HTTP/2. Its ``log`` counts accepted
    /// connections and completed TLS handshakes, and records every request that arrived: so a test
    /// can show that a connection was made and its handshake completed, yet no request reached the
    /// server (a refused pin).
    final class TLSTestServer: Sendable {
        /// Which certificate the server presents (see `Fixtures/TLS/README.md`).
        enum Leaf: String, Sendable, CaseIterable {
            /// EC P-256, for `127.0.0.1` and `localhost`, signed by the trusted test CA.
            case ec = "server-ec"
            /// RSA-2048, the same names and CA.
            case rsa = "server-rsa"
            /// For `wrong.example` only, signed by the trusted test CA.
            case wrongName = "wrong-name"
            /// For `127.0.0.1` and `localhost`, signed by a CA no test trusts.
            case untrusted
        }

        /// `https://127.0.0.1:<port>`.
        let baseURL: BaseURL
        /// The port the kernel picked.
        let port: Int
        /// What the server has seen so far.
        let log: TLSServerLog

        private let channel: any Channel

        private init(channel: any Channel, log: TLSServerLog, port: Int) throws {
            self.channel = channel
            self.log = log
            self.port = port
            self.baseURL = try BaseURL(scheme: .https, host: "127.0.0.1", port: port)
        }

        /// Starts a server, runs `body` with it, and stops the server whatever happens in `body`.
        /// - Parameters:
        ///   - leaf: the certificate (and key) the server presents.
        ///   - requiresClientCertificate: whether the handshake fails without a client certificate
        ///     signed by the test client CA (mutual TLS).
        ///   - offersHTTP2: whether the server accepts `h2` in ALPN; HTTP/1.1 is always offered.
        ///   - maximumTLSVersion: the newest TLS version the server speaks (default: TLS 1.3).
        static func run<R>(
            leaf: Leaf = .ec,
            requiresClientCertificate: Bool = false,
            offersHTTP2: Bool = true,
            maximumTLSVersion: TLSVersion? = nil,
            _ body: (TLSTestServer) async throws -> R
        ) async throws -> R {
            let server = try await start(
                leaf: leaf, requiresClientCertificate: requiresClientCertificate, offersHTTP2: offersHTTP2,
                maximumTLSVersion: maximumTLSVersion)
            return try await running(server, stop: { await $0.stop() }, body)
        }

        /// Starts a server and returns once it listens. Prefer ``run(leaf:requiresClientCertificate:offersHTTP2:maximumTLSVersion:_:)``,
        /// which cannot forget to stop it.
        static func start(leaf: Leaf, requiresClientCertificate: Bool, offersHTTP2: Bool, maximumTLSVersion: TLSVersion?) async throws -> TLSTestServer {
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMBytes([UInt8](TLSFixture.data("\(leaf.rawValue).pem"))).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: [UInt8](TLSFixture.data("\(leaf.rawValue).key")), format: .pem)))
            if requiresClientCertificate {
                // Asks for a certificate and fails the handshake without one (SSL_VERIFY_FAIL_IF_NO_PEER_CERT).
                tls.certificateVerification = .noHostnameVerification
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes([UInt8](TLSFixture.data("client-ca.pem"))))
            }
            tls.applicationProtocols = offersHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
            tls.maximumTLSVersion = maximumTLSVersion
            let context = try NIOSSLContext(configuration: tls)
            let log = TLSServerLog()
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 64)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    log.accepted(channel)
                    return channel.eventLoop.makeCompletedFuture {
                        let connection = ConnectionRecord()
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                        try channel.pipeline.syncOperations.addHandler(HandshakeObserver(log: log, connection: connection))
                        try channel.pipeline.syncOperations.addHandler(Self.protocolNegotiation(log: log, connection: connection))
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
            guard let port = channel.localAddress?.port else {
                try? await channel.close()
                throw TestServerError.noListeningAddress
            }
            return try TLSTestServer(channel: channel, log: log, port: port)
        }

        /// HTTP/2 when ALPN chose `h2`, HTTP/1.1 otherwise; both end in a ``HelloHandler``.
        private static func protocolNegotiation(log: TLSServerLog, connection: ConnectionRecord) -> ApplicationProtocolNegotiationHandler {
            ApplicationProtocolNegotiationHandler { result, channel in
                switch result {
                case .negotiated("h2"):
                    return channel.configureHTTP2Pipeline(
                        mode: .server,
                        inboundStreamInitializer: { stream in
                            stream.eventLoop.makeCompletedFuture {
                                try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                                try stream.pipeline.syncOperations.addHandler(HelloHandler(log: log, connection: connection))
                            }
                        }
                    ).map { _ in }
                default:
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(HelloHandler(log: log, connection: connection))
                    }
                }
            }
        }

        /// Closes the listening socket and every connection, and returns once they are closed.
        /// Calling it again does nothing.
        func stop() async {
            try? await channel.close()
            for connection in log.openConnections() {
                try? await connection.close()
            }
        }

        /// An endpoint on this server.
        func endpoint(_ path: String) throws -> TestEndpoint {
            try TestEndpoint(baseURL: baseURL, path: URLPath(path))
        }
    }

    /// What a ``TLSTestServer`` saw: connections, handshakes, requests. Thread-safe; tests await
    /// its conditions instead of sleeping.
    final class TLSServerLog: @unchecked Sendable {  // every access goes through `lock`
        /// One request that reached the server's HTTP layer.
        struct Request: Sendable, Equatable {
            var method: String
            var path: String
            /// `HTTP/1.1` or `HTTP/2.0`.
            var version: String
            /// The common name of the client certificate the connection presented, if any.
            var clientCommonName: String?
        }

        private let lock = NSLock()
        private var acceptedCount = 0
        private var handshakeCount = 0
        private var negotiated: [String?] = []
        private var received: [Request] = []
        private var failures: [String] = []
        private var open: [ObjectIdentifier: any Channel] = [:]
        private var waiters: [(condition: @Sendable (TLSServerLog.Snapshot) -> Bool, latch: Latch)] = []

        /// The counts and records at one instant.
        struct Snapshot: Sendable {
            /// TCP connections accepted.
            var connections: Int
            /// TLS handshakes the server completed.
            var handshakes: Int
            /// The ALPN protocol of each completed handshake (`nil`: none negotiated).
            var negotiatedProtocols: [String?]
            /// Requests received, in order.
            var requests: [Request]
            /// Errors connections ended with (a handshake the client aborted, a missing client
            /// certificate).
            var connectionErrors: [String]
        }

        var snapshot: Snapshot {
            lock.withLock {
                Snapshot(
                    connections: acceptedCount, handshakes: handshakeCount, negotiatedProtocols: negotiated,
                    requests: received, connectionErrors: failures)
            }
        }

        var connections: Int { snapshot.connections }
        var handshakes: Int { snapshot.handshakes }
        var requests: [Request] { snapshot.requests }

        /// Returns once `condition` holds (at once if it already does); throws
        /// ``ConditionTimedOut`` after `bound`.
        func wait(
            until description: String, within bound: Duration = .seconds(15),
            _ condition: @escaping @Sendable (Snapshot) -> Bool
        ) async throws {
            let latch = Latch()
            let holds = lock.withLock {
                let holds = condition(unlockedSnapshot)
                if !holds { waiters.append((condition, latch)) }
                return holds
            }
            if holds { latch.open() }
            try await awaitCondition(description, within: bound) { try await latch.wait() }
        }

        func accepted(_ channel: any Channel) {
            let id = ObjectIdentifier(channel)
            changing {
                acceptedCount += 1
                open[id] = channel
            }
            channel.closeFuture.whenComplete { [self] _ in lock.withLock { _ = open.removeValue(forKey: id) } }
        }

        func handshakeCompleted(negotiatedProtocol: String?) {
            changing {
                handshakeCount += 1
                negotiated.append(negotiatedProtocol)
            }
        }

        func record(_ request: Request) {
            changing { received.append(request) }
        }

        func connectionFailed(_ error: any Error) {
            changing { failures.append(String(describing: error)) }
        }

        func openConnections() -> [any Channel] {
            lock.withLock { Array(open.values) }
        }

        private var unlockedSnapshot: Snapshot {
            Snapshot(
                connections: acceptedCount, handshakes: handshakeCount, negotiatedProtocols: negotiated,
                requests: received, connectionErrors: failures)
        }

        /// Applies `change`, then opens the latch of every waiter whose condition now holds.
        private func changing(_ change: () -> Void) {
            let ready: [Latch] = lock.withLock {
                change()
                let now = unlockedSnapshot
                let (met, unmet) = (waiters.filter { $0.condition(now) }, waiters.filter { !$0.condition(now) })
                waiters = unmet
                return met.map(\.latch)
            }
            for latch in ready { latch.open() }
        }
    }

    /// The client certificate of one connection, once its handshake completed; shared by the
    /// connection's request handlers (one per HTTP/2 stream).
    private final class ConnectionRecord: @unchecked Sendable {  // every access goes through `lock`
        private let lock = NSLock()
        private var commonName: String?

        var clientCommonName: String? {
            get { lock.withLock { commonName } }
            set { lock.withLock { commonName = newValue } }
        }
    }

    /// Sits behind the TLS handler: logs completed handshakes (with the client certificate) and
    /// the errors a connection ends with.
    private final class HandshakeObserver: ChannelInboundHandler {
        typealias InboundIn = NIOAny

        let log: TLSServerLog
        let connection: ConnectionRecord

        init(log: TLSServerLog, connection: ConnectionRecord) {
            self.log = log
            self.connection = connection
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .handshakeCompleted(let negotiatedProtocol) = event as? TLSUserEvent {
                let certificate = try? context.pipeline.syncOperations.nioSSL_peerCertificate()
                connection.clientCommonName = certificate.flatMap(Self.commonName)
                log.handshakeCompleted(negotiatedProtocol: negotiatedProtocol)
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            log.connectionFailed(error)
            context.close(promise: nil)
        }

        /// The subject's common name, as NIOSSL's description prints it (its only public view of the
        /// subject): `<NIOSSLCertificate;serial_number=…;common_name=NAME;…>`.
        static func commonName(of certificate: NIOSSLCertificate) -> String? {
            let description = certificate.description
            guard let start = description.range(of: ";common_name=") else { return nil }
            let rest = description[start.upperBound...]
            return String(rest.prefix { $0 != ";" && $0 != ">" })
        }
    }

    /// Records each request, then answers `GET /hello` with JSON, `GET /unavailable` with 503 and
    /// anything else with 404.
    private final class HelloHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let log: TLSServerLog
        let connection: ConnectionRecord
        private var head: HTTPRequestHead?

        init(log: TLSServerLog, connection: ConnectionRecord) {
            self.log = log
            self.connection = connection
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                log.record(
                    TLSServerLog.Request(
                        method: head.method.rawValue, path: head.uri,
                        version: "HTTP/\(head.version.major).\(head.version.minor)",
                        clientCommonName: connection.clientCommonName))
            case .body:
                break
            case .end:
                guard let head = head.take() else { return }
                var location: String?
                let (status, contentType, text): (HTTPResponseStatus, String, String) =
                    switch (head.method, head.uri) {
                    case (.GET, "/hello"): (.ok, "application/json", #"{"greeting":"hello"}"#)
                    case (.GET, "/unavailable"): (.serviceUnavailable, "text/plain", "try again")
                    case (.GET, let uri) where uri.hasPrefix("/redirect-to-http/"):
                        // `/redirect-to-http/<port>`: a downgrade to plain http on 127.0.0.1:<port>.
                        {
                            location = "http://127.0.0.1:\(uri.dropFirst("/redirect-to-http/".count))/landed"
                            return (.found, "text/plain", "moved")
                        }()
                    default: (.notFound, "text/plain", "not found")
                    }
                let body = ByteBuffer(string: text)
                var headers = HTTPHeaders([("Content-Type", contentType), ("Content-Length", String(body.readableBytes))])
                if let location { headers.add(name: "Location", value: location) }
                if !head.isKeepAlive { headers.add(name: "Connection", value: "close") }
                let response = HTTPResponseHead(version: head.version, status: status, headers: headers)
                context.write(wrapOutboundOut(.head(response)), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }

    extension Optional {
        /// The value, leaving `nil` behind.
        fileprivate mutating func take() -> Wrapped? {
            defer { self = nil }
            return self
        }
    }

    // MARK: - Fixtures

    /// The files of `Fixtures/TLS` (see its README), read from the source tree.
    enum TLSFixture {
        static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/TLS")

        static func data(_ file: String) throws -> Data {
            try Data(contentsOf: directory.appendingPathComponent(file))
        }

        /// The base64 pin of `name` (`server-ec`, `server-rsa`, `wrong-name`, `untrusted`, `backup`)
        /// in `pins.txt`, computed by openssl.
        static func pinBase64(_ name: String) throws -> String {
            let lines = String(decoding: try data("pins.txt"), as: UTF8.self).split(separator: "\n")
            for line in lines where !line.hasPrefix("#") {
                let fields = line.split(separator: " ")
                if fields.count == 2, fields[0] == name { return String(fields[1]) }
            }
            throw FixtureMissing(name: name)
        }

        static func pin(_ name: String) throws -> PinningPolicy.Pin {
            try PinningPolicy.Pin(sha256Base64: pinBase64(name))
        }

        struct FixtureMissing: Error {
            var name: String
        }
    }
#endif
