import Foundation

/// A server's `Retry-After` header (RFC 9110 §10.2.3): either a number of seconds to wait, or
/// the HTTP-date after which to try again.
///
/// ``RetryPolicy`` reads it from `429 Too Many Requests`, `503 Service Unavailable` and any other
/// retryable response that carries it. Parsing is strict, as the RFC asks: anything else is
/// `nil`, and the policy then falls back to its own backoff.
///
/// <!-- guide: skip: internal API, which code outside Courier (the guide tests included) cannot call -->
/// ```swift
/// let now = Date()
/// RetryAfter(parsing: "120", receivedAt: now)?.delay(from: now)              // .seconds(120)
/// RetryAfter(parsing: "Sun, 06 Nov 1994 08:49:37 GMT", receivedAt: now)      // .date(…)
/// RetryAfter(parsing: "soon", receivedAt: now)                               // nil
/// ```
enum RetryAfter: Sendable, Equatable {
    /// `delay-seconds`: wait this many whole seconds, e.g. `Retry-After: 120`.
    case seconds(UInt64)
    /// `HTTP-date`: wait until this moment, e.g. `Retry-After: Sun, 06 Nov 1994 08:49:37 GMT`.
    case date(Date)

    /// Parses a `Retry-After` field value: `delay-seconds` or one of the three HTTP-date forms of
    /// RFC 9110 §5.6.7 (IMF-fixdate, obsolete RFC 850, obsolete asctime).
    ///
    /// <!-- guide: skip: internal API, which code outside Courier (the guide tests included) cannot call -->
    /// ```swift
    /// RetryAfter(parsing: " 30 ", receivedAt: Date())    // .seconds(30)
    /// RetryAfter(parsing: "-1", receivedAt: Date())      // nil: not 1*DIGIT
    /// ```
    /// - Parameters:
    ///   - value: the field value.
    ///   - now: when the response was received; only the RFC 850 form (two-digit year) needs it.
    init?(parsing value: String, receivedAt now: Date) {
        // delay-seconds is one or more ASCII digits; a number too large for UInt64 is read as
        // UInt64.max seconds, "very long". The date forms:
        // - IMF-fixdate, the one servers must send: `Sun, 06 Nov 1994 08:49:37 GMT`
        // - obsolete RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`
        // - obsolete asctime: `Sun Nov  6 08:49:37 1994`
        // Leading and trailing spaces and tabs are ignored. Names are case-sensitive, as in the RFC.
        // An RFC 850 two-digit year is the one, of the two candidates 100 years apart, that lies within
        // 50 years of `now` (a year more than 50 years in the future is read as the most recent past
        // year with the same last two digits, RFC 9110 §5.6.7).
        let trimmed = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        guard !trimmed.isEmpty, trimmed.unicodeScalars.allSatisfy(\.isASCII) else { return nil }
        if trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // 1*DIGIT. Saturate instead of failing: "99999999999999999999" means "a very long
            // time", which a policy must see as too long, not as malformed.
            var seconds: UInt64 = 0
            for digit in trimmed.utf8 {
                let (times10, overflow1) = seconds.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
                if overflow1 || overflow2 {
                    seconds = .max
                    break
                }
                seconds = sum
            }
            self = .seconds(seconds)
            return
        }
        guard let date = HTTPDate.parse(trimmed, now: now) else { return nil }
        self = .date(date)
    }

    /// How long to wait, counted from `now`: the seconds as given, or the time until the date;
    /// a date that has already passed gives `.zero`.
    ///
    /// <!-- guide: skip: internal API, which code outside Courier (the guide tests included) cannot call -->
    /// ```swift
    /// let now = Date()
    /// RetryAfter.date(now.addingTimeInterval(-5)).delay(from: now)   // .zero
    /// RetryAfter.seconds(2).delay(from: now)                         // .seconds(2)
    /// ```
    func delay(from now: Date) -> Duration {
        switch self {
        case .seconds(let seconds):
            // Duration holds 128-bit attoseconds: UInt64.max seconds (≈ 1.8e37 as) fits, but
            // Int64 is the widest `.seconds` takes; beyond that is "forever" to any policy.
            return .seconds(Int64(clamping: seconds))
        case .date(let date):
            let interval = date.timeIntervalSince(now)
            guard interval > 0 else { return .zero }
            // Whole milliseconds are more than precise enough for a value given in seconds,
            // and keep the conversion clear of Double → Int64 overflow for any realistic date.
            let milliseconds = (interval * 1000).rounded(.up)
            guard milliseconds < Double(Int64.max) else { return .seconds(Int64.max) }
            return .milliseconds(Int64(milliseconds))
        }
    }
}
