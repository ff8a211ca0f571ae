import Courier
import CourierTesting
import FlyingFox
import FlyingSocks
import Foundation
import Testing

/// Cancelling the calling task must end the call with `.cancelled` *and* stop the request on the
/// wire, not leave it running in the background.
@Suite("Cancellation", .loopback, .timeLimit(.minutes(1)))
struct CancellationIntegrationTests {
    /// How the server shows that the client went away.
    ///
    /// FlyingFox only notices a closed connection when it writes to it, so the handler answers
    /// with an endless, slowly produced body (``EndlessBody``, sent chunked). FlyingFox pulls a
    /// chunk from the body's iterator, writes it, and pulls the next; when a write fails because
    /// the client closed the connection, `HTTPConnection.sendResponse` throws out of its
    /// `for try await chunk in body` loop, which releases the iterator, and FlyingFox closes the
    /// connection. The iterator holds a ``ReleaseToken`` whose `deinit` opens ``released``. The
    /// body never ends by itself and the server is stopped only after the test has seen the
    /// latch open, so an open latch means exactly one thing: the server stopped sending because
    /// the connection was gone.
    @Test(arguments: TransportKind.allCases)
    func cancellingTheCallingTaskEndsTheCallAsCancelledAndStopsTheRequestOnTheServer(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let probe = StreamProbe()
            await server.route("GET /stream") { _ in
                FlyingFox.HTTPResponse(
                    statusCode: .ok,
                    headers: [.contentType: "application/octet-stream"],
                    body: HTTPBodySequence(from: EndlessBody(probe: probe), suggestedBufferSize: 1024)
                )
            }
            let call = server.client(transport: kind).enqueue(try server.endpoint("/stream"))

            let task = Task { await call.result() }
            // The response is streaming: the server produced a chunk for this request.
            try await awaitCondition("the server started streaming") { try await probe.firstChunk.wait() }
            task.cancel()
            let result = await task.value

            guard case .failure(.cancelled) = result else {
                Issue.record("expected .cancelled, got \(result)")
                return
            }
            try await awaitCondition("the server saw the client disconnect and stopped sending") {
                try await probe.released.wait()
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingWhileTheServerIsStillPreparingTheResponseEndsTheCallAsCancelled(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let arrived = Latch()
            await server.route("GET /slow") { _ in
                arrived.open()
                try await suspendUntilCancelled()  // never answers: stopping the server cancels it
                return FlyingFox.HTTPResponse(statusCode: .ok)
            }
            let call = server.client(transport: kind).enqueue(try server.endpoint("/slow"))

            let task = Task { await call.result() }
            try await awaitCondition("the request reached the handler") { try await arrived.wait() }
            task.cancel()
            let result = await task.value

            // The server never answers and the timeout is longer than the time limit: only the
            // cancellation can have ended the call (a call it did not end fails the time limit).
            guard case .failure(.cancelled) = result else {
                Issue.record("expected .cancelled, got \(result)")
                return
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aTaskCancelledBeforeResumingSendsNothing(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let hits = Recorder<String>()
            await server.route("GET /*") { request in
                await hits.record(request.path)
                return FlyingFox.HTTPResponse(statusCode: .ok)
            }
            let client = server.client(transport: kind)
            let cancelledCall = client.enqueue(try server.endpoint("/never"))

            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await cancelledCall.result()
            }
            let result = await task.value
            // A later request on the same server has been answered, so the cancelled one, had it
            // been sent, would have been recorded first or alongside: it was not sent at all.
            _ = try await client.enqueue(server.endpoint("/after")).resume()

            guard case .failure(.cancelled) = result else {
                Issue.record("expected .cancelled, got \(result)")
                return
            }
            #expect(await hits.values == ["/after"])
        }
    }
}

/// What the server saw of an ``EndlessBody``.
final class StreamProbe: Sendable {
    /// Opened once the first chunk was produced.
    let firstChunk = Latch()
    /// Opened when the server let go of the body's iterator, i.e. stopped sending.
    let released = Latch()
}

/// Opens ``StreamProbe/released`` when the iterator holding it is destroyed.
final class ReleaseToken: Sendable {
    let probe: StreamProbe
    init(probe: StreamProbe) { self.probe = probe }
    deinit { probe.released.open() }
}

/// A response body that never ends: 1 KiB of `a` every 20 ms.
struct EndlessBody: AsyncBufferedSequence {
    typealias Element = UInt8
    let probe: StreamProbe

    func makeAsyncIterator() -> Iterator {
        Iterator(probe: probe, token: ReleaseToken(probe: probe))
    }

    struct Iterator: AsyncBufferedIteratorProtocol {
        let probe: StreamProbe
        let token: ReleaseToken

        mutating func next() async throws -> UInt8? {
            try await nextBuffer(suggested: 1)?.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
            try await Task.sleep(for: .milliseconds(20))  // pacing the stream, not waiting for anything
            defer { probe.firstChunk.open() }
            return [UInt8](repeating: UInt8(ascii: "a"), count: Swift.max(1, Swift.min(count, 1024)))
        }
    }
}
