import Testing

@testable import Courier
@testable import CourierConnectivity

@Suite("Netlink message parser")
struct NetlinkMessageTests {
    typealias F = NetlinkFixtures

    @Test(
        "every message kind reads back as it was written",
        arguments: [
            F.link(2, "eth0"),
            F.link(7, "wlan0", flags: F.upNoCarrier, deleted: true, sequence: 9, portID: 4242, messageFlags: NetlinkMessage.flagMulti),
            F.link(3, "", flags: F.down),
            F.link(4, "fifteen-chars-x"),
            F.address(2, [192, 168, 1, 20]),
            F.address(2, [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [7], prefix: 64, flags: 0x40, deleted: true),
            F.route(via: [2]),
            F.route(via: [2], family: F.ipv6, table: 1000, priority: 1024, deleted: true),
            F.route(via: [2, 3, 4], gateway: [10, 0, 0, 9]),
            F.route(via: [5], gateway: [], destinationLength: 24),
            F.route(via: [], type: 6),
            F.done(sequence: 3, portID: 77),
            F.done(sequence: 3, portID: 77, code: -16),
            F.error(sequence: 4, portID: 77, code: -1),
            NetlinkMessage(type: NetlinkMessage.typeOverrun, flags: 0, sequence: 0, portID: 0, payload: .overrun),
            NetlinkMessage(type: 28, flags: 0, sequence: 0, portID: 0, payload: .ignored),  // RTM_NEWNEIGH
        ])
    func roundTrip(message: NetlinkMessage) throws {
        #expect(try NetlinkMessage.parse(message.encoded()) == [message])
    }

    @Test("a datagram of several messages reads as all of them, in order")
    func severalMessages() throws {
        let messages = F.typicalHost() + [F.done(sequence: 1, portID: 5)]
        #expect(try NetlinkMessage.parse(F.datagram(messages)) == messages)
    }

    @Test("an empty datagram holds no message")
    func emptyDatagram() throws {
        #expect(try NetlinkMessage.parse([]) == [])
    }

    @Test("the last message may lack its padding")
    func lastMessageUnpadded() throws {
        // ifinfomsg and a 1-byte IFLA_OPERSTATE: 37 bytes, not padded to 40.
        var message = [UInt8](repeating: 0, count: 32) + [5, 0, UInt8(NetlinkMessage.linkOperationalState), 0, 6]
        message.setU32(37, at: 0)
        message.setU16(NetlinkMessage.typeNewLink, at: 4)
        message.setU32(4, at: 20)  // ifi_index

        let parsed = try NetlinkMessage.parse(F.link(1, "lo").encoded() + message)

        #expect(parsed.count == 2)
        #expect(parsed.last?.payload == .link(.init(index: 4, flags: 0, name: nil, operationalState: 6), deleted: false))
    }

    @Test("unknown attributes are skipped, and the nested and byte-order flag bits are ignored in attribute types")
    func unknownAttributesSkipped() throws {
        var body = [UInt8](repeating: 0, count: 16)
        body.setU32(UInt32(bitPattern: 9), at: 4)  // index
        body.setU32(F.up, at: 8)
        body += NetlinkMessage.attribute(999, [1, 2, 3, 4, 5])  // unknown, with padding
        body += NetlinkMessage.attribute(NetlinkMessage.linkName | 0x8000, Array("veth0".utf8) + [0])  // NLA_F_NESTED set
        var message = [UInt8](repeating: 0, count: 16) + body
        message.setU32(UInt32(message.count), at: 0)
        message.setU16(NetlinkMessage.typeNewLink, at: 4)

        let parsed = try NetlinkMessage.parse(message)

        #expect(parsed.count == 1)
        guard case .link(let link, deleted: false)? = parsed.first?.payload else {
            Issue.record("expected a link, got \(parsed)")
            return
        }
        #expect(link.index == 9 && link.flags == F.up && link.name == "veth0" && link.operationalState == nil)
    }

    @Test("IFA_LOCAL wins over IFA_ADDRESS (the peer on point-to-point links); the 8-bit flags serve without IFA_FLAGS")
    func addressLocalAndFlags() throws {
        var body: [UInt8] = [F.ipv4, 32, 0x40, 0, 0, 0, 0, 0]
        body.setU32(3, at: 4)
        body += NetlinkMessage.attribute(NetlinkMessage.addressAddress, [10, 8, 0, 1])
        body += NetlinkMessage.attribute(NetlinkMessage.addressLocal, [10, 8, 0, 2])
        var message = [UInt8](repeating: 0, count: 16) + body
        message.setU32(UInt32(message.count), at: 0)
        message.setU16(NetlinkMessage.typeNewAddress, at: 4)

        let parsed = try NetlinkMessage.parse(message)

        guard case .address(let address, deleted: false)? = parsed.first?.payload else {
            Issue.record("expected an address, got \(parsed)")
            return
        }
        #expect(address.address == [10, 8, 0, 2])
        #expect(address.flags == 0x40)
        #expect(address.interfaceIndex == 3)
    }

    @Test("an address of a family the monitor does not read is kept without its bytes")
    func otherFamilyAddress() throws {
        var body: [UInt8] = [17, 0, 0, 0, 2, 0, 0, 0]  // AF_PACKET
        body += NetlinkMessage.attribute(NetlinkMessage.addressAddress, [1, 2, 3, 4, 5, 6])
        var message = [UInt8](repeating: 0, count: 16) + body
        message.setU32(UInt32(message.count), at: 0)
        message.setU16(NetlinkMessage.typeNewAddress, at: 4)

        let parsed = try NetlinkMessage.parse(message)

        guard case .address(let address, _)? = parsed.first?.payload else {
            Issue.record("expected an address, got \(parsed)")
            return
        }
        #expect(address.family == 17 && address.address.isEmpty)
    }

    @Test("NLMSG_DONE without its error code (old kernels) reads as code 0")
    func doneWithoutCode() throws {
        var message = [UInt8](repeating: 0, count: 16)
        message.setU32(16, at: 0)
        message.setU16(NetlinkMessage.typeDone, at: 4)
        #expect(try NetlinkMessage.parse(message).first?.payload == .done(code: 0))
    }

    /// Each case breaks one bound; the datagram is refused whole, even after a good message.
    @Test(
        "a datagram that breaks a bound is refused with the reason",
        arguments: [
            ("trailing bytes", F.link(1, "lo").encoded() + [1, 2, 3], "trailing bytes shorter than a message header"),
            ("length below the header", lengthSet(F.link(1, "lo").encoded(), to: 15), "message length shorter than its header"),
            ("length past the end", lengthSet(F.link(1, "lo").encoded(), to: 400), "message length past the datagram's end"),
            ("short ifinfomsg", headerOnly(NetlinkMessage.typeNewLink, payload: 15), "link message shorter than ifinfomsg"),
            ("short ifaddrmsg", headerOnly(NetlinkMessage.typeNewAddress, payload: 7), "address message shorter than ifaddrmsg"),
            ("short rtmsg", headerOnly(NetlinkMessage.typeNewRoute, payload: 11), "route message shorter than rtmsg"),
            ("error without its code", headerOnly(NetlinkMessage.typeError, payload: 3), "error message without its code"),
            ("attribute past its message", attributeLengthSet(to: 200), "attribute length past its message's end"),
            ("attribute below its header", attributeLengthSet(to: 3), "attribute length shorter than its header"),
            ("a long name", linkNamed(String(repeating: "x", count: 16)), "interface name longer than 15 bytes"),
            ("a 5-byte IPv4 address", addressOfSize(5), "address of the wrong size for its family"),
            ("a 2-byte route table", routeWithAttribute(NetlinkMessage.routeTable, [1, 0]), "route table is not 4 bytes"),
            (
                "a 16-byte IPv4 gateway", routeWithAttribute(NetlinkMessage.routeGateway, [UInt8](repeating: 1, count: 16)),
                "address of the wrong size for its family"
            ),
            ("a next hop below its header", routeWithAttribute(NetlinkMessage.routeMultipath, [4, 0, 0, 0, 2, 0, 0, 0]), "next hop length outside its route"),
            ("a next hop past its route", routeWithAttribute(NetlinkMessage.routeMultipath, [64, 0, 0, 0, 2, 0, 0, 0]), "next hop length outside its route"),
            ("a truncated next hop", routeWithAttribute(NetlinkMessage.routeMultipath, [8, 0, 0, 0]), "next hop shorter than rtnexthop"),
            ("an empty operational state", linkWithAttribute(NetlinkMessage.linkOperationalState, []), "empty operational state"),
        ])
    func refused(_ label: String, datagram: [UInt8], reason: String) {
        #expect(throws: NetlinkMessage.Malformed.self, "\(label)") { try NetlinkMessage.parse(F.link(1, "lo").encoded() + datagram) }
        do {
            _ = try NetlinkMessage.parse(datagram)
            Issue.record("\(label): parsed")
        } catch {
            #expect(error.reason == reason, "\(label)")
        }
    }

    @Test("a datagram over 64 KiB is refused before anything is read")
    func oversizedDatagram() {
        #expect(throws: NetlinkMessage.Malformed.self) {
            try NetlinkMessage.parse([UInt8](repeating: 0, count: NetlinkMessage.Limits.maximumDatagramSize + 1))
        }
    }

