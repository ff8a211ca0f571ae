import HTTPTypes
import HTTPTypesFoundation

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// The default ``Transport``: URLSession, on Apple platforms and on Linux (libcurl).
///
/// Each transport owns one `URLSession` with a session-level delegate that
/// - answers every authentication challenge, never with a stored credential: Courier attaches
///   credentials itself, only where they belong. On Linux (Swift 6.3.1) a 401 carrying
///   `WWW-Authenticate: Basic realm=…` raises a challenge that hangs the task forever unless it
///   is declined; Courier declines it and returns the 401 it already received;
/// - collects the response, so that cancelling the calling `Task` cancels the URLSession task
///   and the connection stops on both platforms;
/// - enforces the request's timeout with Courier's own deadline, to the millisecond (Linux
///   URLSession truncates timeouts to whole seconds, so 1.5 s acts as 1 s and 0.5 s fails at once).
///
/// ```swift
/// let transport = URLSessionTransport()                       // URLSessionConfiguration.default
/// let config = URLSessionConfiguration.ephemeral
/// config.httpMaximumConnectionsPerHost = 8
/// let client = Client(configuration: Configuration(transport: URLSessionTransport(configuration: config)))
/// ```
///
/// Keep one transport per configuration and share it: each owns a connection pool.
public final class URLSessionTransport: Transport {
    /// The session requests go through.
    public let session: URLSession
    private let delegate: SessionDelegate

    /// Creates a transport with its own session.
    /// - Parameters:
    ///   - configuration: copied; `urlCredentialStorage` is set to `nil` so URLSession never
    ///     attaches a stored credential on its own.
    ///   - keepsURLCache: whether to keep the configuration's `urlCache`. Off by default: API
    ///     responses (often personal, often authenticated) then never land in a disk cache, and
    ///     on Linux every request skips a cache lookup that costs 10–20 % of URLSession's CPU
    ///     time per request (measured in `Benchmarks/`). Turn it on for HTTP caching.
    public init(configuration: URLSessionConfiguration = .default, keepsURLCache: Bool = false) {
        let configuration = configuration.copy() as? URLSessionConfiguration ?? .default
        configuration.urlCredentialStorage = nil
        if !keepsURLCache {
            configuration.urlCache = nil
        }
        let delegate = SessionDelegate()
        let queue = OperationQueue()
        queue.name = "Courier.URLSessionTransport"
        queue.maxConcurrentOperationCount = 1
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// `true`: URLSession decodes gzip bodies on every platform (libcurl on Linux).
    public var decodesGzip: Bool { true }

    /// Sends the request through URLSession.
    /// - Throws: ``CourierError/transport(_:)`` keeping the `URLError`; ``CourierError/cancelled``
    ///   when the calling task is cancelled; ``CourierError/invalidRequest(_:)`` if the request
    ///   cannot be expressed as a `URLRequest`.
    public func send(_ request: TransportRequest) async throws(CourierError) -> Response {
        if Task.isCancelled { throw .cancelled }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.head.method.rawValue
        for field in request.head.headerFields where field.name != .cookie {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        // URLRequest folds repeated fields with ", ", which splits or corrupts cookie values;
        // several Cookie fields become one, joined with "; " (RFC 6265 §5.4).
        let cookies = request.head.headerFields[values: .cookie]
        if !cookies.isEmpty {
            urlRequest.setValue(cookies.joined(separator: "; "), forHTTPHeaderField: "Cookie")
        }
        // URLSession's own timeout is an idle timeout, and on Linux it is truncated to whole
        // seconds; round up so it never fires before Courier's own deadline does.
        let seconds = request.timeout.timeInterval
        urlRequest.timeoutInterval = max(1, seconds.rounded(.up))
        let exchangeBox = ExchangeBox()
        var pump: BodyPump?
        switch request.body {
        case .data(let data)?:
            urlRequest.httpBody = data
        case .stream(let stream)?:
            // A known length is sent as Content-Length, whatever the endpoint's headers say.
            if let length = stream.length {
                urlRequest.setValue(String(length), forHTTPHeaderField: "Content-Length")
                #if canImport(FoundationNetworking)
                    // corelibs gives libcurl an unknown size for every body stream, so libcurl adds
                    // `Transfer-Encoding: chunked` next to our Content-Length (both headers, chunked
                    // framing: RFC 9112 §6.2 forbids it and strict servers drop the connection). A
                    // blank custom header is libcurl's way to remove its own one, and it then sends the
                    // bytes as they are (measured with curl 7.88.1).
                    urlRequest.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
                #endif
            }
            let bodyPump = BodyPump(stream: stream) { [weak exchangeBox] error in
                exchangeBox?.exchange?.failBody(error)
            }
            urlRequest.httpBodyStream = bodyPump.makeInputStream()
            pump = bodyPump
        case nil:
            break
        }

        let exchange = Exchange(pump: pump, maximumResponseSize: request.maximumResponseSize, redaction: request.redaction)
        exchangeBox.exchange = exchange
        let session = self.session
        let delegate = self.delegate
        let completion = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchange.start(continuation, deadline: .now() + seconds) { [urlRequest] in
                    let task = session.dataTask(with: urlRequest)
                    delegate.register(exchange, for: task)
                    return task
                }
            }
        } onCancel: {
            exchange.cancel()
        }
        // Built here, not on the delegate queue every request of the session funnels through.
        return try completion.outcome(for: request.url).get()
    }
}

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

