import Courier
import FlyingFox
import Foundation
import Testing

extension QueueSensitiveTests {
    /// File and `AsyncSequence` bodies, streamed through URLSession to a real server.
    @Suite("Streamed request bodies", .timeLimit(.minutes(1)))
    struct StreamingBodyIntegrationTests {
        /// A temporary file with `data` in it, removed by the caller.
        static func temporaryFile(_ data: Data, extension pathExtension: String = "bin") throws -> URL {
            let url = FileManager.default.temporaryDirectory
                .appendingPathComponent("courier-stream-\(UUID().uuidString).\(pathExtension)")
            try data.write(to: url)
            return url
        }

        /// Records the request's framing headers and body, and answers 200.
        static func receive(into recorder: Recorder<ReceivedRequest>) -> @Sendable (FlyingFox.HTTPRequest) async throws -> FlyingFox.HTTPResponse {
            { request in
                await recorder.record(try await ReceivedRequest(request))
                return FlyingFox.HTTPResponse(statusCode: .ok)
            }
        }

        @Test(arguments: TransportKind.allCases, [0, 1, 65_536, 3_000_001])
        func aFileBodyArrivesByteIdenticalWithItsLengthAndMediaType(kind: TransportKind, byteCount: Int) async throws {
            let payload = pseudoRandomBytes(count: byteCount, seed: 0xF11E)
            let file = try Self.temporaryFile(payload, extension: "png")
            defer { try? FileManager.default.removeItem(at: file) }
            try await TestServer.run { server in
                let received = Recorder<ReceivedRequest>()
                await server.route("PUT /upload", handler: Self.receive(into: received))
                let endpoint = try server.endpoint("/upload").with {
                    $0.method = .put
                    $0.body = .file(file)
                }

                _ = try await server.client(transport: kind).enqueue(endpoint).resume()

                let request = try #require(await received.values.first)
                #expect(request.body == payload)
                #expect(request.header("Content-Length") == String(byteCount))
                #expect(request.header("Transfer-Encoding") == nil)
                #expect(request.header("Content-Type") == "image/png")
            }
        }

        @Test(arguments: TransportKind.allCases)
        func anAsyncSequenceOfUnknownLengthGoesOutChunkedAndArrivesIntact(_ kind: TransportKind) async throws {
            let chunks = (0..<40).map { pseudoRandomBytes(count: 10_000 + $0, seed: UInt64($0)) }
            try await TestServer.run { server in
                let received = Recorder<ReceivedRequest>()
                await server.route("POST /ingest", handler: Self.receive(into: received))
                let endpoint = try server.endpoint("/ingest").with {
                    $0.method = .post
                    $0.body = .stream(asyncSequence(chunks), contentType: "application/x-ndjson")
                }

                _ = try await server.client(transport: kind).enqueue(endpoint).resume()

                let request = try #require(await received.values.first)
                #expect(request.body == chunks.reduce(Data(), +))
                #expect(request.header("Transfer-Encoding")?.lowercased() == "chunked")
                #expect(request.header("Content-Length") == nil)
                #expect(request.header("Content-Type") == "application/x-ndjson")
            }
        }

        @Test(arguments: TransportKind.allCases)
        func aByteSequenceWithAKnownLengthIsSentWithContentLength(_ kind: TransportKind) async throws {
            let payload = pseudoRandomBytes(count: 200_003, seed: 7)
            try await TestServer.run { server in
                let received = Recorder<ReceivedRequest>()
                await server.route("POST /bytes", handler: Self.receive(into: received))
                let endpoint = try server.endpoint("/bytes").with {
                    $0.method = .post
                    $0.body = .stream(bytes: asyncSequence(Array(payload)), length: Int64(payload.count))
                }

                _ = try await server.client(transport: kind).enqueue(endpoint).resume()

                let request = try #require(await received.values.first)
                #expect(request.body == payload)
                #expect(request.header("Content-Length") == String(payload.count))
                #expect(request.header("Transfer-Encoding") == nil)
            }
        }

