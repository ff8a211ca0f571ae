import Foundation
import HTTPTypes
import Logging

/// What the ``HTTPCache`` made of a call, as logs, the `courier.cache.result` span attribute and
/// the `courier_cache_lookups_total` counter report it.
enum CacheResult: String, Sendable, CaseIterable {
    /// A fresh stored response answered; nothing was sent.
    case hit
    /// A stale stored response answered (`stale-while-revalidate`, `stale-if-error`, or a
    /// policy that accepts any age); nothing was sent, or the request failed.
    case stale
    /// The server confirmed a stored response with `304`.
    case revalidated
    /// The server answered; what it sent may have been stored.
    case miss
}

/// The cache stage, between users' stages and retries: answers `GET` and `HEAD` calls from the
/// ``HTTPCache`` when it may (RFC 9111 §4), makes stale responses conditional (§4.3), stores what
/// may be stored (§3), and invalidates after unsafe methods (§4.4). It holds what is the same for
/// every call of its client; each call's work is a ``CacheExchange``.
struct CacheStage: Stage {
    let cache: HTTPCache
    let logger: Logger
    /// What log lines hide of a URL.
    let redaction: Redaction
    /// The header fields and query items that partition the cache.
    let secrets: CacheSecrets
    /// What tells the cookies the transport adds to what it sends; `nil` when the transport
    /// cannot tell (one of the app's own), or it says so for this call
    /// (``StoredCookieSource/saysWhichCookiesItAdds``): see `dependsOnUnseenCookies`.
    let cookies: (any StoredCookieSource)?
    let metrics: ClientMetrics?
    /// The client's authentication, whose session partitions the entries of calls with a credential.
    let authentication: Authentication

    var name: String { "cache" }

    func run(_ request: TransportRequest, call: StageCall, next: StageNext) async throws(CourierError) -> StreamedResponse {
        let authenticates = call.authenticates
        let exchange = CacheExchange(
            stage: self, policy: call.context.endpoint.cachePolicy, partition: authenticates ? call.client.cachePartition : "",
            authentication: authenticates ? authentication : nil, hasCredentials: authenticates, collectsBody: call.collectsBody,
            trace: call.trace)
        return try await exchange.run(request) { request throws(CourierError) in
            try await next(request, call)
        } detached: { request throws(CourierError) in
            try await call.client.inFlight { () async throws(CourierError) in
                try await call.client.pipeline.runBelowCache(request, call: call)
            }
        }
    }
}

/// One call's pass through the cache stage.
///
/// It sits above the authentication stage, so it never sees the client's credential; the
/// credential's session reaches it as ``partition``. A credential it does see (an
/// `Authorization`, a cookie or another secret field set above it, a secret query item, the
/// cookies the transport would add, which it attaches itself) partitions the entries further,
/// and is never stored. Calls that do not collect their body (streams, downloads, event
/// streams) only invalidate.
struct CacheExchange: Sendable {
    /// The client's cache stage: the cache, logger, redaction, secrets, cookies and metrics.
    let stage: CacheStage
    let policy: CachePolicy
    /// The credential partition of the call's entries: `""` without a credential.
    let partition: String
    /// The client's authentication when the call carries a credential: whether ``partition``'s
    /// session is still current (``Authentication/isCurrent(_:)``).
    let authentication: Authentication?
    /// Whether a credential is added below this stage (storability is stricter then, §3.5).
    let hasCredentials: Bool
    /// Whether the call collects its body: only those use stored responses.
    let collectsBody: Bool
    let trace: CallTrace?

    // The client-wide parts, read from the stage.
    var cache: HTTPCache { stage.cache }
    var logger: Logger { stage.logger }
    var redaction: Redaction { stage.redaction }
    var secrets: CacheSecrets { stage.secrets }
    var cookies: (any StoredCookieSource)? { stage.cookies }
    var metrics: ClientMetrics? { stage.metrics }

