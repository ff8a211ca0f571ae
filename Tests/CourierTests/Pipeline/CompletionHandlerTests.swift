import Courier
import Foundation
import Testing

/// A transport that never answers until its task is cancelled.
private struct SilentTransport: Transport {
    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let (never, continuation) = AsyncStream.makeStream(of: Void.self)
        for await _ in never {}
        continuation.finish()
        throw .cancelled
    }
}

@Suite("Completion-handler resume")
struct CompletionHandlerTests {
    @Test func theCompletionReceivesTheDecodedValue() async throws {
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": "application/json"]), body: Data(#"{"id":7}"#.utf8))
        let result = await withCheckedContinuation { continuation in
            makeClient(transport).enqueue(TestEndpoint()).resume(expecting: [String: Int].self) { continuation.resume(returning: $0) }
        }
        #expect(try result.get() == ["id": 7])
    }

    @Test func theCompletionReceivesTheTypedError() async throws {
        let result = await withCheckedContinuation { continuation in
            makeClient(RecordingTransport(status: 404)).enqueue(TestEndpoint()).resume { continuation.resume(returning: $0) }
        }
        guard case .failure(.response(let response)) = result else {
            Issue.record("expected .response, got \(result)")
            return
        }
        #expect(response.statusCode == 404)
    }

    @Test func cancellingTheHandleEndsTheCallWithCancelledExactlyOnce() async throws {
        let client = Client(configuration: Configuration(transport: SilentTransport()))
        let calls = Counter()
        let (results, continuation) = AsyncStream.makeStream(of: Result<Response, CourierError>.self)
        let handle = client.enqueue(TestEndpoint()).resume { result in
            Task { await calls.increment() }
            continuation.yield(result)
        }
        handle.cancel()
        handle.cancel()

        var iterator = results.makeAsyncIterator()
        let result = await iterator.next()
        guard case .failure(.cancelled)? = result else {
            Issue.record("expected cancelled, got \(String(describing: result))")
            return
        }
        #expect(handle.isCancelled)
        continuation.finish()
        #expect(await iterator.next() == nil)
    }
}

private actor Counter {
    private(set) var value = 0
    func increment() { value += 1 }
}
