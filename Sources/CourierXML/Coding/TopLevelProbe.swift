import Foundation

/// Finds out whether a value encodes as a keyed or unkeyed container, the only top-level values
/// XMLCoder can write: given a single value (a `String`, an `Int`, a `Date`, an enum with a raw
/// value, `nil`) its `XMLEncoder` stops the process with `fatalError`. Asked first, Courier
/// throws an `EncodingError` instead.
enum TopLevelProbe {
    /// Throws `EncodingError.invalidValue` when XMLCoder cannot encode `value` at the top level.
    static func check<Value: Encodable>(_ value: Value) throws {
        let singleValueTypes: [Any.Type] = [Date.self, Data.self, URL.self, Decimal.self]
        var isSingleValue = singleValueTypes.contains { $0 == Value.self }
        if !isSingleValue {
            let encoder = ProbeEncoder()
            do {
                try value.encode(to: encoder)
            } catch is ProbeEncoder.Stop {
                // The first container was chosen: all we wanted to know.
            }
            isSingleValue = encoder.state.kind == .singleValue
        }
        if isSingleValue {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [],
                    debugDescription: "\(Value.self) encodes as a single value; XML needs a struct, a class or an array at the top level"))
        }
    }
}

/// An encoder that records the first kind of container asked for, then stops the encoding.
private final class ProbeEncoder: Encoder {
    enum Kind { case none, keyed, unkeyed, singleValue }
    struct Stop: Error {}
    final class State { var kind = Kind.none }

    let state = State()
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    private func record(_ kind: Kind) {
        if state.kind == .none { state.kind = kind }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        record(.keyed)
        return KeyedEncodingContainer(StopKeyed<Key>())
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        record(.unkeyed)
        return StopUnkeyed()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        record(.singleValue)
        return StopSingle()
    }

    /// Containers that end the probe at the first value.
    private struct StopKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil(forKey key: Key) throws { throw Stop() }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw Stop() }
        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(StopKeyed<NestedKey>())
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { StopUnkeyed() }
        mutating func superEncoder() -> any Encoder { ProbeEncoder() }
        mutating func superEncoder(forKey key: Key) -> any Encoder { ProbeEncoder() }
    }

    private struct StopUnkeyed: UnkeyedEncodingContainer {
        var codingPath: [any CodingKey] { [] }
        var count: Int { 0 }
        mutating func encodeNil() throws { throw Stop() }
        mutating func encode<T: Encodable>(_ value: T) throws { throw Stop() }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(StopKeyed<NestedKey>())
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { StopUnkeyed() }
        mutating func superEncoder() -> any Encoder { ProbeEncoder() }
    }

    private struct StopSingle: SingleValueEncodingContainer {
        var codingPath: [any CodingKey] { [] }
        mutating func encodeNil() throws { throw Stop() }
        mutating func encode<T: Encodable>(_ value: T) throws { throw Stop() }
    }
}
