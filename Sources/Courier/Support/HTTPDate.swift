import Foundation

/// A strict parser for RFC 9110 §5.6.7 HTTP-dates, without `DateFormatter` (which is neither
/// `Sendable` nor cheap to make, and whose parsing depends on the platform's ICU).
///
/// It reads the bytes in place: the cache parses `Date`, `Expires` and `Last-Modified` on every
/// revalidation, so the parser allocates nothing.
enum HTTPDate {
    /// The date `text` names, or `nil` if it is not one of the three forms:
    /// - IMF-fixdate, the one servers must send: `Sun, 06 Nov 1994 08:49:37 GMT`
    /// - obsolete RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`
    /// - obsolete asctime: `Sun Nov  6 08:49:37 1994`
    ///
    /// Parts are separated by exactly one space (two before asctime's one-digit day, which is
    /// space-padded): a date with more is not one of the forms, and an `Expires` that is not a
    /// date means already expired (RFC 9111 §5.3). HTTP-dates are case-sensitive (RFC 9110
    /// §5.6.7); a cache passes `ignoringCase` to match day and month names and `GMT` in any case,
    /// as RFC 9111 §4.2 asks of a cache recipient.
    /// `now` picks the century of an RFC 850 two-digit year (``fullYear(_:near:)``).
    static func parse(_ text: String, now: Date, ignoringCase: Bool = false) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0, now: now, ignoringCase: ignoringCase) }
    }

    /// The most parts any form has.
    private static let maximumParts = 6

    private static func parse(bytes: UnsafeBufferPointer<UInt8>, now: Date, ignoringCase: Bool) -> Date? {
        // Every byte of every form is ASCII.
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: maximumParts) { parts -> Date? in
            var count = 0
            var index = 0
            // Where a separator of two spaces was (the part after it), or -1.
            var doubleSpaceBefore = -1
            while index < bytes.count {
                if bytes[index] == space {
                    var run = 0
                    while index < bytes.count, bytes[index] == space {
                        run += 1
                        index += 1
                    }
                    // One space between parts; two once, before asctime's padded day; none around.
                    guard count > 0, index < bytes.count, run == 1 || (run == 2 && doubleSpaceBefore < 0) else { return nil }
                    if run == 2 { doubleSpaceBefore = count }
                    continue
                }
                let start = index
                while index < bytes.count, bytes[index] != space { index += 1 }
                guard count < maximumParts else { return nil }
                parts.initializeElement(at: count, to: start..<index)
                count += 1
            }
            if doubleSpaceBefore >= 0 {
                // Only asctime pads: "Sun Nov  6 08:49:37 1994".
                guard count == 5, doubleSpaceBefore == 2, parts[2].count == 1 else { return nil }
            }
            let text = Bytes(bytes: bytes, ignoringCase: ignoringCase)
            switch count {
            case 6:
                // IMF-fixdate: "Sun," "06" "Nov" "1994" "08:49:37" "GMT"
                let weekday = parts[0]
                guard weekday.count == 4, text[weekday.upperBound - 1] == comma,
                    text.matchesAny(weekday.lowerBound..<weekday.upperBound - 1, of: shortWeekdays),
                    parts[1].count == 2, let day = text.number(parts[1]),
                    let month = text.month(parts[2]),
                    parts[3].count == 4, let year = text.number(parts[3]),
                    text.equals(parts[5], "GMT")
                else { return nil }
                return text.date(year: year, month: month, day: day, time: parts[4])
            case 4:
                // RFC 850: "Sunday," "06-Nov-94" "08:49:37" "GMT"
                let weekday = parts[0], dayMonthYear = parts[1]
                let start = dayMonthYear.lowerBound
                guard weekday.count > 1, text[weekday.upperBound - 1] == comma,
                    text.matchesAny(weekday.lowerBound..<weekday.upperBound - 1, of: longWeekdays),
                    dayMonthYear.count == 9, text[start + 2] == hyphen, text[start + 6] == hyphen,
                    let day = text.number(start..<start + 2),
                    let month = text.month(start + 3..<start + 6),
                    let twoDigitYear = text.number(start + 7..<start + 9),
                    text.equals(parts[3], "GMT")
                else { return nil }
                return text.date(year: fullYear(twoDigitYear, near: now), month: month, day: day, time: parts[2])
            case 5:
                // asctime: "Sun" "Nov" "6" "08:49:37" "1994" (the day is space-padded: the extra
                // space is one more separator)
                guard text.matchesAny(parts[0], of: shortWeekdays),
                    let month = text.month(parts[1]),
                    (1...2).contains(parts[2].count), let day = text.number(parts[2]),
                    parts[4].count == 4, let year = text.number(parts[4])
                else { return nil }
                return text.date(year: year, month: month, day: day, time: parts[3])
            default:
                return nil
            }
        }
    }

    private static let space = UInt8(ascii: " "), comma = UInt8(ascii: ","), hyphen = UInt8(ascii: "-")
    private static let colon = UInt8(ascii: ":")
    private static let shortWeekdays: [StaticString] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longWeekdays: [StaticString] = [
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    ]
    private static let months: [StaticString] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// The field value's bytes, read by offset ranges.
    private struct Bytes {
        let bytes: UnsafeBufferPointer<UInt8>
        /// Whether names match in any ASCII case.
        let ignoringCase: Bool

        subscript(_ index: Int) -> UInt8 { bytes[index] }

        /// Whether the bytes in `range` are the letters of `text` (in any ASCII case with
        /// `ignoringCase`).
        func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
            guard range.count == text.utf8CodeUnitCount else { return false }
            let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
            let fold: UInt8 = ignoringCase ? 0x20 : 0
            return zip(bytes[range], expected).allSatisfy { $0 | fold == $1 | fold }
        }

        func matchesAny(_ range: Range<Int>, of names: [StaticString]) -> Bool {
            names.contains { equals(range, $0) }
        }

        /// 1–12 for "Jan"–"Dec".
        func month(_ range: Range<Int>) -> Int? {
            HTTPDate.months.firstIndex { equals(range, $0) }.map { $0 + 1 }
        }

        /// A non-negative decimal number of 1 to 9 ASCII digits.
        func number(_ range: Range<Int>) -> Int? {
            guard !range.isEmpty, range.count <= 9 else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }

        /// The date from its fields and the "HH:MM:SS" time at `time`, checking every range.
        func date(year: Int, month: Int, day: Int, time: Range<Int>) -> Date? {
            let start = time.lowerBound
            guard time.count == 8, bytes[start + 2] == HTTPDate.colon, bytes[start + 5] == HTTPDate.colon,
                let hour = number(start..<start + 2), let minute = number(start + 3..<start + 5),
                let second = number(start + 6..<start + 8),
                hour < 24, minute < 60, second <= 60,  // 60: a leap second, which the RFC allows
                day >= 1, day <= HTTPDate.daysIn(month: month, year: year)
            else { return nil }
            let days = HTTPDate.daysFromCivil(year: year, month: month, day: day)
            let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
            return Date(timeIntervalSince1970: TimeInterval(seconds))
        }
    }

    /// The days of `month` (1–12) in the proleptic Gregorian `year`.
    static func daysIn(month: Int, year: Int) -> Int {
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
