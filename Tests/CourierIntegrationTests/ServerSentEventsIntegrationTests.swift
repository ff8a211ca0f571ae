import CourierTesting
import FlyingFox
import FlyingSocks
import Foundation
import Testing

@testable import Courier

/// ``Call/events(_:)`` against a real event stream server on 127.0.0.1, over each transport:
/// reconnection with `Last-Event-ID` after the server drops the connection or ends the stream,
/// how a stream ends, and a bearer token refreshed between two connections. Waits between
/// connections are on a test clock whose sleeps return at once: nothing here sleeps.
@Suite("Server-Sent Events on the wire", .loopback, .timeLimit(.minutes(2)))
struct ServerSentEventsIntegrationTests {
    static let eventCount = 60
    static let eventsPerConnection = 20

    /// An event stream response whose body is `text`, chunked; with `dropAfter`, the connection
    /// is cut off (the chunked body never terminated) once that latch opens after the last byte.
    static func eventStream(_ text: String, dropAfter: Latch? = nil) -> FlyingFox.HTTPResponse {
        FlyingFox.HTTPResponse(
            statusCode: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: HTTPBodySequence(from: EventStreamBody(bytes: Array(text.utf8), dropAfter: dropAfter)))
    }

    /// Events `first...last`, each with its number as ID and data, split over several lines and
    /// comments so that chunk boundaries fall anywhere.
    static func events(_ range: ClosedRange<Int>) -> String {
        range.map { ": event \($0) follows\nevent: tick\nid: \($0)\ndata: event\ndata: \($0)\n\n" }.joined()
    }

    static func options(_ clock: TestClock) -> EventSource.Options {
        EventSource.Options(jitter: 0, maximumReconnectAttempts: 5, clock: clock)
    }

    /// Every event until the source ends, and the error it ended with, if any.
    static func collect(
        _ source: EventSource, onEvent: (ServerSentEvent) -> Void = { _ in }
    ) async -> ([ServerSentEvent], CourierError?) {
        var events: [ServerSentEvent] = []
        do throws(CourierError) {
            for try await event in source {
                events.append(event)
                onEvent(event)
            }
            return (events, nil)
        } catch {
            return (events, error)
        }
    }

