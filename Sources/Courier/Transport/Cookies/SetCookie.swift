import Foundation

/// One `Set-Cookie` field value, parsed as RFC 6265 §5.2 says a user agent parses it, with the
/// limits of RFC 6265bis §5.6: a cookie whose name and value hold a control character, or are
/// longer than 4096 bytes together, is ignored; an attribute value longer than 1024 bytes is
/// ignored. Pure: what to store is the ``CookieJar``'s decision (§5.3).
struct SetCookie: Equatable, Sendable {
    /// The most bytes of name and value together (RFC 6265bis §5.6).
    static let maximumNameAndValueSize = 4096
    /// The most bytes of an attribute's value (RFC 6265bis §5.6).
    static let maximumAttributeValueSize = 1024
    /// The most `Set-Cookie` values one response stores (RFC 6265 §5.3 step 12 asks for bounds):
    /// the rest are ignored, so a response of thousands cannot grow the jar or stall the
    /// delegate queue.
    static let maximumPerResponse = 50

    var name: String
    var value: String
    /// `Domain`, lower-cased, without a leading dot; `nil` without one (a host-only cookie) or
    /// with an empty one (RFC 6265bis §5.6.3).
    var domain: String?
    /// `Path` when it starts with `/`; `nil` otherwise (the default-path applies, §5.2.4).
    var path: String?
    /// When it expires: `Max-Age` counted from `now` (which wins), else `Expires`; `nil` for a
    /// session cookie. A time not after `now` deletes the cookie (§5.3 step 11).
    var expires: Date?
    var secure = false
    var httpOnly = false

    /// The cookie `text` sets at `now`, or `nil` when it sets none (no `=` in the first pair, an
    /// empty name, a control character, too long).
    init?(parsing text: Substring, now: Date) {
        let pairEnd = text.firstIndex(of: ";") ?? text.endIndex
        let pair = text[..<pairEnd]
        guard let equals = pair.firstIndex(of: "=") else { return nil }
        let name = Self.trimmed(pair[..<equals])
        let value = Self.trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= Self.maximumNameAndValueSize,
            !Self.hasControl(name), !Self.hasControl(value)
        else { return nil }
        self.name = String(name)
        self.value = String(value)
        var maxAge: Date?
        var expires: Date?
        var rest = pairEnd < text.endIndex ? text[text.index(after: pairEnd)...] : Substring()
        while !rest.isEmpty {
            let end = rest.firstIndex(of: ";") ?? rest.endIndex
            let attribute = rest[..<end]
            rest = end < rest.endIndex ? rest[rest.index(after: end)...] : Substring()
            let equals = attribute.firstIndex(of: "=")
            let attributeName = Self.trimmed(attribute[..<(equals ?? attribute.endIndex)]).lowercased()
            let attributeValue = equals.map { Self.trimmed(attribute[attribute.index(after: $0)...]) } ?? ""
            guard attributeValue.utf8.count <= Self.maximumAttributeValueSize else { continue }
            switch attributeName {
            case "expires":
                if let date = Self.cookieDate(attributeValue) { expires = date }
            case "max-age":
                // §5.2.2: an optional "-" and digits; zero or less is the earliest time.
                let digits = attributeValue.hasPrefix("-") ? attributeValue.dropFirst() : attributeValue
                guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { continue }
                let seconds = attributeValue.hasPrefix("-") ? 0 : min(Int(digits) ?? Int.max, 400 * 86_400)
                maxAge = seconds <= 0 ? .distantPast : now.addingTimeInterval(TimeInterval(seconds))
            case "domain":
                // §5.2.3: a leading dot is ignored; an empty value is (RFC 6265bis) no attribute. A
                // trailing dot (a fully qualified name) is the same name.
                var domain = attributeValue.lowercased()
                if domain.hasPrefix(".") { domain.removeFirst() }
                if domain.hasSuffix(".") { domain.removeLast() }
                // An empty label left (`..example.com`) domain-matches no host: §5.3 step 6
                // ignores such a cookie.
                if domain.hasPrefix(".") || domain.hasSuffix(".") || domain.contains("..") { return nil }
                self.domain = domain.isEmpty ? nil : domain
            case "path":
                self.path = attributeValue.hasPrefix("/") ? String(attributeValue) : nil
            case "secure":
                secure = true
            case "httponly":
                httpOnly = true
            default:
                break
            }
        }
        self.expires = maxAge ?? expires
    }

    /// A date as RFC 6265 §5.1.1 reads one, leniently (`Wed, 21-Oct-2015 07:28:00 GMT` as well
    /// as an HTTP-date): the first time, day of month, month and year among its tokens; a two-digit
    /// year 70–99 is 19xx, 00–69 is 20xx; `nil` when a part is missing or out of range.
    static func cookieDate(_ text: Substring) -> Date? {
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        let tokens = text.utf8.split { byte in
            !((UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                || byte == UInt8(ascii: ":"))
        }
        for token in tokens.prefix(16) {
            let text = String(decoding: token, as: UTF8.self)
            let digits = text.prefix { $0.isASCII && $0.isNumber }
            if time == nil {
                let parts = text.split(separator: ":", omittingEmptySubsequences: false)
                if parts.count == 3, parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
                    let hour = Int(parts[0]), let minute = Int(parts[1]), let second = Int(parts[2])
                {
                    time = (hour, minute, second)
                    continue
                }
            }
            if day == nil, (1...2).contains(digits.count), digits.count == text.count || !text.contains(":") {
                day = Int(digits)
                continue
            }
            if month == nil, text.count >= 3,
                let index = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
                    .firstIndex(of: text.prefix(3).lowercased())
            {
                month = index + 1
                continue
            }
            if year == nil, (2...4).contains(digits.count), let value = Int(digits) {
                year = value < 70 && digits.count <= 2 ? value + 2000 : (value < 100 && digits.count <= 2 ? value + 1900 : value)
            }
        }
        guard let (hour, minute, second) = time, let day, let month, let year, year >= 1601, hour <= 23, minute <= 59,
            second <= 59, day >= 1, day <= HTTPDate.daysIn(month: month, year: year)
        else { return nil }
        let days = HTTPDate.daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// The `Set-Cookie` values in `folded`, one field value or several that URLSession joined
    /// with `, `: a piece after a comma starts a new cookie when it begins with `name=` (before
    /// any `;`), and is otherwise the rest of the previous one (the comma inside `Expires`).
    static func values(in folded: String) -> [Substring] {
        var values: [Substring] = []
        var start = folded.startIndex
        var index = folded.startIndex
        while let comma = folded.utf8[index...].firstIndex(of: UInt8(ascii: ",")) {
            let next = folded.utf8.index(after: comma)
            if startsCookie(folded[next...]) {
                values.append(folded[start..<comma])
                start = next
            }
            index = next
        }
        values.append(folded[start...])
        return values
    }

    /// Whether `text` begins with a cookie pair: `token=` before any `;` or `,`. It reads only up
    /// to the first `=`, `;` or `,`, so a field of many commas costs its length, not its square.
    private static func startsCookie(_ text: Substring) -> Bool {
        let bytes = text.utf8
        guard let end = bytes.firstIndex(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: ",") }),
            bytes[end] == UInt8(ascii: "=")
        else { return false }
        let name = trimmed(text[..<end])
        return !name.isEmpty && !name.utf8.contains(UInt8(ascii: " "))
    }

    /// `text` without the spaces and tabs around it.
    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }

    /// Whether `text` holds a control character other than a tab (RFC 6265bis §5.6).
    private static func hasControl(_ text: Substring) -> Bool {
        text.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }
}