    /// Runs the stage. `detached` sends a request through the stages below after the call has
    /// returned (a `stale-while-revalidate` background revalidation).
    func run(
        _ request: TransportRequest,
        next: (TransportRequest) async throws(CourierError) -> StreamedResponse,
        detached: @escaping @Sendable (TransportRequest) async throws(CourierError) -> StreamedResponse
    ) async throws(CourierError) -> StreamedResponse {
        guard collectsBody, CacheKey.mayBeAnsweredFromCache(request.head),
            request.head.headerFields[.ifNoneMatch] == nil, request.head.headerFields[.ifModifiedSince] == nil,
            let url = request.resolvedURL, let target = CacheKey(request.head, partition: "")
        else {
            // Not the cache's to answer (a caller's own conditional request is answered by the
            // server, as asked); an unsafe method may still invalidate.
            let response = try await next(request)
            invalidate(after: response, to: request.head)
            return response
        }
        var request = request
        if let cookies, !request.storedCookiesAttached {
            // What the transport would add is added here, read once: the response is keyed by
            // exactly the cookies it is sent with.
            if let stored = cookies.storedCookieHeader(for: url) {
                request.head.headerFields.append(HTTPField(name: .cookie, value: stored))
                request.attachedStoredCookies = stored
            }
            request.storedCookiesAttached = true
        }
        let head = request.head
        let fieldSecrets = secrets.secretFields(of: head.headerFields)
        let (keyURL, querySecrets) = secrets.splittingSecretQueryItems(of: target.url)
        let hasSecrets = !fieldSecrets.isEmpty || !querySecrets.isEmpty
        let partition = hasSecrets ? CachePartition.secrets(fields: fieldSecrets, queryItems: querySecrets, within: partition) : partition
        let hasCredentials = hasCredentials || hasSecrets
        let key = CacheKey(url: keyURL, partition: partition)
        // What the storage sees of the request: its secret values are in the partition already,
        // so a `Vary` on one of them stores a placeholder, never the secret.
        var keyed = head
        for field in fieldSecrets { keyed.headerFields[field.name] = CacheSecrets.placeholder }
        let storage = cache.storage
        let requestControl = CacheControl(head.headerFields)
        let now = cache.now()
        var stored =
            policy == .reload ? [] : CacheVariant.selected(for: keyed.headerFields, among: storage.entries(for: key))
        if let limit = request.maximumResponseSize {
            // Stored for a call that allowed more: this call's limit holds for it too.
            stored.removeAll { $0.body.count > limit }
        }
        if let entry = stored.first {
            switch policy {
            case .returnCachedElseLoad, .onlyCached:
                return served(entry, request: head, url: url, now: now, result: isFresh(entry, now: now) ? .hit : .stale)
            case .useProtocolRules, .reload:
                break
            }
            switch CacheFreshness.decide(
                entry: entry, requestControl: requestControl, now: now, allowStaleWhileRevalidate: cache.usesStaleWhileRevalidate)
            {
            case .useStored:
                // Without `max-stale` only a fresh response is used as it is.
                let fresh = requestControl.maxStale == nil || isFresh(entry, now: now)
                return served(entry, request: head, url: url, now: now, result: fresh ? .hit : .stale)
            case .useStoredAndRevalidate:
                if head.method == .get {
                    revalidateInBackground(
                        request, keyed: keyed, key: key, target: target, entries: stored, hasCredentials: hasCredentials,
                        send: detached)
                }
                return served(entry, request: head, url: url, now: now, result: .stale)
            case .unsatisfiable:
                return gatewayTimeout(url: url)
            case .revalidate:
                break
            }
        } else if policy == .onlyCached || requestControl.onlyIfCached {
            return gatewayTimeout(url: url)
        }
        // To the server: conditional on what is stored (a `GET` only; a `HEAD` goes as it is).
        var sent = request
        var isConditional = false
        if head.method == .get, !stored.isEmpty,
            let conditional = CacheValidation.conditionalRequest(for: head, entries: stored)
        {
            sent.head = conditional
            isConditional = true
        }
        let response: StreamedResponse
        do {
            response = try await next(sent)
        } catch {
            if case .transport = error, let entry = stored.first, servesStaleOnError(entry, requestControl: requestControl) {
                return served(entry, request: head, url: url, now: cache.now(), result: .stale)
            }
            throw error
        }
        let responseTime = cache.now()
        let redirected = Self.isRedirected(response, from: request, target: target)
        if isConditional, response.statusCode == 304 {
            await Self.finish(notModified: response)
            if !redirected, let revalidated = update(stored, with: response, request: keyed, requestTime: now, responseTime: responseTime) {
                return served(revalidated, request: head, url: url, now: responseTime, result: .revalidated)
            }
            // The 304 matches nothing stored (§4.3.4), or answers another URL: ask again,
            // unconditionally.
            let fresh = try await next(request)
            report(.miss, request: head, url: url)
            guard !Self.isRedirected(fresh, from: request, target: target) else { return fresh }
            return store(fresh, for: keyed, key: key, hasCredentials: hasCredentials, requestTime: now, responseTime: cache.now())
        }
        if [500, 502, 503, 504].contains(response.statusCode), let entry = stored.first,
            servesStaleOnError(entry, requestControl: requestControl)
        {
            response.body.cancel()
            return served(entry, request: head, url: url, now: responseTime, result: .stale)
        }
        report(.miss, request: head, url: url)
        // A redirect's target answered: what it sent belongs to its own URL (RFC 9111 §4), which
        // this key does not name.
        guard !redirected else { return response }
        return store(response, for: keyed, key: key, hasCredentials: hasCredentials, requestTime: now, responseTime: responseTime)
    }

