#if AsyncHTTPClientLinked && !canImport(Darwin)
    import Courier
    import CourierWebSockets
    import Foundation
    import Testing

    /// WebSockets against a server nobody at Courier wrote: Python's `websockets` package
    /// (`Fixtures/WebSocket/python_server.py`), one process per test, on 127.0.0.1.
    ///
    /// CI installs the package (`pip install websockets`) and sets `COURIER_REQUIRE_PYTHON_WEBSOCKETS`,
    /// which turns its absence into a failure; elsewhere, without the package, the suite is skipped
    /// (its absence is a fact about the machine, not about Courier).
    @Suite("WebSockets against Python's websockets server", .enabled(if: PythonWebSocketServer.isUsable))
    struct WebSocketPythonServerTests {
        func socket(_ server: PythonWebSocketServer, _ path: String, _ options: WebSocket.Options = WebSocket.Options(), refresher: TokenRefresher? = nil)
            async throws(CourierError) -> WebSocket
        {
            try await WebSocketIntegrationTests.client(refresher: refresher)
                .enqueue(SocketEndpoint(base: server.baseURL, pathString: path, authorized: refresher != nil))
                .webSocket(options)
        }

        @Test("text and binary echo up to the limit, both ways")
        func echo() async throws {
            try await PythonWebSocketServer.run { server in
                let socket = try await socket(server, "/echo", WebSocket.Options(maximumMessageSize: 1 << 20))
                var iterator = socket.messages.makeAsyncIterator()
                for message: WebSocket.Message in [
                    .text("hello"), .data(Data([0, 1, 2])), .text(String(repeating: "é", count: 1 << 19)), .data(Data(count: 1 << 20)),
                ] {
                    try await socket.send(message)
                    #expect(try await iterator.next() == message)
                }
                await socket.close()
                #expect(try await iterator.next() == nil)
            }
        }

        @Test(
            "permessage-deflate: compressed echo up to the limit, with and without context takeover, and uncompressed",
            arguments: ["deflate", "no-context-takeover", "none"])
        func compression(_ compression: String) async throws {
            try await PythonWebSocketServer.run(compression: compression) { server in
                let socket = try await socket(server, "/echo")
                let agreed = socket.head.headers[.secWebSocketExtensions]
                #expect((agreed?.hasPrefix("permessage-deflate") ?? false) == (compression != "none"), "\(agreed ?? "none")")
                var iterator = socket.messages.makeAsyncIterator()
                // Repeats compress against the window of earlier messages when it is kept.
                for round in 0..<3 {
                    for message: WebSocket.Message in [
                        .text("hello \(round)"), .text(String(repeating: "courier ", count: 20_000)), .data(Data(count: 1 << 20)),
                        .data(Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) })),
                    ] {
                        try await socket.send(message)
                        #expect(try await iterator.next() == message)
                    }
                }
                await socket.close()
            }
        }

        @Test("a deflate bomb is bounded: 16 MiB in about 16 KiB on the wire ends at the 1 MiB limit with 1009")
        func deflateBomb() async throws {
            try await PythonWebSocketServer.run { server in
                let socket = try await socket(server, "/big/\(16 << 20)")
                let error = await #expect(throws: CourierError.self) { for try await _ in socket.messages {} }
                #expect(error?.transportKind == .responseTooLarge)
            }
        }

        @Test("fragmented messages are reassembled")
        func fragments() async throws {
            try await PythonWebSocketServer.run { server in
                let socket = try await socket(server, "/fragments")
                var iterator = socket.messages.makeAsyncIterator()
                #expect(try await iterator.next() == .text("fragmented"))
                #expect(try await iterator.next() == .data(Data([1, 2, 3])))
                await socket.close()
            }
        }

        @Test("ping is answered with a pong")
        func ping() async throws {
            try await PythonWebSocketServer.run { server in
                let socket = try await socket(server, "/echo")
                try await socket.ping()
                try await socket.ping()
                await socket.close()
            }
        }

        @Test("the server's close code and reason reach the reader", arguments: [4000, 1011] as [UInt16])
        func serverCloses(code: UInt16) async throws {
            try await PythonWebSocketServer.run { server in
                let socket = try await socket(server, "/close/\(code)")
                let error = await #expect(throws: CourierError.self) { for try await _ in socket.messages {} }
                guard let close = error?.webSocketClose else { Issue.record("got \(String(describing: error))"); return }
                #expect(close == WebSocketClose(code: code, reason: "bye from python"))
            }
        }

        @Test("a message over the client's limit is refused: 1009 to the server, responseTooLarge to the reader")
        func overClientLimit() async throws {
            try await PythonWebSocketServer.run { server in
                let socket = try await socket(server, "/big/200000", WebSocket.Options(maximumMessageSize: 100_000))
                let error = await #expect(throws: CourierError.self) { for try await _ in socket.messages {} }
                #expect(error?.transportKind == .responseTooLarge)
            }
        }

        @Test("a message over the server's limit is refused by it with close code 1009")
        func overServerLimit() async throws {
            try await PythonWebSocketServer.run { server in
                let socket = try await socket(server, "/echo")
                try await socket.send(.data(Data(count: (1 << 20) + 1)))
                let error = await #expect(throws: CourierError.self) { for try await _ in socket.messages {} }
                guard let close = error?.webSocketClose else { Issue.record("got \(String(describing: error))"); return }
                #expect(close.code == 1009)
            }
        }

        @Test("a 401 on the upgrade is followed by one refresh and an upgraded retry")
        func refreshOn401() async throws {
            try await PythonWebSocketServer.run { server in
                let refreshes = LockedState(0)
                let refresher = TokenRefresher(store: InMemoryTokenStore(TokenCredential(accessToken: "stale", refreshToken: "r"))) { _ in
                    refreshes.withLock { $0 += 1 }
                    return TokenCredential(accessToken: "fresh", refreshToken: "r")
                }
                let socket = try await socket(server, "/auth", refresher: refresher)
                try await socket.send(.text("authorized"))
                var iterator = socket.messages.makeAsyncIterator()
                #expect(try await iterator.next() == .text("authorized"))
                #expect(refreshes.withLock { $0 } == 1)
                await socket.close()
            }
        }
    }

    /// The Python server, one process per test: started on an ephemeral port, stopped (its
    /// standard input closed) when the test's body returns.
    struct PythonWebSocketServer {
        let baseURL: BaseURL

        static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/WebSocket/python_server.py")

        /// Whether `python3` can import `websockets`; when `COURIER_REQUIRE_PYTHON_WEBSOCKETS` is
        /// set it must (CI), and the suite runs and fails without it.
        static let isUsable: Bool = {
            if ProcessInfo.processInfo.environment["COURIER_REQUIRE_PYTHON_WEBSOCKETS"] != nil { return true }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", "import websockets.asyncio.server"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }()

        /// How the server compresses: `deflate` (its default), `no-context-takeover` or `none`.
        static func run<R>(compression: String = "deflate", _ body: (PythonWebSocketServer) async throws -> R) async throws -> R {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script.path, compression]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            defer {
                try? input.fileHandleForWriting.close()
                process.waitUntilExit()
            }
            // The first line is the port, read off the cooperative pool (the read blocks).
            let reader = output.fileHandleForReading
            let line = await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
                DispatchQueue.global().async {
                    var line = Data()
                    while !line.contains(UInt8(ascii: "\n")) {
                        let chunk = reader.availableData
                        if chunk.isEmpty { break }
                        line.append(chunk)
                    }
                    continuation.resume(returning: line.prefix { $0 != UInt8(ascii: "\n") })
                }
            }
            guard let port = Int(String(decoding: line, as: UTF8.self)) else {
                throw PythonServerError(message: "the Python WebSocket server did not start (is `websockets` installed? pip install websockets)")
            }
            return try await body(PythonWebSocketServer(baseURL: try BaseURL(scheme: .http, host: "127.0.0.1", port: port)))
        }

        struct PythonServerError: Error {
            let message: String
        }
    }
#endif
