import HTTPTypes
import HTTPTypesFoundation

#if canImport(FoundationNetworking)
    package import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// The default ``Transport``: URLSession, on Apple platforms and on Linux (libcurl).
///
/// Each transport owns one `URLSession`; keep one per configuration and share it. It never
/// answers an authentication challenge with a stored credential (a 401 is the response),
/// streams the body through a bounded buffer, stops the task when the call or its body is
/// cancelled or passes ``TransportRequest/maximumResponseSize``, and enforces each request's
/// timeout. Public-key pins (``PinningPolicy``) are checked on Apple platforms; on Linux a pinned
/// host is never contacted: its calls fail with ``TransportFailure/Kind/pinningFailed``.
///
/// ```swift
/// let config = URLSessionConfiguration.ephemeral
/// config.httpMaximumConnectionsPerHost = 8
/// let client = Client(configuration: Configuration(transport: URLSessionTransport(configuration: config)))
/// ```
public final class URLSessionTransport: Transport {
    // The session-level delegate hands the head over as soon as it arrives, with the body
    // streaming through a ChunkBuffer (a body announced at 256 KiB or less comes whole, with the
    // head): past 1 MiB unread, the task is suspended on Apple platforms; on Linux, where URLSession
    // cannot pause a transfer, the backlog goes to an unlinked temporary file. The request's timeout
    // is Courier's own deadline, to the millisecond, on Linux too. On Linux use
    // AsyncHTTPClientTransport (Linux's default) for pinning: corelibs raises no server-trust
    // challenge.

    /// The session requests go through.
    package let session: URLSession
    /// The hosts whose server keys are pinned.
    package let pinning: PinningPolicy
    private let delegate: SessionDelegate
    /// The storage whose cookies Courier attaches itself (see ``init(configuration:keepsURLCache:pinning:)``).
    private let cookieStorage: CookieJar?
    /// Whether the configuration was a background one, which this transport refuses.
    private let isBackgroundConfiguration: Bool

