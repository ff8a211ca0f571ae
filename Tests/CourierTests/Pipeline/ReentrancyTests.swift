import Foundation
import Testing

@testable import Courier

/// Calls into the client from places that would wait for themselves fail at once instead of
/// hanging: every test here hung forever before the check existed (hence the time limit).
@Suite("Pause and drain: what would wait for itself fails at once", .timeLimit(.minutes(1)))
struct ReentrancyTests {
    private struct Endpoint: Requestable {
        var middleware: [any Middleware] = []
        var constraints: [Constraint] = []
        var requiresAuthorization: Bool { false }
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    }

    /// A middleware that asks the client it runs in for an exclusive action.
    private struct ExclusiveFromMiddleware: Middleware {
        let client: @Sendable () -> Client
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            do {
                _ = try await client().runExclusively { 1 }
            } catch let error as CourierError {
                throw error
            } catch {
                Issue.record("unexpected \(error)")
            }
            return try await next(request)
        }
    }

    private final class ClientBox: Sendable {
        nonisolated(unsafe) var client: Client?
    }

    private static func isWouldDeadlock(_ error: any Error) -> Bool {
        guard case .invalidRequest(.wouldDeadlock(let reason))? = error as? CourierError else { return false }
        return !reason.isEmpty
    }

    @Test func runExclusivelyFromAMiddlewareOfACallInFlightThrowsInsteadOfWaitingForItself() async throws {
        let transport = RecordingTransport()
        let box = ClientBox()
        let client = makeClient(transport)
        box.client = client
        let endpoint = Endpoint(middleware: [ExclusiveFromMiddleware { box.client! }])
        await #expect { _ = try await client.enqueue(endpoint).resume() } throws: { Self.isWouldDeadlock($0) }
        #expect(await transport.count == 0)
        // The client is not left paused or with a call counted in flight.
        #expect(await client.isPausedForTests == false)
        _ = try await client.enqueue(Endpoint()).resume()
        #expect(try await client.runExclusively { 42 } == 42)
    }

    @Test func runExclusivelyFromAConstraintsSatisfyThrowsInsteadOfWaitingForItself() async throws {
        let transport = RecordingTransport()
        let box = ClientBox()
        let client = makeClient(transport)
        box.client = client
        let constraint = Constraint(name: "session", isSatisfied: { false }) {
            _ = try await box.client!.runExclusively { 1 }
        }
        await #expect { _ = try await client.enqueue(Endpoint(constraints: [constraint])).resume() } throws: { error in
            guard case .constraint(let failure)? = error as? CourierError,
                case .satisfyFailed(let underlying) = failure.reason
            else { return false }
            return Self.isWouldDeadlock(underlying)
        }
        #expect(await transport.count == 0)
    }

    @Test func aNestedRunExclusivelyThrowsAndTheOuterActionStillCompletes() async throws {
        let client = makeClient(RecordingTransport())
        let outcome = try await client.runExclusively { () async -> Bool in
            do {
                _ = try await client.runExclusively { 1 }
                return false
            } catch {
                return Self.isWouldDeadlock(error)
            }
        }
        #expect(outcome)
        #expect(await client.isPausedForTests == false)
    }

    @Test func aCallThroughTheClientFromItsOwnExclusiveActionThrows() async throws {
        let transport = RecordingTransport()
        let client = makeClient(transport)
        let outcome = try await client.runExclusively { () async -> Bool in
            do {
                _ = try await client.enqueue(Endpoint()).resume()
                return false
            } catch {
                return Self.isWouldDeadlock(error)
            }
        }
        #expect(outcome)
        #expect(await transport.count == 0)
        // Another client is fine inside the action, and so is this one afterwards.
        let other = makeClient(transport)
        _ = try await client.runExclusively { try await other.enqueue(Endpoint()).resume() }
        _ = try await client.enqueue(Endpoint()).resume()
        #expect(await transport.count == 2)
    }

    @Test func anotherClientsExclusiveActionMayRunFromAMiddleware() async throws {
        let transport = RecordingTransport()
        let other = makeClient(transport)
        let client = makeClient(transport)
        let endpoint = Endpoint(middleware: [ExclusiveFromMiddleware { other }])
        _ = try await client.enqueue(endpoint).resume()
        #expect(await transport.count == 1)
    }

    // MARK: - The gate's bookkeeping

    /// A continuation of a task that waits to be admitted, and that task.
    private static func heldCall() async -> (CheckedContinuation<CallGate.Admission, Never>, Task<CallGate.Admission, Never>) {
        let (stream, yielder) = AsyncStream.makeStream(of: CheckedContinuation<CallGate.Admission, Never>.self)
        let waiter = Task { await withCheckedContinuation { yielder.yield($0) } }
        var iterator = stream.makeAsyncIterator()
        return (await iterator.next()!, waiter)
    }

    /// The id the gate hands a call that arrives while it is paused.
    private static func holdID(_ gate: inout CallGate) -> UInt64? {
        guard case .mustHold(let id) = gate.arrive() else { return nil }
        return id
    }

    /// Ends the exclusive action and resumes the calls it releases, as the client does.
    private static func finishExclusive(_ gate: inout CallGate) {
        guard case .admit(let calls) = gate.finishExclusive() else { return }
        for call in calls { call.resume(returning: .admitted) }
    }

    @Test func aCancellationThatArrivesAfterTheCallWasReleasedIsNotRemembered() async throws {
        var gate = CallGate()
        await withCheckedContinuation { gate.requestExclusive($0)?.resume() }
        let id = try #require(Self.holdID(&gate))
        let (continuation, waiter) = await Self.heldCall()
        #expect(gate.hold(id, continuation) == nil)
        Self.finishExclusive(&gate)  // releases the call
        #expect(await waiter.value == .admitted)
        #expect(gate.cancel(id) == nil)  // its task's cancellation handler ran late
        #expect(gate.pendingCancellationCount == 0)
        #expect(gate.inFlight == 1)
    }

    @Test func heldCallsAreQueuedInArrivalOrderAndACancelledOneLeavesItsPlace() async throws {
        var gate = CallGate()
        await withCheckedContinuation { gate.requestExclusive($0)?.resume() }
        var ids: [UInt64] = []
        var waiters: [Task<CallGate.Admission, Never>] = []
        for _ in 1...5 {
            let id = try #require(Self.holdID(&gate))
            let (continuation, waiter) = await Self.heldCall()
            #expect(gate.hold(id, continuation) == nil)
            ids.append(id)
            waiters.append(waiter)
        }
        #expect(gate.heldIDs == ids)
        gate.cancel(ids[2])?.resume(returning: .cancelled)
        #expect(gate.heldIDs == [ids[0], ids[1], ids[3], ids[4]])
        Self.finishExclusive(&gate)
        #expect(gate.heldIDs.isEmpty && gate.inFlight == 4)
        var admissions: [CallGate.Admission] = []
        for waiter in waiters { admissions.append(await waiter.value) }
        #expect(admissions == [.admitted, .admitted, .cancelled, .admitted, .admitted])
    }

    @Test func aCancellationBeforeTheCallIsHeldStillTurnsItAway() async throws {
        var gate = CallGate()
        await withCheckedContinuation { gate.requestExclusive($0)?.resume() }
        let id = try #require(Self.holdID(&gate))
        #expect(gate.cancel(id) == nil)
        #expect(gate.pendingCancellationCount == 1)
        let admission = await withCheckedContinuation { continuation in
            if let now = gate.hold(id, continuation) { continuation.resume(returning: now) }
        }
        #expect(admission == .cancelled)
        #expect(gate.pendingCancellationCount == 0)
    }

    @Test("1,000 held calls cancelled while they are released leave no cancellation behind")
    func cancellationsRacingTheReleaseLeaveNothingBehind() async throws {
        let transport = RecordingTransport()
        let client = makeClient(transport)
        let (released, release) = AsyncStream.makeStream(of: Never.self)
        let exclusive = Task { try await client.runExclusively { for await _ in released {} } }
        while await !client.isPausedForTests { await Task.yield() }
        let calls = (0..<1_000).map { _ in Task { try? await client.enqueue(Endpoint()).resume() } }
        while await client.heldCallCount < 1_000 { await Task.yield() }
        release.finish()
        for call in calls { call.cancel() }
        try await exclusive.value
        for call in calls { _ = await call.value }
        // Every cancellation has run once every call has ended and the client is idle again.
        _ = try await client.runExclusively { () }
        #expect(await client.pendingCancellationCountForTests == 0)
    }
}
