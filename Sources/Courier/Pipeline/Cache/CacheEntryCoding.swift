import Foundation
import HTTPTypes

/// The binary form of a ``CacheEntry`` in a disk cache's entry file, and of small values shared
/// with the index file. Big-endian throughout.
///
///     "CCE" 0x01                    magic and version
///     u64 requestTime, u64 responseTime   bit patterns of seconds since 2001 (Date's own)
///     string url, string partition
///     u8 variantMatchesNothing, u32 count, count × (string name, u8 hasValue, string value)
///     u16 status, string reasonPhrase
///     u32 count, count × (string name, string value)
///     u64 bodyLength, body
///     u64 FNV-1a of everything before it
///
/// `string` is `u32 length` then UTF-8. Decoding checks every length against what is left, every
/// field against HTTP's grammar, and the checksum, and refuses trailing bytes: a truncated, bit-
/// flipped or foreign file is `nil`, never a wrong entry.
enum CacheEntryCoding {
    static let magic: [UInt8] = [0x43, 0x43, 0x45, 0x01]  // "CCE", version 1

    static func encode(_ entry: CacheEntry) -> Data {
        var writer = CacheBinaryWriter()
        writer.bytes(magic)
        writer.u64(entry.requestTime.timeIntervalSinceReferenceDate.bitPattern)
        writer.u64(entry.responseTime.timeIntervalSinceReferenceDate.bitPattern)
        writer.string(entry.key.url)
        writer.string(entry.key.partition)
        writer.variant(entry.variant)
        writer.u16(UInt16(clamping: entry.response.status.code))
        writer.string(entry.response.status.reasonPhrase)
        writer.u32(UInt32(entry.response.headerFields.count))
        for field in entry.response.headerFields {
            writer.string(field.name.rawName)
            writer.string(field.value)
        }
        writer.u64(UInt64(entry.body.count))
        writer.data.append(entry.body)
        writer.u64(CacheBinaryWriter.checksum(writer.data))
        return writer.data
    }

    /// ``encode(_:)``'s bytes when ``decode(_:)`` (and the index's key reader) will read them
    /// back, or `nil` for an entry past their limits: more than
    /// ``CacheBinaryReader/maximumVariantValues`` `Vary` fields, a string longer than
    /// ``CacheBinaryReader/maximumStringLength``, a status or reason phrase the decoder refuses.
    static func encodeIfReadable(_ entry: CacheEntry) -> Data? {
        let maximum = CacheBinaryReader.maximumStringLength
        let status = entry.response.status
        guard (200...599).contains(status.code), entry.variant.values.count <= CacheBinaryReader.maximumVariantValues,
            entry.key.url.utf8.count <= maximum, entry.key.partition.utf8.count <= maximum,
            status.reasonPhrase.utf8.count <= maximum,
            status.reasonPhrase.utf8.allSatisfy({ $0 == 0x09 || $0 >= 0x20 && $0 != 0x7F }),
            entry.variant.values.allSatisfy({ $0.name.utf8.count <= maximum && ($0.value?.utf8.count ?? 0) <= maximum }),
            entry.response.headerFields.allSatisfy({ $0.name.rawName.utf8.count <= maximum && $0.value.utf8.count <= maximum })
        else { return nil }
        return encode(entry)
    }

    /// The entry in `data`, or `nil` if it is not exactly one well-formed entry.
    static func decode(_ data: Data) -> CacheEntry? {
        guard data.count >= magic.count + 8 else { return nil }
        let checked = data.prefix(data.count - 8)
        var reader = CacheBinaryReader(data)
        guard reader.bytes(magic.count) == magic else { return nil }
        guard let requestBits = reader.u64(), let responseBits = reader.u64(),
            let url = reader.string(), let partition = reader.string(),
            let variant = reader.variant(),
            let code = reader.u16(), (200...599).contains(Int(code)),
            let reason = reader.string(), reason.utf8.allSatisfy({ $0 == 0x09 || $0 >= 0x20 && $0 != 0x7F }),
            let fieldCount = reader.u32()
        else { return nil }
        let requestTime = Double(bitPattern: requestBits)
        let responseTime = Double(bitPattern: responseBits)
        guard requestTime.isFinite, responseTime.isFinite else { return nil }
        var fields = HTTPFields()
        for _ in 0..<fieldCount {
            guard let rawName = reader.string(), let name = HTTPField.Name(rawName),
                let value = reader.string(), HTTPField.isValidValue(value)
            else { return nil }
            fields.append(HTTPField(name: name, value: value))
        }
        guard let bodyLength = reader.u64(), let body = reader.data(bodyLength),
            reader.offset == checked.count, let sum = reader.u64(), reader.isAtEnd,
            sum == CacheBinaryWriter.checksum(checked)
        else { return nil }
        return CacheEntry(
            key: CacheKey(url: url, partition: partition), variant: variant,
            response: HTTPResponse(status: .init(code: Int(code), reasonPhrase: reason), headerFields: fields),
            body: body, requestTime: Date(timeIntervalSinceReferenceDate: requestTime),
            responseTime: Date(timeIntervalSinceReferenceDate: responseTime))
    }
}

