@testable import Courier
@testable import CourierConnectivity

/// rtnetlink messages as the kernel sends them, for the parser, state and session tests.
enum NetlinkFixtures {
    static let up: UInt32 = 0x1 | 0x40 | 0x10000  // IFF_UP | IFF_RUNNING | IFF_LOWER_UP
    static let upNoCarrier: UInt32 = 0x1  // IFF_UP, not running
    static let down: UInt32 = 0
    static let loopback: UInt32 = 0x1 | 0x8 | 0x40

    static let ipv4: UInt8 = 2
    static let ipv6: UInt8 = 10

    static func link(
        _ index: Int32, _ name: String, flags: UInt32 = up, deleted: Bool = false, sequence: UInt32 = 0, portID: UInt32 = 0,
        messageFlags: UInt16 = 0
    ) -> NetlinkMessage {
        NetlinkMessage(
            type: deleted ? NetlinkMessage.typeDeleteLink : NetlinkMessage.typeNewLink, flags: messageFlags, sequence: sequence,
            portID: portID,
            payload: .link(.init(index: index, flags: flags, name: name, operationalState: flags & 0x40 != 0 ? 6 : 2), deleted: deleted))
    }

    static func address(
        _ index: Int32, _ address: [UInt8], prefix: UInt8 = 24, flags: UInt32 = 0x80, deleted: Bool = false, sequence: UInt32 = 0,
        portID: UInt32 = 0
    ) -> NetlinkMessage {
        let family = address.count == 4 ? ipv4 : ipv6
        return NetlinkMessage(
            type: deleted ? NetlinkMessage.typeDeleteAddress : NetlinkMessage.typeNewAddress, flags: 0, sequence: sequence, portID: portID,
            payload: .address(
                .init(family: family, prefixLength: prefix, flags: flags, interfaceIndex: index, address: address), deleted: deleted))
    }

    /// A default route (or, with `destinationLength`, another) through `interfaces`.
    static func route(
        via interfaces: [Int32], family: UInt8 = ipv4, gateway: [UInt8]? = nil, destinationLength: UInt8 = 0, type: UInt8 = 1,
        table: UInt32 = 254, priority: UInt32 = 0, routeFlags: UInt32 = 0, deleted: Bool = false, sequence: UInt32 = 0,
        portID: UInt32 = 0, messageFlags: UInt16 = 0
    ) -> NetlinkMessage {
        let gateway = gateway ?? (family == ipv4 ? [10, 0, 0, 1] : [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1])
        return NetlinkMessage(
            type: deleted ? NetlinkMessage.typeDeleteRoute : NetlinkMessage.typeNewRoute, flags: messageFlags, sequence: sequence,
            portID: portID,
            payload: .route(
                .init(
                    family: family, destinationLength: destinationLength, tos: 0, table: table, type: type, flags: routeFlags,
                    priority: priority, nextHops: interfaces.map { .init(interfaceIndex: $0, gateway: gateway) }), deleted: deleted))
    }

    static func done(sequence: UInt32, portID: UInt32, code: Int32 = 0, messageFlags: UInt16 = NetlinkMessage.flagMulti) -> NetlinkMessage {
        NetlinkMessage(type: NetlinkMessage.typeDone, flags: messageFlags, sequence: sequence, portID: portID, payload: .done(code: code))
    }

    static func error(sequence: UInt32, portID: UInt32, code: Int32) -> NetlinkMessage {
        NetlinkMessage(type: NetlinkMessage.typeError, flags: 0, sequence: sequence, portID: portID, payload: .error(code: code))
    }

    /// A datagram holding `messages` back to back.
    static func datagram(_ messages: [NetlinkMessage]) -> [UInt8] {
        messages.flatMap { $0.encoded() }
    }

    /// A typical machine: lo, and eth0 up with an IPv4 address and a default route.
    static func typicalHost(routeVia index: Int32 = 2) -> [NetlinkMessage] {
        [
            link(1, "lo", flags: loopback),
            link(2, "eth0"),
            address(1, [127, 0, 0, 1], prefix: 8),
            address(2, [192, 168, 1, 20]),
            route(via: [index]),
        ]
    }
}

extension [UInt8] {
    /// Overwrites the host-order `UInt16` at `offset`.
    mutating func setU16(_ value: UInt16, at offset: Int) {
        replaceSubrange(offset..<offset + 2, with: Swift.withUnsafeBytes(of: value) { Array($0) })
    }

    /// Overwrites the host-order `UInt32` at `offset`.
    mutating func setU32(_ value: UInt32, at offset: Int) {
        replaceSubrange(offset..<offset + 4, with: Swift.withUnsafeBytes(of: value) { Array($0) })
    }
}