/// The session-level delegate: routes task callbacks to their ``Exchange``.
///
/// `@unchecked Sendable` because `exchanges` is mutated from callers' tasks (register) and the
/// delegate queue (completion); every access goes through `lock`.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var exchanges: [Int: Exchange] = [:]

    func register(_ exchange: Exchange, for task: URLSessionTask) {
        lock.lock()
        exchanges[task.taskIdentifier] = exchange
        lock.unlock()
    }

    private func exchange(for task: URLSessionTask, removing: Bool = false) -> Exchange? {
        lock.lock()
        defer { lock.unlock() }
        return removing ? exchanges.removeValue(forKey: task.taskIdentifier) : exchanges[task.taskIdentifier]
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let response = response as? HTTPURLResponse {
            exchange(for: dataTask)?.received(response)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.received(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        exchange(for: task, removing: true)?.completed(with: error)
    }

    /// Follows the redirect, without `Authorization`, `Proxy-Authorization`, `Cookie` or any
    /// other secret header once it leaves the origin of the request the caller sent (see
    /// ``RedirectPolicy``); never from `https` to `http`: the 3xx is then the response.
    ///
    /// This must be the session delegate's method: on Linux (corelibs-foundation) a task delegate
    /// is never asked about redirects, and without this method the redirected request carries
    /// every header of the original one, credentials included, to whatever host `Location` names.
    ///
    /// On Linux a redirect that would send the body again is not followed, because URLSession
    /// would send it empty (``RedirectPolicy/canFollow(_:dropsBodies:)``): the 3xx is the response.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard RedirectPolicy.allowsFollowing(from: response.url ?? task.currentRequest?.url, to: request.url),
            RedirectPolicy.canFollow(request)
        else {
            completionHandler(nil)
            return
        }
        let redaction = exchange(for: task)?.redaction ?? .default
        completionHandler(RedirectPolicy.request(request, after: task.originalRequest, from: response.url, redaction: redaction))
    }

    /// Answers every challenge, so none can hang the task (see the type's documentation).
    /// On Apple platforms, with no credential storage, default handling presents no credential:
    /// a 401 is delivered as a response and server trust is evaluated by the system.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
            // corelibs-foundation 6.3.1 raises this challenge for a 401 with `WWW-Authenticate: Basic
            // realm=…` only after the response and its whole body were delivered, and then does
            // nothing at all for `.performDefaultHandling` without a proposed credential: the task
            // never ends. Declining ends it (as cancelled); the exchange turns that into the 401.
            if challenge.failureResponse is HTTPURLResponse, let exchange = exchange(for: task) {
                exchange.declineChallenge()
                completionHandler(.cancelAuthenticationChallenge, nil)
                return
            }
        #endif
        completionHandler(.performDefaultHandling, nil)
    }

    func urlSession(
        _ session: URLSession,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        completionHandler(.performDefaultHandling, nil)
    }
}

extension URLSessionTransport {
    /// A transport over `URLSessionConfiguration.default`, shared by every ``Configuration``
    /// that does not name its own.
    public static let shared = URLSessionTransport()
}