    /// Whether `response` came from another URL than `target`'s (the transport followed a
    /// redirect).
    static func isRedirected(_ response: StreamedResponse, from request: TransportRequest, target: CacheKey) -> Bool {
        if response.location == request.location { return false }
        return CacheKey(response.url, partition: "")?.url != target.url
    }

    /// Whether a response with these fields, stored under `partition`, depends on cookies the
    /// transport may add below this stage without saying which: they are not in the request the
    /// cache sees, so it could not tell one user of the cookie jar from the next. Such a response
    /// is not kept when it varies on `Cookie`, nor when it is `private` and nothing else (a
    /// credential, a secret field or query item) partitions it.
    private func dependsOnUnseenCookies(_ fields: HTTPFields, partition: String) -> Bool {
        if let cookies, cookies.saysWhichCookiesItAdds { return false }
        if partition.isEmpty && CacheControl(fields).isPrivate { return true }
        return CacheVariant(request: HTTPFields(), response: fields).values.contains { $0.name == "cookie" }
    }

    /// Whether the session of this call's credential has not ended (only a bearer session ends).
    private func sessionIsCurrent() -> Bool {
        authentication?.isCurrent(partition) ?? true
    }

    /// Whether `entry` is fresh for a request without directives of its own.
    private func isFresh(_ entry: CacheEntry, now: Date) -> Bool {
        CacheFreshness.decide(entry: entry, requestControl: CacheControl(HTTPFields()), now: now) == .useStored
    }

    /// Whether `entry` answers a request that failed (RFC 5861 §4). Never when its session ended
    /// while the request was on the wire.
    private func servesStaleOnError(_ entry: CacheEntry, requestControl: CacheControl) -> Bool {
        cache.usesStaleIfError && CacheFreshness.mayServeStaleOnError(entry: entry, requestControl: requestControl, now: cache.now())
            && sessionIsCurrent()
    }

    /// `entry` as the answer to `request`, with its current `Age` (RFC 9111 §5.1). A `HEAD` gets
    /// the head alone.
    private func served(_ entry: CacheEntry, request: HTTPRequest, url: URL, now: Date, result: CacheResult) -> StreamedResponse {
        var fields = entry.response.headerFields
        // Never a stored cookie (one an earlier version stored included): see
        // `CacheStorability.unstoredFields`.
        if fields[.setCookie] != nil { fields[.setCookie] = nil }
        let age = entry.currentAge(at: now)
        fields[.age] = String(Int(min(age, TimeInterval(Int32.max))))
        var response = StreamedResponse(
            status: entry.response.status, headers: fields, body: ResponseBody(request.method == .head ? Data() : entry.body),
            url: url)
        response.source = result == .revalidated ? .revalidated : .cache
        report(result, request: request, url: url)
        return response
    }

    /// The answer to a request that may not go to the network and has nothing stored to use
    /// (§5.2.1.7).
    private func gatewayTimeout(url: URL) -> StreamedResponse {
        var response = StreamedResponse(status: .gatewayTimeout, url: url)
        response.source = .cache
        logger.debug("cache: no stored response for \(redaction.redact(url: url)), and the network may not be used")
        trace?.recordCacheResult(.miss)
        metrics?.recordCacheLookup(.miss)
        return response
    }

    /// Reads the `304`'s body, which is empty: the exchange ends as any other, and the transport
    /// keeps the connection (cancelling the body could close it). Anything more is cancelled.
    private static func finish(notModified: StreamedResponse) async {
        _ = try? await notModified.body.collect(upTo: 0)
    }

