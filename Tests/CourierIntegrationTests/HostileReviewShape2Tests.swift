#if AsyncHTTPClientLinked
    import AsyncHTTPClient
    import NIOCore
    import NIOSSL
    import Courier
    import Foundation
    import Testing

    /// Hostile review (shape II) of `AsyncHTTPClientTransport(configuration:pinning:)` used by a
    /// careless caller: async-http-client's own `TLSConfiguration` combined with pins, a key that
    /// does not match its certificate, and a connection hook of the caller's own. Pins must be
    /// checked on every connection to a pinned host, whichever of the transport's clients (one
    /// per decompression limit) makes it.
    @Suite("Hostile review (shape II): async-http-client configuration and pins", .loopback, .timeLimit(.minutes(2)))
    struct HostileReviewShape2Tests {
        struct Greeting: Decodable, Sendable, Equatable {
            var greeting: String
        }

        /// A configuration trusting only the test CA, as a caller writes it with NIOSSL's types.
        static func trustingTheTestCA() throws -> HTTPClient.Configuration {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(TLSFixture.data("ca.pem"))))
            var configuration = HTTPClient.Configuration()
            configuration.tlsConfiguration = tls
            return configuration
        }

        static func pinning(_ name: String) throws -> PinningPolicy {
            PinningPolicy(["127.0.0.1": [try TLSFixture.pin(name)]])
        }

        static func client(_ transport: AsyncHTTPClientTransport, maximumResponseSize: Int? = 32 << 20) -> Client {
            Client(configuration: Configuration(transport: transport, timeout: generousTimeout, maximumResponseSize: maximumResponseSize))
        }

        /// How a call is made: each reaches the server through another of the transport's clients.
        enum Path: String, CaseIterable, CustomTestStringConvertible, Sendable {
            /// The default response limit: the transport's first client.
            case defaultLimit
            /// Another limit: a client made for it on first use.
            case largerLimit
            /// `stream()`, no limit: a client that leaves decompression to the exchange.
            case stream
            var testDescription: String { rawValue }

            func call(_ transport: AsyncHTTPClientTransport, on server: TLSTestServer) async -> Result<Int, CourierError> {
                let endpoint: TestEndpoint
                do { endpoint = try server.endpoint("/hello") } catch { return .failure(.cancelled) }
                do throws(CourierError) {
                    switch self {
                    case .defaultLimit:
                        return .success(try await client(transport).enqueue(endpoint).resume().statusCode)
                    case .largerLimit:
                        return .success(try await client(transport, maximumResponseSize: 300 << 20).enqueue(endpoint).resume().statusCode)
                    case .stream:
                        let response = try await client(transport).enqueue(endpoint).stream()
                        for try await _ in response.body {}
                        return .success(response.statusCode)
                    }
                } catch {
                    return .failure(error)
                }
            }
        }

        @Test("a caller's own TLS configuration with a pin the server's key does not match fails, unsent, on every client", arguments: Path.allCases)
        func pinsAreCheckedWithTheCallersTLSConfiguration(_ path: Path) async throws {
            try await TLSTestServer.run { server in
                let transport = try AsyncHTTPClientTransport(configuration: Self.trustingTheTestCA(), pinning: Self.pinning("backup"))
                let result = await path.call(transport, on: server)
                guard case .failure(.transport(let failure)) = result else {
                    Issue.record("expected a pinning failure, got \(result)")
                    return
                }
                #expect(failure.kind == .pinningFailed)
                try await server.log.wait(until: "the handshake completed") { $0.handshakes >= 1 }
                #expect(server.log.requests.isEmpty)
            }
        }

        @Test("the matching pin answers on every client", arguments: Path.allCases)
        func theMatchingPinAnswers(_ path: Path) async throws {
            try await TLSTestServer.run { server in
                let transport = try AsyncHTTPClientTransport(configuration: Self.trustingTheTestCA(), pinning: Self.pinning("server-ec"))
                #expect(try await path.call(transport, on: server).get() == 200)
            }
        }

        @Test("certificate verification turned off does not turn pins off", arguments: Path.allCases)
        func pinsHoldWithoutCertificateVerification(_ path: Path) async throws {
            try await TLSTestServer.run(leaf: .untrusted) { server in
                var configuration = HTTPClient.Configuration()
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.certificateVerification = .none
                configuration.tlsConfiguration = tls
                let transport = try AsyncHTTPClientTransport(configuration: configuration, pinning: Self.pinning("server-ec"))
                let result = await path.call(transport, on: server)
                guard case .failure(.transport(let failure)) = result else {
                    Issue.record("expected a pinning failure, got \(result)")
                    return
                }
                #expect(failure.kind == .pinningFailed)
                #expect(server.log.requests.isEmpty)
            }
        }

        /// The pin check is installed as async-http-client's connection debug initializer; it
        /// used to replace the caller's own, which then never ran for a pinned host.
        @Test("a caller's own connection hook still runs on a pinned host's connections, after the pin check", arguments: Path.allCases)
        func theCallersConnectionHookStillRuns(_ path: Path) async throws {
            try await TLSTestServer.run(offersHTTP2: false) { server in
                let hooked = HookCount()
                var configuration = try Self.trustingTheTestCA()
                configuration.http1_1ConnectionDebugInitializer = { channel in
                    hooked.increment()
                    return channel.eventLoop.makeSucceededVoidFuture()
                }
                let pinned = try AsyncHTTPClientTransport(configuration: configuration, pinning: Self.pinning("server-ec"))
                #expect(try await path.call(pinned, on: server).get() == 200)
                #expect(hooked.value == 1)
                // And a refused pin fails before the caller's hook sees the connection.
                let refused = try AsyncHTTPClientTransport(configuration: configuration, pinning: Self.pinning("backup"))
                guard case .failure(.transport(let failure)) = await path.call(refused, on: server) else {
                    Issue.record("expected a pinning failure")
                    return
                }
                #expect(failure.kind == .pinningFailed)
                #expect(hooked.value == 1)
            }
        }

        @Test("a client key that does not match its certificate is invalidTLSConfiguration at init, with or without pins")
        func aMismatchedKeyIsRefusedAtInit() throws {
            for pinning in [PinningPolicy.none, try Self.pinning("server-ec")] {
                var configuration = try Self.trustingTheTestCA()
                var tls = try #require(configuration.tlsConfiguration)
                tls.certificateChain = try NIOSSLCertificate.fromPEMBytes(Array(TLSFixture.data("client.pem"))).map { .certificate($0) }
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(TLSFixture.data("server-ec.key")), format: .pem))
                configuration.tlsConfiguration = tls
                let error = #expect(throws: CourierError.self) {
                    _ = try AsyncHTTPClientTransport(configuration: configuration, pinning: pinning)
                }
                guard case .invalidRequest(.invalidTLSConfiguration(let reason))? = error else {
                    Issue.record("expected invalidTLSConfiguration, got \(String(describing: error))")
                    return
                }
                #expect(!reason.contains("BEGIN"))
            }
        }
    }

    final class HookCount: Sendable {
        private let count = LockedState(0)
        var value: Int { count.withLock { $0 } }
        func increment() { count.withLock { $0 += 1 } }
    }
#endif
