import Courier

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The URLProtocol that answers every request of a stubbed session from its ``NetworkStub``.
///
/// **How a request finds its stub.** Each `NetworkStub` gets its own subclass,
/// `TaggedStubURLProtocol<Tag>`, whose type encodes the stub's id (see ``StubTag``), and puts
/// only that class in the `protocolClasses` of the configurations it hands out. URLSession asks
/// that class, so `stubID` names the stub without anything being added to the request.
/// A header set through `httpAdditionalHeaders` cannot carry the id: on Linux the request a
/// URLProtocol sees does not contain the session's additional headers.
///
/// **Threads.** An immediate answer is delivered inside ``startLoading()``. A delayed answer is
/// scheduled with `asyncAfter`, never by sleeping, and ``stopLoading()`` cancels it. On Linux it
/// is delivered on the task's own work queue, the serial queue URLSession calls `startLoading`
/// and `stopLoading` on: corelibs-foundation requires client calls to run there (its task
/// registry is not locked) and crashes when the client is called after the task has ended.
class StubURLProtocol: URLProtocol {
    /// The id of the stub this class answers for; `0`, which no stub has, for the base class.
    class var stubID: UInt64 { 0 }

    private let pending = PendingDelivery()

    override class func canInit(with request: URLRequest) -> Bool {
        true  // every request of a stubbed session is answered by the stub; none reaches the network
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override func startLoading() {
        let recorded = RecordedRequest(request)
        let response: StubResponse
        if let storage = StubRegistry.shared.storage(for: type(of: self).stubID) {
            response = storage.respond(to: recorded) ?? Self.unmatched(recorded)
        } else {
            response = Self.released(recorded)
        }
        guard let delay = response.delay, delay > .zero else {
            deliver(response)
            return
        }
        let delivery = ScheduledDelivery(urlProtocol: self, response: response)
        let item = DispatchWorkItem { delivery.fire() }
        guard pending.schedule(item) else { return }
        Self.deliveryQueue(for: task).asyncAfter(deadline: .now() + min(max(delay.timeInterval, 0), 3e9), execute: item)
    }

    override func stopLoading() {
        pending.stop()
    }

    /// Delivers a delayed response unless ``stopLoading()`` has run.
    fileprivate func fireScheduled(_ response: StubResponse) {
        guard pending.finish() else { return }
        deliver(response)
    }

    /// Hands `response` to the client: a response, its body and the end, or an error.
    private func deliver(_ response: StubResponse) {
        guard let client else { return }
        let url = request.url ?? URL(fileURLWithPath: "/")
        if let error = response.error {
            client.urlProtocol(self, didFailWithError: error)
            return
        }
        guard (100...599).contains(response.statusCode),
            let head = HTTPURLResponse(
                url: url, statusCode: response.statusCode,
                httpVersion: "HTTP/1.1", headerFields: response.headers.foundationHeaders)
        else {
            let message = "CourierTesting: the stubbed status code \(response.statusCode) is not in 100–599"
            client.urlProtocol(
                self,
                didFailWithError: URLError(
                    .badServerResponse,
                    userInfo: [
                        NSURLErrorFailingURLErrorKey: url, NSLocalizedDescriptionKey: message,
                    ]))
            return
        }
        client.urlProtocol(self, didReceive: head, cacheStoragePolicy: .notAllowed)
        if !response.body.isEmpty {
            client.urlProtocol(self, didLoad: response.body)  // in one piece: Linux keeps only the last chunk for completion-handler tasks
        }
        client.urlProtocolDidFinishLoading(self)
    }

    /// The documented answer when no route matches: `501 Not Implemented`, naming the request
    /// (its URL with secret query items redacted).
    static func unmatched(_ request: RecordedRequest) -> StubResponse {
        .text(
            "CourierTesting: no stub matches \(request.method) \(Redaction.default.redact(url: request.url))",
            status: 501, headers: [.courierStub: "unmatched"])
    }

    /// The answer for a session whose ``NetworkStub`` no longer exists.
    static func released(_ request: RecordedRequest) -> StubResponse {
        .text(
            "CourierTesting: the NetworkStub of this session was released before \(request.method) \(request.url.absoluteString); keep a reference to it while its transport is in use",
            status: 501, headers: [.courierStub: "released"])
    }

    /// Where delayed responses are delivered (see the type's documentation).
    private static func deliveryQueue(for task: URLSessionTask?) -> DispatchQueue {
        #if canImport(FoundationNetworking)
            if let task, let queue = workQueue(of: task) { return queue }
        #endif
        return fallbackQueue
    }

    private static let fallbackQueue = DispatchQueue(label: "CourierTesting.StubURLProtocol.delivery")

    #if canImport(FoundationNetworking)
        /// The internal `workQueue` of a corelibs-foundation task, found by reflection because it is
        /// not public; `nil` if a later Foundation renames it (delivery then uses a private queue).
        private static func workQueue(of task: URLSessionTask) -> DispatchQueue? {
            var mirror: Mirror? = Mirror(reflecting: task)
            while let current = mirror {
                for child in current.children where child.label == "workQueue" {
                    return child.value as? DispatchQueue
                }
                mirror = current.superclassMirror
            }
            return nil
        }
    #endif
}

/// The state of a delayed delivery: scheduled, stopped, or done.
///
/// `@unchecked Sendable` because `startLoading`, `stopLoading` and the timer may run on
/// different threads; `item` and `isOver` are only accessed between `lock.lock()` and
/// `lock.unlock()` below.
private final class PendingDelivery: @unchecked Sendable {
    private let lock = NSLock()
    private var item: DispatchWorkItem?
    private var isOver = false

