import CourierTesting
import Foundation
import Testing

@testable import Courier
@testable import CourierConnectivity

@Suite("Connectivity constraint: calls held while offline", .heavy, .timeLimit(.minutes(2)))
struct ConnectivityConstraintTests {
    private static let count = 2000

    private func makeConstraint(
        _ initial: ConnectivityPath, timeout: Duration? = .seconds(30)
    ) -> (TestConnectivityMonitor, TestClock, Constraint) {
        let network = TestConnectivityMonitor(initial)
        let clock = TestClock()
        return (network, clock, Constraint.connectivity(network.monitor, timeout: timeout, clock: clock))
    }

    /// Starts `count` concurrent waiters, runs `whileWaiting`, and returns every waiter's result.
    private func runWaiters(
        _ count: Int, on constraint: Constraint, whileWaiting: () async -> Void
    ) async -> [Result<Void, CourierError>] {
        await withTaskGroup(of: Result<Void, CourierError>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do throws(CourierError) {
                        try await constraint.waitUntilSatisfied()
                        return .success(())
                    } catch {
                        return .failure(error)
                    }
                }
            }
            await whileWaiting()
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    private func isNoPathFailure(_ result: Result<Void, CourierError>, after timeout: Duration = .seconds(30)) -> Bool {
        guard case .failure(.transport(let failure)) = result else { return false }
        return failure.kind == .cannotConnect && failure.urlError?.code == .notConnectedToInternet && failure.url == nil
            && failure.message == "no usable network path after waiting \(timeout)"
    }

    @Test("5,000 calls held offline are all released, each exactly once, when the path becomes satisfied")
    func heldThenReleased() async {
        let (network, clock, constraint) = makeConstraint(.unsatisfied)

        let results = await runWaiters(Self.count, on: constraint) {
            await constraint.waitForWaiters(Self.count)
            #expect(constraint.isRunning)
            network.update(.satisfied)
        }

        #expect(results.count == Self.count)
        #expect(results.filter { if case .success = $0 { true } else { false } }.count == Self.count)
        #expect(constraint.waiterCount == 0)
        #expect(clock.pendingSleepCount == 0)  // every timer cancelled (synchronously, as each call returned)
        await constraint.waitUntilRunsReturned()
        #expect(!constraint.isRunning)
        #expect(network.monitor.listenerCount == 0)  // the run stopped listening
    }

    @Test("5,000 calls held offline all fail with transport(.cannotConnect) and URLError(.notConnectedToInternet) after the timeout")
    func heldThenTimedOut() async throws {
        let (network, clock, constraint) = makeConstraint(.unsatisfied)

        let results = await runWaiters(Self.count, on: constraint) {
            await constraint.waitForWaiters(Self.count)
            await clock.waitForSleepers(Self.count)
            clock.advance(by: .seconds(29))
            #expect(constraint.waiterCount == Self.count)  // not yet
            clock.advance(by: .seconds(1))
        }

        #expect(results.count == Self.count)
        #expect(results.allSatisfy { isNoPathFailure($0) })
        #expect(constraint.waiterCount == 0)

        // Nobody waits any more, so nobody waits for a path: the run was cancelled when the last
        // call left, and it stopped listening to the monitor (else it held the monitor forever).
        #expect(constraint.isRunning == false)
        await constraint.waitUntilRunsReturned()
        #expect(network.monitor.listenerCount == 0)

        // Offline, a new call starts a new run; once the path comes back, it passes.
        let late = Task { try await constraint.waitUntilSatisfied() }
        await constraint.waitForWaiters(1)
        network.update(.satisfied)
        try await late.value
    }