    @Test("a route with more than 256 next hops is refused")
    func tooManyNextHops() throws {
        #expect(try NetlinkMessage.parse(F.route(via: Array(1...256)).encoded()).count == 1)
        #expect(throws: NetlinkMessage.Malformed.self) { try NetlinkMessage.parse(F.route(via: Array(1...257)).encoded()) }
    }

    @Test("dump requests are RTM_GET* with NLM_F_REQUEST | NLM_F_DUMP, the sequence number, and a zeroed header for every family")
    func dumpRequests() {
        let expected: [(NetlinkMessage.DumpKind, UInt16, Int)] = [(.links, 18, 16), (.addresses, 22, 8), (.routes, 26, 12)]
        for (kind, type, headerSize) in expected {
            let request = NetlinkMessage.dumpRequest(kind, sequence: 0x0102_0304)
            let bytes = NetlinkBytes(request)
            #expect(request.count == 16 + headerSize)
            #expect(bytes.u32(0) == UInt32(16 + headerSize))
            #expect(bytes.u16(4) == type)
            #expect(bytes.u16(6) == 0x301)
            #expect(bytes.u32(8) == 0x0102_0304)
            #expect(bytes.u32(12) == 0)
            #expect(request[16...].allSatisfy { $0 == 0 })
        }
    }