    /// Remembers `item` so that ``stop()`` can cancel it; `false` if loading was already stopped.
    func schedule(_ item: DispatchWorkItem) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !isOver else { return false }
        self.item = item
        return true
    }

    /// Called by the timer: `true` if the response may still be delivered, and from now on
    /// nothing else will be.
    func finish() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !isOver else { return false }
        isOver = true
        item = nil
        return true
    }

    /// Called by `stopLoading`: cancels a scheduled delivery.
    func stop() {
        lock.lock()
        isOver = true
        let item = self.item
        self.item = nil
        lock.unlock()
        item?.cancel()
    }
}

/// A URLProtocol and the response it will deliver, carried to the delivery queue.
///
/// `@unchecked Sendable` because `URLProtocol` is not `Sendable`. The protocol object is used
/// from one place only, ``StubURLProtocol/fireScheduled(_:)`` on the delivery queue, and does
/// nothing there once `stopLoading` has run (``PendingDelivery`` decides under its lock). On
/// Linux that queue is the one URLSession itself calls the protocol on, so the calls are
/// serialised with URLSession's; on Apple platforms the client is called from a private serial
/// queue, as URLProtocol stubs commonly do.
private final class ScheduledDelivery: @unchecked Sendable {
    private let urlProtocol: StubURLProtocol
    private let response: StubResponse

    init(urlProtocol: StubURLProtocol, response: StubResponse) {
        self.urlProtocol = urlProtocol
        self.response = response
    }

    func fire() {
        urlProtocol.fireScheduled(response)
    }
}

/// A stub's URLProtocol class: a distinct type for every stub id (see ``StubTag``).
final class TaggedStubURLProtocol<Tag: StubTag>: StubURLProtocol {
    override class var stubID: UInt64 { Tag.id }
}

/// A type-level encoding of a stub id, so that every stub gets its own URLProtocol class.
///
/// An id is written in binary from its leading 1 bit: ``StubTagRoot`` is 1, `StubTagZero<P>` is
/// `P.id * 2`, `StubTagOne<P>` is `P.id * 2 + 1`. Id 6 (binary 110) is
/// `StubTagZero<StubTagOne<StubTagRoot>>`. The runtime creates each generic type once, and
/// every id's prefixes are smaller ids, so each new stub adds one tag type and one class.
protocol StubTag {
    static var id: UInt64 { get }
}

enum StubTagRoot: StubTag {
    static var id: UInt64 { 1 }
}

enum StubTagZero<Prefix: StubTag>: StubTag {
    static var id: UInt64 { Prefix.id << 1 }
}

enum StubTagOne<Prefix: StubTag>: StubTag {
    static var id: UInt64 { Prefix.id << 1 | 1 }
}

extension StubURLProtocol {
    /// The URLProtocol class of stub `id` (at least 1); its `stubID` is `id`.
    static func protocolClass(for id: UInt64) -> URLProtocol.Type {
        var tag: any StubTag.Type = StubTagRoot.self
        let bitCount = UInt64.bitWidth - id.leadingZeroBitCount
        for shift in stride(from: bitCount - 2, through: 0, by: -1) {
            tag = (id >> UInt64(shift)) & 1 == 1 ? appendingOne(to: tag) : appendingZero(to: tag)
        }
        return protocolClass(tag)
    }

    private static func appendingZero<Prefix: StubTag>(to prefix: Prefix.Type) -> any StubTag.Type {
        StubTagZero<Prefix>.self
    }

    private static func appendingOne<Prefix: StubTag>(to prefix: Prefix.Type) -> any StubTag.Type {
        StubTagOne<Prefix>.self
    }

    private static func protocolClass<Tag: StubTag>(_ tag: Tag.Type) -> URLProtocol.Type {
        TaggedStubURLProtocol<Tag>.self
    }
}

extension Duration {
    /// The duration in (fractional) seconds, for `DispatchTime` arithmetic (callers bound it to
    /// about 95 years, as Courier bounds every wait it hands to Dispatch).
    var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
