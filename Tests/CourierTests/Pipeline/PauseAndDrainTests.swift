import Foundation
import Testing

@testable import Courier

/// A transport whose responses wait until the test lets them go.
private actor GatedTransport: Transport {
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private(set) var sentPaths: [String] = []
    private var arrivals: [CheckedContinuation<Void, Never>] = []
    var gated = true

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        sentPaths.append(request.head.path ?? "")
        let waiters = arrivals
        arrivals.removeAll()
        waiters.forEach { $0.resume() }
        if gated {
            await withCheckedContinuation { waiting.append($0) }
        }
        return StreamedResponse(statusCode: 200, url: request.url)
    }

    func openGate() {
        gated = false
        let all = waiting
        waiting.removeAll()
        all.forEach { $0.resume() }
    }

    /// Returns once `count` requests have been sent.
    func waitForSent(_ count: Int) async {
        while sentPaths.count < count {
            await withCheckedContinuation { arrivals.append($0) }
        }
    }
}

private struct PathEndpoint: Requestable {
    var pathString: String
    var requiresAuthorization: Bool { false }
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath(pathString) }
}

/// Order of events seen by the test.
private actor Log {
    private(set) var events: [String] = []
    func add(_ event: String) { events.append(event) }
}

@Suite("Pause and drain")
struct PauseAndDrainTests {
    @Test func theActionRunsOnlyAfterInFlightCallsEndAndHeldCallsGoAfterItInOrder() async throws {
        let transport = GatedTransport()
        let client = Client(configuration: Configuration(transport: transport))
        let log = Log()

        // Three calls in flight, parked in the transport.
        let inFlight = (0..<3).map { index in
            Task {
                _ = try await client.enqueue(PathEndpoint(pathString: "/first/\(index)")).resume(); await log.add("first \(index) done")
            }
        }
        await transport.waitForSent(3)

        let exclusive = Task {
            try await client.runExclusively { await log.add("action") }
        }
        try await awaitPaused(client)
        var held: [Task<Void, any Error>] = []
        for index in 0..<5 {
            held.append(Task { _ = try await client.enqueue(PathEndpoint(pathString: "/held/\(index)")).resume() })
            try await awaitHeld(client, count: index + 1)
        }
        #expect(await log.events.isEmpty, "the action must wait for the calls in flight")

        await transport.openGate()
        for task in inFlight { try await task.value }
        try await exclusive.value
        for task in held { try await task.value }

        let events = await log.events
        #expect(events.last == "action")
        #expect(events.filter { $0.hasPrefix("first") }.count == 3)
        // The held calls are released in the order they arrived (the gate's queue, checked in
        // `ReentrancyTests`), but once released they run concurrently: the order in which they
        // reach the transport is the scheduler's, so only the set is checked here.
        let sent = await transport.sentPaths
        #expect(Set(sent.suffix(5)) == Set((0..<5).map { "/held/\($0)" }))
    }

    @Test func aHeldCallThatIsCancelledLeavesAtOnceAndTheOthersStillGo() async throws {
        let transport = GatedTransport()
        await transport.openGate()
        let client = Client(configuration: Configuration(transport: transport))
        let (release, releaser) = AsyncStream.makeStream(of: Void.self)
        let exclusive = Task {
            try await client.runExclusively {
                for await _ in release { break }
            }
        }
        try await awaitPaused(client)
        let kept = Task { try await client.enqueue(PathEndpoint(pathString: "/kept")).resume() }
        try await awaitHeld(client, count: 1)
        let leaving = Task { try await client.enqueue(PathEndpoint(pathString: "/leaving")).resume() }
        try await awaitHeld(client, count: 2)

        leaving.cancel()
        let outcome = await leaving.result
        guard case .failure(let error) = outcome, case .cancelled? = error as? CourierError else {
            Issue.record("expected cancelled, got \(outcome)")
            return
        }
        #expect(await client.heldCallCount == 1)

        releaser.yield()
        try await exclusive.value
        _ = try await kept.value
        #expect(await transport.sentPaths == ["/kept"])
    }

    @Test func exclusiveActionsRunOneAfterAnotherInOrder() async throws {
        let client = Client(configuration: Configuration(transport: GatedTransport()))
        let log = Log()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await client.runExclusively {
                        await log.add("start \(index)")
                        await Task.yield()
                        await log.add("end \(index)")
                    }
                }
            }
            try await group.waitForAll()
        }
        let events = await log.events
        #expect(events.count == 40)
        for pair in stride(from: 0, to: events.count, by: 2) {
            #expect(events[pair].replacingOccurrences(of: "start", with: "end") == events[pair + 1], "actions overlapped: \(events)")
        }
    }

    /// Waits until `count` calls are held by the client.
    private func awaitHeld(_ client: Client, count: Int) async throws {
        while await client.heldCallCount < count {
            try Task.checkCancellation()
            await Task.yield()
        }
    }

    private func awaitPaused(_ client: Client) async throws {
        while await !client.isPausedForTests {
            try Task.checkCancellation()
            await Task.yield()
        }
    }
}