    // MARK: - Malformed inputs

    private static func lengthSet(_ message: [UInt8], to length: UInt32) -> [UInt8] {
        var message = message
        message.setU32(length, at: 0)
        return message
    }

    private static func headerOnly(_ type: UInt16, payload: Int) -> [UInt8] {
        var message = [UInt8](repeating: 0, count: 16 + payload)
        message.setU32(UInt32(message.count), at: 0)
        message.setU16(type, at: 4)
        return message
    }

    private static func attributeLengthSet(to length: UInt16) -> [UInt8] {
        var message = F.link(1, "lo").encoded()
        message.setU16(length, at: 32)  // the first attribute, after the 16-byte header and ifinfomsg
        return message
    }

    private static func linkNamed(_ name: String) -> [UInt8] {
        F.link(1, name).encoded()
    }

    private static func linkWithAttribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        var message = headerOnly(NetlinkMessage.typeNewLink, payload: 16) + NetlinkMessage.attribute(type, value)
        message.setU32(UInt32(message.count), at: 0)
        return message
    }

    private static func addressOfSize(_ size: Int) -> [UInt8] {
        var message = headerOnly(NetlinkMessage.typeNewAddress, payload: 8)
        message[16] = F.ipv4
        message += NetlinkMessage.attribute(NetlinkMessage.addressLocal, [UInt8](repeating: 1, count: size))
        message.setU32(UInt32(message.count), at: 0)
        return message
    }

    private static func routeWithAttribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        var message = headerOnly(NetlinkMessage.typeNewRoute, payload: 12)
        message[16] = F.ipv4
        message += NetlinkMessage.attribute(type, value)
        message.setU32(UInt32(message.count), at: 0)
        return message
    }
}
