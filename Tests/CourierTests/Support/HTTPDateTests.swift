import Foundation
import Testing

@testable import Courier

@Suite("HTTPDate: the three RFC 9110 forms, read in place")
struct HTTPDateTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026

    @Test(
        "each form parses to the same instant",
        arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun Nov 6 08:49:37 1994"])
    func everyFormParses(_ text: String) {
        #expect(HTTPDate.parse(text, now: Self.now) == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse(text, now: Self.now, ignoringCase: true) == Date(timeIntervalSince1970: 784_111_777))
    }

    /// HTTP-dates are case-sensitive (RFC 9110 §5.6.7: a Retry-After in lower case is not a
    /// date); a cache matches the names in any case (RFC 9111 §4.2, cache-tests freshness-expires-*).
    @Test(
        "names in another case are a date only to a cache",
        arguments: ["sun, 06 nov 1994 08:49:37 gmt", "SUNDAY, 06-NOV-94 08:49:37 GMT", "sUn NoV  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 gmt"])
    func namesInAnotherCase(_ text: String) {
        #expect(HTTPDate.parse(text, now: Self.now) == nil)
        #expect(HTTPDate.parse(text, now: Self.now, ignoringCase: true) == Date(timeIntervalSince1970: 784_111_777))
    }

    @Test(
        "anything else is nil",
        arguments: [
            "", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT",
            // Issue 50: one space between parts (an invalid Expires means already expired).
            "Sun,  06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT ", " Sun, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994  08:49:37 GMT", "Sun Nov  16 08:49:37 1994", "Sun  Nov 6 08:49:37 1994", "Sun Nov   6 08:49:37 1994",
            "Sunday,  06-Nov-94 08:49:37 GMT",
            "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun,\t06 Nov 1994 08:49:37 GMT", "Sünday, 06-Nov-94 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT x",
            "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov 006 08:49:37 1994", "Sun, 06 Nov 1994 08-49-37 GMT",
        ])
    func otherTextIsNil(_ text: String) {
        #expect(HTTPDate.parse(text, now: Self.now) == nil)
        #expect(HTTPDate.parse(text, now: Self.now, ignoringCase: true) == nil)
    }

    /// 50,000 inputs made by mutating valid dates byte by byte (a digit, a name, a separator, a
    /// space more or less, a non-ASCII byte): the byte parser answers exactly as the reference.
    @Test("agrees with the string-splitting reference parser on 50,000 mutated dates")
    func agreesWithTheReference() {
        var random = SplitMix64(seed: 0xDA7E)
        let seeds = ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"]
        let alphabet = Array("0123456789 ,:-GMTSunNovDecFebWedsdaygmtNOVé\t".utf8)
        var accepted = 0
        for round in 0..<50_000 {
            var bytes = Array(seeds[round % seeds.count].utf8)
            for _ in 0..<Int(random.next() % 3) {
                let position = Int(random.next() % UInt64(bytes.count + 1))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0 where position < bytes.count: bytes[position] = byte
                case 1 where position < bytes.count: bytes.remove(at: position)
                default: bytes.insert(byte, at: position)
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let now = Date(timeIntervalSince1970: TimeInterval(random.next() % 4_000_000_000))
            let ignoringCase = round % 2 == 1
            let expected = ReferenceHTTPDate.parse(text, now: now, ignoringCase: ignoringCase)
            #expect(HTTPDate.parse(text, now: now, ignoringCase: ignoringCase) == expected, "\(text.debugDescription)")
            if expected != nil { accepted += 1 }
        }
        #expect(accepted > 5_000, "the mutations must keep enough dates valid to compare accepted ones too")
    }
}

/// The string-splitting parser Courier used before the byte parser (kept as the reference the
/// new one must agree with).
enum ReferenceHTTPDate {
    /// The date `text` names, or `nil` if it is not one of the three forms: parts separated by
    /// exactly one space, two only before asctime's one-digit day; names as written, or in any
    /// case with `ignoringCase`.
    static func parse(_ text: String, now: Date, ignoringCase: Bool) -> Date? {
        let fold: (String) -> String = ignoringCase ? { $0.lowercased() } : { $0 }
        let shortWeekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map(fold)
        let longWeekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"].map(fold)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"].map(fold)
        let gmt = fold("GMT")
        let month = { (text: String) in months.firstIndex(of: text).map { $0 + 1 } }
        let pieces = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let empties = pieces.indices.filter { pieces[$0].isEmpty }
        guard empties.isEmpty || (empties == [2] && pieces.count == 6 && pieces[3].count == 1) else { return nil }
        let parts = pieces.filter { !$0.isEmpty }.map(fold)
        switch parts.count {
        case 6:
            // IMF-fixdate: "Sun," "06" "Nov" "1994" "08:49:37" "GMT"
            guard parts[0].hasSuffix(","), shortWeekdays.contains(String(parts[0].dropLast())),
                parts[1].count == 2, let day = number(parts[1]),
                let month = month(parts[2]),
                parts[3].count == 4, let year = number(parts[3]),
                parts[5] == gmt
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
                parts[3] == gmt
            else { return nil }
            return date(year: HTTPDate.fullYear(twoDigitYear, near: now), month: month, day: day, time: parts[2])
        case 5:
            // asctime: "Sun" "Nov" "6" "08:49:37" "1994" (the day is space-padded: the empty
            // piece before it is dropped above)
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

    /// Builds the date from its fields and an "HH:MM:SS" time, checking every range.
    private static func date(year: Int, month: Int, day: Int, time: String) -> Date? {
        let hms = time.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard hms.count == 3, hms.allSatisfy({ $0.count == 2 }),
            let hour = number(hms[0]), let minute = number(hms[1]), let second = number(hms[2]),
            hour < 24, minute < 60, second <= 60,  // 60: a leap second, which the RFC allows
            day >= 1, day <= HTTPDate.daysIn(month: month, year: year)
        else { return nil }
        let days = HTTPDate.daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
