import Courier
import CourierTesting
import Foundation
import Testing

@Suite("TestClock: time that only the test moves")
struct TestClockTests {
    @Test("a sleep waits until the clock is advanced past its deadline, and sleeps wake in deadline order")
    func manual() async throws {
        let clock = TestClock()
        let woke = AsyncStream.makeStream(of: Int.self)
        let late = Task {
            try await clock.sleep(for: .seconds(5)); woke.continuation.yield(5)
        }
        let early = Task {
            try await clock.sleep(for: .seconds(2)); woke.continuation.yield(2)
        }
        await clock.waitForSleepers(2)
        #expect(clock.pendingSleepCount == 2)
        clock.advance(by: .seconds(1))
        #expect(clock.pendingSleepCount == 2, "no deadline has come")
        clock.advance(by: .seconds(1))
        try await early.value
        #expect(clock.pendingSleepCount == 1)
        clock.advance(by: .seconds(10))
        try await late.value
        woke.continuation.finish()
        var order: [Int] = []
        for await value in woke.stream { order.append(value) }
        #expect(order == [2, 5])
        #expect(clock.sleeps == [.seconds(5), .seconds(2)] || clock.sleeps == [.seconds(2), .seconds(5)])
        #expect(clock.now == TestClock.Instant(offset: .seconds(12)))
    }

    @Test("its date starts where it is told (by default the system's, in whole seconds) and moves with the clock")
    func date() async throws {
        let start = Date(timeIntervalSince1970: 1_000_000_000)
        let clock = TestClock(sleepsReturnImmediately: true, date: start)
        #expect(clock.date == start)
        clock.advance(by: .milliseconds(1_500))
        try await clock.sleep(for: .seconds(2))
        #expect(clock.date == start.addingTimeInterval(3.5))
        let byDefault = TestClock().date.timeIntervalSince1970
        #expect(byDefault == byDefault.rounded(.down))
    }

    @Test("in immediate mode every sleep returns at once, moves the clock and is recorded")
    func immediate() async throws {
        let clock = TestClock(sleepsReturnImmediately: true)
        try await clock.sleep(for: .milliseconds(250))
        try await clock.sleep(for: .seconds(1))
        #expect(clock.sleeps == [.milliseconds(250), .seconds(1)])
        #expect(clock.now.offset == .milliseconds(1250))
        #expect(clock.pendingSleepCount == 0)
    }

    @Test("cancelling a sleeping task ends its sleep with CancellationError, in either mode, before or during the sleep")
    func cancellation() async {
        let clock = TestClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(3600)) }
        await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.pendingSleepCount == 0)

        let immediate = TestClock(sleepsReturnImmediately: true)
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await immediate.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await cancelledFirst.value }
    }

    @Test("a client's retry delays run on the TestClock: a call cancelled in its delay ends as cancelled")
    func retryDelayOnTheClock() async {
        let transport = RecordingTransport(script: [.status(503)])
        let clock = TestClock()
        var configuration = Configuration(transport: transport)
        configuration.clock = clock
        configuration.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(60), maxDelay: .seconds(60))
        let client = Client(configuration: configuration)
        let call = Task { try await client.enqueue(Ping()).resume() }
        await clock.waitForSleepers(1)
        #expect(await transport.count == 1)
        call.cancel()
        guard case .failure(let error) = await call.result, case .cancelled? = error as? CourierError else {
            Issue.record("expected cancelled")
            return
        }
        #expect(await transport.count == 1)
    }
}

@Suite("RecordingTransport: requests as the client sends them, answers from a script")
struct RecordingTransportTests {
    @Test("a script answers in order, then repeats its last answer; failures are thrown as given")
    func script() async throws {
        let transport = RecordingTransport(script: [
            .status(201, headers: HTTPFields(["X-A": "1"]), body: Data("a".utf8)),
            .failure(.cancelled),
            .status(204),
        ])
        let client = Client(configuration: Configuration(transport: transport, retryPolicy: .none))
        let first = try await client.enqueue(Ping()).resume()
        #expect(first.statusCode == 201 && first.body == Data("a".utf8) && first.headers[.init("X-A")!] == "1")
        await #expect(throws: CourierError.self) { try await client.enqueue(Ping()).resume() }
        #expect(try await client.enqueue(Ping()).resume().statusCode == 204)
        #expect(try await client.enqueue(Ping()).resume().statusCode == 204)
        #expect(await transport.count == 4)
        #expect(await transport.last?.url.absoluteString == "https://api.example.com/ping")
    }
}

private struct Ping: Requestable {
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath("/ping") }
    var requiresAuthorization: Bool { false }
}
