import Foundation
import HTTPTypes

/// When and how soon to send a request again after it failed: a value the client consults after
/// each attempt (set it as ``Configuration/retryPolicy``).
///
/// A request is retried only when the attempt ended with a retryable status
/// (``retryableStatusCodes``) or transport failure, attempts remain (``maxAttempts``), the
/// method is idempotent (or POST/PATCH carries an ``idempotencyKeyHeader``), the body can be sent
/// again, and any `Retry-After` is within ``maxRetryAfter``. The wait is the server's
/// `Retry-After`, otherwise full-jitter exponential backoff.
///
/// ```swift
/// var policy = RetryPolicy.default            // 3 attempts, 250 ms base, 30 s cap
/// policy.maxAttempts = 5
/// policy.generatesIdempotencyKey = true       // lets POST and PATCH be retried too
/// let client = Client(configuration: Configuration(retryPolicy: policy))
/// ```
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first one included: `3` means one request and up to two retries;
    /// `1` never retries. Values below 1 act as 1. Default: 3.
    ///
    /// ```swift
    /// var policy = RetryPolicy.default
    /// policy.maxAttempts = 1   // same as .none
    /// ```
    public var maxAttempts: Int
    /// The backoff ceiling of the first retry; it doubles for every further one. Default: 250 ms.
    ///
    /// ```swift
    /// policy.baseDelay = .milliseconds(100)   // ceilings 100 ms, 200 ms, 400 ms, …
    /// ```
    public var baseDelay: Duration
    /// The most the backoff ceiling can grow to. Default: 30 s.
    ///
    /// ```swift
    /// policy.maxDelay = .seconds(5)
    /// ```
    public var maxDelay: Duration
    /// The longest server `Retry-After` Courier waits for. A longer one ends the retries and the
    /// response is returned to the caller, which
    /// can read the header itself. Default: 60 s.
    ///
    /// ```swift
    /// policy.maxRetryAfter = .seconds(10)   // a mobile app would rather show an error
    /// ```
    public var maxRetryAfter: Duration
    /// The HTTP status codes worth another try. Default: 408 Request Timeout, 429 Too Many
    /// Requests, 500 Internal Server Error, 502 Bad Gateway, 503 Service Unavailable,
    /// 504 Gateway Timeout.
    ///
    /// ```swift
    /// policy.retryableStatusCodes.remove(500)   // our 500s are bugs, not hiccups
    /// ```
    public var retryableStatusCodes: Set<Int>
    /// The header whose presence makes a POST or PATCH safe to retry: the server uses it to
    /// recognise a repeat (IETF draft "The Idempotency-Key HTTP Header Field"). Default:
    /// `"Idempotency-Key"`. A name that is not a valid header field name is never found.
    ///
    /// ```swift
    /// policy.idempotencyKeyHeader = "X-Request-Id"
    /// ```
    public var idempotencyKeyHeader: String
    /// Whether the client gives every POST and PATCH that lacks an ``idempotencyKeyHeader`` a
    /// fresh one (a UUID), so that it may be retried. Only for servers that honour the header:
    /// elsewhere a retried POST may run twice. Default: `false`.
    ///
    /// ```swift
    /// policy.generatesIdempotencyKey = true
    /// ```
    public var generatesIdempotencyKey: Bool
    /// Whether a request is sent again only when its attempt never reached the server (a refused
    /// connection, a failed name lookup), whatever its method: for the OAuth2 form `POST`s,
    /// whose refresh token or device code a second delivery could spend.
    package var retriesOnlyUnsentRequests = false

    /// Creates a policy; every parameter has the default of the property of the same name.
    ///
    /// ```swift
    /// let patient = RetryPolicy(maxAttempts: 6, baseDelay: .milliseconds(500), maxDelay: .seconds(10))
    /// ```
    public init(
        maxAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(250),
        maxDelay: Duration = .seconds(30),
        maxRetryAfter: Duration = .seconds(60),
        retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        idempotencyKeyHeader: String = "Idempotency-Key",
        generatesIdempotencyKey: Bool = false
    ) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.retryableStatusCodes = retryableStatusCodes
        self.idempotencyKeyHeader = idempotencyKeyHeader
        self.generatesIdempotencyKey = generatesIdempotencyKey
    }

    /// Never retries: one attempt.
    ///
    /// ```swift
    /// var configuration = Configuration()
    /// configuration.retryPolicy = .none
    /// ```
    public static let none = RetryPolicy(maxAttempts: 1)

    /// Three attempts, full-jitter backoff from 250 ms up to 30 s, `Retry-After` up to 60 s.
    ///
    /// ```swift
    /// let policy = RetryPolicy.default
    /// ```
    public static let `default` = RetryPolicy()

    /// The methods RFC 9110 §9.2.2 defines as idempotent: sending one twice has the same effect
    /// on the server as sending it once, so a retry after an unknown outcome is safe.
    /// Methods are case-sensitive, and custom ones are not assumed idempotent.
    static let idempotentMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"]
    /// The methods an idempotency key makes retryable.
    static let keyedMethods: Set<String> = ["POST", "PATCH"]

    // MARK: Decision

    /// The decision after attempt `attempt` (1-based) ended with `outcome`.
    ///
    /// The checks run in this order, and the first that fails gives the reason: the outcome
    /// itself, then attempts, idempotency, a replayable body and `Retry-After`
    /// (see ``RetryDecision/Reason``).
    ///
    /// - Parameters:
    ///   - attempt: the number of the attempt that just ended, from 1.
    ///   - request: the request that was sent.
    ///   - outcome: what it produced.
    ///   - now: the current time, against which a `Retry-After` date is measured.
    ///   - random: the source of the jitter; pass a seeded generator for reproducible delays.
    func decision(
        after attempt: Int,
        request: TransportRequest,
        outcome: Result<Response, CourierError>,
        now: Date,
        random: inout some RandomNumberGenerator
    ) -> RetryDecision {
        // The order of reasons: success, notRetryableStatus, cancelled, notRetryableError (the
        // outcome), then attemptsExhausted, notIdempotent, bodyNotReplayable, retryAfterTooLong.
        // A response counts the same whether it arrives as `.success(response)` (straight from a
        // transport) or as `.failure(.response(response))` (after status validation).
        // 1. Is the outcome worth another try at all?
        var retryableResponse: Response?
        switch outcome {
        case .success(let response), .failure(.response(let response)):
            guard retryableStatusCodes.contains(response.statusCode) else {
                return .doNotRetry(Response.successStatusCodes.contains(response.statusCode) ? .success : .notRetryableStatus)
            }
            retryableResponse = response
        case .failure(.cancelled):
            return .doNotRetry(.cancelled)
        case .failure(.transport(let failure)):
            guard Self.isRetryable(failure.kind) else { return .doNotRetry(.notRetryableError) }
        case .failure(.invalidRequest), .failure(.decoding), .failure(.authentication), .failure(.constraint), .failure(.webSocketClosed):
            // Sending the same request again would fail the same way.
            return .doNotRetry(.notRetryableError)
        }

        // 2. Attempts left?
        guard attempt < max(maxAttempts, 1) else { return .doNotRetry(.attemptsExhausted) }

        // 3. Safe to repeat?
        if retriesOnlyUnsentRequests {
            guard case .failure(.transport(let failure)) = outcome, failure.kind == .cannotConnect || failure.kind == .dnsFailure
            else { return .doNotRetry(.notIdempotent) }
        } else {
            guard isSafeToRepeat(request) else { return .doNotRetry(.notIdempotent) }
        }

        // 4. Can the body be sent again? (A single-use stream has already been read.)
        if let body = request.body, !body.isReplayable { return .doNotRetry(.bodyNotReplayable) }

        // 5. The server's word beats our guess: a parseable Retry-After replaces the backoff.
        //    A malformed one is ignored, as if it were absent.
        if let response = retryableResponse,
            let value = Self.singleValue(of: .retryAfter, in: response),
            let retryAfter = RetryAfter(parsing: value, receivedAt: now)
        {
            let delay = max(retryAfter.delay(from: now), .zero)  // a date in the past: now
            guard delay <= maxRetryAfter else { return .doNotRetry(.retryAfterTooLong) }
            return .retry(after: delay)
        }

        // 6. Full jitter backoff.
        return .retry(after: jitteredBackoff(after: attempt, random: &random))
    }

    /// ``decision(after:request:outcome:now:random:)`` with the system's random number generator
    /// and the current time.
    ///
    /// <!-- guide: skip: internal API, which code outside Courier (the guide tests included) cannot call -->
    /// ```swift
    /// if case .retry(let delay) = policy.decision(after: attempt, request: request, outcome: outcome) {
    ///     try await Task.sleep(for: delay)
    /// }
    /// ```
    func decision(
        after attempt: Int,
        request: TransportRequest,
        outcome: Result<Response, CourierError>,
        now: Date = Date()
    ) -> RetryDecision {
        var random = SystemRandomNumberGenerator()
        return decision(after: attempt, request: request, outcome: outcome, now: now, random: &random)
    }

    /// Whether a transport failure of this kind is worth another attempt. Each retried kind may
    /// still have reached the server, which is why only requests that are safe to repeat get here
    /// a second time.
    static func isRetryable(_ kind: TransportFailure.Kind) -> Bool {
        switch kind {
        case .timedOut:
            // A slow server or a congested path is often transient; the request may have been
            // processed, which is fine because only idempotent (or keyed) requests are retried.
            return true
        case .connectionLost:
            // A pooled keep-alive connection the server had already closed is the classic case;
            // a fresh connection usually works.
            return true
        case .cannotConnect:
            // Refused or unreachable: nothing was sent, and a restarting server or a network
            // that is coming back is worth another try after a pause.
            return true
        case .dnsFailure:
            // Resolvers fail transiently (timeouts, SERVFAIL); nothing was sent yet.
            return true
        case .secureConnectionFailed, .pinningFailed:
            // A bad, untrusted or unpinned certificate will be just as bad next time, and
            // retrying would hide a possible attack.
            return false
        case .responseTooLarge:
            // The server will send the same body again; reading it twice only costs twice.
            return false
        case .fileSystem:
            // The disk, not the network: sending again fills it again.
            return false
        case .badResponse, .other:
            // A malformed response, a bad URL, or something unknown: repeating the same request
            // is not expected to help.
            return false
        }
    }

    /// Whether repeating `request` cannot do harm: an idempotent method, or POST/PATCH with a
    /// non-empty idempotency key the server can use to spot the repeat.
    func isSafeToRepeat(_ request: TransportRequest) -> Bool {
        let method = request.head.method.rawValue
        if Self.idempotentMethods.contains(method) { return true }
        return Self.keyedMethods.contains(method) && hasIdempotencyKey(request)
    }

    private func hasIdempotencyKey(_ request: TransportRequest) -> Bool {
        guard let name = HTTPField.Name(idempotencyKeyHeader),
            let value = request.head.headerFields[name]
        else { return false }
        return !value.isEmpty
    }

    /// The value of a singleton header; `nil` when it is absent or sent more than once with
    /// different values (then no one value can be trusted).
    private static func singleValue(of name: HTTPField.Name, in response: Response) -> String? {
        let values = Set(response.headers[values: name])
        return values.count == 1 ? values.first : nil
    }

    // MARK: Idempotency key

    /// A fresh idempotency key for `request`, when the client should add one: `nil` unless
    /// ``generatesIdempotencyKey`` is on, the method is POST or PATCH, ``idempotencyKeyHeader``
    /// is a valid header name and the request does not carry that header yet.
    ///
    /// The client adds the key once, before the first attempt, so that every retry carries the
    /// same key:
    ///
    /// <!-- guide: skip: internal API, which code outside Courier (the guide tests included) cannot call -->
    /// ```swift
    /// if let key = policy.idempotencyKey(for: request),
    ///    let name = HTTPField.Name(policy.idempotencyKeyHeader) {
    ///     request.head.headerFields[name] = key   // e.g. "9F1C2D3E-…"
    /// }
    /// ```
    func idempotencyKey(for request: TransportRequest) -> String? {
        guard generatesIdempotencyKey,
            Self.keyedMethods.contains(request.head.method.rawValue),
            let name = HTTPField.Name(idempotencyKeyHeader),
            request.head.headerFields[name] == nil
        else { return nil }
        return UUID().uuidString
    }

    // MARK: Backoff

    // Full jitter (AWS Architecture Blog, "Exponential Backoff and Jitter", 2015):
    //
    //     ceiling(n) = min(maxDelay, baseDelay × 2^(n−1))     n = the attempt that just failed
    //     delay(n)   = uniform random in 0...ceiling(n)
    //
    // Randomising the whole interval (not just ± a little) spreads the clients that failed
    // together, so they do not come back in lock-step and knock the server over again; AWS
    // measured it to need the fewest calls and finish soonest of the schemes it compared.
    //
    // With the defaults (baseDelay 250 ms, maxDelay 30 s):
    //
    //     after attempt n   1      2      3    4    5    6    7     8     9 …
    //     ceiling           0.25s  0.5s   1s   2s   4s   8s   16s   30s   30s   (32 s capped)
    //     mean wait         0.125  0.25   0.5  1    2    4    8     15    15
    //
    // The default maxAttempts of 3 only ever uses the first two columns: worst case 0.75 s of
    // waiting in all, on average 0.375 s.
    //
    // Overflow: 2^(n−1) passes UInt64 at n = 65 and baseDelay × 2^(n−1) sooner, so the
    // ceiling is computed in whole nanoseconds with overflow detection; any overflow means
    // "above maxDelay", which is what the min() would have chosen anyway.

    /// The largest delay the backoff may choose after attempt `attempt` failed:
    /// `min(maxDelay, baseDelay × 2^(attempt − 1))`, at nanosecond resolution, overflow-safe for
    /// any `attempt`. Negative durations count as zero, attempts below 1 as 1.
    ///
    /// <!-- guide: skip: internal API, which code outside Courier (the guide tests included) cannot call -->
    /// ```swift
    /// RetryPolicy.default.backoffCeiling(after: 1)     // 250 ms
    /// RetryPolicy.default.backoffCeiling(after: 3)     // 1 s
    /// RetryPolicy.default.backoffCeiling(after: 200)   // 30 s
    /// ```
    func backoffCeiling(after attempt: Int) -> Duration {
        .nanoseconds(Int64(ceilingNanoseconds(after: attempt)))
    }

    /// The ceiling in nanoseconds, never above `Int64.max`.
    private func ceilingNanoseconds(after attempt: Int) -> UInt64 {
        let cap = Self.nanoseconds(maxDelay)
        let base = Self.nanoseconds(baseDelay)
        guard base > 0 else { return 0 }
        let exponent = max(attempt, 1) - 1
        guard exponent < UInt64.bitWidth else { return cap }  // 2^64 or more: surely past the cap
        let (scaled, overflow) = base.multipliedReportingOverflow(by: 1 << UInt64(exponent))
        return overflow ? cap : min(scaled, cap)
    }

    /// A full-jitter delay: uniform in `0...backoffCeiling(after: attempt)`.
    func jitteredBackoff(after attempt: Int, random: inout some RandomNumberGenerator) -> Duration {
        let ceiling = ceilingNanoseconds(after: attempt)
        return .nanoseconds(Int64(UInt64.random(in: 0...ceiling, using: &random)))
    }

    /// `duration` in whole nanoseconds, clamped to `0...Int64.max` so that it converts back to a
    /// `Duration` without trapping.
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components  // both ≥ 0 for a positive duration
        let (wholeNanoseconds, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let limit = UInt64(Int64.max)
        guard !overflow, wholeNanoseconds <= limit else { return limit }
        return min(wholeNanoseconds + UInt64(attoseconds / 1_000_000_000), limit)
    }
}

