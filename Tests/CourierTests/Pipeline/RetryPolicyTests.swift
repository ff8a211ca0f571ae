import Foundation
import HTTPTypes
import Testing

@testable import Courier

private let url = URL(string: "https://api.example.com/items")!

/// `Sun, 06 Nov 1994 08:49:37 GMT`, the RFC 9110 example date.
private let rfcExampleDate = Date(timeIntervalSince1970: 784_111_777)

private func request(
    _ method: String = "GET",
    headers: [String: String] = [:],
    body: TransportBody? = nil
) -> TransportRequest {
    var fields = HTTPFields()
    for (name, value) in headers {
        fields[HTTPField.Name(name)!] = value
    }
    let head = HTTPRequest(
        method: HTTPRequest.Method(method)!, scheme: "https",
        authority: "api.example.com", path: "/items", headerFields: fields)
    return TransportRequest(head: head, body: body, timeout: .seconds(30), url: url)
}

private func response(_ status: Int, headers: [String: String] = [:]) -> Response {
    Response(statusCode: status, headers: headers, url: url)
}

private func transportError(_ kind: TransportFailure.Kind) -> CourierError {
    .transport(TransportFailure(kind: kind))
}

/// A decision with a fixed seed and the RFC example date as "now".
private func decide(
    _ policy: RetryPolicy = .default,
    attempt: Int = 1,
    request: TransportRequest = request(),
    outcome: Result<Response, CourierError>,
    now: Date = rfcExampleDate,
    seed: UInt64 = 42
) -> RetryDecision {
    var random = SplitMix64(seed: seed)
    return policy.decision(after: attempt, request: request, outcome: outcome, now: now, random: &random)
}

private func isRetry(_ decision: RetryDecision, within range: ClosedRange<Duration>) -> Bool {
    guard let delay = decision.delay else { return false }
    return range.contains(delay)
}

@Suite("RetryPolicy: backoff")
struct RetryPolicyBackoffTests {
    /// The table in RetryPolicy.swift: 250 ms doubling, capped at 30 s from attempt 8.
    @Test(
        "ceiling doubles from baseDelay and stops at maxDelay",
        arguments: [
            (1, Duration.milliseconds(250)), (2, .milliseconds(500)), (3, .seconds(1)), (4, .seconds(2)),
            (5, .seconds(4)), (6, .seconds(8)), (7, .seconds(16)), (8, .seconds(30)), (9, .seconds(30)),
            (30, .seconds(30)),
        ])
    func ceilingTable(attempt: Int, ceiling: Duration) {
        #expect(RetryPolicy.default.backoffCeiling(after: attempt) == ceiling)
    }

    @Test("every jittered delay lies in 0...ceiling and the jitter spreads over it", arguments: 1...10)
    func jitterBounds(attempt: Int) {
        let policy = RetryPolicy(maxAttempts: 100)
        let ceiling = policy.backoffCeiling(after: attempt)
        var random = SplitMix64(seed: UInt64(attempt) &* 7919)
        var delays: [Duration] = []
        for _ in 0..<500 {
            let decision = policy.decision(
                after: attempt, request: request(),
                outcome: .failure(transportError(.timedOut)),
                now: rfcExampleDate, random: &random)
            guard let delay = decision.delay else {
                Issue.record("expected a retry, got \(decision)")
                return
            }
            delays.append(delay)
        }
        #expect(delays.allSatisfy { $0 >= .zero && $0 <= ceiling })
        // Full jitter: uniform over the whole interval, so 500 draws cover both ends and are
        // (nearly) all different.
        #expect(Set(delays).count > 490)
        #expect(delays.min()! < ceiling / 10)
        #expect(delays.max()! > ceiling * 9 / 10)
        let mean = delays.reduce(Duration.zero, +) / delays.count
        #expect(mean > ceiling * 4 / 10 && mean < ceiling * 6 / 10)
    }

    @Test("the same seed gives the same delays; another seed different ones")
    func deterministic() {
        let outcome: Result<Response, CourierError> = .success(response(503))
        #expect(decide(outcome: outcome, seed: 1) == decide(outcome: outcome, seed: 1))
        #expect(decide(outcome: outcome, seed: 1) != decide(outcome: outcome, seed: 2))
    }

