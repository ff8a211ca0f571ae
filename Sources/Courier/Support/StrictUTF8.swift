extension String {
    /// The string `bytes` encode as UTF-8, or `nil` when they are not valid UTF-8 (an overlong
    /// form, a surrogate, a truncated or stray byte): nothing is replaced with U+FFFD.
    ///
    /// The standard library's `String(validating:as:)` does the same from macOS 15, iOS 18,
    /// tvOS 18, watchOS 11 and visionOS 2 only.
    init?<Bytes: Collection<UInt8>>(strictUTF8 bytes: Bytes) {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput:
                self.init(decoding: bytes, as: UTF8.self)
                return
            case .error: return nil
            }
        }
    }
}
