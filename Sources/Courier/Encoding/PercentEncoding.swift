/// Percent-encoding on UTF-8 bytes, with an explicit set of bytes left as they are.
///
/// Foundation's `addingPercentEncoding` differs between Apple platforms and Linux in corner
/// cases and works on `Character`s; this works on bytes, so its output is the same everywhere.
package enum PercentEncoding {
    /// RFC 3986 `unreserved`: `ALPHA / DIGIT / "-" / "." / "_" / "~"`.
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// RFC 3986 `sub-delims`: `"!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="`.
    package static func isSubDelim(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    package static func isHexDigit(_ byte: UInt8) -> Bool {
        hexValue(byte) != nil
    }

    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Encodes every byte of `string`'s UTF-8 form for which `keep` is false as `%XX`
    /// (upper-case hex, as RFC 3986 §2.1 recommends).
    package static func encode(_ string: String, keeping keep: (UInt8) -> Bool = isUnreserved) -> String {
        let utf8 = string.utf8
        if utf8.allSatisfy(keep) { return string }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if keep(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes `%XX` escapes; `nil` if an escape is malformed. The result may not be UTF-8.
    package static func decodeBytes(_ string: String) -> [UInt8]? {
        var result: [UInt8] = []
        var iterator = string.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue),
                    let low = iterator.next().flatMap(hexValue)
                else { return nil }
                result.append(high << 4 | low)
            } else {
                result.append(byte)
            }
        }
        return result
    }
}
