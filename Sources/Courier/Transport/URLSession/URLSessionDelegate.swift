import HTTPTypes
import HTTPTypesFoundation

#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
#else
    import Foundation
#endif

/// The session-level delegate: routes task callbacks to their ``Exchange``.
///
/// `@unchecked Sendable` because `exchanges` is mutated from callers' tasks (register) and the
/// delegate queue (completion); every access goes through `lock`.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var exchanges: [Int: Exchange] = [:]
    private let pinning: PinningPolicy
    /// The session's cookie storage, when cookies are on: every response's `Set-Cookie` is stored
    /// in it, and every redirect hop gets its cookies for the hop's URL.
    private let cookies: CookieJar?

    init(pinning: PinningPolicy, cookies: CookieJar? = nil) {
        self.pinning = pinning
        self.cookies = cookies
    }

    /// The failure for a request to a pinned host where pins cannot be checked (corelibs
    /// URLSession raises no server-trust challenge), or `nil` where they can or need not be.
    static func uncheckablePins(_ pinning: PinningPolicy, for url: URL?) -> PinningFailure? {
        #if canImport(FoundationNetworking)
            guard let host = url?.host, let pins = pinning.pins(for: host) else { return nil }
            return PinningFailure(
                host: PinningPolicy.normalized(host), presented: nil, pins: pins,
                reason: "corelibs URLSession on Linux cannot check pins (it raises no server-trust challenge), so nothing was sent; "
                    + "AsyncHTTPClientTransport checks them")
        #else
            return nil
        #endif
    }

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
            cookies?.store(from: response, mainDocument: dataTask.originalRequest?.url)
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
    /// Nor is one to a pinned host, whose pins cannot be checked there: the call fails with
    /// ``TransportFailure/Kind/pinningFailed``, as a request sent to that host directly does.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        if let failure = Self.uncheckablePins(pinning, for: request.url) {
            // Answer first, then stop the task: stopped before URLSession had its answer, the
            // call sometimes took 5 s more (measured on corelibs 6.3.1). The delegate queue is
            // serial, so no later callback of this task can end the exchange before the refusal.
            completionHandler(nil)
            exchange(for: task)?.refuse(failure)
            return
        }
        // What the 3xx sets is stored first (login → 302 + Set-Cookie → /home), followed or not.
        cookies?.store(from: response, mainDocument: task.originalRequest?.url)
        let redirected = exchange(for: task)
        guard RedirectPolicy.allowsFollowing(from: response.url ?? task.currentRequest?.url, to: request.url),
            RedirectPolicy.canFollow(request, after: task.originalRequest, from: response.url, mode: redirected?.redirectMode ?? .follow)
        else {
            completionHandler(nil)
            return
        }
        var next = RedirectPolicy.request(request, after: task.originalRequest, from: response.url, redaction: redirected?.redaction ?? .default)
        if let cookies, let url = next.url {
            // The hop carries the caller's own cookies only while the policy keeps the field, and the
            // storage's cookies for its own URL (none that the storage would not give that URL),
            // except on a return to an origin the chain has left: there the previous origin chose
            // the path and query, and the session cookie must not make them the user's (as
            // RedirectPolicy keeps credentials stripped).
            let kept = next.value(forHTTPHeaderField: "Cookie") != nil
            let header = redirected?.redirectCookieHeader(
                keptByPolicy: kept, from: response.url ?? task.currentRequest?.url, to: url, stored: { cookies.cookieHeader(for: url) })
            next.setValue(header, forHTTPHeaderField: "Cookie")
        }
        if let attempt = redirected?.attempt, let url = next.url {
            Self.trace(redirect: response, of: attempt, to: &next, url: url)
        }
        completionHandler(next)
    }

    /// Gives URLSession the streamed body again, from its start, when it must send it again (Apple
    /// platforms ask, e.g. for a connection that closed before the request was answered; corelibs
    /// never does). A body that can be read only once gets `nil`: the call then fails with
    /// `requestBodyStreamExhausted` and a message that says why (``Exchange/replacementBodyStream()``).
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        completionHandler(exchange(for: task)?.replacementBodyStream())
    }

    /// Ends the span of the request that got `response` and starts the redirect's, whose trace
    /// context replaces the previous one in `next`.
    private static func trace(redirect response: HTTPURLResponse, of attempt: AttemptTrace, to next: inout URLRequest, url: URL) {
        for field in attempt.redirected(statusCode: response.statusCode, to: url, method: next.httpMethod ?? "GET") {
            next.setValue(field.value.isEmpty ? nil : field.value, forHTTPHeaderField: field.name.rawName)  // empty: the hop gets none
        }
    }

    /// Answers every challenge, so none can hang the task (see the type's documentation).
    /// On Apple platforms, with no credential storage, default handling presents no credential:
    /// a 401 is delivered as a response and server trust is evaluated by the system, then
    /// checked against the host's pins. (Server trust reaches this task-level method because the
    /// session-level one is implemented only on Linux: Apple's URLSession asks the task delegate
    /// for session-wide challenges when the session delegate has no method for them.)
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(Security) && !canImport(FoundationNetworking)
            let space = challenge.protectionSpace
            if space.authenticationMethod == NSURLAuthenticationMethodServerTrust, pinning.pins(for: space.host) != nil {
                // Evaluating trust can fetch OCSP or CRL answers over the network: off the session's
                // one delegate queue, so it never stalls the callbacks of every other task.
                let pinning = self.pinning
                let exchange = exchange(for: task)
                let challenge = HandedOver(challenge)
                DispatchQueue.global(qos: .userInitiated).async {
                    switch pinning.evaluate(challenge.value) {
                    case .notPinned:
                        completionHandler(.performDefaultHandling, nil)
                    case .trusted(let credential):
                        completionHandler(.useCredential, credential)
                    case .refused(let failure):
                        exchange?.failPinning(failure)
                        completionHandler(.cancelAuthenticationChallenge, nil)
                    }
                }
                return
            }
        #endif
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

    #if canImport(FoundationNetworking)
        /// Declines nothing and presents nothing: corelibs raises no session-level challenge that
        /// needs an answer, but one left unanswered would hang.
        func urlSession(
            _ session: URLSession,
            didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            completionHandler(.performDefaultHandling, nil)
        }
    #endif
}

/// A value handed from one thread to a block that runs later on another, and touched by nothing
/// else in between: what makes it safe to send although its type may not be `Sendable` (a
/// `URLAuthenticationChallenge` is, on some platforms' SDKs and not on others).
struct HandedOver<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
