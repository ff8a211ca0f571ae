import HTTPTypes
import HTTPTypesFoundation

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// One request in flight: the URLSession task, the bytes received so far, and how it ended.
///
/// `@unchecked Sendable` because its mutable state is touched from three places (the delegate
/// queue, the cancellation handler and the deadline scheduler); every access to a `var` below
/// goes through `lock`, and the continuation is resumed exactly once, by whoever takes it out
/// of `continuation` first.
final class Exchange: @unchecked Sendable {
    /// Why the task was stopped before URLSession finished it, if it was.
    enum End: Sendable { case none, cancelled, timedOut, bodyFailed(CourierError), tooLarge(limit: Int) }

    /// The streamed body's pump, if the body is streamed.
    private let pump: BodyPump?
    /// The most body bytes to collect (after decompression), if limited.
    private let maximumResponseSize: Int?
    /// Which headers a cross-origin redirect must not carry (see ``RedirectPolicy``).
    let redaction: Redaction
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var continuation: CheckedContinuation<Completion, Never>?
    private var end = End.none
    private var response: HTTPURLResponse?
    private var body = Data()
    private var declinedChallenge = false

    init(pump: BodyPump? = nil, maximumResponseSize: Int? = nil, redaction: Redaction = .default) {
        self.pump = pump
        self.maximumResponseSize = maximumResponseSize
        self.redaction = redaction
    }

    /// Creates and resumes the task, or ends at once if the caller was cancelled before it
    /// started. Runs URLSession's task methods through ``TaskControl``.
    func start(
        _ continuation: CheckedContinuation<Completion, Never>, deadline: DispatchTime,
        makeTask: @escaping @Sendable () -> URLSessionDataTask
    ) {
        lock.lock()
        if case .cancelled = end {
            lock.unlock()
            pump?.cancel()
            continuation.resume(returning: Completion(end: .cancelled))
            return
        }
        self.continuation = continuation
        lock.unlock()
        DeadlineScheduler.shared.add(self, at: deadline)
        if pump != nil { TaskControl.streamStarted() }
        TaskControl.run { [self] in
            let task = makeTask()
            lock.lock()
            self.task = task
            let stopped: Bool
            if case .none = end { stopped = false } else { stopped = true }
            lock.unlock()
            pump?.start()
            task.resume()
            // Stopped (cancelled, timed out) before the task existed: stop it now that it does;
            // URLSession then reports it cancelled and the exchange ends with the reason marked.
            if stopped { task.cancel() }
        }
    }

    /// Stops the task. The pump is stopped first: on Linux a body read may be holding the
    /// session's work queue, which must be free to carry out the cancellation.
    func cancel() {
        stop(.cancelled)
    }

    /// Called by the ``DeadlineScheduler`` when the deadline passes.
    func timeOut() {
        stop(.timedOut)
    }

    /// Called by the pump when the streamed body fails: the request stops with the body's error.
    func failBody(_ error: CourierError) {
        stop(.bodyFailed(error))
    }

    private func stop(_ reason: End) {
        mark(reason)
        pump?.cancel()
        lock.lock()
        let task = self.task
        lock.unlock()
        if let task {
            TaskControl.run { task.cancel() }
        }
    }

    /// Records why the task is being stopped; the first reason wins.
    private func mark(_ reason: End) {
        lock.lock()
        if case .none = end { end = reason }
        lock.unlock()
    }

    /// Records that the session delegate declined an HTTP authentication challenge, so that the
    /// cancellation URLSession reports next ends the exchange with the 401 already received.
    func declineChallenge() {
        lock.lock()
        declinedChallenge = true
        lock.unlock()
    }

    func received(_ response: HTTPURLResponse) {
        lock.lock()
        self.response = response
        body.removeAll(keepingCapacity: true)  // a new response (after a 1xx) starts a new body
        let length = response.expectedContentLength
        // Without Content-Encoding the announced length is the body's: refuse it before reading.
        // With one, only the decoded bytes count, so they are counted as they arrive.
        let announcedTooLarge = maximumResponseSize.map { length > $0 && response.value(forHTTPHeaderField: "Content-Encoding") == nil } ?? false
        if !announcedTooLarge, length > 0, length < min(64 << 20, Int64(maximumResponseSize ?? .max)) {
            body.reserveCapacity(Int(length))
        }
        lock.unlock()
        if announcedTooLarge, let maximumResponseSize {
            stop(.tooLarge(limit: maximumResponseSize))
        }
    }

    func received(_ data: Data) {
        lock.lock()
        guard case .none = end else {
            lock.unlock()  // stopping: what still arrives is dropped
            return
        }
        if let maximumResponseSize, data.count > maximumResponseSize - body.count {
            body = Data()
            lock.unlock()
            stop(.tooLarge(limit: maximumResponseSize))
            return
        }
        body.append(data)
        lock.unlock()
    }