    @Test("large attempt numbers do not overflow and give maxDelay", arguments: [63, 64, 65, 200, 10_000, Int.max])
    func overflow(attempt: Int) {
        let policy = RetryPolicy(maxAttempts: .max)
        #expect(policy.backoffCeiling(after: attempt) == .seconds(30))
        let decision = decide(policy, attempt: attempt, outcome: .failure(transportError(.connectionLost)))
        if attempt < .max {
            #expect(isRetry(decision, within: .zero ... .seconds(30)))
        } else {
            #expect(decision == .doNotRetry(.attemptsExhausted))  // attempt Int.max is the last
        }
    }

    @Test("a huge baseDelay or maxDelay saturates instead of trapping")
    func hugeDurations() {
        let policy = RetryPolicy(maxAttempts: .max, baseDelay: .seconds(Int64.max), maxDelay: .seconds(Int64.max))
        #expect(policy.backoffCeiling(after: 200) == .nanoseconds(Int64.max))
        let decision = decide(policy, attempt: 200, outcome: .success(response(500)))
        #expect(isRetry(decision, within: .zero ... .nanoseconds(Int64.max)))
    }

    @Test("zero or negative durations give immediate retries; attempt 0 counts as 1")
    func degenerate() {
        #expect(RetryPolicy(baseDelay: .zero).backoffCeiling(after: 5) == .zero)
        #expect(RetryPolicy(baseDelay: .seconds(-1)).backoffCeiling(after: 5) == .zero)
        #expect(RetryPolicy(maxDelay: .seconds(-1)).backoffCeiling(after: 5) == .zero)
        #expect(RetryPolicy.default.backoffCeiling(after: 0) == .milliseconds(250))
        #expect(decide(RetryPolicy(baseDelay: .zero), outcome: .success(response(502))) == .retry(after: .zero))
    }
}

@Suite("RetryPolicy: Retry-After")
struct RetryPolicyRetryAfterTests {
    @Test(
        "delta-seconds replaces the backoff",
        arguments: [
            (429, "45", Duration.seconds(45)), (503, "0", .zero), (503, "  7\t", .seconds(7)),
            (500, "60", .seconds(60)), (408, "1", .seconds(1)),
        ])
    func deltaSeconds(status: Int, value: String, delay: Duration) {
        let decision = decide(outcome: .success(response(status, headers: ["Retry-After": value])))
        #expect(decision == .retry(after: delay))
    }

