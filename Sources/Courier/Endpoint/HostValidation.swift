import Foundation

/// Validation of the host part of a ``BaseURL``, following RFC 1123 names, IPv4 dotted quads
/// and RFC 4291 IPv6 literals in brackets (RFC 3986 `IP-literal`).
///
/// Every check runs on Unicode scalars, never on `Character`s: a combining mark attached to an
/// ASCII letter forms one `Character` that can look like the letter, but it is its own scalar
/// and is rejected.
enum HostValidation {
    /// Returns `nil` if `host` is valid, or the reason it is not.
    static func problem(with host: String) -> String? {
        // Nearly every host is a plain name or address: one pass over its bytes settles it.
        isPlainNameOrIPv4(host.utf8) ? nil : problemByEveryRule(with: host)
    }

    /// ``problem(with:)`` without the one-pass shortcut: each rule in turn, naming the first
    /// one `host` breaks.
    static func problemByEveryRule(with host: String) -> String? {
        let scalars = host.unicodeScalars
        guard !scalars.isEmpty else { return "the host is empty" }
        // First, so that no later reason (which may quote a label or an address) can quote a
        // token given as user-info.
        if scalars.contains("@") {
            return "contains user-info (\"@\"); credentials do not belong in the host, use Authentication"
        }
        if let bad = scalars.first(where: { !$0.isASCII }) {
            let code = "U+" + String(bad.value, radix: 16, uppercase: true)
            return "contains the non-ASCII character \(code); use the name's punycode (IDNA) form, e.g. \"xn--bcher-kva.example\" for \"bücher.example\""
        }
        if host.contains("://") {
            return "contains a scheme; pass the scheme separately and give only the host"
        }
        if let first = scalars.first, first == "[" {
            return ipv6Problem(host)
        }
        for scalar in scalars {
            switch scalar {
            case "/": return "contains a \"/\"; put the path in URLPath, not in the host"
            case ":": return "contains a \":\"; pass the port separately, and write IPv6 addresses in brackets"
            case " ", "\t": return "contains white space"
            case "?", "#": return "contains \"\(scalar)\"; a host cannot carry a query or fragment"
            case "%": return "contains a percent-escape; give the host in plain ASCII"
            default: continue
            }
        }
        return dnsNameOrIPv4Problem(host)
    }

    /// Whether `host` is a name or dotted quad that ``dnsNameOrIPv4Problem(_:)`` accepts, decided
    /// in one pass without allocating. `false` only means "not proven here": the full checks
    /// then run and name the problem (or accept an IPv6 literal).
    static func isPlainNameOrIPv4(_ host: String.UTF8View) -> Bool {
        guard !host.isEmpty, host.count <= 253 else { return false }
        var labels = 0, octets = 0
        var length = 0, value = 0
        var first: UInt8 = 0, last: UInt8 = 0
        var allDigits = true
        var iterator = host.makeIterator()
        while true {
            let byte = iterator.next()
            if byte == nil || byte == UInt8(ascii: ".") {
                // A label ends: 1–63 label bytes, no hyphen at either end.
                guard length > 0, length <= 63, first != UInt8(ascii: "-"), last != UInt8(ascii: "-") else { return false }
                labels += 1
                if allDigits, length <= 3, value <= 255, length == 1 || first != UInt8(ascii: "0") { octets += 1 }
                guard byte != nil else { return !allDigits || (labels == 4 && octets == 4) }
                length = 0
                value = 0
                allDigits = true
                continue
            }
            guard let byte, isLabelByte(byte) else { return false }
            if length == 0 { first = byte }
            last = byte
            length += 1
            if isDigit(byte) {
                if length <= 3 { value = value * 10 + Int(byte - UInt8(ascii: "0")) }
            } else {
                allDigits = false
            }
        }
    }