/// What ``RetryPolicy`` decided after an attempt.
///
/// <!-- guide: skip: internal API, which code outside Courier (the guide tests included) cannot call -->
/// ```swift
/// switch policy.decision(after: attempt, request: request, outcome: outcome) {
/// case .retry(let delay):
///     try await Task.sleep(for: delay)
/// case .doNotRetry(.retryAfterTooLong):
///     return outcome   // the server asked for a longer pause than we will wait
/// case .doNotRetry:
///     return outcome
/// }
/// ```
enum RetryDecision: Sendable, Equatable {
    /// Send the request again after this delay (possibly `.zero`).
    case retry(after: Duration)
    /// Stop here, and hand the outcome to the caller.
    case doNotRetry(Reason)

    /// Why a request is not retried.
    ///
    /// <!-- guide: skip: internal API, which code outside Courier (the guide tests included) cannot call -->
    /// ```swift
    /// if case .doNotRetry(let reason) = decision { logger.debug("not retrying: \(reason)") }
    /// ```
    enum Reason: String, Sendable, Equatable {
        /// The response's status is not retryable and is a success (2xx).
        case success
        /// The response's status is neither a success nor one of ``RetryPolicy/retryableStatusCodes``.
        case notRetryableStatus
        /// The caller cancelled; a retry would be unwanted.
        case cancelled
        /// An error that another attempt would not cure: TLS or certificate failures, bad
        /// responses, invalid requests, decoding and authentication failures.
        case notRetryableError
        /// The attempt was the last one ``RetryPolicy/maxAttempts`` allows.
        case attemptsExhausted
        /// The method is not idempotent and the request has no idempotency key.
        case notIdempotent
        /// The body was a single-use stream that has already been sent.
        case bodyNotReplayable
        /// The server's `Retry-After` is longer than ``RetryPolicy/maxRetryAfter``.
        case retryAfterTooLong
    }

    /// The delay of a ``retry(after:)``; `nil` for ``doNotRetry(_:)``.
    ///
    /// <!-- guide: skip: internal API, which code outside Courier (the guide tests included) cannot call -->
    /// ```swift
    /// if let delay = decision.delay { try await Task.sleep(for: delay) }
    /// ```
    var delay: Duration? {
        if case .retry(let delay) = self { return delay }
        return nil
    }
}