    /// Creates a transport with its own session, made from a copy of `configuration` (the
    /// object you pass is never changed).
    ///
    /// Courier's copy attaches no stored credentials, has no `urlCache` unless `keepsURLCache`,
    /// leaves timeouts to ``Configuration/timeout``, and uses Courier's delegate. A background
    /// configuration (one with an `identifier`) is refused: every call fails with
    /// ``CourierError/transport(_:)`` of kind ``TransportFailure/Kind/other``. Documentation/Transports.md
    /// lists what each setting does on each platform.
    /// - Parameters:
    ///   - configuration: the session's settings; copied.
    ///   - keepsURLCache: whether to keep the configuration's `urlCache` (off by default; for HTTP
    ///     caching set ``Configuration/cache``, which works on every transport).
    ///   - pinning: public-key pins per host, checked in the server-trust challenge on Apple
    ///     platforms; on Linux a pinned host is refused.
    public init(configuration: URLSessionConfiguration = .default, keepsURLCache: Bool = false, pinning: PinningPolicy = .none) {
        // What the copy changes, and why (the Transports guide has the same table for users):
        // no `urlCredentialStorage` (Courier attaches credentials itself, only where they belong); no
        // `urlCache` unless `keepsURLCache` (API responses are often personal, and requests skip the
        // cache lookup); a one-week `timeoutIntervalForRequest` (each call carries its own timeout, which
        // a shorter session value would override on Apple platforms); Courier's delegate (redirect
        // policy, authentication challenges, streaming). Courier attaches the cookies of
        // `httpCookieStorage` itself, so a request's own `Cookie` header is kept next to them, and
        // Configuration.cache keys responses by the cookies sent. Background sessions do not run the
        // data tasks this transport uses. Where `httpAdditionalHeaders` and the request name the same
        // header, the request's value wins. On Linux the proxy, resource-timeout, network-access,
        // service-type and TLS-version settings have no effect (set `http_proxy`, `https_proxy` and
        // `no_proxy` for a proxy). While a client's Configuration.cache is set, its requests are sent
        // with `reloadIgnoringLocalCacheData`: `URLCache` may store their responses but never answers
        // them (one cache decides, and a `.reload` or a revalidation reaches the network).
        let settings = SessionSettings(configuration, keepsURLCache: keepsURLCache)
        let delegate = SessionDelegate(pinning: pinning, cookies: settings.cookieStorage)
        self.pinning = pinning
        self.cookieStorage = settings.cookieStorage
        self.isBackgroundConfiguration = settings.isBackground
        let queue = OperationQueue()
        queue.name = "Courier.URLSessionTransport"
        queue.maxConcurrentOperationCount = 1
        self.delegate = delegate
        self.session = URLSession(configuration: settings.configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// `true`: URLSession decodes gzip bodies on every platform (libcurl on Linux).
    public var decodesGzip: Bool { true }

    /// Sends the request through URLSession and returns once the response head has arrived; the
    /// body streams (errors after the head, a timeout included, are thrown by its reader).
    /// - Throws: ``CourierError/transport(_:)`` keeping the `URLError` (kind
    ///   ``TransportFailure/Kind/pinningFailed`` for a pinned host whose key matched no pin, and
    ///   for every pinned host on Linux); ``CourierError/cancelled``
    ///   when the calling task is cancelled; ``CourierError/invalidRequest(_:)`` if the request
    ///   cannot be expressed as a `URLRequest`.
    public func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        if Task.isCancelled { throw .cancelled }
        // A head that makes no URL: the client never sends one; another caller might.
        guard let url = request.resolvedURL else { throw RequestBuilder.invalidURL(request) }
        if isBackgroundConfiguration {
            throw .transport(TransportFailure(kind: .other, url: url, message: SessionSettings.backgroundRefusal))
        }
        if let failure = SessionDelegate.uncheckablePins(pinning, for: url) {
            throw .transport(failure.transportFailure(url: url))
        }
        var urlRequest = URLRequest(url: url)
        if let policy = Self.cachePolicy(for: request) { urlRequest.cachePolicy = policy }
        if request.head.method != .get { urlRequest.httpMethod = request.head.method.rawValue }
        var headers = Self.headerDictionary(request.head.headerFields)
        // URLRequest folds repeated fields with ",", which splits or corrupts cookie values;
        // several Cookie fields become one, joined with "; " (RFC 6265 §5.4): the caller's own,
        // then the cookie storage's for the URL (each redirect hop gets the storage's for its own).
        var own = request.head.headerFields[values: .cookie]
        let stored: String?
        if request.storedCookiesAttached {
            stored = request.attachedStoredCookies
            if let stored, let index = own.lastIndex(of: stored) { own.remove(at: index) }
        } else {
            stored = storedCookieHeader(for: url)
        }
        let ownCookies = own.isEmpty ? nil : own.joined(separator: "; ")
        if let cookie = CookieJar.header(own: ownCookies, stored: stored) {
            headers["Cookie"] = cookie
        }
        // URLSession's own timeout is an idle timeout, and on Linux it is truncated to whole
        // seconds; round up so it never fires before Courier's own deadline does.
        // Bounded: corelibs multiplies it into an `Int` of milliseconds, which a huge one overflows.
        let seconds = request.timeout.boundedTimeInterval
        urlRequest.timeoutInterval = max(1, seconds.rounded(.up))
        let exchangeBox = ExchangeBox()
        var pump: BodyPump?
        switch request.body {
        case .data(let data)?:
            urlRequest.httpBody = data
        case .stream(let stream)?:
            // A known length is sent as Content-Length, whatever the endpoint's headers say.
            if let length = stream.length {
                Self.replace("Content-Length", with: String(length), in: &headers)
                #if canImport(FoundationNetworking)
                    // corelibs gives libcurl an unknown size for every body stream, so libcurl adds
                    // `Transfer-Encoding: chunked` next to our Content-Length (both headers, chunked
                    // framing: RFC 9112 §6.2 forbids it and strict servers drop the connection). A
                    // blank custom header is libcurl's way to remove its own one, and it then sends the
                    // bytes as they are (measured with curl 7.88.1).
                    Self.replace("Transfer-Encoding", with: " ", in: &headers)
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
        urlRequest.allHTTPHeaderFields = headers

        let exchange = Exchange(
            url: url, pump: pump, maximumResponseSize: request.maximumResponseSize, redaction: request.redaction,
            redirectMode: request.redirectMode, attempt: AttemptTrace.current, isHead: request.head.method == .head,
            ownCookies: ownCookies)
        exchangeBox.exchange = exchange
        let session = self.session
        let delegate = self.delegate
        let completion = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchange.start(continuation, deadline: .now().advanced(byBounded: request.timeout)) { [urlRequest] in
                    let task = session.dataTask(with: urlRequest)
                    delegate.register(exchange, for: task)
                    return task
                }
            }
        } onCancel: {
            exchange.cancel()
        }
        // Built here, not on the delegate queue every request of the session funnels through.
        exchange.synchronizeWithDelegate()
        return try completion.outcome(for: url).get()
    }
}

extension URLSessionTransport: StoredCookieSource {
    /// The `Cookie` value of the session's cookie storage for `url`.
    package func storedCookieHeader(for url: URL) -> String? {
        cookieStorage?.cookieHeader(for: url)
    }
}

extension URLSessionTransport {
    /// The request's cache policy: `reloadIgnoringLocalCacheData` when Courier's ``HTTPCache``
    /// is above the transport, so that a kept `URLCache` never answers (it may still store), else
    /// `nil`: the session's `requestCachePolicy` decides. Two caches would otherwise answer one
    /// call, and `URLCache` would serve a `.reload` or a revalidation without the network.
    static func cachePolicy(for request: TransportRequest) -> URLRequest.CachePolicy? {
        request.isBelowHTTPCache ? .reloadIgnoringLocalCacheData : nil
    }

    /// The request's fields as `URLRequest.allHTTPHeaderFields`, without `Cookie`: each name as
    /// written the first time, repeated names folded into one value joined with `,` (as
    /// `URLRequest.addValue(_:forHTTPHeaderField:)` folds them). Set in one go: corelibs'
    /// `addValue` capitalizes the name and copies the whole dictionary for every field.
    static func headerDictionary(_ fields: HTTPFields) -> [String: String] {
        var headers = [String: String](minimumCapacity: fields.count)
        for index in fields.indices where fields[index].name != .cookie {
            let name = fields[index].name
            guard !fields[..<index].contains(where: { $0.name == name }) else { continue }  // folded already
            let repeated = fields[fields.index(after: index)...].contains { $0.name == name }
            headers[name.rawName] = repeated ? fields[values: name].joined(separator: ",") : fields[index].value
        }
        return headers
    }

    /// Sets `name` to `value` in `headers`, replacing a field of that name in any case.
    static func replace(_ name: String, with value: String, in headers: inout [String: String]) {
        let lowercased = name.lowercased()
        for key in headers.keys where key.lowercased() == lowercased {
            headers[key] = nil
        }
        headers[name] = value
    }

    /// A transport over `URLSessionConfiguration.default`, shared by every ``Configuration``
    /// that does not name its own.
    public static let shared = URLSessionTransport()
}
