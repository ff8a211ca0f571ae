#if AsyncHTTPClientLinked && !canImport(Darwin)
    import Courier
    import CourierWebSockets
    import Foundation
    import NIOSSL
    import Testing

    /// wss: the socket uses the transport's TLS settings and pins, checked before the upgrade
    /// request is written.
    @Suite("WebSockets over TLS (wss), with trust roots and pins")
    struct WebSocketTLSTests {
        /// A server TLS context presenting `leaf` (a `Fixtures/TLS` certificate).
        static func context(_ leaf: TLSTestServer.Leaf) throws -> NIOSSLContext {
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMBytes([UInt8](TLSFixture.data("\(leaf.rawValue).pem"))).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: [UInt8](TLSFixture.data("\(leaf.rawValue).key")), format: .pem)))
            tls.applicationProtocols = ["http/1.1"]
            return try NIOSSLContext(configuration: tls)
        }

        static func socket(_ server: WebSocketTestServer, pins: [String]?) async throws -> WebSocket {
            let transport = try TLSIntegrationTests.transport { configuration in
                if let pins { configuration.tls.pinning = PinningPolicy(["127.0.0.1": try pins.map(TLSFixture.pin)]) }
            }
            let client = Client(configuration: Configuration(transport: transport, timeout: generousTimeout))
            return try await client.enqueue(SocketEndpoint(base: server.baseURL, pathString: "/secure")).webSocket()
        }

        @Test("a wss socket to a trusted server whose key is pinned echoes", arguments: [nil, ["backup", "server-ec"]] as [[String]?])
        func trustedAndPinned(pins: [String]?) async throws {
            try await WebSocketTestServer.run(tls: try Self.context(.ec)) { server in
                #expect(server.baseURL.description.hasPrefix("https://"))
                let socket = try await Self.socket(server, pins: pins)
                try await socket.send(.text("over TLS"))
                var iterator = socket.messages.makeAsyncIterator()
                #expect(try await iterator.next() == .text("over TLS"))
                await socket.close()
            }
        }

        @Test("a key matching no pin fails after the handshake: no upgrade request is written")
        func wrongPin() async throws {
            try await WebSocketTestServer.run(tls: try Self.context(.ec)) { server in
                // With both cores busy (CI's busy suite) a connection can fail before its TLS
                // handshake completes, which proves nothing about pins: at most three tries until
                // the pin check is what failed. No try may reach the server.
                var kinds: [TransportFailure.Kind?] = []
                while kinds.count < 3 && kinds.last != .pinningFailed {
                    let error = await #expect(throws: CourierError.self) { try await Self.socket(server, pins: ["backup", "untrusted"]) }
                    kinds.append(error?.transportKind)
                    #expect(server.requests.withLock { $0 }.isEmpty)
                }
                #expect(kinds.last == .pinningFailed, "\(kinds)")
            }
        }

        @Test(
            "a certificate no trust root signed, or for another name, fails before any upgrade request",
            arguments: [TLSTestServer.Leaf.untrusted, .wrongName])
        func untrusted(_ leaf: TLSTestServer.Leaf) async throws {
            try await WebSocketTestServer.run(tls: try Self.context(leaf)) { server in
                await #expect(throws: CourierError.self) { try await Self.socket(server, pins: nil) }
                #expect(server.requests.withLock { $0 }.isEmpty)
            }
        }
    }
#endif
