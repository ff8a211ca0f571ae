import CourierTesting
import Foundation
import Testing

@testable import Courier

/// The lifecycle under `Call+Combine.swift`'s publishers (Apple-only, not compiled here):
/// started once on the first demand, cancelled on cancel, one delivery, then nothing.
@Suite("Call publisher subscription lifecycle", .heavy, .timeLimit(.minutes(1)))
struct CallSubscriptionTests {
    /// Outcomes a subscription delivered, in order.
    private final class Deliveries: Sendable {
        private let results = LockedState<[Result<Int, CourierError>]>([])
        let stream: AsyncStream<Result<Int, CourierError>>
        private let continuation: AsyncStream<Result<Int, CourierError>>.Continuation

        init() {
            (stream, continuation) = AsyncStream.makeStream()
        }

        func record(_ result: Result<Int, CourierError>) {
            results.withLock { $0.append(result) }
            continuation.yield(result)
        }

        var all: [Result<Int, CourierError>] { results.withLock { $0 } }

        func next() async -> Result<Int, CourierError>? {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
    }

    /// How many times an operation ran.
    private final class Runs: Sendable {
        private let count = LockedState(0)
        func increment() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    /// Awaits until `object` is gone (its last owner, the subscription's task, has ended), giving
    /// way to other tasks meanwhile. A subscription never released fails the suite's time limit,
    /// not a wall-clock bound of its own, which a busy machine could break.
    private func awaitRelease(_ object: () -> AnyObject?) async {
        while object() != nil {
            await Task.yield()
        }
    }

    @Test func nothingStartsBeforeTheFirstDemand() async throws {
        let runs = Runs()
        let deliveries = Deliveries()
        let subscription = CallSubscription<Int>(
            operation: { () async throws(CourierError) in
                runs.increment()
                return 1
            }, deliver: deliveries.record)
        #expect(!subscription.isRunning)
        #expect(!subscription.hasEnded)
        #expect(runs.value == 0)

        subscription.request()
        #expect(try await deliveries.next()?.get() == 1)
        #expect(runs.value == 1)
        #expect(subscription.hasEnded)
    }

    @Test func concurrentDemandsStartTheCallOnceAndDeliverOnce() async throws {
        let runs = Runs()
        let deliveries = Deliveries()
        let (gate, opened) = AsyncStream.makeStream(of: Void.self)
        let subscription = CallSubscription<Int>(
            operation: { () async throws(CourierError) in
                runs.increment()
                for await _ in gate {}  // held until every demand has been made
                return 42
            }, deliver: deliveries.record)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 {
                group.addTask { subscription.request() }
            }
        }
        #expect(subscription.isRunning)
        opened.finish()
        #expect(try await deliveries.next()?.get() == 42)
        subscription.request()
        weak let released = subscription
        _ = consume subscription
        await awaitRelease { released }
        #expect(runs.value == 1)
        #expect(deliveries.all.count == 1)
    }

    @Test func aFailureIsDeliveredOnceAsTheCourierError() async {
        let deliveries = Deliveries()
        let subscription = CallSubscription<Int>(
            operation: { () async throws(CourierError) in throw .response(Response(statusCode: 503, url: URL(string: "https://api.example.com/")!)) },
            deliver: deliveries.record)
        subscription.request()
        guard case .failure(.response(let response))? = await deliveries.next() else {
            Issue.record("expected the 503")
            return
        }
        #expect(response.statusCode == 503)
        #expect(deliveries.all.count == 1)
    }

    @Test func cancelBeforeTheFirstDemandMeansTheCallNeverStarts() async {
        let runs = Runs()
        let deliveries = Deliveries()
        let subscription = CallSubscription<Int>(
            operation: { () async throws(CourierError) in
                runs.increment()
                return 1
            }, deliver: deliveries.record)
        subscription.cancel()
        subscription.request()
        #expect(!subscription.isRunning)
        #expect(subscription.hasEnded)
        #expect(runs.value == 0)
        #expect(deliveries.all.isEmpty)
    }

    @Test func cancelCancelsTheRequestInFlightAndNothingIsDelivered() async throws {
        let transport = HeldTransport()
        let client = Client(configuration: Configuration(transport: transport))
        let call = client.enqueue(GetSubscribedUser(login: "slow"))
        let deliveries = Deliveries()
        var subscription: CallSubscription<Response>? = CallSubscription(
            operation: { () async throws(CourierError) in try await call.resume() },
            deliver: { deliveries.record($0.map(\.statusCode)) })
        subscription?.request()
        await transport.started.wait()
        subscription?.cancel()
        subscription?.cancel()
        await transport.cancelled.wait()  // the transport saw its task cancelled

        weak let released = subscription
        subscription = nil
        await awaitRelease { released }  // the call's task has ended
        #expect(deliveries.all.isEmpty)
    }

