import Foundation

/// Encodes an `Encodable` into a ``QueryValue`` tree.
///
/// Containers write into ``Node``s, reference-typed so a container handed out early (a nested
/// container, a super-encoder) can be filled in later; the tree is resolved into values once the
/// top-level `encode(to:)` returns. Everything here lives within one synchronous call.
enum QueryValueEncoder {
    /// The value `value` encodes to. Throws what `value` throws, or `EncodingError.invalidValue`
    /// for a NaN or infinite number.
    static func encode(_ value: some Encodable) throws -> QueryValue {
        try box(value, codingPath: [])
    }

    /// Types with a fixed query form, then anything else through its own `encode(to:)`.
    static func box(_ value: some Encodable, codingPath: [any CodingKey]) throws -> QueryValue {
        switch value {
        case let date as Date:
            return .string(date.formatted(.iso8601))
        case let url as URL:
            return .string(url.absoluteString)
        case let decimal as Decimal:
            guard !decimal.isNaN else { throw notFinite(codingPath) }
            return .decimal(decimal)
        case let data as Data:
            return .string(data.base64EncodedString())
        default:
            let node = Node()
            try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
            return node.resolved()
        }
    }

    static func double(_ value: Double, codingPath: [any CodingKey]) throws -> QueryValue {
        guard value.isFinite else { throw notFinite(codingPath) }
        return .double(value)
    }

    /// A `Float` through its own shortest description, so `1.1` stays `1.1`.
    static func float(_ value: Float, codingPath: [any CodingKey]) throws -> QueryValue {
        guard value.isFinite else { throw notFinite(codingPath) }
        return .double(Double(value.description) ?? Double(value))
    }

    /// An integer; one beyond `Int64` (a large `UInt64`) as an exact decimal.
    static func integer(_ value: some BinaryInteger) -> QueryValue {
        if let exact = Int64(exactly: value) { return .integer(exact) }
        let digits = String(value)
        return Decimal(string: digits).map(QueryValue.decimal) ?? .string(digits)
    }

    private static func notFinite(_ codingPath: [any CodingKey]) -> EncodingError {
        EncodingError.invalidValue(
            (),
            EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "a NaN or infinite number cannot be written in a query string"
            ))
    }
}

extension QueryValueEncoder {
    /// One place in the tree under construction: nothing yet, a finished value, or a keyed or
    /// unkeyed container whose children may still be written to.
    final class Node {
        private enum Kind {
            case empty
            case value(QueryValue)
            case keyed
            case unkeyed
        }

        private var kind: Kind = .empty
        private var keyedChildren: [String: Node] = [:]
        private var unkeyedChildren: [Node] = []

        init() {}

        init(_ value: QueryValue) {
            kind = .value(value)
        }

        /// A node that was never written to is an empty dictionary, as `JSONEncoder` writes `{}`.
        func resolved() -> QueryValue {
            switch kind {
            case .empty: .dictionary([:])
            case .value(let value): value
            case .keyed: .dictionary(keyedChildren.mapValues { $0.resolved() })
            case .unkeyed: .array(unkeyedChildren.map { $0.resolved() })
            }
        }

        /// Makes this node keyed, keeping its children if it already was (a type may ask for its
        /// keyed container more than once).
        func becomeKeyed() {
            if case .keyed = kind { return }
            kind = .keyed
            keyedChildren = [:]
        }

        /// Makes this node unkeyed, keeping its children if it already was.
        func becomeUnkeyed() {
            if case .unkeyed = kind { return }
            kind = .unkeyed
            unkeyedChildren = []
        }

        func set(_ value: QueryValue) {
            kind = .value(value)
        }

        func set(_ child: Node, forKey key: String) {
            becomeKeyed()
            keyedChildren[key] = child
        }

        func append(_ child: Node) {
            becomeUnkeyed()
            unkeyedChildren.append(child)
        }

        var count: Int {
            if case .unkeyed = kind { return unkeyedChildren.count }
            return 0
        }
    }

    /// The `Encoder` handed to `encode(to:)`: it writes into one node.
    struct NodeEncoder: Encoder {
        let node: Node
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            node.becomeKeyed()
            return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            node.becomeUnkeyed()
            return UnkeyedContainer(node: node, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleValueContainer(node: node, codingPath: codingPath)
        }
    }

    /// An integer key for positions in unkeyed containers, as coding paths expect.
    struct IndexKey: CodingKey {
        let intValue: Int?
        var stringValue: String { intValue.map(String.init) ?? "" }
        init(_ index: Int) { intValue = index }
        init?(stringValue: String) { return nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    /// The key `super`, for `superEncoder()`.
    struct SuperKey: CodingKey {
        var stringValue: String { "super" }
        var intValue: Int? { nil }
        init() {}
        init?(stringValue: String) { return nil }
        init?(intValue: Int) { return nil }
    }
}