    @Test(
        "all three HTTP-date forms, relative to now",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT",  // IMF-fixdate
            "Sunday, 06-Nov-94 08:49:37 GMT",  // obsolete RFC 850
            "Sun Nov  6 08:49:37 1994",  // obsolete asctime
        ])
    func httpDate(value: String) {
        let now = rfcExampleDate.addingTimeInterval(-30)
        #expect(RetryAfter(parsing: value, receivedAt: now) == .date(rfcExampleDate))
        let decision = decide(outcome: .success(response(503, headers: ["Retry-After": value])), now: now)
        #expect(decision == .retry(after: .seconds(30)))
    }

    @Test("an RFC 850 two-digit year is read within 50 years of now")
    func twoDigitYears() {
        let now2026 = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28
        let in2030 = RetryAfter(parsing: "Tuesday, 01-Jan-30 00:00:00 GMT", receivedAt: now2026)
        #expect(in2030 == .date(Date(timeIntervalSince1970: 1_893_456_000)))
        let in1980 = RetryAfter(parsing: "Tuesday, 01-Jan-80 00:00:00 GMT", receivedAt: now2026)
        #expect(in1980 == .date(Date(timeIntervalSince1970: 315_532_800)))
    }

    @Test("a date in the past means retry now")
    func pastDate() {
        let now = rfcExampleDate.addingTimeInterval(3600)
        let decision = decide(outcome: .success(response(503, headers: ["Retry-After": "Sun, 06 Nov 1994 08:49:37 GMT"])), now: now)
        #expect(decision == .retry(after: .zero))
    }

    @Test("a fractional-second wait rounds up to whole milliseconds")
    func fractionalNow() {
        let now = rfcExampleDate.addingTimeInterval(-1.2345)
        #expect(RetryAfter.date(rfcExampleDate).delay(from: now) == .milliseconds(1235))
    }

    @Test(
        "a malformed Retry-After falls back to the backoff",
        arguments: [
            "", "soon", "-1", "+5", "1.5", "1e3", "٣",  // not 1*DIGIT
            "Sun, 06 Nov 1994 08:49:37 PST",  // not GMT
            "sun, 06 Nov 1994 08:49:37 GMT",  // names are case-sensitive
            "Sun, 6 Nov 1994 08:49:37 GMT",  // IMF day is two digits
            "Sun, 31 Feb 1994 08:49:37 GMT",  // no such day
            "Sun, 06 Nov 1994 24:00:00 GMT",  // no such hour
            "Sun, 06 Nov 1994 08:60:00 GMT",  // no such minute
            "Sun, 06 Nov 94 08:49:37 GMT",  // IMF year is four digits
            "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sunday, 06-Nov-1994 08:49:37 GMT",
            "Sun Nov  6 08:49 1994",
            "2026-11-21T23:00:00Z",  // ISO 8601 is not an HTTP-date
        ])
    func malformed(value: String) {
        #expect(RetryAfter(parsing: value, receivedAt: rfcExampleDate) == nil)
        let decision = decide(outcome: .success(response(503, headers: ["Retry-After": value])))
        #expect(decision == decide(outcome: .success(response(503))))  // same seed, same backoff
        #expect(isRetry(decision, within: .zero ... .milliseconds(250)))
    }

    @Test("repeated Retry-After fields that disagree are ignored")
    func conflicting() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .retryAfter, value: "1"))
        fields.append(HTTPField(name: .retryAfter, value: "600"))
        let conflicting = Response(status: .serviceUnavailable, headers: fields, url: url)
        #expect(decide(outcome: .success(conflicting)) == decide(outcome: .success(response(503))))
    }

    @Test(
        "longer than maxRetryAfter: do not retry",
        arguments: [
            "61", "3600", "99999999999999999999999", "Sun, 06 Nov 1994 08:51:37 GMT",
        ])
    func tooLong(value: String) {
        let now = rfcExampleDate  // the date above is 2 minutes after it
        let decision = decide(outcome: .success(response(429, headers: ["Retry-After": value])), now: now)
        #expect(decision == .doNotRetry(.retryAfterTooLong))
    }

    @Test("exactly maxRetryAfter is still honoured; the limit is configurable")
    func limit() {
        let outcome: Result<Response, CourierError> = .success(response(503, headers: ["Retry-After": "60"]))
        #expect(decide(outcome: outcome) == .retry(after: .seconds(60)))
        #expect(decide(RetryPolicy(maxRetryAfter: .seconds(59)), outcome: outcome) == .doNotRetry(.retryAfterTooLong))
    }

    @Test("Retry-After on a status that is not retryable changes nothing", arguments: [301, 413, 404])
    func notRetryableStatus(status: Int) {
        let decision = decide(outcome: .success(response(status, headers: ["Retry-After": "1"])))
        #expect(decision == .doNotRetry(.notRetryableStatus))
    }

    @Test("Retry-After comes after the other checks")
    func order() {
        let tooLong: Result<Response, CourierError> = .success(response(503, headers: ["Retry-After": "3600"]))
        #expect(decide(attempt: 3, outcome: tooLong) == .doNotRetry(.attemptsExhausted))
        #expect(decide(request: request("POST"), outcome: tooLong) == .doNotRetry(.notIdempotent))
    }
}

@Suite("RetryPolicy: what is retried")
struct RetryPolicyEligibilityTests {
    @Test(
        "only idempotent methods, or POST/PATCH with an idempotency key",
        arguments: [
            ("GET", false, true), ("GET", true, true),
            ("HEAD", false, true), ("HEAD", true, true),
            ("OPTIONS", false, true), ("OPTIONS", true, true),
            ("PUT", false, true), ("PUT", true, true),
            ("DELETE", false, true), ("DELETE", true, true),
            ("TRACE", false, true), ("TRACE", true, true),
            ("POST", false, false), ("POST", true, true),
            ("PATCH", false, false), ("PATCH", true, true),
            ("PURGE", false, false), ("PURGE", true, false),  // custom methods: never assumed safe
            ("get", false, false),  // methods are case-sensitive
        ])
    func idempotency(method: String, hasKey: Bool, retried: Bool) {
        let headers = hasKey ? ["idempotency-key": "8e0c5a5e-2f0e-4b59-9d0e-4c8f6b1d2a7f"] : [:]
        let decision = decide(request: request(method, headers: headers), outcome: .success(response(503)))
        if retried {
            #expect(isRetry(decision, within: .zero ... .milliseconds(250)))
        } else {
            #expect(decision == .doNotRetry(.notIdempotent))
        }
    }

