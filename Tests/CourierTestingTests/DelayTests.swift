import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Delays and cancellation", .heavy)
struct DelayTests {
    @Test(.timeLimit(.minutes(1)))
    func aDelayedResponseArrivesNoSoonerThanItsDelay() async throws {
        let network = NetworkStub()
        network.stub(.get, "/slow", with: .text("done").delayed(by: .milliseconds(300)))
        let client = makeClient(network)
        let clock = ContinuousClock()

        let start = clock.now
        let text = try await client.enqueue(TestEndpoint(.get, "/slow")).resume(expecting: String.self)

        #expect(text == "done")
        #expect(clock.now - start >= .milliseconds(300))
    }

    @Test(.timeLimit(.minutes(1)))
    func aDelayedFailureArrivesAfterItsDelay() async throws {
        let network = NetworkStub()
        network.stub(.get, "/slow", with: .failure(URLError(.networkConnectionLost)).delayed(by: .milliseconds(200)))
        let client = makeClient(network)
        let clock = ContinuousClock()

        let start = clock.now
        let result = await outcome(of: client.enqueue(TestEndpoint(.get, "/slow")))

        #expect(result.courierError?.urlError?.code == .networkConnectionLost)
        #expect(clock.now - start >= .milliseconds(200))
    }

    /// The call waits on an hour-long delay; cancelling its task must end it: the outcome and the
    /// test's time limit prove it, with no bound on wall time (a run on a busy machine took 6.5 s).
    @Test(.timeLimit(.minutes(1)))
    func cancellingACallWaitingOnADelayedStubEndsItPromptlyAsCancelled() async throws {
        let network = NetworkStub()
        let (arrivals, arrival) = AsyncStream<Void>.makeStream()
        network.stub { _ in
            arrival.yield()
            return StubResponse.text("too late").delayed(by: .seconds(3600))
        }
        let client = makeClient(network)
        let call = Task { await outcome(of: client.enqueue(TestEndpoint(.get, "/slow"))) }

        for await _ in arrivals { break }  // the request is at the stub, waiting on its delay
        call.cancel()
        let result = await call.value

        #expect(result.isCancelled, "got \(result)")
        #expect(network.requests.count == 1)
    }

    /// A cancelled delayed response must never be delivered afterwards (on Linux, delivering to
    /// a finished task crashes URLSession): a later, longer call on the same session outlives it.
    @Test(.timeLimit(.minutes(1)))
    func aCancelledDelayedResponseIsNeverDeliveredLater() async throws {
        let network = NetworkStub()
        let (arrivals, arrival) = AsyncStream<Void>.makeStream()
        network.stub { request in
            guard request.path == "/slow" else { return nil }
            arrival.yield()
            // Long enough that the cancel lands first even on a loaded 2-core machine; the second
            // call starts after the cancel and ends after this delay would have passed.
            return StubResponse.text("late").delayed(by: .seconds(2))
        }
        network.stub(.get, "/slower", with: .text("on time").delayed(by: .milliseconds(2500)))
        let client = makeClient(network)

        let cancelled = Task { await outcome(of: client.enqueue(TestEndpoint(.get, "/slow"))) }
        for await _ in arrivals { break }
        cancelled.cancel()
        let first = await cancelled.value
        let second = try await client.enqueue(TestEndpoint(.get, "/slower")).resume(expecting: String.self)

        #expect(first.isCancelled)
        #expect(second == "on time")
    }

    /// Cancellations landing before, around and after the moment a 1 ms delay ends: every call
    /// ends either cancelled or with the response, and nothing is delivered to a finished task
    /// (which crashes URLSession on Linux). Every 25th call waits 30 s instead, so some calls are
    /// surely cancelled however loaded the machine is (in a full parallel run, a starved machine
    /// once answered all 300 races before their cancellation).
    @Test(.timeLimit(.minutes(1)))
    func cancellationRacingADelayedResponseEndsEveryCallCleanly() async throws {
        let network = NetworkStub()
        let (arrivals, arrival) = AsyncStream<Void>.makeStream()
        network.stub { request in
            arrival.yield()
            return StubResponse.status(204).delayed(by: request.url.path == "/slow" ? .seconds(30) : .milliseconds(1))
        }
        let client = makeClient(network)
        var waiting = arrivals.makeAsyncIterator()
        var cancelled = 0
        var answered = 0

        for round in 0..<300 {
            let path = round % 25 == 0 ? "/slow" : "/race"
            let call = Task { await outcome(of: client.enqueue(TestEndpoint(.get, path))) }
            _ = await waiting.next()  // the request is at the stub
            try await Task.sleep(for: .microseconds(round % 30 * 100))  // jitter, 0–2.9 ms
            call.cancel()
            switch await call.value {
            case .failure(.cancelled): cancelled += 1
            case .success(let response) where response.statusCode == 204: answered += 1
            case let other: Issue.record("round \(round): \(other)")
            }
        }

        #expect(cancelled + answered == 300)
        #expect(cancelled > 0)
        #expect(network.requests.count == 300)
    }

    /// Delayed answers are delivered on URLSession's own queue while new requests keep arriving.
    @Test(.timeLimit(.minutes(1)))
    func manyConcurrentDelayedCallsAllComplete() async throws {
        let network = NetworkStub()
        network.stub(.get, "/slow", ignoringQuery: true, with: .status(204).delayed(by: .milliseconds(20)))
        let client = makeClient(network)

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                let endpoint = TestEndpoint(.get, "/slow", query: [QueryItem(name: "n", value: String(index))])
                group.addTask { try await client.enqueue(endpoint).resume().statusCode }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }

        #expect(statuses == Array(repeating: 204, count: 200))
        #expect(Set(network.requests.map(\.url)).count == 200)
    }
}
