import HTTPTypes
import HTTPTypesFoundation

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// One request in flight: the URLSession task, the response head, the body as it arrives, and
/// how it ended.
///
/// The caller waits for the head. A body announced short (``wholeBodyLimit`` bytes or fewer,
/// not encoded) is collected here and handed over whole with the head, which saves the reader a
/// second wait; any other body is handed over at once as a stream (a ``ChunkBuffer``) that this
/// exchange fills and pauses, by suspending the task, when the reader falls behind.
///
/// `@unchecked Sendable` because its mutable state is touched from four places (the delegate
/// queue, the cancellation handler, the deadline scheduler and the body's reader); every access
/// to a `var` below goes through `lock`, and the continuation is resumed exactly once, by
/// whoever takes it out of `continuation` first.
final class Exchange: ChunkProducer, DeadlineExpiring, @unchecked Sendable {
    /// Why the task was stopped before URLSession finished it, if it was.
    enum End: Sendable { case none, cancelled, timedOut, bodyFailed(CourierError), tooLarge(limit: Int) }

    /// The largest announced body collected before the caller gets the head; larger, encoded or
    /// unannounced bodies are streamed.
    static let wholeBodyLimit = 256 << 10

    /// Whether suspending the task pauses the transfer. Not on Linux, where a suspended transfer
    /// never resumes: there a slow reader's backlog goes to disk instead (``ChunkBuffer``).
    #if canImport(FoundationNetworking)
        static let canPauseTransfers = false
    #else
        static let canPauseTransfers = true
    #endif

    /// The streamed body's pump, if the body is streamed; replaced when URLSession asks for the
    /// body again (``replacementBodyStream()``). Under `lock`.
    private var currentPump: BodyPump?
    private var pump: BodyPump? {
        lock.lock()
        defer { lock.unlock() }
        return currentPump
    }
    /// The most body bytes to read (after decompression), if limited.
    private let maximumResponseSize: Int?
    /// Which headers a cross-origin redirect must not carry (see ``RedirectPolicy``).
    let redaction: Redaction
    /// Which redirects the request follows (see ``RedirectPolicy``).
    let redirectMode: RedirectMode
    /// Whether the request is a `HEAD`, whose response has no body whatever its `Content-Length`.
    private let isHead: Bool
    /// The span of the request, when the call is traced: each redirect gets a span of its own.
    let attempt: AttemptTrace?
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var continuation: CheckedContinuation<Completion, Never>?
    private var end = End.none
    /// URLSession has finished the task (``completed(with:)``): it is not cancelled any more.
    private var finished = false
    private var response: HTTPURLResponse?
    private var body = Data()
    /// Body bytes received so far (after decompression).
    private var received = 0
    /// The streamed body's buffer, once the head went out with it. Weak: its reader owns it, and
    /// a reader that drops it stops the transfer.
    private weak var stream: ChunkBuffer?
    private var isStreaming = false
    /// Whether the reader wants the task suspended, and whether it is.
    private var wantsSuspended = false
    private var isSuspended = false
    private var declinedChallenge = false

    /// The URL the caller asked for, reported in failures.
    private let url: URL?
    /// The caller's own `Cookie` value (not the cookie storage's), sent while every redirect hop
    /// stays on the origin; once the redirect policy strips it, it stays stripped. Under `lock`.
    private var ownCookies: String?
    /// The origins the redirect chain has left: a hop back to one gets no stored cookies. Under
    /// `lock`.
    private var leftOrigins: Set<RedirectPolicy.Origin> = []

    init(
        url: URL? = nil, pump: BodyPump? = nil, maximumResponseSize: Int? = nil, redaction: Redaction = .default,
        redirectMode: RedirectMode = .follow, attempt: AttemptTrace? = nil, isHead: Bool = false, ownCookies: String? = nil
    ) {
        self.isHead = isHead
        self.ownCookies = ownCookies
        self.url = url
        self.currentPump = pump
        self.maximumResponseSize = maximumResponseSize
        self.redaction = redaction
        self.redirectMode = redirectMode
        self.attempt = attempt
    }