    @Test(
        "60 events from a server that drops the connection after every 20: each delivered once, in order, with Last-Event-ID 20 and 40 on the reconnections",
        arguments: TransportKind.allCases)
    func reconnectsAfterEveryDrop(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let lastEventIDs = Recorder<String?>()
            // The server cuts the first connection off once the client has read its 20 events:
            // over async-http-client, bytes received but not yet read when the connection fails
            // are lost (measured), and then the reconnection would rightly resume from an earlier ID.
            let firstBatchRead = Latch()
            await server.route("GET /events") { request in
                let lastEventID = request.headers[HTTPHeader("Last-Event-ID")]
                await lastEventIDs.record(lastEventID)
                let after = Int(lastEventID ?? "0") ?? 0
                guard after < Self.eventCount else { return FlyingFox.HTTPResponse(statusCode: .noContent) }
                let last = min(after + Self.eventsPerConnection, Self.eventCount)
                // The first connection is cut off mid-body; the later ones end cleanly.
                return Self.eventStream(Self.events((after + 1)...last), dropAfter: after == 0 ? firstBatchRead : nil)
            }
            let clock = TestClock(sleepsReturnImmediately: true)
            let source = server.client(transport: kind).enqueue(try server.endpoint("/events")).events(Self.options(clock))
            let (events, error) = await Self.collect(source) { event in
                if event.id == String(Self.eventsPerConnection) { firstBatchRead.open() }
            }
            #expect(error == nil, "\(String(describing: error))")
            #expect(events.map(\.data) == (1...Self.eventCount).map { "event\n\($0)" })
            #expect(events.map(\.id) == (1...Self.eventCount).map { String($0) })
            #expect(events.allSatisfy { $0.type == "tick" })
            let seen = await lastEventIDs.values
            #expect(seen == [nil, "20", "40", "60"], "\(seen)")
            #expect(clock.sleeps == [.seconds(3), .seconds(3), .seconds(3)])
        }
    }

    @Test(
        "a stream that goes silent for the idle timeout is closed and reconnected with Last-Event-ID",
        arguments: TransportKind.allCases)
    func silentStreamIsReconnected(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let lastEventIDs = Recorder<String?>()
            let silenceEnds = Latch()  // opened at the end: until then the first connection stays open and silent
            await server.route("GET /events") { request in
                let lastEventID = request.headers[HTTPHeader("Last-Event-ID")]
                await lastEventIDs.record(lastEventID)
                guard lastEventID == nil else { return FlyingFox.HTTPResponse(statusCode: .noContent) }
                return Self.eventStream("id: 1\ndata: first\n\n", dropAfter: silenceEnds)
            }
            let clock = TestClock()
            var options = Self.options(clock)
            options.idleTimeout = .seconds(30)
            let source = server.client(transport: kind).enqueue(try server.endpoint("/events")).events(options)
            let (firstEvent, gotFirst) = AsyncStream.makeStream(of: Void.self)
            let reader = Task { await Self.collect(source) { _ in gotFirst.yield() } }
            for await _ in firstEvent { break }

            await clock.waitForSleepers(1)  // the idle watchdog
            clock.advance(by: .seconds(29))
            #expect(clock.pendingSleepCount == 1, "29 s of silence is not yet 30")
            clock.advance(by: .seconds(1))
            // The watchdog closes the silent stream, unless the reader was still busy with the
            // first event at that instant (on a loaded machine its thread can be descheduled for
            // longer than this test takes to advance the clock): time spent busy is not silence,
            // so the watchdog waits for the reader's next wait and sleeps the full 30 s from
            // there. Advance through that one sleep; there is never a second.
            var rearmed = 0
            while true {
                await clock.waitForSleepers(1)
                guard clock.sleeps.last == .seconds(30) else { break }  // the wait before reconnecting
                rearmed += 1
                guard rearmed == 1 else {
                    reader.cancel()
                    silenceEnds.open()
                    Issue.record("the silent stream was never closed: \(clock.sleeps)")
                    return
                }
                clock.advance(by: .seconds(30))
            }
            clock.advance(by: .seconds(3))
            let (events, error) = await reader.value
            silenceEnds.open()

            #expect(error == nil, "\(String(describing: error))")
            #expect(events.map(\.data) == ["first"])
            #expect(await lastEventIDs.values == [nil, "1"])
            let watchdog = clock.sleeps.prefix { $0 == .seconds(30) }
            let reconnecting = Array(clock.sleeps.dropFirst(watchdog.count))
            #expect(watchdog.count == 1 + rearmed, "\(clock.sleeps)")
            #expect(reconnecting == [.seconds(1), .seconds(3)] || reconnecting == [.seconds(3)], "\(clock.sleeps)")
        }
    }

    @Test("204 No Content ends the sequence with no reconnection", arguments: TransportKind.allCases)
    func noContentStops(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let requests = Recorder<String>()
            await server.route("GET /events") { request in
                await requests.record(request.headers[HTTPHeader("Accept")] ?? "")
                return FlyingFox.HTTPResponse(statusCode: .noContent)
            }
            let clock = TestClock(sleepsReturnImmediately: true)
            let (events, error) = await Self.collect(
                server.client(transport: kind).enqueue(try server.endpoint("/events")).events(Self.options(clock)))
            #expect(events.isEmpty && error == nil)
            #expect(await requests.values == ["text/event-stream"])
            #expect(clock.sleeps.isEmpty)
        }
    }

    @Test("a 500 ends the sequence with .response, its body kept, and no reconnection", arguments: TransportKind.allCases)
    func serverErrorFails(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let requests = Recorder<Int>()
            await server.route("GET /events") { _ in
                await requests.record(1)
                return FlyingFox.HTTPResponse(statusCode: .internalServerError, body: Data("down".utf8))
            }
            let (events, error) = await Self.collect(
                server.client(transport: kind).enqueue(try server.endpoint("/events")).events(Self.options(TestClock(sleepsReturnImmediately: true))))
            guard case .response(let response)? = error else {
                Issue.record("expected .response, got \(String(describing: error))")
                return
            }
            #expect(response.statusCode == 500)
            #expect(response.body == Data("down".utf8))
            #expect(events.isEmpty)
            #expect(await requests.values.count == 1)
        }
    }

    @Test("a 200 that is not text/event-stream ends the sequence with a decoding error, and no reconnection", arguments: TransportKind.allCases)
    func wrongContentTypeFails(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let requests = Recorder<Int>()
            await server.route("GET /events") { _ in
                await requests.record(1)
                return FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "text/html"], body: Data("data: a\n\n".utf8))
            }
            let (events, error) = await Self.collect(
                server.client(transport: kind).enqueue(try server.endpoint("/events")).events(Self.options(TestClock(sleepsReturnImmediately: true))))
            guard case .decoding(let failure)? = error, case .unsupportedMediaType("text/html") = failure.reason else {
                Issue.record("expected .decoding(.unsupportedMediaType), got \(String(describing: error))")
                return
            }
            #expect(events.isEmpty)
            #expect(await requests.values.count == 1)
        }
    }

    @Test(
        "a bearer token that expires mid-stream is refreshed before the reconnection: the server sees the new token, and the token endpoint once",
        arguments: TransportKind.allCases)
    func expiredTokenRefreshedOnReconnection(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let authorizations = Recorder<String>()
            let tokenRequests = Recorder<String>()
            await server.route("POST /oauth/token") { request in
                let form = String(decoding: try await request.bodyData, as: UTF8.self)
                await tokenRequests.record(form)
                return FlyingFox.HTTPResponse(
                    statusCode: .ok, headers: [.contentType: "application/json"],
                    body: Data(#"{"access_token":"token-2","token_type":"Bearer","expires_in":3600,"refresh_token":"refresh-2"}"#.utf8))
            }
            await server.route("GET /events") { request in
                let authorization = request.headers[.authorization] ?? ""
                await authorizations.record(authorization)
                switch (authorization, request.headers[HTTPHeader("Last-Event-ID")]) {
                case ("Bearer token-1", nil): return Self.eventStream(Self.events(1...3))
                case ("Bearer token-2", "3"?): return Self.eventStream(Self.events(4...6))
                case ("Bearer token-2", "6"?): return FlyingFox.HTTPResponse(statusCode: .noContent)
                default: return FlyingFox.HTTPResponse(statusCode: .unauthorized)
                }
            }
            let wallClock = ManualWallClock()
            let tokenEndpoint = OAuth2TokenEndpoint(
                baseURL: server.baseURL, path: try URLPath("/oauth/token"), clientAuthentication: .publicClient(clientID: "sse-test"),
                configuration: Configuration(transport: kind.make()), now: wallClock.closure)
            let refresher = TokenRefresher(
                store: InMemoryTokenStore(
                    TokenCredential(accessToken: "token-1", refreshToken: "refresh-1", expiresAt: wallClock.now.addingTimeInterval(3600))),
                tokenEndpoint: tokenEndpoint, now: wallClock.closure)
            let client = Client(
                configuration: Configuration(
                    transport: kind.make(), authentication: .bearer(refresher), authorizedHosts: ["127.0.0.1"]))
            let clock = TestClock(sleepsReturnImmediately: true)
            var events: [ServerSentEvent] = []
            for try await event in client.enqueue(AuthorizedEvents(base: server.baseURL)).events(Self.options(clock)) {
                events.append(event)
                // The token expires while the first stream is still open.
                if event.id == "3" { wallClock.advance(by: 3700) }
            }
            #expect(events.map(\.id) == (1...6).map { String($0) })
            #expect(await authorizations.values == ["Bearer token-1", "Bearer token-2", "Bearer token-2"])
            let forms = await tokenRequests.values
            #expect(forms.count == 1)
            #expect(forms.first?.contains("refresh_token=refresh-1") == true)
        }
    }

    /// `GET /events`, signed with the client's bearer token.
    struct AuthorizedEvents: Requestable {
        var base: BaseURL
        func baseURL() throws(CourierError) -> BaseURL { base }
        func path() throws(CourierError) -> URLPath { try URLPath("/events") }
    }
}