    @Test("an empty key does not count; a custom header name does")
    func keyHeader() {
        let empty = request("POST", headers: ["Idempotency-Key": ""])
        #expect(decide(request: empty, outcome: .success(response(503))) == .doNotRetry(.notIdempotent))
        let custom = RetryPolicy(idempotencyKeyHeader: "X-Request-Id")
        let keyed = request("POST", headers: ["X-Request-Id": "abc"])
        #expect(decide(custom, request: keyed, outcome: .success(response(503))).delay != nil)
    }

    @Test(
        "transport failures: timeouts and connectivity are retried, the rest not",
        arguments: [
            (TransportFailure.Kind.timedOut, true), (.connectionLost, true), (.cannotConnect, true),
            (.dnsFailure, true), (.secureConnectionFailed, false), (.badResponse, false), (.other, false),
        ])
    func transportKinds(kind: TransportFailure.Kind, retried: Bool) {
        let decision = decide(outcome: .failure(transportError(kind)))
        if retried {
            #expect(isRetry(decision, within: .zero ... .milliseconds(250)))
        } else {
            #expect(decision == .doNotRetry(.notRetryableError))
        }
    }

    @Test(
        "URLErrors, through TransportFailure's mapping",
        arguments: [
            (URLError.Code.timedOut, true), (.networkConnectionLost, true), (.cannotConnectToHost, true),
            (.notConnectedToInternet, true), (.cannotFindHost, true), (.dnsLookupFailed, true),
            (.secureConnectionFailed, false), (.serverCertificateUntrusted, false),
            (.serverCertificateHasBadDate, false), (.clientCertificateRejected, false),
            (.badURL, false), (.unsupportedURL, false), (.cancelled, false), (.badServerResponse, false),
            (.userAuthenticationRequired, false),
        ])
    func urlErrors(code: URLError.Code, retried: Bool) {
        let decision = decide(outcome: .failure(.transport(TransportFailure(URLError(code)))))
        #expect((decision.delay != nil) == retried)
        if !retried { #expect(decision == .doNotRetry(.notRetryableError)) }
    }

    @Test(
        "invalid requests, decoding and authentication failures are not retried",
        arguments: [
            CourierError.invalidRequest(.invalidURL("x")),
            .invalidRequest(.bodyNotReplayable),
            .decoding(DecodingFailure(reason: .other("bad"), response: response(200), expectedType: "User")),
            .authentication(.missingCredential),
        ])
    func otherErrors(error: CourierError) {
        #expect(decide(outcome: .failure(error)) == .doNotRetry(.notRetryableError))
    }

    @Test("never after cancellation, even with attempts left")
    func cancelled() {
        #expect(decide(RetryPolicy(maxAttempts: 10), outcome: .failure(.cancelled)) == .doNotRetry(.cancelled))
        #expect(decide(.none, outcome: .failure(.cancelled)) == .doNotRetry(.cancelled))
    }

    @Test("never with a single-use body; a replayable one is fine")
    func bodies() throws {
        let once = BodyStream(AsyncStream<Data> { $0.finish() })
        let single = request("PUT", body: .stream(once))
        #expect(decide(request: single, outcome: .success(response(503))) == .doNotRetry(.bodyNotReplayable))
        #expect(decide(request: single, outcome: .failure(transportError(.timedOut))) == .doNotRetry(.bodyNotReplayable))

        let data = request("PUT", body: .data(Data("{}".utf8)))
        #expect(decide(request: data, outcome: .success(response(503))).delay != nil)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("retry-\(UUID().uuidString)")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fileRequest = request("PUT", body: .stream(try BodyStream(file: file)))
        #expect(decide(request: fileRequest, outcome: .success(response(503))).delay != nil)
    }

    @Test("retryable status codes", arguments: [408, 429, 500, 502, 503, 504])
    func retryableStatus(status: Int) {
        #expect(isRetry(decide(outcome: .success(response(status))), within: .zero ... .milliseconds(250)))
        // The same response after status validation, as the client may pass it.
        #expect(isRetry(decide(outcome: .failure(.response(response(status)))), within: .zero ... .milliseconds(250)))
    }

    @Test("other error statuses are not retried", arguments: [100, 301, 304, 400, 401, 403, 404, 409, 413, 422, 501, 505, 599])
    func notRetryableStatus(status: Int) {
        #expect(decide(outcome: .success(response(status))) == .doNotRetry(.notRetryableStatus))
        #expect(decide(outcome: .failure(.response(response(status)))) == .doNotRetry(.notRetryableStatus))
    }

    @Test("success is never retried, even on the last attempt", arguments: [200, 201, 204, 299])
    func success(status: Int) {
        #expect(decide(outcome: .success(response(status))) == .doNotRetry(.success))
        #expect(decide(attempt: 3, outcome: .success(response(status))) == .doNotRetry(.success))
    }

    @Test("the retryable set is configurable")
    func customStatuses() {
        let policy = RetryPolicy(retryableStatusCodes: [409])
        #expect(decide(policy, outcome: .success(response(409))).delay != nil)
        #expect(decide(policy, outcome: .success(response(503))) == .doNotRetry(.notRetryableStatus))
    }

    @Test(
        "maxAttempts counts the first attempt",
        arguments: [
            (3, 1, true), (3, 2, true), (3, 3, false), (3, 4, false),
            (1, 1, false), (0, 1, false), (-5, 1, false), (10, 9, true), (10, 10, false),
        ])
    func attempts(maxAttempts: Int, attempt: Int, retried: Bool) {
        let decision = decide(RetryPolicy(maxAttempts: maxAttempts), attempt: attempt, outcome: .success(response(503)))
        if retried {
            #expect(decision.delay != nil)
        } else {
            #expect(decision == .doNotRetry(.attemptsExhausted))
        }
    }

    @Test("the presets")
    func presets() {
        #expect(RetryPolicy.none.maxAttempts == 1)
        #expect(decide(.none, outcome: .success(response(503))) == .doNotRetry(.attemptsExhausted))
        let policy = RetryPolicy.default
        #expect(policy.maxAttempts == 3)
        #expect(policy.baseDelay == .milliseconds(250))
        #expect(policy.maxDelay == .seconds(30))
        #expect(policy.maxRetryAfter == .seconds(60))
        #expect(policy.retryableStatusCodes == [408, 429, 500, 502, 503, 504])
        #expect(policy.idempotencyKeyHeader == "Idempotency-Key")
        #expect(policy.generatesIdempotencyKey == false)
    }
}

@Suite("RetryPolicy: idempotency keys")
struct RetryPolicyIdempotencyKeyTests {
    private let generating = RetryPolicy(generatesIdempotencyKey: true)

