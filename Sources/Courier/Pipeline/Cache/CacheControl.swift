import HTTPTypes

/// The directives of a message's `Cache-Control` field (RFC 9111 §5.2), request and response
/// directives in one value: each side reads the ones that apply to it.
///
/// Parsing follows RFC 9111 §5.2 and RFC 9110 §5.6: a comma-separated list of
/// `token [ "=" ( token / quoted-string ) ]`, every field line combined, names compared without
/// regard to case. A directive that occurs twice keeps its first value (§4.2.1). An argument that
/// is not `delta-seconds` makes the directive ignored, except `max-age`, which then reads as `0`:
/// "treat as stale" (§4.2.1). `delta-seconds` saturate at 2^31 (§1.2.2).
///
/// A field larger than ``maximumFieldBytes`` or with more than ``maximumDirectives`` directives is
/// not read: the value is ``isOverLimit``, with `no-store` and `no-cache` set, the most
/// conservative reading (nothing stored, nothing reused without asking the origin).
struct CacheControl: Equatable, Sendable {
    /// Bytes of all field lines together beyond which the field is not parsed.
    static let maximumFieldBytes = 8 * 1024
    /// Directives beyond which the field is not parsed.
    static let maximumDirectives = 64
    /// The largest `delta-seconds` kept: 2^31 (RFC 9111 §1.2.2).
    static let maximumDeltaSeconds = 2_147_483_648

    /// `max-age` (request and response); an invalid argument reads as `0`.
    var maxAge: Int?
    /// `max-stale` (request): `Int.max`-like ``maximumDeltaSeconds`` when given without argument.
    var maxStale: Int?
    /// `min-fresh` (request).
    var minFresh: Int?
    /// `s-maxage` (response). Parsed, and ignored: this is a private cache (§5.2.2.10).
    var sharedMaxAge: Int?
    /// `stale-while-revalidate` (response, RFC 5861 §3).
    var staleWhileRevalidate: Int?
    /// `stale-if-error` (request and response, RFC 5861 §4).
    var staleIfError: Int?
    /// `no-cache`, qualified or not: a qualified one (`no-cache="Set-Cookie"`) is read as the
    /// unqualified form, which §5.2.2.4 allows and which is the more conservative.
    var noCache = false
    /// `no-store`.
    var noStore = false
    /// `no-transform`.
    var noTransform = false
    /// `only-if-cached` (request).
    var onlyIfCached = false
    /// `must-revalidate` (response).
    var mustRevalidate = false
    /// `proxy-revalidate` (response); only for shared caches.
    var proxyRevalidate = false
    /// `must-understand` (response).
    var mustUnderstand = false
    /// `public` (response).
    var isPublic = false
    /// `private` (response), qualified or not: a private cache may store either.
    var isPrivate = false
    /// The field was too large to read; `noStore` and `noCache` are set.
    var isOverLimit = false

    /// No directives.
    init() {}

    /// The directives of every `Cache-Control` line of `fields`.
    init(_ fields: HTTPFields) {
        self.init(lines: fields[values: .cacheControl])
    }

    /// The directives of these field lines, in order.
    init(lines: [String]) {
        var total = 0
        for line in lines {
            total += line.utf8.count + 2
            if total > Self.maximumFieldBytes {
                self = .overLimit
                return
            }
        }
        var count = 0
        var seen = Set<String>()
        for line in lines {
            for element in Self.elements(of: Array(line.utf8)) {
                count += 1
                if count > Self.maximumDirectives {
                    self = .overLimit
                    return
                }
                // §4.2.1: the first occurrence of a directive is the one used.
                guard let name = element.name, seen.insert(name).inserted else { continue }
                if element.isWellFormed {
                    apply(name: name, argument: element.argument)
                } else {
                    applyMalformed(name: name)
                }
            }
        }
    }

    private static var overLimit: CacheControl {
        var value = CacheControl()
        value.isOverLimit = true
        value.noStore = true
        value.noCache = true
        return value
    }