    /// Stores what a `304` updates among `entries` (§4.3.4) and returns the first of them. A
    /// `304` that says `no-store` (or answers a request that does) updates nothing that is kept:
    /// the entries it names answer this call once and are removed. Entries whose session ended
    /// while the request was on the wire are neither updated nor returned: the `304` may answer
    /// the next session's credential (a retry, a refresh), which must not get the ended
    /// session's body.
    private func update(
        _ entries: [CacheEntry], with notModified: StreamedResponse, request: HTTPRequest, requestTime: Date, responseTime: Date
    ) -> CacheEntry? {
        guard sessionIsCurrent() else { return nil }
        let head = HTTPResponse(status: notModified.status, headerFields: notModified.headers)
        let keeps = !CacheControl(head.headerFields).noStore && !CacheControl(request.headerFields).noStore
        var first: CacheEntry?
        for index in CacheValidation.entriesUpdated(by: head, among: entries) {
            var entry = CacheValidation.updated(entries[index], with: head, requestTime: requestTime, responseTime: responseTime)
            var storable = keeps
            if entry.response.headerFields[values: .vary] != entries[index].response.headerFields[values: .vary] {
                // A `304` that changes `Vary` changes which requests the response answers: it is
                // kept under what this request sent, or not at all for `Vary: *` (it still
                // answers this call, whose request it was sent for).
                cache.storage.remove(entries[index].storageKey)
                entry.variant = CacheVariant(request: request.headerFields, response: entry.response.headerFields)
                if entry.variant.matchesNothing { storable = false }
            }
            // A `304` may add `Vary: Cookie` to what was stored without it.
            if storable, !dependsOnUnseenCookies(entry.response.headerFields, partition: entry.key.partition) {
                cache.storage.store(entry, if: sessionIsCurrent)
            } else {
                cache.storage.remove(entry.storageKey)
            }
            if first == nil { first = entry }
        }
        return first
    }

    /// Stores `response` to `request` (as the storage sees it: secret values replaced) when it may
    /// be (§3) and its body is whole, and passes it on.
    private func store(
        _ response: StreamedResponse, for request: HTTPRequest, key: CacheKey, hasCredentials: Bool, requestTime: Date,
        responseTime: Date
    ) -> StreamedResponse {
        let head = HTTPResponse(status: response.status, headerFields: response.headers)
        guard let body = response.body.wholeData,
            CacheStorability.isStorable(request: request, response: head, hasCredentials: hasCredentials)
        else { return response }
        if dependsOnUnseenCookies(response.headers, partition: key.partition) { return response }
        let entry = CacheEntry(
            key: key, variant: CacheVariant(request: request.headerFields, response: response.headers),
            response: HTTPResponse(status: response.status, headerFields: CacheStorability.storableFields(response.headers)),
            body: body, requestTime: requestTime, responseTime: responseTime)
        cache.storage.store(entry, if: sessionIsCurrent)
        return response
    }

    /// Sends the conditional request for `entries` after the call has returned, once per key at a
    /// time, and stores what comes back (a `304`'s update or a new response).
    private func revalidateInBackground(
        _ request: TransportRequest, keyed: HTTPRequest, key: CacheKey, target: CacheKey, entries: [CacheEntry], hasCredentials: Bool,
        send: @escaping @Sendable (TransportRequest) async throws(CourierError) -> StreamedResponse
    ) {
        guard cache.beginRevalidation(of: key) else { return }
        let stage = self
        Task {
            defer { stage.cache.endRevalidation(of: key) }
            let requestTime = stage.cache.now()
            var sent = request
            let conditional = CacheValidation.conditionalRequest(for: request.head, entries: entries)
            if let conditional { sent.head = conditional }
            guard let response = try? await send(sent) else { return }
            let responseTime = stage.cache.now()
            let redirected = Self.isRedirected(response, from: request, target: target)
            if redirected {
                response.body.cancel()
            } else if conditional != nil, response.statusCode == 304 {
                await Self.finish(notModified: response)
                _ = stage.update(entries, with: response, request: keyed, requestTime: requestTime, responseTime: responseTime)
            } else {
                _ = stage.store(
                    response, for: keyed, key: key, hasCredentials: hasCredentials, requestTime: requestTime,
                    responseTime: responseTime)
            }
        }
    }

    /// Invalidates what an unsafe method changed (§4.4), in every partition.
    private func invalidate(after response: StreamedResponse, to request: HTTPRequest) {
        guard request.method != .get, request.method != .head else { return }
        let head = HTTPResponse(status: response.status, headerFields: response.headers)
        for url in CacheValidation.invalidatedURLs(request: request, response: head) {
            cache.storage.removeAll(url: secrets.splittingSecretQueryItems(of: url).url)
        }
    }

    private func report(_ result: CacheResult, request: HTTPRequest, url: URL) {
        if logger.logLevel <= .debug {
            logger.debug("cache \(result.rawValue): \(request.method.rawValue) \(redaction.redact(url: url))")
        }
        trace?.recordCacheResult(result)
        metrics?.recordCacheLookup(result)
    }
}
