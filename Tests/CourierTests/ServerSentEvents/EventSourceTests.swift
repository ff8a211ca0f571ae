import CourierTesting
import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// A transport that answers each request with the next scripted answer (and `204 No Content`
/// once the script is spent), recording every request.
final class ScriptedEventTransport: Transport {
    enum Answer: Sendable {
        /// A response whose body is `chunks`, streamed, then ends cleanly or with a lost connection.
        case stream(status: Int = 200, contentType: String? = "text/event-stream", chunks: [String] = [], losesConnection: Bool = false)
        /// A 200 event stream that sends `first` and then nothing more, until it is cancelled.
        case endless(first: String)
        /// No response: the transport fails.
        case failure(TransportFailure.Kind)
    }

    private struct State {
        var answers: [Answer]
        var requests: [TransportRequest] = []
        var endlessContinuations: [AsyncStream<Data>.Continuation] = []
    }

    private let state: LockedState<State>
    /// Opened when an endless body's transfer is stopped (its reader cancelled or dropped it).
    let endlessBodyStopped: AsyncStream<Void>
    private let stoppedContinuation: AsyncStream<Void>.Continuation

    init(_ answers: [Answer]) {
        state = LockedState(State(answers: answers))
        (endlessBodyStopped, stoppedContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    var requests: [TransportRequest] { state.withLock { $0.requests } }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let answer = state.withLock { state -> Answer? in
            state.requests.append(request)
            return state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
        let url = request.url
        switch answer {
        case nil:
            return StreamedResponse(statusCode: 204, url: url)
        case .failure(let kind)?:
            throw .transport(TransportFailure(kind: kind, url: url))
        case .stream(let status, let contentType, let chunks, let losesConnection)?:
            let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
            for chunk in chunks { continuation.yield(Data(chunk.utf8)) }
            continuation.finish(throwing: losesConnection ? CourierError.transport(TransportFailure(kind: .connectionLost, url: url)) : nil)
            var headers = HTTPFields()
            if let contentType { headers[.contentType] = contentType }
            return StreamedResponse(status: .init(code: status), headers: headers, body: ResponseBody(body), url: url)
        case .endless(let first)?:
            let (body, continuation) = AsyncStream.makeStream(of: Data.self)
            let stopped = stoppedContinuation
            continuation.onTermination = { _ in stopped.yield() }
            continuation.yield(Data(first.utf8))
            state.withLock { $0.endlessContinuations.append(continuation) }
            return StreamedResponse(
                status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody(body), url: url)
        }
    }
}

/// ``Call/events(_:)`` against a scripted transport: what it sends, when it reconnects and how
/// long it waits (on a test clock: nothing here sleeps), and how it ends.
@Suite("Server-Sent Events: the reconnecting event source")
struct EventSourceTests {
    static func source(
        _ transport: ScriptedEventTransport, endpoint: TestEndpoint = TestEndpoint(pathString: "/feed"),
        options: EventSource.Options = EventSource.Options(jitter: 0), clock: TestClock = TestClock(sleepsReturnImmediately: true)
    ) -> EventSource {
        var options = options
        options.clock = clock
        let client = Client(configuration: Configuration(transport: transport, retryPolicy: .none))
        return client.enqueue(endpoint).events(options)
    }

    /// Every event until the source ends, and the error it ended with, if any.
    static func collect(_ source: EventSource) async -> ([ServerSentEvent], CourierError?) {
        var events: [ServerSentEvent] = []
        do throws(CourierError) {
            for try await event in source { events.append(event) }
            return (events, nil)
        } catch {
            return (events, error)
        }
    }

    @Test("after a clean end and after a lost connection it reconnects with Last-Event-ID, delivering every event once, in order")
    func reconnectsWithLastEventID() async throws {
        let transport = ScriptedEventTransport([
            .stream(chunks: ["id: 1\ndata: a\n\n"]),
            .stream(chunks: ["id: 2\ndata: b\n", "\ndata: unfinished"], losesConnection: true),
            .stream(chunks: ["data: c\n\n"]),
        ])
        let clock = TestClock(sleepsReturnImmediately: true)
        let (events, error) = await Self.collect(Self.source(transport, clock: clock))
        #expect(error == nil)
        #expect(events == [ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "2"), ServerSentEvent(data: "c", id: "2")])
        let requests = transport.requests
        #expect(requests.count == 4, "three streams, then the 204 that ends it")
        #expect(requests.map { $0.header("Last-Event-ID") } == [nil, "1", "2", "2"])
        #expect(requests.allSatisfy { $0.header("Accept") == "text/event-stream" && $0.header("Cache-Control") == "no-store" })
        #expect(clock.sleeps == [.seconds(3), .seconds(3), .seconds(3)])
    }

    @Test("the server's retry replaces the default delay; reconnections that deliver nothing double it, up to the cap")
    func serverRetryAndBackoff() async throws {
        let transport = ScriptedEventTransport([
            .stream(chunks: ["retry: 1000\ndata: a\n\n"]),
            .failure(.connectionLost), .failure(.cannotConnect), .failure(.timedOut),
            .stream(chunks: [": only a comment\n"]),
            .stream(chunks: ["data: b\n\n"]),
        ])
        let clock = TestClock(sleepsReturnImmediately: true)
        let options = EventSource.Options(maximumReconnectionDelay: .seconds(5), jitter: 0)
        let (events, error) = await Self.collect(Self.source(transport, options: options, clock: clock))
        #expect(error == nil)
        #expect(events.map(\.data) == ["a", "b"])
        #expect(clock.sleeps == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5), .seconds(1)])
    }

    @Test("the reconnection delay: nominal × (1 + jitter × u), at least the nominal, at most the cap plus jitter, never overflowing")
    func reconnectionDelayBounds() {
        let options = EventSource.Options(defaultReconnectionDelay: .seconds(3), maximumReconnectionDelay: .seconds(60), jitter: 0.25)
        var random = SystemRandomNumberGenerator()
        for failures in [0, 1, 2, 5, 63, 64, 1_000, Int.max] {
            let nominal = min(Duration.seconds(3) * (1 << min(failures, 5)), .seconds(60))
            for _ in 0..<50 {
                let delay = options.reconnectionDelay(serverRetry: nil, failures: failures, random: &random)
                #expect(delay >= nominal && delay <= nominal * 1.25, "failures \(failures): \(delay)")
            }
        }
        let huge = options.reconnectionDelay(serverRetry: .milliseconds(Int64.max), failures: 3, random: &random)
        #expect(huge >= .seconds(60) && huge <= .seconds(75))
        for jitter in [-1, .nan, 0] {
            let exact = EventSource.Options(jitter: jitter)
            #expect(exact.reconnectionDelay(serverRetry: .milliseconds(1500), failures: 1, random: &random) == .milliseconds(3000))
        }
    }

    /// Issue 22, item 3: a base of zero doubled to zero, so a server that sent `retry: 0` and
    /// closed was reconnected to as fast as connections opened (46 times in 2 s over loopback).
    @Test("a server that sends retry: 0 and closes without an event is reconnected to from a floor, doubling, whatever retry says")
    func zeroRetryBacksOffFromAFloor() async throws {
        let transport = ScriptedEventTransport(Array(repeating: .stream(chunks: ["retry: 0\n\n"]), count: 5))
        let clock = TestClock(sleepsReturnImmediately: true)
        let (events, error) = await Self.collect(Self.source(transport, clock: clock))
        #expect(error == nil)
        #expect(events.isEmpty)
        #expect(clock.sleeps == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16)])
    }

    /// Issue 22, item 8: `id: a\u{01}b` is a valid event ID but not a valid header value; the
    /// reconnection failed with `invalidRequest`, which ended the stream.
    @Test(
        "an event ID that cannot be a header value does not end the stream: the reconnection sends no Last-Event-ID",
        arguments: ["a\u{01}b", "tab\tthen\u{7F}", "line\u{0B}feed"])
    func unsendableEventID(_ id: String) async throws {
        let transport = ScriptedEventTransport([
            .stream(chunks: ["id: \(id)\ndata: x\n\n"]), .stream(chunks: ["data: y\n\n"]),
        ])
        let (events, error) = await Self.collect(Self.source(transport))
        #expect(error == nil)
        #expect(events == [ServerSentEvent(data: "x", id: id), ServerSentEvent(data: "y", id: id)])
        #expect(transport.requests.count == 3)
        #expect(transport.requests.dropFirst().allSatisfy { $0.header("Last-Event-ID") == nil })
    }

    @Test("after a connection that delivered events the server's retry: 0 is honoured once; empty connections then back off")
    func zeroRetryAfterEvents() async throws {
        let transport = ScriptedEventTransport([
            .stream(chunks: ["retry: 0\ndata: a\n\n"]), .stream(chunks: ["retry: 0\n\n"]), .stream(chunks: []),
        ])
        let clock = TestClock(sleepsReturnImmediately: true)
        let (events, error) = await Self.collect(Self.source(transport, clock: clock))
        #expect(error == nil)
        #expect(events.map(\.data) == ["a"])
        #expect(clock.sleeps == [.zero, .seconds(2), .seconds(4)])
    }

    /// Hardening III, defect 9: each event reset the failure count and skipped the floor, so a
    /// server that sent `retry: 0`, one event and closed was reconnected to without delay, 20
    /// times out of 20.
    @Test("a server that sends retry: 0 and one event per connection is reconnected to at most once without the floor")
    func zeroRetryWithOneEventPerConnection() async throws {
        let transport = ScriptedEventTransport(Array(repeating: .stream(chunks: ["retry: 0\ndata: x\n\n"]), count: 20))
        let clock = TestClock(sleepsReturnImmediately: true)
        let (events, error) = await Self.collect(Self.source(transport, clock: clock))
        #expect(error == nil)
        #expect(events.count == 20)
        let sleeps = clock.sleeps
        #expect(sleeps.count == 20)
        #expect(sleeps.first == .zero, "the first reconnection honours the server's retry")
        #expect(sleeps.dropFirst().allSatisfy { $0 >= .seconds(1) }, "\(sleeps)")
    }

    @Test("after a connection that stayed open at least the floor, a server's retry: 0 is honoured again")
    func zeroRetryAfterALongConnection() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        let transport = ScriptedEventTransport([
            .stream(chunks: ["retry: 0\ndata: a\n\n"]), .stream(chunks: ["retry: 0\ndata: b\n\n"]),
            .stream(chunks: ["retry: 0\ndata: c\n\n"]),
        ])
        var options = EventSource.Options(jitter: 0)
        options.clock = clock
        let client = Client(configuration: Configuration(transport: transport, retryPolicy: .none))
        var events = client.enqueue(TestEndpoint(pathString: "/feed")).events(options).makeAsyncIterator()
        #expect(try await events.next()?.data == "a")  // short connection 1: no wait after it
        #expect(try await events.next()?.data == "b")  // short connection 2
        clock.advance(by: .seconds(2))  // connection 2 stays open 2 s
        #expect(try await events.next()?.data == "c")
        #expect(clock.sleeps == [.zero, .zero])
    }

    @Test("204 No Content ends the sequence at once, without reconnecting")
    func noContentEnds() async throws {
        let transport = ScriptedEventTransport([])
        let clock = TestClock(sleepsReturnImmediately: true)
        let (events, error) = await Self.collect(Self.source(transport, clock: clock))
        #expect(events.isEmpty && error == nil)
        #expect(transport.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test("any other status ends the sequence with .response and its body, without reconnecting", arguments: [201, 206, 301, 404, 500, 503])
    func otherStatusesFail(_ status: Int) async throws {
        let transport = ScriptedEventTransport([.stream(status: status, contentType: "text/plain", chunks: ["oops"])])
        let (events, error) = await Self.collect(Self.source(transport))
        guard case .response(let response)? = error else {
            Issue.record("expected .response, got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == status)
        #expect(response.body == Data("oops".utf8))
        #expect(events.isEmpty)
        #expect(transport.requests.count == 1)
    }

    @Test(
        "a 200 that is not text/event-stream ends the sequence with a decoding error naming the media type",
        arguments: [nil, "text/plain", "application/json", "text/event-streams"] as [String?])
    func wrongContentType(_ contentType: String?) async throws {
        let transport = ScriptedEventTransport([.stream(contentType: contentType, chunks: ["data: a\n\n"])])
        let (events, error) = await Self.collect(Self.source(transport))
        guard case .decoding(let failure)? = error, case .unsupportedMediaType(let mediaType) = failure.reason else {
            Issue.record("expected .decoding(.unsupportedMediaType), got \(String(describing: error))")
            return
        }
        #expect(mediaType == contentType ?? "none")
        #expect(events.isEmpty)
        #expect(transport.requests.count == 1)
    }

    @Test("the media type is compared without parameters and case", arguments: ["text/event-stream; charset=utf-8", "Text/Event-Stream"])
    func contentTypeWithParameters(_ contentType: String) async throws {
        let transport = ScriptedEventTransport([.stream(contentType: contentType, chunks: ["data: a\n\n"])])
        let (events, error) = await Self.collect(Self.source(transport))
        #expect(error == nil)
        #expect(events.map(\.data) == ["a"])
    }

    @Test("after maximumReconnectAttempts reconnections in a row without an event it gives up with the last failure")
    func maximumReconnectAttempts() async throws {
        let transport = ScriptedEventTransport(Array(repeating: .failure(.connectionLost), count: 5))
        let (_, error) = await Self.collect(Self.source(transport, options: EventSource.Options(jitter: 0, maximumReconnectAttempts: 2)))
        guard case .transport(let failure)? = error else {
            Issue.record("expected .transport, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .connectionLost)
        #expect(transport.requests.count == 3)
    }

    @Test("maximumReconnectAttempts 0 never reconnects: a clean end ends the sequence")
    func noReconnection() async throws {
        let transport = ScriptedEventTransport([.stream(chunks: ["data: a\n\n"]), .stream(chunks: ["data: never\n\n"])])
        let (events, error) = await Self.collect(Self.source(transport, options: EventSource.Options(maximumReconnectAttempts: 0)))
        #expect(error == nil)
        #expect(events.map(\.data) == ["a"])
        #expect(transport.requests.count == 1)
    }

    @Test("a failure no retry would cure (TLS, pinning) is thrown at once", arguments: [TransportFailure.Kind.secureConnectionFailed, .pinningFailed, .other])
    func unretryableFailure(_ kind: TransportFailure.Kind) async throws {
        let transport = ScriptedEventTransport([.failure(kind)])
        let (_, error) = await Self.collect(Self.source(transport))
        guard case .transport(let failure)? = error else {
            Issue.record("expected .transport, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == kind)
        #expect(transport.requests.count == 1)
    }

    @Test("a line past the limit ends the sequence as too large, after the events before it, with the URL; no reconnection")
    func lineLimit() async throws {
        let transport = ScriptedEventTransport([.stream(chunks: ["data: ok\n\n", "data: 1234567890\n\n"])])
        let (events, error) = await Self.collect(Self.source(transport, options: EventSource.Options(maximumLineLength: 12)))
        guard case .transport(let failure)? = error else {
            Issue.record("expected .transport, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .responseTooLarge)
        #expect(failure.url?.absoluteString == "https://api.example.com/feed")
        #expect(events.map(\.data) == ["ok"])
        #expect(transport.requests.count == 1)
    }

    @Test("events come out as the chunks arrive, split anywhere; an unfinished last event is dropped at the end of the body")
    func eventsSplitAcrossChunks() async throws {
        let transport = ScriptedEventTransport([.stream(chunks: ["data: a\n", "\ndata: b\r", "\n\r\ndata: c"])])
        let (events, error) = await Self.collect(Self.source(transport, options: EventSource.Options(maximumReconnectAttempts: 0)))
        #expect(error == nil)
        #expect(events.map(\.data) == ["a", "b"])
        #expect(transport.requests.count == 1)
    }

    @Test("an event past the size limit ends the sequence as too large, after the events of the same chunk before it, with the URL; no reconnection")
    func eventLimit() async throws {
        let transport = ScriptedEventTransport([.stream(chunks: ["data: a\n\ndata: 123456789\n\n"])])
        let (events, error) = await Self.collect(Self.source(transport, options: EventSource.Options(maximumEventSize: 4)))
        guard case .transport(let failure)? = error else {
            Issue.record("expected .transport, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .responseTooLarge)
        #expect(failure.url?.absoluteString == "https://api.example.com/feed")
        #expect(events.map(\.data) == ["a"])
        #expect(transport.requests.count == 1)
    }

    @Test("each connection's timeout is the connection timeout, not the endpoint's; the endpoint's own Accept is replaced, its other headers kept")
    func requestShape() async throws {
        let transport = ScriptedEventTransport([])
        var endpoint = TestEndpoint(pathString: "/feed")
        endpoint.timeout = .seconds(5)
        endpoint.headerItems = [HeaderItem(name: "accept", value: "application/json"), HeaderItem(name: "X-Trace", value: "t1")]
        let options = EventSource.Options(lastEventID: "41", connectionTimeout: .seconds(42))
        _ = await Self.collect(Self.source(transport, endpoint: endpoint, options: options))
        let request = try #require(transport.requests.first)
        #expect(request.timeout == .seconds(42))
        #expect(request.head.headerFields[values: .accept] == ["text/event-stream"])
        #expect(request.header("X-Trace") == "t1")
        #expect(request.header("Last-Event-ID") == "41", "options.lastEventID is sent on the first connection")
    }

    @Test("cancelling the reading task ends the sequence at once with .cancelled and stops the transfer")
    func cancellationWhileReading() async throws {
        let transport = ScriptedEventTransport([.endless(first: "data: a\n\n")])
        let source = Self.source(transport)
        let (firstEvent, gotFirst) = AsyncStream.makeStream(of: Void.self)
        let reader = Task { () -> CourierError? in
            do throws(CourierError) {
                for try await _ in source { gotFirst.yield() }
                return nil
            } catch {
                return error
            }
        }
        for await _ in firstEvent { break }
        reader.cancel()
        let error = await reader.value
        guard case .cancelled? = error else {
            Issue.record("expected .cancelled, got \(String(describing: error))")
            return
        }
        for await _ in transport.endlessBodyStopped { break }
        #expect(transport.requests.count == 1)
    }

    @Test("cancelling the task while it waits to reconnect ends the sequence with .cancelled, without another request")
    func cancellationWhileWaiting() async throws {
        let transport = ScriptedEventTransport([.stream(chunks: ["data: a\n\n"])])
        let clock = TestClock()
        let source = Self.source(transport, clock: clock)
        let reader = Task { await Self.collect(source) }
        await clock.waitForSleepers(1)
        reader.cancel()
        let (events, error) = await reader.value
        guard case .cancelled? = error else {
            Issue.record("expected .cancelled, got \(String(describing: error))")
            return
        }
        #expect(events.map(\.data) == ["a"])
        #expect(transport.requests.count == 1)
    }
}

/// The idle watchdog of ``EventSource/Options/idleTimeout``, on a test clock.
@Suite("Server-Sent Events: the idle timeout")
struct IdleTimeoutTests {
    @Test("any byte, a heartbeat comment included, restarts the idle time; silence for the whole timeout ends the body as timed out")
    func heartbeatKeepsTheBodyAlive() async throws {
        let clock = TestClock()
        let (body, feed, asked) = ObservedChunks.idleWatchedBody(timeout: .seconds(30), clock: clock)
        let (received, receivedFeed) = AsyncStream.makeStream(of: Data.self)
        let reader = Task { () -> CourierError? in
            do throws(CourierError) {
                for try await chunk in body { receivedFeed.yield(chunk) }
                return nil
            } catch {
                return error
            }
        }
        var receivedChunks = received.makeAsyncIterator()
        var asks = asked.makeAsyncIterator()
        await asks.next()
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(20))
        feed.yield(Data(": ping\n".utf8))
        #expect(await receivedChunks.next() == Data(": ping\n".utf8))
        await asks.next()  // the reader waits on the network again (only waiting counts as idle)
        clock.advance(by: .seconds(10))  // 30 s since the start, 10 s since the ping
        await clock.waitForSleepers(1)
        #expect(clock.sleeps == [.seconds(30), .seconds(20)], "the watchdog sleeps again until 30 s after the ping")
        clock.advance(by: .seconds(20))
        feed.yield(Data("data: late\n\n".utf8))  // the transport hands over what it still had: dropped
        feed.finish()
        let error = await reader.value
        guard case .transport(let failure)? = error else {
            Issue.record("expected a timed-out transport failure, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .timedOut)
        #expect(failure.message?.contains("no byte of the response body arrived for 30.0 seconds") == true)
    }

    /// Found by the address-sanitizer run of CI: the reader took a chunk handed over right after
    /// the idle time ran out, before the watchdog task ran, and the body ended normally. Here the
    /// watchdog never runs (its clock's sleeps do not end), so only the reader can notice.
    @Test("a chunk handed over once the idle time has run out is dropped and the body times out, even before the watchdog runs")
    func aChunkAfterTheIdleTimeIsDropped() async throws {
        let clock = StoppedSleepClock()
        let (body, feed, asked) = ObservedChunks.idleWatchedBody(timeout: .seconds(30), clock: clock)
        let reader = Task { () -> CourierError? in
            do throws(CourierError) {
                var chunks = body.makeAsyncIterator()
                #expect(try await chunks.next() == Data("in time".utf8))
                while try await chunks.next() != nil {}
                return nil
            } catch {
                return error
            }
        }
        var asks = asked.makeAsyncIterator()
        await asks.next()
        clock.set(.seconds(29))
        feed.yield(Data("in time".utf8))
        await asks.next()  // the reader took it and waits on the network again
        clock.set(.seconds(59))  // 30 s after the last chunk
        feed.yield(Data("late".utf8))
        feed.finish()
        guard case .transport(let failure)? = await reader.value else {
            Issue.record("expected a timed-out transport failure")
            return
        }
        #expect(failure.kind == .timedOut)
    }

    @Test("a body that ends before the timeout ends normally, and its watchdog stops")
    func aBodyThatEndsStopsTheWatchdog() async throws {
        let clock = TestClock()
        let body = ResponseBody([Data("a".utf8)].async).stoppingWhenIdle(for: .seconds(30), clock: clock, url: nil)
        #expect(try await body.collect(upTo: nil) == Data("a".utf8))
        // Cancelling the watchdog removes its sleep at once (or it never starts one: it sees the end).
        #expect(clock.pendingSleepCount == 0)
    }
}

/// A clock whose time moves only when set, and whose sleeps end only when cancelled.
private final class StoppedSleepClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = LockedState(Duration.zero)
    var now: Instant { Instant(offset: current.withLock { $0 }) }
    var minimumResolution: Duration { .zero }

    func set(_ time: Duration) {
        current.withLock { $0 = time }
    }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let (never, _) = AsyncStream.makeStream(of: Void.self)
        for await _ in never {}  // ends only when the sleeping task is cancelled
        throw CancellationError()
    }
}