    /// Hands a snapshot to the waiting caller; kept minimal because it runs on the delegate queue.
    func completed(with error: (any Error)?) {
        DeadlineScheduler.shared.remove(self)
        if let pump {
            pump.cancel()
            TaskControl.streamEnded()
        }
        let bodyError = pump?.error
        lock.lock()
        if case .none = end, let bodyError { end = .bodyFailed(bodyError) }
        let continuation = self.continuation
        self.continuation = nil
        let completion = Completion(
            end: end, response: response, body: body, error: error.map(Completion.Failure.init),
            declinedChallenge: declinedChallenge)
        body = Data()
        lock.unlock()
        continuation?.resume(returning: completion)
    }
}

/// Where URLSession's task methods (`dataTask(with:)`, `resume()`, `cancel()`) are called.
///
/// corelibs-foundation runs them synchronously on URLSession's work queue, one serial queue for
/// every session in the process, and that queue waits inside a streamed body's `read` until the
/// body's producer task has bytes. Called from Swift's cooperative pool (two threads on a
/// two-core machine), two such calls could hold every thread the producer needs: a deadlock
/// only a deadline would break.
///
/// So while any streamed body is in flight, every exchange calls them from one serial queue
/// (serial queues always get a thread from libdispatch, and only one thread ever waits there);
/// otherwise they are called directly, as nothing can hold the work queue for long. Not a
/// queue per exchange: a thousand concurrent requests would ask libdispatch for a thousand
/// threads, and not a concurrent queue: on Linux it gets one thread per core, and with those
/// blocked the work queue itself stalls until libdispatch's monitor adds threads (measured:
/// one-second stalls, and a full test run that hung).
enum TaskControl {
    private static let queue = DispatchQueue(label: "Courier.URLSessionTransport.control")
    private static let lock = NSLock()
    nonisolated(unsafe) private static var streams = 0  // guarded by `lock`

    /// Runs `work` on the control queue while streamed bodies are in flight, else at once.
    static func run(_ work: @escaping @Sendable () -> Void) {
        lock.lock()
        let deferred = streams > 0
        lock.unlock()
        if deferred { queue.async(execute: work) } else { work() }
    }

    static func streamStarted() {
        lock.lock()
        streams += 1
        lock.unlock()
    }

    static func streamEnded() {
        lock.lock()
        streams -= 1
        lock.unlock()
    }
}

/// Lets the body pump, created before the exchange, reach it once it exists.
///
/// `@unchecked Sendable`: `exchange` is written once, before the task starts and so before the
/// pump can call back; reads after that see the written value (the task's start orders them).
final class ExchangeBox: @unchecked Sendable {
    var exchange: Exchange?
}

/// How an exchange ended, as raw parts; ``outcome(for:)`` turns them into Courier's result.
struct Completion: Sendable {
    /// The error URLSession reported: a `URLError`, or the description of anything else.
    enum Failure: Sendable {
        case urlError(URLError)
        case other(String)

        init(_ error: any Error) {
            self = (error as? URLError).map(Failure.urlError) ?? .other(String(describing: error))
        }
    }

    var end: Exchange.End
    var response: HTTPURLResponse?
    var body = Data()
    var error: Failure?
    var declinedChallenge = false

    func outcome(for url: URL) -> Result<Response, CourierError> {
        func failure(_ code: URLError.Code, _ info: [String: any Sendable] = [:]) -> Result<Response, CourierError> {
            // The URLError's failing URL ends up in its description: never user-info, and secret
            // query, fragment and path-parameter values redacted.
            var userInfo: [String: Any] = [NSURLErrorFailingURLErrorKey: url.redactedForErrors]
            userInfo.merge(info) { $1 }
            return .failure(.transport(TransportFailure(URLError(code, userInfo: userInfo), url: url)))
        }
        switch end {
        case .cancelled:
            return .failure(.cancelled)
        case .timedOut:
            return failure(.timedOut)
        case .tooLarge(let limit):
            return .failure(.transport(.responseTooLarge(limit: limit, url: url)))
        case .bodyFailed(let error):
            return .failure(error)
        case .none:
            break
        }
        switch error {
        case .urlError(let urlError)?:
            // A declined authentication challenge ends the task as cancelled, after the whole
            // 401 response has been delivered: that response is the outcome.
            if declinedChallenge, urlError.code == .cancelled, let response = success(url) { return response }
            return .failure(.transport(TransportFailure(urlError, url: url)))
        case .other(let description)?:
            return failure(.unknown, [NSLocalizedDescriptionKey: description])
        case nil:
            return success(url) ?? failure(.badServerResponse)
        }
    }

    /// The response, reported with the URL its body came from (after redirects).
    private func success(_ url: URL) -> Result<Response, CourierError>? {
        guard let response, let head = response.httpResponse else { return nil }
        return .success(Response(status: head.status, headers: head.headerFields, body: body, url: response.url ?? url))
    }
}
