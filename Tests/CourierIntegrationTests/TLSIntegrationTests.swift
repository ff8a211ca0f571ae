#if AsyncHTTPClientLinked
    import Courier
    import CourierTesting
    import CourierTransportTestSupport
    import FlyingFox
    import Foundation
    import NIOSSL
    import Testing

    /// `AsyncHTTPClientTransport`'s TLS settings against a real HTTPS server (``TLSTestServer``)
    /// with the certificates of `Fixtures/TLS`: trust roots, host-name validation, SPKI pins
    /// (checked after the handshake, before any request is written), client certificates, the
    /// minimum TLS version, HTTP/2 over ALPN, and `URLSessionTransport`'s refusal of pinned hosts
    /// on Linux.
    @Suite("TLS against a real HTTPS server", .loopback, .timeLimit(.minutes(2)))
    struct TLSIntegrationTests {
        typealias TLS = AsyncHTTPClientTransport.TLS

        struct Greeting: Decodable, Sendable, Equatable {
            var greeting: String
        }

        static let hello = Greeting(greeting: "hello")

        static func caPEM() throws -> Data { try TLSFixture.data("ca.pem") }

        /// A transport trusting only the test CA, with `change` applied to its configuration.
        static func transport(_ change: (inout AsyncHTTPClientTransport.Configuration) throws -> Void = { _ in }) throws -> AsyncHTTPClientTransport {
            var configuration = AsyncHTTPClientTransport.Configuration(tls: TLS(trustRoots: .certificates(pem: try caPEM())))
            try change(&configuration)
            return try AsyncHTTPClientTransport(configuration: configuration)
        }

        static func client(_ transport: any Transport, retryPolicy: RetryPolicy = .none) -> Client {
            Client(configuration: Configuration(transport: transport, timeout: generousTimeout, retryPolicy: retryPolicy))
        }

        /// `host` (`127.0.0.1` unless told) pinned to the pins of these fixture names (`pins.txt`).
        static func pinning(_ names: String..., host: String = "127.0.0.1") throws -> PinningPolicy {
            PinningPolicy([host: try names.map(TLSFixture.pin)])
        }

        /// `GET /hello` through `client`, as a `Result`.
        static func hello(_ client: Client, on server: TLSTestServer) async throws -> Result<Greeting, CourierError> {
            await client.enqueue(try server.endpoint("/hello")).result(expecting: Greeting.self)
        }

        /// The transport failure `result` ended with, or `nil` (and an issue) when it did not.
        static func transportFailure(_ result: Result<Greeting, CourierError>, sourceLocation: SourceLocation = #_sourceLocation) -> TransportFailure? {
            guard case .failure(.transport(let failure)) = result else {
                Issue.record("expected a transport failure, got \(result)", sourceLocation: sourceLocation)
                return nil
            }
            return failure
        }

        // MARK: - Trust roots and certificate validation

        enum TrustChoice: String, CaseIterable, CustomTestStringConvertible, Sendable {
            case onlyTheTestCA, systemAndTheTestCA
            var testDescription: String { rawValue }
            func roots() throws -> TLS.TrustRoots {
                switch self {
                case .onlyTheTestCA: .certificates(pem: try TLSFixture.data("ca.pem"))
                case .systemAndTheTestCA: .systemAnd(pem: try TLSFixture.data("ca.pem"))
                }
            }
        }

        @Test(arguments: TrustChoice.allCases)
        func aServerSignedByATrustedPrivateCAAnswers(_ trust: TrustChoice) async throws {
            try await TLSTestServer.run { server in
                let client = Self.client(try Self.transport { $0.tls.trustRoots = try trust.roots() })
                #expect(try await Self.hello(client, on: server).get() == Self.hello)
                #expect(server.log.requests.map(\.path) == ["/hello"])
            }
        }

        @Test func theSystemRootsAloneRefuseAPrivateCAsServerBeforeAnyRequest() async throws {
            try await TLSTestServer.run { server in
                let client = Self.client(try AsyncHTTPClientTransport(configuration: .init()))
                let failure = Self.transportFailure(try await Self.hello(client, on: server))
                #expect(failure?.kind == .secureConnectionFailed, "\(String(describing: failure))")
                try await server.log.wait(until: "a connection was accepted") { $0.connections >= 1 }
                #expect(server.log.requests.isEmpty)
            }
        }

        /// A certificate from a CA nobody trusts, or for another name, fails validation; a pin of its
        /// own key changes nothing (a pin never makes an untrusted certificate trusted).
        @Test(arguments: [TLSTestServer.Leaf.untrusted, .wrongName], [false, true])
        func anUntrustedOrMisnamedCertificateFailsBeforeAnyRequestEvenWithItsKeyPinned(_ leaf: TLSTestServer.Leaf, pinned: Bool) async throws {
            try await TLSTestServer.run(leaf: leaf) { server in
                let client = Self.client(
                    try Self.transport { $0.tls.pinning = pinned ? try Self.pinning(leaf.rawValue) : .none })
                let failure = Self.transportFailure(try await Self.hello(client, on: server))
                #expect(failure?.kind == .secureConnectionFailed, "\(String(describing: failure))")
                try await server.log.wait(until: "a connection was accepted") { $0.connections >= 1 }
                #expect(server.log.requests.isEmpty)
                #expect(server.log.handshakes == 0)
            }
        }

        // MARK: - Pins

        @Test(arguments: [TLSTestServer.Leaf.ec, .rsa])
        func aServerPresentingItsPinnedKeyAnswers(_ leaf: TLSTestServer.Leaf) async throws {
            try await TLSTestServer.run(leaf: leaf) { server in
                let client = Self.client(try Self.transport { $0.tls.pinning = try Self.pinning(leaf.rawValue) })
                #expect(try await Self.hello(client, on: server).get() == Self.hello)
                #expect(server.log.requests.map(\.path) == ["/hello"])
            }
        }

        @Test func aKeyMatchingOnlyTheBackupPinIsAccepted() async throws {
            try await TLSTestServer.run { server in
                // The app shipped pins for its current key ("backup" here) and the next one; the
                // server now presents the next one.
                let client = Self.client(try Self.transport { $0.tls.pinning = try Self.pinning("backup", "server-ec") })
                #expect(try await Self.hello(client, on: server).get() == Self.hello)
                #expect(server.log.requests.count == 1)
            }
        }

        @Test(arguments: [TLSTestServer.Leaf.ec, .rsa])
        func aKeyMatchingNoPinFailsAfterTheHandshakeAndSendsNothing(_ leaf: TLSTestServer.Leaf) async throws {
            try await TLSTestServer.run(leaf: leaf) { server in
                let client = Self.client(try Self.transport { $0.tls.pinning = try Self.pinning("backup", "untrusted") })
                let failure = Self.transportFailure(try await Self.hello(client, on: server))
                #expect(failure?.kind == .pinningFailed)
                let message = failure?.message ?? ""
                #expect(message.hasPrefix("127.0.0.1 presented sha256/\(try TLSFixture.pinBase64(leaf.rawValue))"))
                #expect(message.contains("sha256/\(try TLSFixture.pinBase64("backup"))"))
                #expect(message.contains("sha256/\(try TLSFixture.pinBase64("untrusted"))"))
                #expect(failure?.url?.absoluteString == "https://127.0.0.1:\(server.port)/hello")
                // The TLS handshake completed (the key was seen), yet no request reached the server.
                try await server.log.wait(until: "the handshake completed") { $0.handshakes >= 1 }
                #expect(server.log.requests.isEmpty)
            }
        }

        /// Through a `CONNECT` proxy that really tunnels (a corporate proxy, or a hostile one), the
        /// TLS handshake runs end to end with the target and the pins are checked as without a
        /// proxy: a key matching no pin fails and no request reaches the server.
        @Test(arguments: [true, false])
        func pinsAreCheckedThroughATunnellingProxy(pinMatches: Bool) async throws {
            try await TLSTestServer.run { server in
                try await TunnelProxy.run { proxy in
                    let client = Self.client(
                        try Self.transport {
                            $0.proxy = .http(host: "127.0.0.1", port: proxy.port)
                            $0.tls.pinning = try Self.pinning(pinMatches ? "server-ec" : "backup")
                        })
                    let result = try await Self.hello(client, on: server)
                    #expect(proxy.targets == ["127.0.0.1:\(server.port)"])
                    if pinMatches {
                        #expect(try result.get() == Self.hello)
                        #expect(server.log.requests.map(\.path) == ["/hello"])
                    } else {
                        #expect(Self.transportFailure(result)?.kind == .pinningFailed)
                        try await server.log.wait(until: "the handshake completed") { $0.handshakes >= 1 }
                        #expect(server.log.requests.isEmpty)
                    }
                }
            }
        }

        @Test func aPinForAnotherHostLeavesTheContactedHostUnpinned() async throws {
            try await TLSTestServer.run { server in
                let client = Self.client(try Self.transport { $0.tls.pinning = try Self.pinning("backup", host: "localhost") })
                #expect(try await Self.hello(client, on: server).get() == Self.hello)
            }
        }

        @Test func aPinnedHostIsMatchedWhateverItsCaseAndTrailingDot() async throws {
            try await TLSTestServer.run { server in
                // `localhost` resolves to 127.0.0.1 (and perhaps ::1, where nothing listens).
                let client = Self.client(try Self.transport { $0.tls.pinning = try Self.pinning("backup", host: "LocalHost.") })
                let endpoint = TestEndpoint(baseURL: try BaseURL(scheme: .https, host: "localhost", port: server.port), path: try URLPath("/hello"))
                let failure = Self.transportFailure(await client.enqueue(endpoint).result(expecting: Greeting.self))
                #expect(failure?.kind == .pinningFailed)
                #expect(failure?.message?.hasPrefix("localhost presented sha256/") == true)
                #expect(server.log.requests.isEmpty)
            }
        }

        @Test func aPinnedConnectionIsCheckedOnceAndThenReused() async throws {
            try await TLSTestServer.run(offersHTTP2: false) { server in
                let client = Self.client(try Self.transport { $0.tls.pinning = try Self.pinning("server-ec") })
                for _ in 0..<3 {
                    #expect(try await Self.hello(client, on: server).get() == Self.hello)
                }
                #expect(server.log.requests.count == 3)
                #expect(server.log.connections == 1)
            }
        }

        @Test func aPinnedHostReachedOverPlainHTTPIsRefusedUnsent() async throws {
            try await TestServer.run { server in
                let received = Recorder<String>()
                await server.route("GET /hello") { request in
                    await received.record(request.path)
                    return FlyingFox.HTTPResponse(statusCode: .ok)
                }
                let client = Self.client(try Self.transport { $0.tls.pinning = try Self.pinning("server-ec") })
                let result = await client.enqueue(try server.endpoint("/hello")).result()
                guard case .failure(.transport(let failure)) = result else {
                    Issue.record("expected a transport failure, got \(result)")
                    return
                }
                #expect(failure.kind == .pinningFailed)
                #expect(failure.message?.contains("not TLS") == true)
                #expect(await received.values.isEmpty)
            }
        }

        /// A redirect from `https` to `http` is not followed, whatever the policy would strip:
        /// the 3xx is the response, and the plain-http server receives nothing.
        @Test func aRedirectFromHTTPSToHTTPIsNotFollowed() async throws {
            try await TLSTestServer.run { tlsServer in
                try await TestServer.run { plain in
                    let landed = Recorder<String>()
                    await plain.route("GET /landed") { request in
                        await landed.record(request.path)
                        return FlyingFox.HTTPResponse(statusCode: .ok)
                    }
                    let client = Self.client(try Self.transport { $0.tls.trustRoots = .certificates(pem: try Self.caPEM()) })
                    let result = await client.enqueue(try tlsServer.endpoint("/redirect-to-http/\(plain.port)")).result()
                    guard case .failure(.response(let response)) = result else {
                        Issue.record("expected the 302 as the response, got \(result)")
                        return
                    }
                    #expect(response.statusCode == 302)
                    #expect(response.url.scheme == "https")
                    #expect(await landed.values.isEmpty)
                }
            }
        }

        /// Each hop of a redirect goes through the client of its own host: an unpinned `http` origin
        /// redirecting to the pinned HTTPS server gets that server's pins checked.
        @Test(arguments: [true, false])
        func aRedirectToAPinnedHostIsCheckedAgainstThatHostsPins(pinMatches: Bool) async throws {
            try await TLSTestServer.run { tlsServer in
                try await TestServer.run { origin in
                    await origin.route("GET /moved") { _ in
                        FlyingFox.HTTPResponse(
                            statusCode: .found, headers: [.location: "https://127.0.0.1:\(tlsServer.port)/hello"], body: Data())
                    }
                    let client = Self.client(
                        try Self.transport { $0.tls.pinning = try Self.pinning(pinMatches ? "server-ec" : "backup") })
                    // `localhost`, so that the origin is not the pinned host 127.0.0.1.
                    let moved = TestEndpoint(baseURL: try BaseURL(scheme: .http, host: "localhost", port: origin.port), path: try URLPath("/moved"))
                    let result = await client.enqueue(moved).result(expecting: Greeting.self)
                    if pinMatches {
                        #expect(try result.get() == Self.hello)
                        #expect(tlsServer.log.requests.count == 1)
                    } else {
                        #expect(Self.transportFailure(result)?.kind == .pinningFailed)
                        try await tlsServer.log.wait(until: "the handshake completed") { $0.handshakes >= 1 }
                        #expect(tlsServer.log.requests.isEmpty)
                    }
                }
            }
        }

        /// Many calls at once open several HTTP/1.1 connections, each checked on its own: with the
        /// right pin every call succeeds, with a wrong one every call fails and none is sent.
        @Test(arguments: [true, false])
        func concurrentCallsToAPinnedHostAllGetCheckedConnections(pinMatches: Bool) async throws {
            try await TLSTestServer.run(offersHTTP2: false) { server in
                let client = Self.client(
                    try Self.transport {
                        $0.maximumConnectionsPerHost = 4
                        $0.tls.pinning = try Self.pinning(pinMatches ? "server-ec" : "backup")
                    })
                let results = try await withThrowingTaskGroup(of: Result<Greeting, CourierError>.self) { group in
                    for _ in 0..<40 {
                        group.addTask { try await Self.hello(client, on: server) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                if pinMatches {
                    #expect(results.allSatisfy { (try? $0.get()) == Self.hello })
                    #expect(server.log.requests.count == 40)
                    #expect((1...4).contains(server.log.connections))
                } else {
                    #expect(results.allSatisfy { if case .failure(.transport(let failure)) = $0 { failure.kind == .pinningFailed } else { false } })
                    #expect(server.log.requests.isEmpty)
                }
            }
        }

        /// A refused pin or certificate is final: with a retry policy that retries a 503 on the same
        /// server, the call still makes one connection and fails.
        @Test(arguments: [TLSTestServer.Leaf.ec, .untrusted, .wrongName])
        func aRefusedPinOrCertificateIsNotRetried(_ leaf: TLSTestServer.Leaf) async throws {
            try await TLSTestServer.run(leaf: leaf) { server in
                let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(1))
                let unpinned = Self.client(try Self.transport(), retryPolicy: policy)
                if leaf == .ec {
                    // The policy is live: a 503 is sent three times.
                    let unavailable = await unpinned.enqueue(try server.endpoint("/unavailable")).result()
                    guard case .failure(.response(let response)) = unavailable else {
                        Issue.record("expected a 503 response, got \(unavailable)")
                        return
                    }
                    #expect(response.statusCode == 503)
                    #expect(server.log.requests.map(\.path) == ["/unavailable", "/unavailable", "/unavailable"])
                }
                let before = server.log.snapshot

                let client = Self.client(try Self.transport { $0.tls.pinning = try Self.pinning("backup") }, retryPolicy: policy)
                let failure = Self.transportFailure(try await Self.hello(client, on: server))

                #expect(failure?.kind == (leaf == .ec ? .pinningFailed : .secureConnectionFailed))
                // Each attempt's connection is accepted before its handshake can fail, so a retry
                // would already show here.
                #expect(server.log.connections == before.connections + 1)
                #expect(server.log.requests.count == before.requests.count)
            }
        }

        // MARK: - Client certificates

        /// Over TLS 1.2 the server refuses the handshake itself. Over TLS 1.3 the client's side of
        /// the handshake is over before the server checks for a certificate; the server's refusal
        /// (an alert, then close) reaches async-http-client as `remoteConnectionClosed`, so the
        /// call ends `.connectionLost`, not `.secureConnectionFailed`: a known limitation.
        @Test(arguments: [TLSVersion.tlsv12, .tlsv13])
        func aServerRequiringAClientCertificateRefusesAClientWithoutOne(_ version: TLSVersion) async throws {
            try await TLSTestServer.run(requiresClientCertificate: true, maximumTLSVersion: version) { server in
                let client = Self.client(try Self.transport())
                let failure = Self.transportFailure(try await Self.hello(client, on: server))
                if version == .tlsv12 {
                    #expect(failure?.kind == .secureConnectionFailed, "\(String(describing: failure))")
                } else {
                    #expect(failure?.kind == .secureConnectionFailed || failure?.kind == .connectionLost, "\(String(describing: failure))")
                    withKnownIssue("TLS 1.3: a refused client certificate is reported as a closed connection", isIntermittent: true) {
                        #expect(failure?.kind == .secureConnectionFailed)
                    }
                }
                try await server.log.wait(until: "the server refused the handshake") { !$0.connectionErrors.isEmpty }
                #expect(server.log.requests.isEmpty)
            }
        }

        /// With the key in PKCS #8 (`PRIVATE KEY`) and traditional (`EC PRIVATE KEY`) form, and with
        /// the server's key pinned too.
        @Test(arguments: ["client.key", "client-traditional.key"], [false, true])
        func aClientCertificateIsPresentedAndSeenByTheServer(keyFile: String, pinned: Bool) async throws {
            try await TLSTestServer.run(requiresClientCertificate: true) { server in
                let client = Self.client(
                    try Self.transport {
                        $0.tls.clientCertificate = .init(
                            certificateChainPEM: try TLSFixture.data("client.pem"), privateKeyPEM: try TLSFixture.data(keyFile))
                        $0.tls.pinning = pinned ? try Self.pinning("server-ec") : .none
                    })
                #expect(try await Self.hello(client, on: server).get() == Self.hello)
                #expect(server.log.requests.map(\.clientCommonName) == ["courier-test-client"])
            }
        }

        // MARK: - TLS version and HTTP version

        @Test func aMinimumOfTLS13RefusesATLS12OnlyServer() async throws {
            try await TLSTestServer.run(maximumTLSVersion: .tlsv12) { server in
                let tls12 = Self.client(try Self.transport())
                #expect(try await Self.hello(tls12, on: server).get() == Self.hello)
                let tls13 = Self.client(try Self.transport { $0.tls.minimumVersion = .tls13 })
                #expect(Self.transportFailure(try await Self.hello(tls13, on: server))?.kind == .secureConnectionFailed)
                #expect(server.log.requests.count == 1)
            }
        }

        struct VersionCase: CustomTestStringConvertible, Sendable {
            var httpVersion: AsyncHTTPClientTransport.Configuration.HTTPVersion
            var serverOffersHTTP2: Bool
            var expected: String
            var testDescription: String { "\(httpVersion), server offers h2: \(serverOffersHTTP2) → \(expected)" }
        }

        @Test(arguments: [
            VersionCase(httpVersion: .automatic, serverOffersHTTP2: true, expected: "HTTP/2.0"),
            VersionCase(httpVersion: .automatic, serverOffersHTTP2: false, expected: "HTTP/1.1"),
            VersionCase(httpVersion: .http1Only, serverOffersHTTP2: true, expected: "HTTP/1.1"),
        ])
        func theHTTPVersionIsNegotiatedThroughALPN(_ version: VersionCase) async throws {
            try await TLSTestServer.run(offersHTTP2: version.serverOffersHTTP2) { server in
                let client = Self.client(try Self.transport { $0.httpVersion = version.httpVersion })
                #expect(try await Self.hello(client, on: server).get() == Self.hello)
                #expect(server.log.requests.map(\.version) == [version.expected])
            }
        }

        @Test func pinsAreCheckedOnHTTP2ConnectionsToo() async throws {
            try await TLSTestServer.run { server in
                let pinned = Self.client(try Self.transport { $0.tls.pinning = try Self.pinning("server-ec") })
                #expect(try await Self.hello(pinned, on: server).get() == Self.hello)
                #expect(server.log.requests.map(\.version) == ["HTTP/2.0"])

                let mispinned = Self.client(try Self.transport { $0.tls.pinning = try Self.pinning("backup") })
                let failure = Self.transportFailure(try await Self.hello(mispinned, on: server))
                #expect(failure?.kind == .pinningFailed)
                try await server.log.wait(until: "both handshakes completed") { $0.handshakes >= 2 }
                #expect(server.log.snapshot.negotiatedProtocols == ["h2", "h2"])
                #expect(server.log.requests.count == 1)
            }
        }

        // MARK: - Configuration that cannot work

        enum BadConfiguration: String, CaseIterable, CustomTestStringConvertible, Sendable {
            case trustRootsNotPEM, trustRootsWithoutCertificate, additionalTrustRootsNotPEM
            case clientChainNotPEM, clientKeyNotPEM, clientKeyOfAnotherCertificate, clientKeyIsACertificate, clientKeyEncrypted
            var testDescription: String { rawValue }

            func apply(to tls: inout AsyncHTTPClientTransport.TLS) throws {
                let garbage = Data("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n".utf8)
                let chain = try TLSFixture.data("client.pem")
                let key = try TLSFixture.data("client.key")
                switch self {
                case .trustRootsNotPEM: tls.trustRoots = .certificates(pem: garbage)
                case .trustRootsWithoutCertificate: tls.trustRoots = .certificates(pem: Data("just text\n".utf8))
                case .additionalTrustRootsNotPEM: tls.trustRoots = .systemAnd(pem: Data([0x30, 0x82, 0xff]))
                case .clientChainNotPEM: tls.clientCertificate = .init(certificateChainPEM: garbage, privateKeyPEM: key)
                case .clientKeyNotPEM: tls.clientCertificate = .init(certificateChainPEM: chain, privateKeyPEM: Data("no key".utf8))
                case .clientKeyOfAnotherCertificate:
                    tls.clientCertificate = .init(certificateChainPEM: chain, privateKeyPEM: try TLSFixture.data("server-ec.key"))
                case .clientKeyIsACertificate: tls.clientCertificate = .init(certificateChainPEM: chain, privateKeyPEM: chain)
                case .clientKeyEncrypted:
                    tls.clientCertificate = .init(certificateChainPEM: chain, privateKeyPEM: try TLSFixture.data("client-encrypted.key"))
                }
            }
        }

        @Test(arguments: BadConfiguration.allCases)
        func aTransportWithUnusableTLSInputIsRefusedWhenCreated(_ bad: BadConfiguration) throws {
            var configuration = AsyncHTTPClientTransport.Configuration()
            try bad.apply(to: &configuration.tls)
            let error = #expect(throws: CourierError.self) {
                _ = try AsyncHTTPClientTransport(configuration: configuration)
            }
            guard case .invalidRequest(.invalidTLSConfiguration(let reason))? = error else {
                Issue.record("expected invalidTLSConfiguration, got \(String(describing: error))")
                return
            }
            // The reason says what is wrong and never carries key material.
            #expect(!reason.isEmpty)
            #expect(!reason.contains("BEGIN"))
        }

        // MARK: - URLSessionTransport on Linux

        #if canImport(FoundationNetworking)
            @Test func urlSessionOnLinuxRefusesAPinnedHostWithoutConnecting() async throws {
                try await TLSTestServer.run { server in
                    let client = Self.client(URLSessionTransport(pinning: try Self.pinning("server-ec")))
                    let failure = Self.transportFailure(try await Self.hello(client, on: server))
                    #expect(failure?.kind == .pinningFailed)
                    let pin = try TLSFixture.pinBase64("server-ec")
                    #expect(failure?.message?.hasPrefix("127.0.0.1 is pinned (sha256/\(pin)), but corelibs URLSession on Linux cannot check pins") == true)
                    #expect(server.log.connections == 0)
                    #expect(server.log.requests.isEmpty)
                }
            }

            @Test func urlSessionOnLinuxDoesNotFollowARedirectToAPinnedHost() async throws {
                try await TLSTestServer.run { tlsServer in
                    try await TestServer.run { origin in
                        await origin.route("GET /moved") { _ in
                            FlyingFox.HTTPResponse(
                                statusCode: .found, headers: [.location: "https://127.0.0.1:\(tlsServer.port)/hello"], body: Data())
                        }
                        let client = Self.client(URLSessionTransport(pinning: try Self.pinning("server-ec")))
                        let moved = TestEndpoint(baseURL: try BaseURL(scheme: .http, host: "localhost", port: origin.port), path: try URLPath("/moved"))
                        let result = await client.enqueue(moved).result()
                        switch result {
                        case .failure(.transport(let failure)):
                            #expect(failure.kind == .pinningFailed)
                        case .failure(.response(let response)):
                            Issue.record("the redirect to the pinned host ended as its \(response.statusCode), not as pinningFailed")
                        default:
                            Issue.record("expected pinningFailed, got \(result)")
                        }
                        #expect(tlsServer.log.connections == 0)
                    }
                }
            }

            @Test func urlSessionOnLinuxStillContactsHostsItDoesNotPin() async throws {
                try await TLSTestServer.run { server in
                    let client = Self.client(URLSessionTransport(pinning: try Self.pinning("server-ec", host: "localhost")))
                    // corelibs URLSession trusts only the system roots, so the handshake fails (as
                    // URLError -1, kind `.other`); what matters is that it was attempted.
                    let failure = Self.transportFailure(try await Self.hello(client, on: server))
                    #expect(failure != nil && failure?.kind != .pinningFailed, "\(String(describing: failure))")
                    try await server.log.wait(until: "a connection was accepted") { $0.connections >= 1 }
                }
            }
        #endif
    }
#endif