    @Test("POST and PATCH without a key get a fresh UUID", arguments: ["POST", "PATCH"])
    func generated(method: String) throws {
        let first = try #require(generating.idempotencyKey(for: request(method)))
        let second = try #require(generating.idempotencyKey(for: request(method)))
        #expect(UUID(uuidString: first) != nil)
        #expect(first != second)
    }

    @Test("no key when off, when one is present, or for other methods")
    func notGenerated() {
        #expect(RetryPolicy.default.idempotencyKey(for: request("POST")) == nil)
        #expect(generating.idempotencyKey(for: request("POST", headers: ["Idempotency-Key": "mine"])) == nil)
        for method in ["GET", "PUT", "DELETE", "PURGE"] {
            #expect(generating.idempotencyKey(for: request(method)) == nil)
        }
        let invalidName = RetryPolicy(idempotencyKeyHeader: "Bad Header", generatesIdempotencyKey: true)
        #expect(invalidName.idempotencyKey(for: request("POST")) == nil)
    }

    @Test("a POST carrying the generated key is retried")
    func generatedKeyMakesPostRetryable() throws {
        let key = try #require(generating.idempotencyKey(for: request("POST")))
        let keyed = request("POST", headers: [generating.idempotencyKeyHeader: key])
        #expect(decide(generating, request: keyed, outcome: .failure(transportError(.timedOut))).delay != nil)
    }
}
