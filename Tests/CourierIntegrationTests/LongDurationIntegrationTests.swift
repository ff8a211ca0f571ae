import Courier
import CourierTesting
import CourierTransportTestSupport
import FlyingFox
import Foundation
import Testing

/// Issue 22, item 11: `idleTimeout: .seconds(10_000_000_000)` trapped (an arithmetic overflow
/// converting to SwiftNIO's `TimeAmount`). Every duration Courier hands to SwiftNIO, Dispatch or
/// URLSession is clamped to about 95 years; none traps, and the request goes through.
@Suite("Long durations never trap", .loopback, .timeLimit(.minutes(1)))
struct LongDurationIntegrationTests {
    static let durations: [Duration] = [.seconds(10_000_000_000), .seconds(Int64.max), .nanoseconds(Int64.max), .seconds(4_000_000_000)]

    @Test("an async-http-client transport with a very long idle timeout is made and used", arguments: durations)
    func longIdleTimeout(_ duration: Duration) async throws {
        let transport = try AsyncHTTPClientTransport(configuration: AsyncHTTPClientTransport.Configuration(idleTimeout: duration))
        try await TestServer.run { server in
            await server.route("GET /ok") { _ in FlyingFox.HTTPResponse(statusCode: .ok, body: Data("ok".utf8)) }
            let client = Client(configuration: Configuration(transport: transport))
            let body = try await client.enqueue(server.endpoint("/ok")).resume().body
            #expect(body == Data("ok".utf8))
        }
    }

    @Test("a request with a very long timeout goes through on both transports", arguments: TransportKind.allCases, durations)
    func longRequestTimeout(_ kind: TransportKind, duration: Duration) async throws {
        try await TestServer.run { server in
            await server.route("GET /ok") { _ in FlyingFox.HTTPResponse(statusCode: .ok, body: Data("ok".utf8)) }
            let client = Client(configuration: Configuration(transport: kind.make(), timeout: duration))
            let body = try await client.enqueue(server.endpoint("/ok")).resume().body
            #expect(body == Data("ok".utf8))
        }
    }
}