    /// The `Cookie` value of the redirect hop from `previous` to `next`: the caller's own cookies
    /// unless the redirect policy stripped the field (`keptByPolicy` false: it left the origin,
    /// and they are dropped for good), then `stored()`, the cookie storage's for the hop's URL,
    /// unless the hop returns to an origin the chain has left.
    func redirectCookieHeader(keptByPolicy: Bool, from previous: URL?, to next: URL, stored: () -> String?) -> String? {
        let previousOrigin = previous.flatMap(RedirectPolicy.Origin.init)
        let nextOrigin = RedirectPolicy.Origin(next)
        lock.lock()
        if !keptByPolicy { ownCookies = nil }
        if let previousOrigin, previousOrigin != nextOrigin { leftOrigins.insert(previousOrigin) }
        let returns = nextOrigin.map { leftOrigins.contains($0) } ?? true
        let own = ownCookies
        lock.unlock()
        return CookieJar.header(own: own, stored: returns ? nil : stored())
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
        if let failure = currentPump?.error {
            // The body failed before anything was sent (its stream could not be set up): send
            // nothing rather than a request without its body.
            lock.unlock()
            continuation.resume(returning: Completion(end: .bodyFailed(failure)))
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

    /// The body again, from its start, for URLSession's `urlSession(_:task:needNewBodyStream:)`
    /// (Apple platforms ask for it when they must send the body again, e.g. on a connection that
    /// closed before the request was answered). `nil` when the body is not streamed, cannot be
    /// read twice (``BodyStream/isReplayable``), or the exchange has ended: URLSession then fails
    /// the task with `requestBodyStreamExhausted` (see ``Completion/failure(for:)``).
    func replacementBodyStream() -> InputStream? {
        lock.lock()
        guard case .none = end, let old = currentPump, let fresh = old.restarted() else {
            lock.unlock()
            return nil
        }
        currentPump = fresh
        lock.unlock()
        old.cancel()
        let stream = fresh.makeInputStream()
        fresh.start()
        return stream
    }

    /// Called by the pump when the streamed body fails: the request stops with the body's error.
    func failBody(_ error: CourierError) {
        stop(.bodyFailed(error))
    }

    private func stop(_ reason: End) {
        mark(reason)
        pump?.cancel()
        guard let task = unfinishedTask else { return }
        // A task URLSession has finished is not cancelled: corelibs-foundation's `cancel()` checks
        // the task's state, then reports the cancellation later on its work queue, and crashes
        // when the task has left its registry by then ("Trying to access a behaviour for a task
        // that in not in the registry", Swift 6.3.1). Checked again just before the call, which
        // may run later on the control queue.
        TaskControl.run { [self] in
            if unfinishedTask != nil { task.cancel() }
        }
    }

    /// The task, while URLSession has not finished it.
    private var unfinishedTask: URLSessionDataTask? {
        lock.lock()
        defer { lock.unlock() }
        return finished ? nil : task
    }

    /// Records why the task is being stopped; the first reason wins.
    private func mark(_ reason: End) {
        lock.lock()
        if case .none = end { end = reason }
        lock.unlock()
    }

    /// Takes and releases the exchange's lock, under which the delegate queue made the response
    /// (and its ``ChunkBuffer``), so the caller's reads are ordered after those writes by a lock
    /// as well as by the continuation. The continuation alone is enough for Swift, but
    /// ThreadSanitizer once reported the buffer's initialization racing with its first read
    /// (a URLProtocol stub's response, resumed from a dispatch thread).
    func synchronizeWithDelegate() {
        lock.lock()
        lock.unlock()
    }

    /// Records that the server failed its pin check: the cancellation URLSession reports next
    /// ends the exchange with this failure (Apple platforms, where the trust challenge exists).
    func failPinning(_ failure: PinningFailure) {
        mark(.bodyFailed(.transport(failure.transportFailure(url: url))))
    }

    /// Stops the task with `failure`: a redirect to a pinned host that cannot be checked (Linux).
    /// The exchange ends with this failure, not with the 3xx URLSession delivers before it stops.
    func refuse(_ failure: PinningFailure) {
        stop(.bodyFailed(.transport(failure.transportFailure(url: url))))
    }

    /// Records that the session delegate declined an HTTP authentication challenge, so that the
    /// cancellation URLSession reports next ends the exchange with the 401 already received.
    func declineChallenge() {
        lock.lock()
        declinedChallenge = true
        lock.unlock()
    }

    // MARK: ChunkProducer

    func pauseProducing() { setSuspended(true) }

    func resumeProducing() { setSuspended(false) }

    func stopProducing() { stop(.cancelled) }

    /// Suspends or resumes the task. Applied on one serial queue, each time to the latest wish,
    /// so a pause and a resume asked for in quick succession cannot land in the wrong order and
    /// leave the task suspended for good.
    private func setSuspended(_ suspended: Bool) {
        lock.lock()
        wantsSuspended = suspended
        lock.unlock()
        TaskControl.serialQueue.async { [self] in
            lock.lock()
            let task = self.task
            let wanted = wantsSuspended
            let change = wanted != isSuspended && task != nil
            if change { isSuspended = wanted }
            lock.unlock()
            guard change, let task else { return }
            if wanted { task.suspend() } else { task.resume() }
        }
    }

    // MARK: Delegate callbacks

    func received(_ response: HTTPURLResponse) {
        lock.lock()
        guard !isStreaming else {
            // The head already went out with a stream: a second one cannot be honoured.
            lock.unlock()
            stop(.bodyFailed(.transport(TransportFailure(URLError(.badServerResponse), url: response.url))))
            return
        }
        self.response = response
        body.removeAll(keepingCapacity: true)  // a new response (after a 1xx) starts a new body
        received = 0
        // A HEAD response, and a 1xx, 204 or 304, has no body (RFC 9110 §6.4.1): its
        // `Content-Length` describes another response and is no reason to refuse it.
        let length = isHead || StreamedResponse.carriesNoBody(status: response.statusCode) ? 0 : response.expectedContentLength
        let encoded = response.value(forHTTPHeaderField: "Content-Encoding") != nil
        // Without Content-Encoding the announced length is the body's: refuse it before reading.
        // With one, only the decoded bytes count, so they are counted as they arrive.
        let announcedTooLarge = maximumResponseSize.map { length > $0 && !encoded } ?? false
        var streamed: (ChunkBuffer, CheckedContinuation<Completion, Never>)?
        if announcedTooLarge {
            // Refused below, before a byte is read.
        } else if !encoded, length >= 0, length <= Self.wholeBodyLimit {
            if length > 0 { body.reserveCapacity(Int(length)) }
        } else if let continuation {
            // Streamed: the caller gets the head now and reads the body as it comes.
            let buffer = ChunkBuffer(producer: self, canPause: Self.canPauseTransfers)
            isStreaming = true
            stream = buffer
            self.continuation = nil
            streamed = (buffer, continuation)
        }
        lock.unlock()
        if announcedTooLarge, let maximumResponseSize {
            stop(.tooLarge(limit: maximumResponseSize))
        }
        if let (buffer, continuation) = streamed {
            let announced = !encoded && length >= 0 ? Int(length) : nil
            continuation.resume(returning: Completion(end: .none, response: response, stream: buffer, expectedLength: announced))
        }
    }

    func received(_ data: Data) {
        lock.lock()
        guard case .none = end else {
            lock.unlock()  // stopping: what still arrives is dropped
            return
        }
        if let maximumResponseSize, data.count > maximumResponseSize - received {
            body = Data()
            lock.unlock()
            stop(.tooLarge(limit: maximumResponseSize))
            return
        }
        received += data.count
        guard isStreaming else {
            body.append(data)
            lock.unlock()
            return
        }
        let stream = self.stream
        lock.unlock()
        // No reader any more (it dropped the body): the buffer's deinit has stopped the task.
        stream?.append(data)
    }

    /// Ends the exchange: hands the whole response to the waiting caller, or ends the stream
    /// its reader is reading. Kept minimal because it runs on the delegate queue.
    func completed(with error: (any Error)?) {
        lock.lock()
        finished = true
        lock.unlock()
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
        let stream = isStreaming ? self.stream : nil
        let completion = Completion(
            end: end, response: response, body: body, error: error.map(Completion.Failure.init),
            declinedChallenge: declinedChallenge)
        body = Data()
        lock.unlock()
        continuation?.resume(returning: completion)
        if let stream {
            stream.finish(completion.failure(for: url).map { .failure($0) } ?? .success(()))
        }
    }
}

/// Where URLSession's task methods (`dataTask(with:)`, `resume()`, `cancel()`) are called.
///
/// While any streamed body is in flight, every exchange calls them from one serial queue, so
/// that on Linux, where they block on URLSession's shared work queue, they never hold the
/// cooperative threads a body's producer needs; otherwise they are called directly. Neither a
/// queue per exchange nor a concurrent queue will do (why: `Documentation/LinuxNotes.md`).
///
/// The count is per process, not per transport: corelibs-foundation runs every session's work on
/// one queue, so one transport's streamed body blocks the task calls of all the others.
enum TaskControl {
    private static let queue = DispatchQueue(label: "Courier.URLSessionTransport.control")
    /// The control queue itself, for work that must run in order off the caller's thread (a
    /// streamed response's suspend and resume).
    static var serialQueue: DispatchQueue { queue }
    /// Streamed bodies in flight, in every transport.
    private static let streams = LockedState(0)

    /// Runs `work` on the control queue while streamed bodies are in flight, else at once.
    static func run(_ work: @escaping @Sendable () -> Void) {
        if streams.withLock({ $0 > 0 }) { queue.async(execute: work) } else { work() }
    }

    static func streamStarted() {
        streams.withLock { $0 += 1 }
    }

    static func streamEnded() {
        streams.withLock { $0 -= 1 }
    }
}

/// Lets the body pump, created before the exchange, reach it once it exists.
///
/// `@unchecked Sendable`: `exchange` is written once, before the task starts and so before the
/// pump can call back; reads after that see the written value (the task's start orders them).
final class ExchangeBox: @unchecked Sendable {
    var exchange: Exchange?
}

/// How an exchange ended (or, for a streamed body, how its head arrived), as raw parts;
/// ``outcome(for:)`` turns them into Courier's result.
struct Completion: Sendable {
    /// The error URLSession reported: a `URLError`, or any other error, kept whole.
    enum Failure: Sendable {
        case urlError(URLError)
        case other(any Error)

        init(_ error: any Error) {
            self = (error as? URLError).map(Failure.urlError) ?? .other(error)
        }
    }

    var end: Exchange.End
    var response: HTTPURLResponse?
    var body = Data()
    var error: Failure?
    var declinedChallenge = false
    /// The body's buffer, when the head was handed over before the body arrived.
    var stream: ChunkBuffer?
    /// The announced length of a streamed body.
    var expectedLength: Int?

    func outcome(for url: URL) -> Result<StreamedResponse, CourierError> {
        if let failure = failure(for: url) { return .failure(failure) }
        guard let response, let head = response.httpResponse else {
            return .failure(Self.transportFailure(.badServerResponse, url: url))
        }
        let body = stream.map { ResponseBody(source: $0, expectedLength: expectedLength) } ?? ResponseBody(body)
        // Reported with the URL its body came from (after redirects).
        return .success(StreamedResponse(status: head.status, headers: head.headerFields, body: body, url: response.url ?? url))
    }

    /// What ended the exchange, or `nil` when it ended with a response and its whole body.
    func failure(for url: URL?) -> CourierError? {
        switch end {
        case .cancelled:
            return .cancelled
        case .timedOut:
            return Self.transportFailure(.timedOut, url: url)
        case .tooLarge(let limit):
            return .transport(.responseTooLarge(limit: limit, url: url))
        case .bodyFailed(let error):
            return error
        case .none:
            break
        }
        switch error {
        case .urlError(let urlError)?:
            // A declined authentication challenge ends the task as cancelled, after the whole
            // 401 response has been delivered: that response is the outcome.
            if declinedChallenge, urlError.code == .cancelled, response?.httpResponse != nil { return nil }
            if urlError.code == .requestBodyStreamExhausted {
                return .transport(TransportFailure(kind: .other, urlError: urlError, url: url, message: Self.bodyExhausted))
            }
            return .transport(TransportFailure(urlError, url: url))
        case .other(let error)?:
            return Self.transportFailure(.unknown, url: url, [NSLocalizedDescriptionKey: String(describing: error)], underlyingError: error)
        case nil:
            return stream == nil && response?.httpResponse == nil ? Self.transportFailure(.badServerResponse, url: url) : nil
        }
    }

    /// Why a `requestBodyStreamExhausted` failure happened, for its message.
    static let bodyExhausted =
        "URLSession had to send the request body again (a retried connection or an authentication challenge) and the body is a stream that can be read only once; use a replayable body (Data, a file, or a BodyStream that can make a new reader)"

    /// A transport failure for `code`. The URLError's failing URL ends up in its description:
    /// never user-info, and secret query, fragment and path-parameter values redacted.
    private static func transportFailure(
        _ code: URLError.Code, url: URL?, _ info: [String: any Sendable] = [:], underlyingError: (any Error)? = nil
    ) -> CourierError {
        var userInfo: [String: Any] = [:]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url.redactedForErrors }
        userInfo.merge(info) { $1 }
        var failure = TransportFailure(URLError(code, userInfo: userInfo), url: url)
        failure.underlyingError = underlyingError
        return .transport(failure)
    }
}
