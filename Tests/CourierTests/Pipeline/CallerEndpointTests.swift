import CourierTesting
import Foundation
import Testing

@testable import Courier

/// Event streams, downloads and progress observers change the request beside the caller's
/// endpoint (``CallOptions``); middleware sees the caller's own endpoint, so that a stage that
/// casts it keeps working.
@Suite("Middleware sees the caller's endpoint")
struct CallerEndpointTests {
    /// Records the type of every endpoint it is handed.
    struct EndpointTypeRecorder: Middleware {
        let seen = LockedState<[String]>([])

        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            seen.withLock { $0.append(String(describing: type(of: context.endpoint))) }
            return try await next(request)
        }
    }

    @Test("an event stream's middleware sees the caller's endpoint")
    func eventStreamMiddlewareSeesTheCallersEndpoint() async throws {
        let recorder = EndpointTypeRecorder()
        let transport = ScriptedEventTransport([.stream(chunks: ["data: a\n\n"])])
        let client = Client(configuration: Configuration(transport: transport, middleware: [recorder], retryPolicy: .none))
        var options = EventSource.Options(maximumReconnectAttempts: 0)
        options.clock = TestClock(sleepsReturnImmediately: true)
        for try await _ in client.enqueue(TestEndpoint(pathString: "/feed")).events(options) {}
        #expect(recorder.seen.withLock { $0 } == ["TestEndpoint"])
    }

    @Test("a download's and a progress observer's middleware see the caller's endpoint")
    func downloadMiddlewareSeesTheCallersEndpoint() async throws {
        let recorder = EndpointTypeRecorder()
        let transport = ScriptedTransport { _ in (200, ["Content-Length": "5"], ResponseBody(Data("hello".utf8))) }
        let client = Client(configuration: Configuration(transport: transport, middleware: [recorder]))
        let files = try TemporaryFiles()
        _ = try await client.enqueue(TestEndpoint()).withProgress().download(to: files.destination)
        _ = try await client.enqueue(TestEndpoint()).withProgress().resume()
        #expect(recorder.seen.withLock { $0 } == ["TestEndpoint", "TestEndpoint"])
    }
}
