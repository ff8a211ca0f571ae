import Courier
import CourierTesting
import FlyingFox
import FlyingSocks
import Foundation
import Testing

/// `Call.stream()` against a real server, on both transports: the caller holds the head and the
/// first values while the server has not sent the rest yet.
@Suite("Streaming calls against a real server", .loopback, .timeLimit(.minutes(1)))
struct StreamingCallIntegrationTests {
    struct Event: Decodable, Sendable, Equatable {
        var n: Int
    }

    @Test("NDJSON values arrive one by one: the first is decoded before the server sends the second", arguments: TransportKind.allCases)
    func valuesArriveBeforeTheBodyEnds(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let firstRead = Latch()
            await server.route("GET /events") { _ in
                let parts: [(Data, Latch?)] = [
                    (Data("{\"n\":1}\n".utf8), nil),
                    (Data("{\"n\":2}\n{\"n\":3}".utf8), firstRead),
                ]
                return FlyingFox.HTTPResponse(
                    statusCode: .ok, headers: [HTTPHeader("Content-Type"): "application/x-ndjson"],
                    body: HTTPBodySequence(from: GatedBody(parts: parts), suggestedBufferSize: 4096))
            }
            let client = Client(configuration: Configuration(transport: kind.make(), timeout: generousTimeout))

            let response = try await client.enqueue(server.endpoint("/events")).stream()

            #expect(response.statusCode == 200)
            var values: [Event] = []
            for try await value in response.decodedLines(Event.self) {
                values.append(value)
                if value.n == 1 { firstRead.open() }  // only now may the server send the rest
            }
            #expect(values == [Event(n: 1), Event(n: 2), Event(n: 3)])
        }
    }

    @Test("a refused status is thrown with its body, and the call does not wait for a stream", arguments: TransportKind.allCases)
    func aRefusedStatusIsThrown(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            await server.route("GET /events") { _ in FlyingFox.HTTPResponse(statusCode: .forbidden, body: Data("no events for you".utf8)) }
            let client = Client(configuration: Configuration(transport: kind.make(), timeout: generousTimeout))
            let endpoint = try server.endpoint("/events")
            do throws(CourierError) {
                _ = try await client.enqueue(endpoint).stream()
                Issue.record("a 403 was accepted")
            } catch {
                guard case .response(let response) = error else {
                    Issue.record("expected .response, got \(error)")
                    return
                }
                #expect(response.statusCode == 403)
                #expect(response.body == Data("no events for you".utf8))
            }
        }
    }
}

/// A response body sent in parts, each sent only once its latch (if any) is open.
struct GatedBody: AsyncBufferedSequence {
    typealias Element = UInt8
    let parts: [(Data, Latch?)]

    func makeAsyncIterator() -> Iterator {
        Iterator(parts: parts[...])
    }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var parts: ArraySlice<(Data, Latch?)>

        mutating func next() async throws -> UInt8? {
            try await nextBuffer(suggested: 1)?.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
            guard let (bytes, latch) = parts.popFirst() else { return nil }
            try await latch?.wait()
            return Array(bytes)
        }
    }
}