        @Test(arguments: TransportKind.allCases)
        func aSequenceThatThrowsFailsTheCallWithTheBodysErrorAndDoesNotHang(_ kind: TransportKind) async throws {
            struct SensorUnplugged: Error {}
            try await TestServer.run { server in
                await server.route("POST /ingest") { request in
                    _ = try? await request.bodyData
                    return FlyingFox.HTTPResponse(statusCode: .ok)
                }
                let failing = AsyncThrowingStream<Data, any Error> { continuation in
                    continuation.yield(Data(repeating: 1, count: 100_000))
                    continuation.finish(throwing: SensorUnplugged())
                }
                let endpoint = try server.endpoint("/ingest").with {
                    $0.method = .post
                    $0.body = .stream(failing)
                }

                let result = await server.client(transport: kind).enqueue(endpoint).result()

                guard case .failure(.invalidRequest(.bodySourceFailed(let reason, _))) = result else {
                    Issue.record("expected bodySourceFailed, got \(result)")
                    return
                }
                #expect(reason.contains("SensorUnplugged"))
            }
        }

        @Test(arguments: TransportKind.allCases)
        func aSequenceShorterThanItsAnnouncedLengthFailsInsteadOfLeavingTheServerWaiting(_ kind: TransportKind) async throws {
            try await TestServer.run { server in
                await server.route("POST /bytes") { request in
                    _ = try? await request.bodyData
                    return FlyingFox.HTTPResponse(statusCode: .ok)
                }
                let endpoint = try server.endpoint("/bytes").with {
                    $0.method = .post
                    $0.body = .stream(asyncSequence([Data(repeating: 2, count: 1_000)]), length: 5_000)
                }

                let result = await server.client(transport: kind).enqueue(endpoint).result()

                guard case .failure(.invalidRequest(.bodySourceFailed(let reason, _))) = result else {
                    Issue.record("expected bodySourceFailed, got \(result)")
                    return
                }
                #expect(reason.contains("1000 of the 5000"))
            }
        }

        @Test(arguments: TransportKind.allCases)
        func aSingleUseStreamCannotBeSentTwice(_ kind: TransportKind) async throws {
            try await TestServer.run { server in
                let received = Recorder<ReceivedRequest>()
                await server.route("POST /once", handler: Self.receive(into: received))
                let endpoint = try server.endpoint("/once").with {
                    $0.method = .post
                    $0.body = .stream(asyncSequence([Data("once".utf8)]))
                }
                let call = server.client(transport: kind).enqueue(endpoint)

                _ = try await call.resume()
                let second = await call.result()

                guard case .failure(.invalidRequest(.bodyNotReplayable)) = second else {
                    Issue.record("expected bodyNotReplayable, got \(second)")
                    return
                }
                #expect(await received.values.map(\.body) == [Data("once".utf8)])
            }
        }

        @Test(arguments: TransportKind.allCases)
        func aMissingFileFailsBeforeAnythingIsSent(_ kind: TransportKind) async throws {
            try await TestServer.run { server in
                let received = Recorder<ReceivedRequest>()
                await server.route("PUT /upload", handler: Self.receive(into: received))
                let missing = FileManager.default.temporaryDirectory.appendingPathComponent("courier-missing-\(UUID().uuidString).txt")
                let endpoint = try server.endpoint("/upload").with {
                    $0.method = .put
                    $0.body = .file(missing)
                }

                let result = await server.client(transport: kind).enqueue(endpoint).result()

                guard case .failure(.invalidRequest(.bodySourceFailed)) = result else {
                    Issue.record("expected bodySourceFailed, got \(result)")
                    return
                }
                #expect(await received.values.isEmpty)
            }
        }
    }
}

/// One chunk, then nothing until the reading task is cancelled; opens `stalled` when it runs dry.
struct StallingChunks: AsyncSequence, Sendable {
    let stalled: Latch
    /// Opened when the producer's wait ends (the task reading the body was cancelled).
    var released = Latch()

    struct AsyncIterator: AsyncIteratorProtocol {
        let stalled: Latch
        let released: Latch
        var sentFirst = false

        mutating func next() async -> Data? {
            if !sentFirst {
                sentFirst = true
                return Data(repeating: 3, count: 1_000)
            }
            stalled.open()
            // An AsyncStream that is never fed ends only when the waiting task is cancelled.
            let (never, continuation) = AsyncStream.makeStream(of: Data.self)
            for await _ in never {}
            continuation.finish()  // kept alive until here: a dropped continuation could end the stream
            released.open()
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(stalled: stalled, released: released)
    }
}

/// The elements of `array`, one by one, as an `AsyncSequence`.
func asyncSequence<Element: Sendable>(_ array: [Element]) -> AsyncStream<Element> {
    AsyncStream { continuation in
        for element in array { continuation.yield(element) }
        continuation.finish()
    }
}

extension Result {
    /// The error, or `nil` on success.
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