    /// RFC 1123 §2.1 names, and dotted quads when the last label is all digits.
    private static func dnsNameOrIPv4Problem(_ host: String) -> String? {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if let last = labels.last, !last.isEmpty, last.utf8.allSatisfy(isDigit) {
            return ipv4Problem(labels)
        }
        guard host.utf8.count <= 253 else {
            return "is \(host.utf8.count) characters long; a host name has at most 253"
        }
        for label in labels {
            guard !label.isEmpty else {
                return "has an empty label (two dots in a row, or a leading or trailing dot)"
            }
            guard label.utf8.count <= 63 else {
                return "has a label of \(label.utf8.count) characters; a label has at most 63"
            }
            guard label.utf8.allSatisfy(isLabelByte) else {
                let bad = label.unicodeScalars.first { !isLabelByte(UInt8($0.value)) }.map { String($0) } ?? "?"
                return "has the character \(bad.debugDescription) in label \"\(label)\"; labels use letters, digits and inner hyphens"
            }
            guard label.utf8.first != UInt8(ascii: "-"), label.utf8.last != UInt8(ascii: "-") else {
                return "label \"\(label)\" starts or ends with a hyphen"
            }
        }
        return nil
    }

    /// A dotted quad: exactly four decimal octets 0–255 without leading zeros (which some
    /// resolvers read as octal, so `010.0.0.1` could mean `8.0.0.1`).
    private static func ipv4Problem(_ labels: [Substring]) -> String? {
        let reason = "ends in an all-numeric label, so it must be an IPv4 address of four octets 0–255 (e.g. 192.0.2.1)"
        guard labels.count == 4 else { return reason }
        for octet in labels {
            guard !octet.isEmpty, octet.utf8.count <= 3, octet.utf8.allSatisfy(isDigit),
                let value = Int(octet), value <= 255
            else { return reason }
            guard octet.utf8.count == 1 || octet.utf8.first != UInt8(ascii: "0") else {
                return "IPv4 octet \"\(octet)\" has a leading zero, which some resolvers read as octal"
            }
        }
        return nil
    }

    /// `[` IPv6address `]` (RFC 4291 §2.2), with an optional trailing dotted quad.
    /// Zone identifiers (`%25eth0`) are not supported.
    private static func ipv6Problem(_ host: String) -> String? {
        guard host.hasSuffix("]"), host.utf8.count > 2 else {
            return "starts with \"[\" but is not a bracketed IPv6 address such as [2001:db8::1]"
        }
        let address = host.dropFirst().dropLast()
        if address.contains("%") {
            return "IPv6 zone identifiers are not supported"
        }
        return isValidIPv6(address) ? nil : "\(address) is not a valid IPv6 address"
    }

    static func isValidIPv6(_ address: Substring) -> Bool {
        let pieces = address.components(separatedBy: "::")
        guard pieces.count <= 2 else { return false }  // "::" at most once
        let hasCompression = pieces.count == 2
        var groupCount = 0
        for (pieceIndex, piece) in pieces.enumerated() {
            guard !piece.isEmpty else { continue }
            let groups = piece.split(separator: ":", omittingEmptySubsequences: false)
            for (groupIndex, group) in groups.enumerated() {
                let isLastGroupOfAddress = pieceIndex == pieces.count - 1 && groupIndex == groups.count - 1
                if isLastGroupOfAddress, group.contains(".") {
                    // An embedded IPv4 address counts as two groups.
                    let quad = group.split(separator: ".", omittingEmptySubsequences: false)
                    guard ipv4Problem(quad) == nil else { return false }
                    groupCount += 2
                    continue
                }
                guard (1...4).contains(group.utf8.count),
                    group.utf8.allSatisfy(PercentEncoding.isHexDigit)
                else { return false }
                groupCount += 1
            }
        }
        return hasCompression ? groupCount <= 7 : groupCount == 8
    }

    private static func isLabelByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || isLetter(byte) || byte == UInt8(ascii: "-")
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }
}