/// A wall clock the test moves by hand, for the refresher and the token endpoint.
final class ManualWallClock: Sendable {
    private let date = LockedState(Date(timeIntervalSince1970: 1_900_000_000))

    var now: Date { date.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        date.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    var closure: @Sendable () -> Date { { self.now } }
}

/// The bytes of an event stream, in the chunks the server asks for; with `dropAfter`, the
/// server's write loop fails once that latch opens after the last byte, and FlyingFox closes the
/// connection without ending the chunked body.
struct EventStreamBody: AsyncBufferedSequence {
    typealias Element = UInt8
    let bytes: [UInt8]
    let dropAfter: Latch?

    func makeAsyncIterator() -> Iterator {
        Iterator(remaining: bytes[...], dropAfter: dropAfter)
    }

    struct Dropped: Error {}

    struct Iterator: AsyncBufferedIteratorProtocol {
        var remaining: ArraySlice<UInt8>
        let dropAfter: Latch?

        mutating func next() async throws -> UInt8? {
            try await nextBuffer(suggested: 1)?.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> [UInt8]? {
            guard !remaining.isEmpty else {
                guard let dropAfter else { return nil }
                try await dropAfter.wait()
                throw Dropped()
            }
            // Small chunks, so that events and line breaks are split across them.
            let chunk = remaining.prefix(Swift.min(Swift.max(count, 1), 37))
            remaining = remaining.dropFirst(chunk.count)
            return Array(chunk)
        }
    }
}
