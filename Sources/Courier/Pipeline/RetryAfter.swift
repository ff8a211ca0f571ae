import Foundation

/// A server's `Retry-After` header (RFC 9110 §10.2.3): either a number of seconds to wait, or
/// the HTTP-date after which to try again.
///
/// ``RetryPolicy`` reads it from `429 Too Many Requests`, `503 Service Unavailable` and any other
/// retryable response that carries it. Parsing is strict, as the RFC asks: anything else is
/// `nil`, and the policy then falls back to its own backoff.
///
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

    /// Parses a `Retry-After` field value.
    ///
    /// Accepts `delay-seconds` (one or more ASCII digits; a number too large for `UInt64` is read
    /// as `UInt64.max` seconds, "very long") and the three HTTP-date forms of RFC 9110 §5.6.7:
    /// - IMF-fixdate, the one servers must send: `Sun, 06 Nov 1994 08:49:37 GMT`
    /// - obsolete RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`
    /// - obsolete asctime: `Sun Nov  6 08:49:37 1994`
    ///
    /// Leading and trailing spaces and tabs are ignored. Names are case-sensitive, as in the RFC.
    ///
    /// ```swift
    /// RetryAfter(parsing: " 30 ", receivedAt: Date())    // .seconds(30)
    /// RetryAfter(parsing: "-1", receivedAt: Date())      // nil: not 1*DIGIT
    /// ```
    ///
    /// - Parameters:
    ///   - value: the field value.
    ///   - now: when the response was received. Only the RFC 850 form needs it: its two-digit
    ///     year is the one, of the two candidates 100 years apart, that lies within 50 years of
    ///     `now` (a year that would be more than 50 years in the future is read as the most
    ///     recent past year with the same last two digits, RFC 9110 §5.6.7).
    init?(parsing value: String, receivedAt now: Date) {
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

/// A strict parser for RFC 9110 §5.6.7 HTTP-dates, without `DateFormatter` (which is neither
/// `Sendable` nor cheap to make, and whose parsing depends on the platform's ICU).
enum HTTPDate {
    private static let shortWeekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longWeekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The date `text` names, or `nil` if it is not one of the three forms.
    static func parse(_ text: String, now: Date) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        switch parts.count {
        case 6:
            // IMF-fixdate: "Sun," "06" "Nov" "1994" "08:49:37" "GMT"
            guard parts[0].hasSuffix(","), shortWeekdays.contains(String(parts[0].dropLast())),
                parts[1].count == 2, let day = number(parts[1]),
                let month = month(parts[2]),
                parts[3].count == 4, let year = number(parts[3]),
                parts[5] == "GMT"
            else { return nil }
            return date(year: year, month: month, day: day, time: parts[4])
        case 4:
            // RFC 850: "Sunday," "06-Nov-94" "08:49:37" "GMT"
            let dayMonthYear = parts[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts[0].hasSuffix(","), longWeekdays.contains(String(parts[0].dropLast())),
                dayMonthYear.count == 3,
                dayMonthYear[0].count == 2, let day = number(dayMonthYear[0]),
                let month = month(dayMonthYear[1]),
                dayMonthYear[2].count == 2, let twoDigitYear = number(dayMonthYear[2]),
                parts[3] == "GMT"
            else { return nil }
            return date(year: fullYear(twoDigitYear, near: now), month: month, day: day, time: parts[2])
        case 5:
            // asctime: "Sun" "Nov" "6" "08:49:37" "1994" (the day is space-padded, so the split
            // above has already dropped the extra space)
            guard shortWeekdays.contains(parts[0]),
                let month = month(parts[1]),
                (1...2).contains(parts[2].count), let day = number(parts[2]),
                parts[4].count == 4, let year = number(parts[4])
            else { return nil }
            return date(year: year, month: month, day: day, time: parts[3])
        default:
            return nil
        }
    }

    /// A non-negative decimal number of ASCII digits only.
    private static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.count <= 9,
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(text)
    }

    /// 1–12 for "Jan"–"Dec".
    private static func month(_ text: String) -> Int? {
        months.firstIndex(of: text).map { $0 + 1 }
    }

    /// Builds the date from its fields and an "HH:MM:SS" time, checking every range.
    private static func date(year: Int, month: Int, day: Int, time: String) -> Date? {
        let hms = time.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard hms.count == 3, hms.allSatisfy({ $0.count == 2 }),
            let hour = number(hms[0]), let minute = number(hms[1]), let second = number(hms[2]),
            hour < 24, minute < 60, second <= 60,  // 60: a leap second, which the RFC allows
            day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11:
            return 30
        default:
            return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`):
    /// counting years from March makes the leap day the last day of the year, so every 400-year
    /// era has exactly 146 097 days and the day of the year follows from `(153 * m + 2) / 5`.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400  // 0...399
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1  // 0...365
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear  // 0...146096
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The Gregorian year that `now` falls in (UTC); the inverse of ``daysFromCivil(year:month:day:)``
    /// for the year only.
    static func year(of now: Date) -> Int {
        let z = Int((now.timeIntervalSince1970 / 86_400).rounded(.down)) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        return yearOfEra + era * 400 + (monthFromMarch >= 10 ? 1 : 0)
    }

    /// RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is the most recent
    /// past year with those digits. So pick the year with those digits in the window
    /// `(nowYear - 50)...(nowYear + 50)`.
    static func fullYear(_ twoDigits: Int, near now: Date) -> Int {
        let nowYear = year(of: now)
        var candidate = nowYear - nowYear % 100 + twoDigits
        if candidate > nowYear + 50 { candidate -= 100 }
        if candidate < nowYear - 49 { candidate += 100 }
        return candidate
    }
}
