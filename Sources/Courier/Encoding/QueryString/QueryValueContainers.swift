extension QueryValueEncoder {
    /// The keyed container of ``NodeEncoder``: each key gets its own child node.
    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        private func put(_ value: QueryValue, _ key: Key) {
            node.set(Node(value), forKey: key.stringValue)
        }

        mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            put(try QueryValueEncoder.double(value, codingPath: codingPath + [key]), key)
        }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            put(try QueryValueEncoder.float(value, codingPath: codingPath + [key]), key)
        }
        mutating func encode(_ value: Int, forKey key: Key) throws { put(QueryValueEncoder.integer(value), key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { put(QueryValueEncoder.integer(value), key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { put(QueryValueEncoder.integer(value), key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { put(QueryValueEncoder.integer(value), key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { put(QueryValueEncoder.integer(value), key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { put(QueryValueEncoder.integer(value), key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { put(QueryValueEncoder.integer(value), key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { put(QueryValueEncoder.integer(value), key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { put(QueryValueEncoder.integer(value), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { put(QueryValueEncoder.integer(value), key) }

        mutating func encode(_ value: some Encodable, forKey key: Key) throws {
            put(try QueryValueEncoder.box(value, codingPath: codingPath + [key]), key)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            let child = Node()
            child.becomeKeyed()
            node.set(child, forKey: key.stringValue)
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = Node()
            child.becomeUnkeyed()
            node.set(child, forKey: key.stringValue)
            return UnkeyedContainer(node: child, codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder {
            let child = Node()
            node.set(child, forKey: SuperKey().stringValue)
            return NodeEncoder(node: child, codingPath: codingPath + [SuperKey()])
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let child = Node()
            node.set(child, forKey: key.stringValue)
            return NodeEncoder(node: child, codingPath: codingPath + [key])
        }
    }

    /// The unkeyed container of ``NodeEncoder``: each element is appended as a child node.
    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]
        var count: Int { node.count }

        private var nextPath: [any CodingKey] { codingPath + [IndexKey(node.count)] }

        private func put(_ value: QueryValue) {
            node.append(Node(value))
        }

        mutating func encodeNil() throws { put(.null) }
        mutating func encode(_ value: Bool) throws { put(.bool(value)) }
        mutating func encode(_ value: String) throws { put(.string(value)) }
        mutating func encode(_ value: Double) throws { put(try QueryValueEncoder.double(value, codingPath: nextPath)) }
        mutating func encode(_ value: Float) throws { put(try QueryValueEncoder.float(value, codingPath: nextPath)) }
        mutating func encode(_ value: Int) throws { put(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: Int8) throws { put(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: Int16) throws { put(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: Int32) throws { put(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: Int64) throws { put(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt) throws { put(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt8) throws { put(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt16) throws { put(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt32) throws { put(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt64) throws { put(QueryValueEncoder.integer(value)) }

        mutating func encode(_ value: some Encodable) throws {
            put(try QueryValueEncoder.box(value, codingPath: nextPath))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            let path = nextPath
            let child = Node()
            child.becomeKeyed()
            node.append(child)
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: path))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let path = nextPath
            let child = Node()
            child.becomeUnkeyed()
            node.append(child)
            return UnkeyedContainer(node: child, codingPath: path)
        }

        mutating func superEncoder() -> any Encoder {
            let path = nextPath
            let child = Node()
            node.append(child)
            return NodeEncoder(node: child, codingPath: path)
        }
    }

    /// The single-value container of ``NodeEncoder``: the node becomes that one value.
    struct SingleValueContainer: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.set(.null) }
        mutating func encode(_ value: Bool) throws { node.set(.bool(value)) }
        mutating func encode(_ value: String) throws { node.set(.string(value)) }
        mutating func encode(_ value: Double) throws { node.set(try QueryValueEncoder.double(value, codingPath: codingPath)) }
        mutating func encode(_ value: Float) throws { node.set(try QueryValueEncoder.float(value, codingPath: codingPath)) }
        mutating func encode(_ value: Int) throws { node.set(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: Int8) throws { node.set(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: Int16) throws { node.set(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: Int32) throws { node.set(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: Int64) throws { node.set(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt) throws { node.set(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt8) throws { node.set(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt16) throws { node.set(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt32) throws { node.set(QueryValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt64) throws { node.set(QueryValueEncoder.integer(value)) }

        mutating func encode(_ value: some Encodable) throws {
            node.set(try QueryValueEncoder.box(value, codingPath: codingPath))
        }
    }
}
