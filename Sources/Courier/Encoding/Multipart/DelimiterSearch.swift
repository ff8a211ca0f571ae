import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds a multipart delimiter (`CRLF--boundary`) in bytes, with Boyer–Moore–Horspool: on
/// arbitrary data it looks at about one byte in `delimiter.count`. It checks the first byte
/// before comparing the rest, so data made of the delimiter's last character cannot turn it into
/// a byte-by-byte `memcmp`.
struct DelimiterSearch: Sendable {
    let delimiter: [UInt8]
    /// How far the window may move when its last byte is the index: the distance from that
    /// byte's last occurrence (but the final one) to the end of the delimiter.
    private let shifts: [UInt8]

    init(_ delimiter: [UInt8]) {
        self.delimiter = delimiter
        let count = delimiter.count
        var shifts = [UInt8](repeating: UInt8(min(count, 255)), count: 256)
        for (index, byte) in delimiter.dropLast().enumerated() {
            shifts[Int(byte)] = UInt8(min(count - 1 - index, 255))  // a shorter shift is only slower
        }
        self.shifts = shifts
    }

    /// The offset of the first occurrence of the delimiter in `bytes`.
    func firstOccurrence(in bytes: UnsafeRawBufferPointer) -> Int? {
        let count = delimiter.count
        guard count > 0, bytes.count >= count, let base = bytes.baseAddress else { return nil }
        return delimiter.withUnsafeBufferPointer { needle -> Int? in
            shifts.withUnsafeBufferPointer { shifts -> Int? in
                guard let needleBase = needle.baseAddress else { return nil }
                let first = needle[0]
                let last = needle[count - 1]
                let end = bytes.count - count
                var offset = 0
                while offset <= end {
                    let byte = base.load(fromByteOffset: offset + count - 1, as: UInt8.self)
                    if byte == last, base.load(fromByteOffset: offset, as: UInt8.self) == first,
                        memcmp(base + offset, needleBase, count - 1) == 0
                    {
                        return offset
                    }
                    offset += Int(shifts[Int(byte)])
                }
                return nil
            }
        }
    }

    /// Whether the delimiter occurs in `data`, or — when `afterCRLF` — straddles the CRLF that
    /// precedes `data` (that is, `data` starts with `--boundary`).
    func occurs(in data: Data, afterCRLF: Bool) -> Bool {
        var scanner = DelimiterScanner(search: self, after: afterCRLF ? MultipartForm.crlf : [])
        return scanner.scan(data)
    }
}

/// Looks for the delimiter in bytes that arrive in chunks, across chunk edges: it keeps the last
/// `delimiter.count - 1` bytes seen and checks them with the start of the next chunk.
struct DelimiterScanner {
    private let search: DelimiterSearch
    private var tail: [UInt8]

    /// - Parameter preceding: the bytes sent just before the first chunk (the CRLF that ends a
    ///   part's head), so a part starting with `--boundary` is caught too.
    init(search: DelimiterSearch, after preceding: [UInt8]) {
        self.search = search
        self.tail = Array(preceding.suffix(max(0, search.delimiter.count - 1)))
    }

    /// Scans the next chunk; `true` when the delimiter ends in it.
    mutating func scan(_ chunk: Data) -> Bool {
        let keep = max(0, search.delimiter.count - 1)
        let previous = tail
        var newTail: [UInt8] = []
        let found = chunk.withUnsafeBytes { bytes -> Bool in
            if !previous.isEmpty {
                var seam = previous
                seam.append(contentsOf: bytes.prefix(keep))
                if seam.withUnsafeBytes({ search.firstOccurrence(in: $0) }) != nil { return true }
            }
            if search.firstOccurrence(in: bytes) != nil { return true }
            if bytes.count >= keep {
                newTail = Array(bytes.suffix(keep))
            } else {
                var joined = previous
                joined.append(contentsOf: bytes)
                newTail = Array(joined.suffix(keep))
            }
            return false
        }
        if !found { tail = newTail }
        return found
    }
}