    @Test("each call's timeout runs from when it started waiting: an early call fails alone, a late one is released")
    func timeoutsPerCall() async {
        let (network, clock, constraint) = makeConstraint(.unsatisfied, timeout: .seconds(10))
        let early = Task { () async -> Result<Void, CourierError> in
            do throws(CourierError) {
                try await constraint.waitUntilSatisfied()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(6))
        let late = Task { () async -> Result<Void, CourierError> in
            do throws(CourierError) {
                try await constraint.waitUntilSatisfied()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(4))

        #expect(isNoPathFailure(await early.value, after: .seconds(10)))
        #expect(constraint.waiterCount == 1)
        network.update(.satisfied)
        #expect(await late.value.isSuccess)
    }

    @Test("cancelling one of 5,000 held calls removes only it; the others are released")
    func cancellingOneWaiter() async {
        let (network, _, constraint) = makeConstraint(.unsatisfied)
        let loner = Task { () async -> Result<Void, CourierError> in
            do throws(CourierError) {
                try await constraint.waitUntilSatisfied()
                return .success(())
            } catch {
                return .failure(error)
            }
        }

        let results = await runWaiters(Self.count - 1, on: constraint) {
            await constraint.waitForWaiters(Self.count)
            loner.cancel()
            guard case .failure(.cancelled) = await loner.value else {
                Issue.record("the cancelled call did not end with .cancelled")
                return
            }
            #expect(constraint.waiterCount == Self.count - 1)
            network.update(.satisfied)
        }

        #expect(results.count == Self.count - 1)
        #expect(results.allSatisfy { $0.isSuccess })
    }

    @Test(
        "online (satisfied or requiresConnection), 5,000 calls pass at once: no wait, no timer",
        arguments: [
            ConnectivityPath.satisfied, ConnectivityPath(status: .requiresConnection),
        ])
    func onlineCallsPass(path: ConnectivityPath) async {
        let (_, clock, constraint) = makeConstraint(path)
        let results = await runWaiters(Self.count, on: constraint) {}
        #expect(results.allSatisfy { $0.isSuccess })
        #expect(clock.sleeps.isEmpty)
        #expect(constraint.isRunning == false)
    }

    @Test("requiresConnection releases held calls: the connection attempt is what brings the path up")
    func requiresConnectionReleases() async {
        let (network, _, constraint) = makeConstraint(.unsatisfied)
        let results = await runWaiters(100, on: constraint) {
            await constraint.waitForWaiters(100)
            network.update(ConnectivityPath(status: .requiresConnection))
        }
        #expect(results.allSatisfy { $0.isSuccess })
    }

    @Test("stopping the monitor releases held calls and holds no new ones")
    func stoppedMonitorHoldsNothing() async throws {
        let (network, clock, constraint) = makeConstraint(.unsatisfied)
        let results = await runWaiters(1000, on: constraint) {
            await constraint.waitForWaiters(1000)
            network.monitor.stop()
        }
        #expect(results.allSatisfy { $0.isSuccess })
        await constraint.waitUntilRunsReturned()
        #expect(!constraint.isRunning)
        try await constraint.waitUntilSatisfied()
        #expect(clock.pendingSleepCount == 0)
    }

    @Test("without a timeout, a held call waits as long as it takes")
    func noTimeout() async {
        let (network, clock, constraint) = makeConstraint(.unsatisfied, timeout: nil)
        let results = await runWaiters(100, on: constraint) {
            await constraint.waitForWaiters(100)
            #expect(clock.sleeps.isEmpty)
            network.update(.satisfied)
        }
        #expect(results.allSatisfy { $0.isSuccess })
    }

    @Test("through a client: 1,000 calls held offline send nothing, then are all sent once the path is back")
    func heldCallsThroughAClient() async throws {
        let (network, clock, constraint) = makeConstraint(.unsatisfied)
        let transport = RecordingTransport(script: [.status(200)])
        let client = makeClient(transport)
        var endpoint = ConstrainedEndpoint()
        endpoint.constraints = [constraint]

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1000 {
                group.addTask { [endpoint] in try await client.enqueue(endpoint).resume().statusCode }
            }
            await constraint.waitForWaiters(1000)
            #expect(await transport.count == 0)
            network.update(.satisfied)
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(statuses.count == 1000 && statuses.allSatisfy { $0 == 200 })
        #expect(await transport.count == 1000)
        #expect(clock.pendingSleepCount == 0)  // every timer cancelled (synchronously, as each call returned)
    }

    @Test("through a client, a call that times out offline fails with the transport error and sends nothing")
    func timedOutCallThroughAClient() async {
        let (network, clock, constraint) = makeConstraint(.unsatisfied, timeout: .seconds(5))
        let transport = RecordingTransport(script: [.status(200)])
        var endpoint = ConstrainedEndpoint()
        endpoint.constraints = [constraint]
        let call = Task { await makeClient(transport).enqueue(endpoint).result() }

        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))

        guard case .failure(.transport(let failure)) = await call.value else {
            Issue.record("expected a transport failure")
            return
        }
        #expect(failure.kind == .cannotConnect)
        #expect(failure.urlError?.code == .notConnectedToInternet)
        #expect(
            "\(CourierError.transport(failure))"
                == "Transport failure: cannotConnect, URLError -1009 (notConnectedToInternet), no usable network path after waiting 5.0 seconds")
        #expect(await transport.count == 0)
        // The abandoned wait let go of the monitor (seen leaking under LeakSanitizer before).
        await constraint.waitUntilRunsReturned()
        #expect(network.monitor.listenerCount == 0)
    }
}

/// An endpoint whose constraints can be set.
private struct ConstrainedEndpoint: Requestable {
    var constraints: [Constraint] = []
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