    private mutating func apply(name: String, argument: String?) {
        switch name {
        case "max-age": maxAge = argument.flatMap(Self.deltaSeconds) ?? 0
        case "max-stale":
            if let argument {
                maxStale = Self.deltaSeconds(argument)
            } else {
                maxStale = Self.maximumDeltaSeconds
            }
        case "min-fresh": minFresh = argument.flatMap(Self.deltaSeconds)
        case "s-maxage": sharedMaxAge = argument.flatMap(Self.deltaSeconds)
        case "stale-while-revalidate": staleWhileRevalidate = argument.flatMap(Self.deltaSeconds)
        case "stale-if-error": staleIfError = argument.flatMap(Self.deltaSeconds)
        case "no-cache": noCache = true
        case "no-store": noStore = true
        case "no-transform": noTransform = true
        case "only-if-cached": onlyIfCached = true
        case "must-revalidate": mustRevalidate = true
        case "proxy-revalidate": proxyRevalidate = true
        case "must-understand": mustUnderstand = true
        case "public": isPublic = true
        case "private": isPrivate = true
        default: break  // extensions are ignored (§5.2.3)
        }
    }

    /// A directive whose element breaks the grammar (`max-age=1 2`, `no-store "x"`): only what
    /// makes the cache more careful is kept; `max-age` reads as `0`.
    private mutating func applyMalformed(name: String) {
        switch name {
        case "max-age": maxAge = 0
        case "no-cache": noCache = true
        case "no-store": noStore = true
        case "must-revalidate": mustRevalidate = true
        case "private": isPrivate = true
        default: break
        }
    }

    /// One list element: its lowercased name (`nil` when it does not start with a token), its
    /// argument, and whether the whole element follows the grammar.
    private struct Element {
        var name: String?
        var argument: String?
        var isWellFormed: Bool
    }

    /// `delta-seconds = 1*DIGIT`, saturated at 2^31; `nil` for anything else.
    static func deltaSeconds(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        var value = 0
        for digit in text.utf8 {
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
            if value >= maximumDeltaSeconds { return maximumDeltaSeconds }
        }
        return value
    }

    /// The list elements of one field line, each `token [ "=" ( token / quoted-string ) ]` or
    /// marked malformed. Empty elements are skipped (RFC 9110 §5.6.1).
    private static func elements(of bytes: [UInt8]) -> [Element] {
        var result: [Element] = []
        var index = 0
        func skipSpace() {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
                index += 1
            }
        }
        func skipToNextElement() {
            var quoted = false
            while index < bytes.count {
                let byte = bytes[index]
                if quoted {
                    if byte == UInt8(ascii: "\\") {
                        index += 1
                    } else if byte == UInt8(ascii: "\"") {
                        quoted = false
                    }
                } else if byte == UInt8(ascii: "\"") {
                    quoted = true
                } else if byte == UInt8(ascii: ",") {
                    return
                }
                index += 1
            }
        }
        while index < bytes.count {
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard index < bytes.count else { break }
            let nameStart = index
            while index < bytes.count, HTTPToken.isTChar(bytes[index]) { index += 1 }
            guard index > nameStart else {
                result.append(Element(name: nil, argument: nil, isWellFormed: false))
                skipToNextElement()
                continue
            }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            skipSpace()
            var argument: String?
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    index += 1
                    var value: [UInt8] = []
                    var closed = false
                    while index < bytes.count {
                        let byte = bytes[index]
                        index += 1
                        if byte == UInt8(ascii: "\\"), index < bytes.count {
                            value.append(bytes[index])
                            index += 1
                        } else if byte == UInt8(ascii: "\"") {
                            closed = true
                            break
                        } else {
                            value.append(byte)
                        }
                    }
                    guard closed else {
                        result.append(Element(name: name, argument: nil, isWellFormed: false))
                        break
                    }
                    argument = String(decoding: value, as: UTF8.self)
                } else {
                    let valueStart = index
                    while index < bytes.count, HTTPToken.isTChar(bytes[index]) { index += 1 }
                    argument = String(decoding: bytes[valueStart..<index], as: UTF8.self)
                }
                skipSpace()
            }
            if index < bytes.count, bytes[index] != UInt8(ascii: ",") {
                // Something after the directive that the grammar does not allow.
                result.append(Element(name: name, argument: nil, isWellFormed: false))
                skipToNextElement()
                continue
            }
            result.append(Element(name: name, argument: argument, isWellFormed: true))
        }
        return result
    }
}