    @Test func theSubscriberIsReleasedOnceDeliveredOrCancelled() async {
        final class Subscriber: Sendable {}
        // Delivered.
        var subscriber: Subscriber? = Subscriber()
        weak let weakSubscriber = subscriber
        let deliveries = Deliveries()
        let delivered = CallSubscription<Int>(
            operation: { () async throws(CourierError) in 1 },
            deliver: { [subscriber] result in
                _ = subscriber
                deliveries.record(result)
            })
        subscriber = nil
        delivered.request()
        _ = await deliveries.next()
        await awaitRelease { weakSubscriber }
        #expect(delivered.hasEnded)

        // Cancelled before it started.
        var other: Subscriber? = Subscriber()
        weak let weakOther = other
        let cancelled = CallSubscription<Int>(operation: { () async throws(CourierError) in 1 }, deliver: { [other] _ in _ = other })
        other = nil
        #expect(weakOther != nil)
        cancelled.cancel()
        #expect(weakOther == nil)
    }

    @Test func cancelRacingCompletionDeliversAtMostOnceEachTime() async {
        let count = 2_000
        let deliveries = (0..<count).map { _ in Deliveries() }
        let subscriptions = deliveries.map { recorder in
            CallSubscription<Int>(operation: { () async throws(CourierError) in 7 }, deliver: recorder.record)
        }
        await withTaskGroup(of: Void.self) { group in
            for subscription in subscriptions {
                group.addTask { subscription.request() }
                group.addTask { subscription.cancel() }
            }
        }
        // Every subscription ended one way or the other; wait for the calls still finishing.
        let weakSubscriptions = subscriptions.map { WeakBox($0) }
        _ = consume subscriptions
        for box in weakSubscriptions {
            await awaitRelease { box.object }
        }
        #expect(deliveries.allSatisfy { $0.all.count <= 1 })
        #expect(deliveries.allSatisfy { $0.all.allSatisfy { (try? $0.get()) == 7 } })
    }

    @Test func thousandsOfSubscriptionsToRealCallsSendOneRequestEach() async throws {
        let transport = RecordingTransport(status: 200, headers: HTTPFields(["Content-Type": "application/json"]), body: Data(#"{"login":"a","id":1}"#.utf8))
        let client = makeClient(transport)
        let count = 1_000
        let (outcomes, continuation) = AsyncStream.makeStream(of: Result<SubscribedUser, CourierError>.self)
        var subscriptions: [CallSubscription<SubscribedUser>] = []
        for index in 0..<count {
            let call = client.enqueue(GetSubscribedUser(login: "u\(index)"))
            let subscription = CallSubscription(
                operation: { () async throws(CourierError) in try await call.resume(expecting: SubscribedUser.self) },
                deliver: { continuation.yield($0) })
            subscription.request()
            subscription.request()
            subscriptions.append(subscription)
        }
        var decoded = 0
        for await outcome in outcomes {
            if try outcome.get().id == 1 { decoded += 1 }
            if decoded == count { break }
        }
        #expect(decoded == count)
        #expect(await transport.count == count)
        #expect(subscriptions.allSatisfy { $0.hasEnded })
    }
}

/// What `thousandsOfSubscriptionsToRealCallsSendOneRequestEach` decodes.
private struct SubscribedUser: Decodable, Sendable {
    var login: String
    var id: Int
}

/// `GET /users/{login}`, without a credential.
private struct GetSubscribedUser: Requestable {
    let login: String
    var requiresAuthorization: Bool { false }
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath(segments: ["users", login]) }
}

/// A weak reference, to await an object's release.
private final class WeakBox {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}

/// A transport that holds every request until its task is cancelled, and says when it started
/// and when it saw the cancellation.
private final class HeldTransport: Transport {
    let started = OneShot()
    let cancelled = OneShot()

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        started.open()
        try? await suspendUntilCancelled()
        cancelled.open()
        throw .cancelled
    }
}

/// A condition opened once and awaited by one task.
private final class OneShot: Sendable {
    private let stream: AsyncStream<Never>
    private let continuation: AsyncStream<Never>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Never.self)
    }

    func open() { continuation.finish() }

    func wait() async {
        for await _ in stream {}
    }
}
