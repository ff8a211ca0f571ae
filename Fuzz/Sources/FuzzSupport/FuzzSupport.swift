// What every fuzz target shares: reading structured values out of libFuzzer's bytes,
// reporting a broken invariant as a crash that libFuzzer records, and starting libFuzzer.
import CLibFuzzer

/// Traps with `message` when `condition` is false, so libFuzzer saves the input as a crash.
///
/// ```swift
/// check(challenges.count <= 16, "too many challenges: \(challenges.count)")
/// ```
public func check(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() {
        fatalError("fuzz invariant violated: \(message())", file: file, line: line)
    }
}

/// The bytes libFuzzer passes to `LLVMFuzzerTestOneInput`, as an array.
public func fuzzBytes(_ start: UnsafeRawPointer, _ count: Int) -> [UInt8] {
    guard count > 0 else { return [] }
    return Array(UnsafeRawBufferPointer(start: start, count: count))
}

/// Reads structured values from fuzz bytes, front to back. When the bytes run out every read
/// gives zero, empty or `false`, so any input, however short, describes some value and the
/// fuzzer can grow it byte by byte.
public struct FuzzReader {
    private let bytes: [UInt8]
    private var index = 0

    /// A reader over `bytes`.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { index >= bytes.count }

    /// The next byte, or 0.
    public mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A number in `0..<bound` (`bound` ≥ 1) taken from the next byte.
    public mutating func choice(_ bound: Int) -> Int {
        Int(byte()) % bound
    }

    /// A Boolean from the next byte.
    public mutating func bool() -> Bool {
        byte() & 1 == 1
    }

    /// The next 8 bytes as a big-endian integer (missing bytes are 0).
    public mutating func uint64() -> UInt64 {
        (0..<8).reduce(UInt64(0)) { value, _ in value << 8 | UInt64(byte()) }
    }

    /// Up to `maximumLength` bytes: a length byte, then that many bytes.
    public mutating func chunk(maximumLength: Int) -> [UInt8] {
        let length = min(Int(byte()) % (maximumLength + 1), bytes.count - index)
        guard length > 0 else { return [] }
        defer { index += length }
        return Array(bytes[index..<index + length])
    }

    /// A string of up to `maximumLength` UTF-8 bytes; invalid UTF-8 is repaired with U+FFFD, so
    /// every string is valid, and non-ASCII text is reached by bytes ≥ 0x80.
    public mutating func string(maximumLength: Int) -> String {
        String(decoding: chunk(maximumLength: maximumLength), as: UTF8.self)
    }

    /// Every byte not read yet.
    public mutating func rest() -> [UInt8] {
        defer { index = bytes.count }
        return index < bytes.count ? Array(bytes[index...]) : []
    }
}

/// The type of libFuzzer's per-input callback.
public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// One readable byte, passed for an empty input when libFuzzer gives no pointer. Never written,
/// so sharing it between threads is safe.
nonisolated(unsafe) public let fuzzEmptyInput: UnsafePointer<UInt8> = {
    let byte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    byte.initialize(to: 0)
    return UnsafePointer(byte)
}()

/// Runs libFuzzer with this process's command line, calling `callback` for every input.
///
/// SwiftPM links an executable target's `main` to the symbol `<Target>_main` (so that tests can
/// link executables), which would hide libFuzzer's own `main`. Each target therefore defines
/// `<Target>_main` and calls this, which hands control to libFuzzer's driver exactly as its
/// `main` would.
///
/// ```swift
/// @_cdecl("FuzzRetryAfter_main")
/// public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
///     runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
/// }
/// ```
public func runLibFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ callback: FuzzCallback
) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, callback)
}
