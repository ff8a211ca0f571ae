import Courier
/// Writing rtnetlink messages: the dump requests the monitor sends, and (for tests and the fuzz
/// target) the messages the kernel sends, so that ``NetlinkMessage/parse(_:)`` can be checked
/// against what it reads back. Host byte order, 4-byte alignment, as the kernel does.
extension NetlinkMessage {
    /// What a dump request asks for.
    enum DumpKind: Equatable, Sendable, CaseIterable {
        case links, addresses, routes
    }

    /// `RTM_GETLINK` / `RTM_GETADDR` / `RTM_GETROUTE` with `NLM_F_REQUEST | NLM_F_DUMP`, for
    /// every family, with sequence number `sequence`.
    static func dumpRequest(_ kind: DumpKind, sequence: UInt32) -> [UInt8] {
        let (type, headerSize): (UInt16, Int) =
            switch kind {
            case .links: (typeGetLink, linkHeaderSize)
            case .addresses: (typeGetAddress, addressHeaderSize)
            case .routes: (typeGetRoute, routeHeaderSize)
            }
        // The family (the first byte of each header) is AF_UNSPEC: all of them.
        return frame(type: type, flags: flagRequest | flagDump, sequence: sequence, portID: 0, body: [UInt8](repeating: 0, count: headerSize))
    }

    /// The message as the kernel would send it.
    func encoded() -> [UInt8] {
        let body: [UInt8]
        switch payload {
        case .link(let link, _):
            var header = [UInt8](repeating: 0, count: Self.linkHeaderSize)
            Self.put(link.index, into: &header, at: 4)
            Self.put(link.flags, into: &header, at: 8)
            var attributes: [UInt8] = []
            if let name = link.name { attributes += Self.attribute(Self.linkName, Array(name.utf8) + [0]) }
            if let state = link.operationalState { attributes += Self.attribute(Self.linkOperationalState, [state]) }
            body = header + attributes
        case .address(let address, _):
            var header: [UInt8] = [address.family, address.prefixLength, UInt8(truncatingIfNeeded: address.flags), 0, 0, 0, 0, 0]
            Self.put(address.interfaceIndex, into: &header, at: 4)
            var attributes: [UInt8] = []
            if !address.address.isEmpty { attributes += Self.attribute(Self.addressLocal, address.address) }
            attributes += Self.attribute(Self.addressFlags, Self.bytes(of: address.flags))
            body = header + attributes
        case .route(let route, _):
            var header: [UInt8] = [route.family, route.destinationLength, 0, route.tos, 0, 0, 0, route.type, 0, 0, 0, 0]
            Self.put(route.flags, into: &header, at: 8)
            var attributes = Self.attribute(Self.routeTable, Self.bytes(of: route.table))
            attributes += Self.attribute(Self.routePriority, Self.bytes(of: route.priority))
            if route.nextHops.count == 1, let hop = route.nextHops.first {
                attributes += Self.attribute(Self.routeOutputInterface, Self.bytes(of: hop.interfaceIndex))
                if !hop.gateway.isEmpty { attributes += Self.attribute(Self.routeGateway, hop.gateway) }
            } else if !route.nextHops.isEmpty {
                var paths: [UInt8] = []
                for hop in route.nextHops {
                    let gateway = hop.gateway.isEmpty ? [] : Self.attribute(Self.routeGateway, hop.gateway)
                    var header = [UInt8](repeating: 0, count: Self.nextHopHeaderSize)
                    Self.put(UInt16(Self.nextHopHeaderSize + gateway.count), into: &header, at: 0)
                    Self.put(hop.interfaceIndex, into: &header, at: 4)
                    paths += header + gateway
                }
                attributes += Self.attribute(Self.routeMultipath, paths)
            }
            body = header + attributes
        case .done(let code), .error(let code):
            body = Self.bytes(of: code)
        case .overrun, .ignored:
            body = []
        }
        return Self.frame(type: type, flags: flags, sequence: sequence, portID: portID, body: body)
    }

    /// A message header in front of `body`, padded to 4 bytes.
    private static func frame(type: UInt16, flags: UInt16, sequence: UInt32, portID: UInt32, body: [UInt8]) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: headerSize)
        put(UInt32(headerSize + body.count), into: &header, at: 0)
        put(type, into: &header, at: 4)
        put(flags, into: &header, at: 6)
        put(sequence, into: &header, at: 8)
        put(portID, into: &header, at: 12)
        return pad(header + body)
    }

    /// One attribute, padded.
    static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: attributeHeaderSize)
        put(UInt16(attributeHeaderSize + value.count), into: &header, at: 0)
        put(type, into: &header, at: 2)
        return pad(header + value)
    }

    private static func pad(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0, count: aligned(bytes.count) - bytes.count)
    }

    static func bytes<T: FixedWidthInteger>(of value: T) -> [UInt8] {
        withUnsafeBytes(of: value) { Array($0) }
    }

    private static func put<T: FixedWidthInteger>(_ value: T, into bytes: inout [UInt8], at offset: Int) {
        bytes.replaceSubrange(offset..<offset + MemoryLayout<T>.size, with: Self.bytes(of: value))
    }
}
