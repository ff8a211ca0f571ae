import Foundation
import HTTPTypes

/// Freshness of a stored response (RFC 9111 §4.2) and whether a request may be answered with it
/// (§4, §5.2.1, RFC 5861). Pure: every time is a parameter.
enum CacheFreshness {
    /// The heuristic freshness cap: 24 hours.
    static let maximumHeuristicLifetime: TimeInterval = 24 * 60 * 60

    /// Statuses that are heuristically cacheable (RFC 9110 §15.1).
    static let heuristicallyCacheableStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Whether the response carries an explicit expiration time: `max-age` or `Expires`.
    /// (`s-maxage` is for shared caches and ignored here.)
    static func hasExplicitExpiration(_ response: HTTPResponse, cacheControl: CacheControl) -> Bool {
        cacheControl.maxAge != nil || response.headerFields[.expires] != nil
    }

    /// The freshness lifetime in seconds (§4.2.1), never negative, from what was read of the
    /// response: its first `Expires` value, its status, its date value (``CacheResponseFacts/date``)
    /// and its valid `Last-Modified`:
    /// 1. `max-age` (an invalid one is `0`: stale);
    /// 2. otherwise `Expires` minus `Date` (or minus `responseTime` without a valid `Date`); an
    ///    `Expires` that is not a valid HTTP-date (such as `0`) means already expired;
    /// 3. otherwise the heuristic of §4.2.2 when allowed (``heuristicLifetime(status:date:lastModified:)``);
    /// 4. otherwise `0`.
    static func lifetime(
        cacheControl: CacheControl, expires: String?, status: Int, date: Date, lastModified: Date?, responseTime: Date
    ) -> TimeInterval {
        if let maxAge = cacheControl.maxAge { return TimeInterval(maxAge) }
        if let expires {
            guard let expiry = HTTPDate.parse(expires.trimmingSpaceAndTab(), now: responseTime, ignoringCase: true) else { return 0 }
            return max(0, expiry.timeIntervalSince(date))
        }
        return heuristicLifetime(status: status, date: date, lastModified: lastModified)
    }

    /// The heuristic freshness lifetime of §4.2.2: only for a heuristically cacheable status
    /// without explicit expiration, and only with a valid `Last-Modified`; then 10% of the time
    /// between `Date` (or `responseTime`) and `Last-Modified`, as §4.2.2 suggests, capped at
    /// 24 hours: past 24 hours a client would have to show a `113 Heuristic Expiration` warning
    /// (RFC 7234 §5.5.4, obsolete now), and a day is the conventional bound browsers use too.
    static func heuristicLifetime(status: Int, date: Date, lastModified: Date?) -> TimeInterval {
        guard heuristicallyCacheableStatuses.contains(status), let lastModified else { return 0 }
        let age = date.timeIntervalSince(lastModified)
        guard age > 0 else { return 0 }
        return min(age / 10, maximumHeuristicLifetime)
    }

    /// The current age in seconds (§4.2.3), from its parts already read: `date_value` and
    /// `age_value` (``CacheResponseFacts/ageValue``: the first member of a list; an invalid one,
    /// and a huge one, saturate at 2^31):
    ///
    ///     apparent_age = max(0, response_time - date_value)
    ///     corrected_age_value = age_value + (response_time - request_time)
    ///     corrected_initial_age = max(apparent_age, corrected_age_value)
    ///     current_age = corrected_initial_age + (now - response_time)
    static func currentAge(date: Date, ageValue: Int, requestTime: Date, responseTime: Date, now: Date) -> TimeInterval {
        let apparentAge = max(0, responseTime.timeIntervalSince(date))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        let correctedInitialAge = max(apparentAge, TimeInterval(ageValue) + responseDelay)
        let residentTime = max(0, now.timeIntervalSince(responseTime))
        return correctedInitialAge + residentTime
    }

    /// What a cache may do with a stored response for a request (§4, §4.2.4, §5.2.1, RFC 5861).
    enum Decision: Equatable, Sendable {
        /// Answer with the stored response.
        case useStored
        /// Answer with the stored response, and revalidate it in the background
        /// (`stale-while-revalidate`, RFC 5861 §3).
        case useStoredAndRevalidate
        /// Send a conditional request (§4.3) and use its answer.
        case revalidate
        /// The request said `only-if-cached` and the stored response cannot be used without the
        /// origin: answer `504 Gateway Timeout` (§5.2.1.7).
        case unsatisfiable
    }

    /// Whether `entry` may answer a request with `requestControl`, at `now`.
    /// - Parameters:
    /// - Parameter allowStaleWhileRevalidate: honour the response's `stale-while-revalidate`.
    static func decide(
        entry: CacheEntry, requestControl: CacheControl, now: Date,
        allowStaleWhileRevalidate: Bool = false
    ) -> Decision {
        let responseControl = entry.facts.control
        let mustAsk: Decision = requestControl.onlyIfCached ? .unsatisfiable : .revalidate
        // §5.2.2.4 / §5.2.1.4: no-cache on either side: never reuse without validation.
        if responseControl.noCache || requestControl.noCache { return mustAsk }
        let lifetime = entry.facts.lifetime
        let age = entry.currentAge(at: now)
        if let maxAge = requestControl.maxAge, age > TimeInterval(maxAge) { return mustAsk }
        if lifetime > age {
            if let minFresh = requestControl.minFresh, lifetime - age < TimeInterval(minFresh) { return mustAsk }
            return .useStored
        }
        // Stale. §4.2.4: never served stale under must-revalidate.
        if responseControl.mustRevalidate { return mustAsk }
        let staleness = age - lifetime
        if let maxStale = requestControl.maxStale, staleness <= TimeInterval(maxStale) { return .useStored }
        if allowStaleWhileRevalidate, !requestControl.onlyIfCached,
            let window = responseControl.staleWhileRevalidate, staleness <= TimeInterval(window)
        {
            return .useStoredAndRevalidate
        }
        return mustAsk
    }

    /// Whether `entry` may answer a request whose revalidation failed (a connection error or a
    /// `500`, `502`, `503` or `504`), per `stale-if-error` of the response or the request
    /// (RFC 5861 §4); never under `must-revalidate` or `no-cache` (§4.2.4).
    static func mayServeStaleOnError(entry: CacheEntry, requestControl: CacheControl, now: Date) -> Bool {
        let responseControl = entry.facts.control
        if responseControl.mustRevalidate || responseControl.noCache || requestControl.noCache { return false }
        let staleness = max(0, entry.currentAge(at: now) - entry.facts.lifetime)
        let window = max(responseControl.staleIfError ?? -1, requestControl.staleIfError ?? -1)
        return window >= 0 && staleness <= TimeInterval(window)
    }
}