/// Appends big-endian integers and length-prefixed strings.
struct CacheBinaryWriter {
    var data = Data()

    mutating func bytes(_ bytes: [UInt8]) { data.append(contentsOf: bytes) }
    mutating func u8(_ value: UInt8) { data.append(value) }
    mutating func u16(_ value: UInt16) { withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) } }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) } }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) } }

    mutating func string(_ value: String) {
        u32(UInt32(value.utf8.count))
        data.append(contentsOf: value.utf8)
    }

    mutating func variant(_ variant: CacheVariant) {
        u8(variant.matchesNothing ? 1 : 0)
        u32(UInt32(variant.values.count))
        for value in variant.values {
            string(value.name)
            u8(value.value == nil ? 0 : 1)
            string(value.value ?? "")
        }
    }

    /// 64-bit FNV-1a: not a defence against anyone, a check against torn and flipped bytes.
    /// `continuing` is the checksum of the bytes before these.
    static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes, continuing hash: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = hash
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// ``checksum(_:continuing:)`` of bytes in memory (the index's, read at every open).
    static func checksum(_ bytes: UnsafeRawBufferPointer, continuing hash: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = hash
        for index in bytes.indices {
            hash ^= UInt64(bytes[index])
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// ``checksum(_:continuing:)`` of `data`'s bytes, read in place.
    static func checksum(_ data: Data, continuing hash: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        data.withUnsafeBytes { checksum($0, continuing: hash) }
    }
}

/// Reads ``CacheBinaryWriter``'s strings and variants in place from bytes in memory (an index's
/// key table): nothing is copied but the strings made; every read is `nil` past the end.
struct CacheRawReader: CacheFieldReading {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func u8() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u32() -> UInt32? {
        guard bytes.count - offset >= 4 else { return nil }
        defer { offset += 4 }
        return UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    mutating func string() -> String? {
        guard let length = u32().map(Int.init), length <= CacheBinaryReader.maximumStringLength,
            length <= bytes.count - offset
        else { return nil }
        defer { offset += length }
        if length == 0 { return "" }
        return String(strictUTF8: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]))
    }
}

/// Reads what ``CacheBinaryWriter`` writes; every read is `nil` past the end.
struct CacheBinaryReader: CacheFieldReading {
    /// The longest string read: longer claims are refused before anything is allocated.
    static let maximumStringLength = 1 << 20
    /// The most variant values read.
    static let maximumVariantValues = 256

    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ data: Data) { bytes = Array(data) }

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func bytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, count <= remaining else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func data(_ count: UInt64) -> Data? {
        guard count <= UInt64(remaining) else { return nil }
        let count = Int(count)
        defer { offset += count }
        return Data(bytes[offset..<offset + count])
    }

    mutating func u8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }
    mutating func u16() -> UInt16? { integer(2).map { UInt16($0) } }
    mutating func u32() -> UInt32? { integer(4).map { UInt32($0) } }
    mutating func u64() -> UInt64? { integer(8) }

    private mutating func integer(_ width: Int) -> UInt64? {
        guard width <= remaining else { return nil }
        var value: UInt64 = 0
        for index in offset..<offset + width { value = value << 8 | UInt64(bytes[index]) }
        offset += width
        return value
    }

    mutating func string() -> String? {
        guard let length = u32().map(Int.init), length <= Self.maximumStringLength, length <= remaining else {
            return nil
        }
        defer { offset += length }
        return String(strictUTF8: bytes[offset..<offset + length])
    }
}

/// What both readers read alike: integers and strings, and from them a variant.
protocol CacheFieldReading {
    mutating func u8() -> UInt8?
    mutating func u32() -> UInt32?
    mutating func string() -> String?
}

extension CacheFieldReading {
    /// A ``CacheVariant`` as ``CacheBinaryWriter`` writes it; `nil` if malformed.
    mutating func variant() -> CacheVariant? {
        guard let nothing = u8(), nothing <= 1, let count = u32(), count <= CacheBinaryReader.maximumVariantValues else {
            return nil
        }
        if count == 0 { return nothing == 1 ? CacheVariant(values: [], matchesNothing: true) : CacheVariant.none }
        var values: [CacheVariant.Value] = []
        values.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let name = string(), HTTPField.Name(name) != nil, let hasValue = u8(), hasValue <= 1,
                let value = string()
            else { return nil }
            guard hasValue == 1 || value.isEmpty else { return nil }
            values.append(CacheVariant.Value(name: name, value: hasValue == 1 ? value : nil))
        }
        return CacheVariant(values: values, matchesNothing: nothing == 1)
    }
}
