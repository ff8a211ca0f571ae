import Courier
/// One rtnetlink message, as ``NetlinkMessage/parse(_:)`` reads it out of a datagram the kernel
/// sent: what changed (a link, an address, a route), or the end of a dump, or an error.
///
/// Only the fields Courier's connectivity monitor needs are kept; every other attribute is
/// skipped. The values are the kernel's, unchecked beyond their sizes: what they mean is
/// ``ConnectivityState``'s business.
struct NetlinkMessage: Equatable, Sendable {
    /// `nlmsg_type`.
    var type: UInt16
    /// `nlmsg_flags` (`NLM_F_MULTI`, `NLM_F_DUMP_INTR`, `NLM_F_REPLACE`…).
    var flags: UInt16
    /// `nlmsg_seq`: the sequence number of the request this answers (a dump), or of the
    /// request that caused a notification.
    var sequence: UInt32
    /// `nlmsg_pid`: the port the message is addressed to (ours for a dump's answer).
    var portID: UInt32
    /// What the message says.
    var payload: Payload

    /// What a message says.
    enum Payload: Equatable, Sendable {
        /// `RTM_NEWLINK` / `RTM_DELLINK`.
        case link(Link, deleted: Bool)
        /// `RTM_NEWADDR` / `RTM_DELADDR`.
        case address(Address, deleted: Bool)
        /// `RTM_NEWROUTE` / `RTM_DELROUTE`.
        case route(Route, deleted: Bool)
        /// `NLMSG_DONE`: the end of a dump, with the dump's error code (0, or a negative errno).
        case done(code: Int32)
        /// `NLMSG_ERROR`: an acknowledgement (code 0) or a failed request (a negative errno).
        case error(code: Int32)
        /// `NLMSG_OVERRUN`: data was lost.
        case overrun
        /// Any other type (`NLMSG_NOOP`, neighbour or rule messages…): nothing to do.
        case ignored
    }

    /// An interface (`struct ifinfomsg` and its attributes).
    struct Link: Equatable, Sendable {
        /// `ifi_index`.
        var index: Int32
        /// `ifi_flags` (`IFF_UP`, `IFF_RUNNING`, `IFF_LOOPBACK`…).
        var flags: UInt32
        /// `IFLA_IFNAME`, without its terminating NUL; at most ``Limits/maximumInterfaceNameLength`` bytes.
        var name: String?
        /// `IFLA_OPERSTATE` (RFC 2863: 6 is up, 2 is down…).
        var operationalState: UInt8?
    }

    /// An interface address (`struct ifaddrmsg` and its attributes).
    struct Address: Equatable, Sendable {
        /// `ifa_family`: `AF_INET` (2) or `AF_INET6` (10); other families are kept as they come.
        var family: UInt8
        /// `ifa_prefixlen`.
        var prefixLength: UInt8
        /// `IFA_FLAGS` when present (32 bits), else `ifa_flags` (8 bits): `IFA_F_TENTATIVE`…
        var flags: UInt32
        /// `ifa_index`.
        var interfaceIndex: Int32
        /// `IFA_LOCAL` when present (the address itself on point-to-point links), else
        /// `IFA_ADDRESS`: 4 bytes for IPv4, 16 for IPv6.
        var address: [UInt8]
    }

    /// A route (`struct rtmsg` and its attributes).
    struct Route: Equatable, Sendable {
        /// `rtm_family`.
        var family: UInt8
        /// `rtm_dst_len`: 0 for a default route.
        var destinationLength: UInt8
        /// `rtm_tos`.
        var tos: UInt8
        /// `RTA_TABLE` when present, else `rtm_table`.
        var table: UInt32
        /// `rtm_type`: 1 (`RTN_UNICAST`) for a route packets can take.
        var type: UInt8
        /// `rtm_flags` (`RTM_F_CLONED`…).
        var flags: UInt32
        /// `RTA_PRIORITY` (the metric), 0 without one.
        var priority: UInt32
        /// Where the route leads: `RTA_OIF` and `RTA_GATEWAY` for a single path, or one entry per
        /// path of `RTA_MULTIPATH`. Empty for a route with neither (`nhid` routes, blackholes).
        var nextHops: [NextHop]
    }

    /// One path of a route.
    struct NextHop: Hashable, Sendable {
        /// The output interface's index (`RTA_OIF`, or `rtnh_ifindex`).
        var interfaceIndex: Int32
        /// The gateway's address (`RTA_GATEWAY`), empty for a directly connected route.
        var gateway: [UInt8]
    }

    /// Why a datagram was refused: the first bound it broke. Nothing of a refused datagram is used.
    struct Malformed: Error, Equatable, CustomStringConvertible {
        /// The byte offset in the datagram where the problem is.
        var offset: Int
        /// What was wrong (a fixed phrase, never the bytes).
        var reason: String

        var description: String { "malformed netlink datagram at byte \(offset): \(reason)" }
    }

    /// The bounds ``parse(_:)`` enforces beyond the framing itself.
    enum Limits {
        /// The largest datagram read (what the monitor's receive buffer holds).
        static let maximumDatagramSize = 65_536
        /// `IFNAMSIZ` - 1: the longest interface name the kernel allows.
        static let maximumInterfaceNameLength = 15
        /// More paths than any kernel allows for one route (`fib_multipath` caps at 256
        /// per route in practice; the datagram's size is the real bound).
        static let maximumNextHops = 256
    }
}

// MARK: - Parsing

extension NetlinkMessage {
    /// Reads every message of one datagram, front to back.
    ///
    /// Strict: every length is checked against what is left before anything is read, and a
    /// datagram that breaks a bound (a length shorter than its header or longer than what
    /// remains, an attribute that does not fit its message, an address of the wrong size for
    /// its family, an over-long interface name, a datagram over
    /// ``Limits/maximumDatagramSize``) is refused whole. Unknown message types and attributes
    /// are skipped. Reads integers in the host's byte order, as netlink sends them.
    ///
    /// - Throws: ``Malformed`` naming the first bound broken.
    static func parse(_ datagram: [UInt8]) throws(Malformed) -> [NetlinkMessage] {
        guard datagram.count <= Limits.maximumDatagramSize else {
            throw Malformed(offset: Limits.maximumDatagramSize, reason: "datagram larger than \(Limits.maximumDatagramSize) bytes")
        }
        let bytes = NetlinkBytes(datagram)
        var messages: [NetlinkMessage] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= headerSize else {
                throw Malformed(offset: offset, reason: "trailing bytes shorter than a message header")
            }
            let length = Int(bytes.u32(offset))
            guard length >= headerSize else { throw Malformed(offset: offset, reason: "message length shorter than its header") }
            guard length <= bytes.count - offset else { throw Malformed(offset: offset, reason: "message length past the datagram's end") }
            let type = bytes.u16(offset + 4)
            let payload = try parsePayload(type: type, bytes: bytes, start: offset + headerSize, end: offset + length)
            messages.append(
                NetlinkMessage(
                    type: type, flags: bytes.u16(offset + 6), sequence: bytes.u32(offset + 8), portID: bytes.u32(offset + 12),
                    payload: payload))
            // The last message may lack its padding.
            offset = min(bytes.count, offset + aligned(length))
        }
        return messages
    }

    private static func parsePayload(type: UInt16, bytes: NetlinkBytes, start: Int, end: Int) throws(Malformed) -> Payload {
        switch type {
        case typeNewLink, typeDeleteLink:
            return .link(try parseLink(bytes, start: start, end: end), deleted: type == typeDeleteLink)
        case typeNewAddress, typeDeleteAddress:
            return .address(try parseAddress(bytes, start: start, end: end), deleted: type == typeDeleteAddress)
        case typeNewRoute, typeDeleteRoute:
            return .route(try parseRoute(bytes, start: start, end: end), deleted: type == typeDeleteRoute)
        case typeDone:
            // Very old kernels send DONE without its error code.
            return .done(code: end - start >= 4 ? bytes.i32(start) : 0)
        case typeError:
            guard end - start >= 4 else { throw Malformed(offset: start, reason: "error message without its code") }
            return .error(code: bytes.i32(start))
        case typeOverrun:
            return .overrun
        default:
            return .ignored
        }
    }

    private static func parseLink(_ bytes: NetlinkBytes, start: Int, end: Int) throws(Malformed) -> Link {
        guard end - start >= linkHeaderSize else { throw Malformed(offset: start, reason: "link message shorter than ifinfomsg") }
        var link = Link(index: bytes.i32(start + 4), flags: bytes.u32(start + 8), name: nil, operationalState: nil)
        try forEachAttribute(bytes, start: start + linkHeaderSize, end: end) { (type, valueStart, valueEnd) throws(Malformed) in
            switch type {
            case linkName:
                var nameEnd = valueEnd
                while nameEnd > valueStart, bytes[nameEnd - 1] == 0 { nameEnd -= 1 }
                guard nameEnd - valueStart <= Limits.maximumInterfaceNameLength else {
                    throw Malformed(offset: valueStart, reason: "interface name longer than \(Limits.maximumInterfaceNameLength) bytes")
                }
                link.name = String(decoding: bytes.slice(valueStart, nameEnd), as: UTF8.self)
            case linkOperationalState:
                guard valueEnd - valueStart >= 1 else { throw Malformed(offset: valueStart, reason: "empty operational state") }
                link.operationalState = bytes[valueStart]
            default:
                break
            }
        }
        return link
    }

    private static func parseAddress(_ bytes: NetlinkBytes, start: Int, end: Int) throws(Malformed) -> Address {
        guard end - start >= addressHeaderSize else { throw Malformed(offset: start, reason: "address message shorter than ifaddrmsg") }
        let family = bytes[start]
        var address = Address(
            family: family, prefixLength: bytes[start + 1], flags: UInt32(bytes[start + 2]), interfaceIndex: bytes.i32(start + 4),
            address: [])
        var local: [UInt8]?
        var peer: [UInt8]?
        try forEachAttribute(bytes, start: start + addressHeaderSize, end: end) { (type, valueStart, valueEnd) throws(Malformed) in
            switch type {
            case addressAddress, addressLocal:
                let value = try addressValue(bytes, family: family, start: valueStart, end: valueEnd)
                if type == addressLocal { local = value } else { peer = value }
            case addressFlags:
                address.flags = try u32Value(bytes, start: valueStart, end: valueEnd, what: "address flags")
            default:
                break
            }
        }
        address.address = local ?? peer ?? []
        return address
    }

    private static func parseRoute(_ bytes: NetlinkBytes, start: Int, end: Int) throws(Malformed) -> Route {
        guard end - start >= routeHeaderSize else { throw Malformed(offset: start, reason: "route message shorter than rtmsg") }
        let family = bytes[start]
        var route = Route(
            family: family, destinationLength: bytes[start + 1], tos: bytes[start + 3], table: UInt32(bytes[start + 4]),
            type: bytes[start + 7], flags: bytes.u32(start + 8), priority: 0, nextHops: [])
        var outputInterface: Int32?
        var gateway: [UInt8] = []
        var multipath: [NextHop]?
        try forEachAttribute(bytes, start: start + routeHeaderSize, end: end) { (type, valueStart, valueEnd) throws(Malformed) in
            switch type {
            case routeOutputInterface:
                outputInterface = Int32(bitPattern: try u32Value(bytes, start: valueStart, end: valueEnd, what: "output interface"))
            case routeGateway:
                gateway = try addressValue(bytes, family: family, start: valueStart, end: valueEnd) ?? []
            case routePriority:
                route.priority = try u32Value(bytes, start: valueStart, end: valueEnd, what: "route priority")
            case routeTable:
                route.table = try u32Value(bytes, start: valueStart, end: valueEnd, what: "route table")
            case routeMultipath:
                multipath = try parseNextHops(bytes, family: family, start: valueStart, end: valueEnd)
            default:
                break
            }
        }
        if let multipath {
            route.nextHops = multipath
        } else if outputInterface != nil || !gateway.isEmpty {
            route.nextHops = [NextHop(interfaceIndex: outputInterface ?? 0, gateway: gateway)]
        }
        return route
    }

    /// `RTA_MULTIPATH`: a run of `struct rtnexthop`, each followed by its own attributes.
    private static func parseNextHops(_ bytes: NetlinkBytes, family: UInt8, start: Int, end: Int) throws(Malformed) -> [NextHop] {
        var nextHops: [NextHop] = []
        var offset = start
        while offset < end {
            guard end - offset >= nextHopHeaderSize else { throw Malformed(offset: offset, reason: "next hop shorter than rtnexthop") }
            let length = Int(bytes.u16(offset))
            guard length >= nextHopHeaderSize, length <= end - offset else {
                throw Malformed(offset: offset, reason: "next hop length outside its route")
            }
            guard nextHops.count < Limits.maximumNextHops else {
                throw Malformed(offset: offset, reason: "more than \(Limits.maximumNextHops) next hops")
            }
            var gateway: [UInt8] = []
            try forEachAttribute(bytes, start: offset + nextHopHeaderSize, end: offset + length) {
                (type, valueStart, valueEnd) throws(Malformed) in
                if type == routeGateway {
                    gateway = try addressValue(bytes, family: family, start: valueStart, end: valueEnd) ?? []
                }
            }
            nextHops.append(NextHop(interfaceIndex: bytes.i32(offset + 4), gateway: gateway))
            offset = min(end, offset + aligned(length))
        }
        return nextHops
    }

    /// Calls `body` with each attribute's type (flag bits removed) and value bounds in
    /// `start..<end`, after checking that it fits.
    private static func forEachAttribute(
        _ bytes: NetlinkBytes, start: Int, end: Int, _ body: (UInt16, Int, Int) throws(Malformed) -> Void
    ) throws(Malformed) {
        var offset = start
        while offset < end {
            guard end - offset >= attributeHeaderSize else {
                throw Malformed(offset: offset, reason: "trailing bytes shorter than an attribute header")
            }
            let length = Int(bytes.u16(offset))
            guard length >= attributeHeaderSize else { throw Malformed(offset: offset, reason: "attribute length shorter than its header") }
            guard length <= end - offset else { throw Malformed(offset: offset, reason: "attribute length past its message's end") }
            try body(bytes.u16(offset + 2) & attributeTypeMask, offset + attributeHeaderSize, offset + length)
            offset = min(end, offset + aligned(length))
        }
    }

    /// An address attribute: exactly the family's size, or `nil` for a family not read.
    private static func addressValue(_ bytes: NetlinkBytes, family: UInt8, start: Int, end: Int) throws(Malformed) -> [UInt8]? {
        guard let size = addressSize(of: family) else { return nil }
        guard end - start == size else { throw Malformed(offset: start, reason: "address of the wrong size for its family") }
        return Array(bytes.slice(start, end))
    }

    private static func u32Value(_ bytes: NetlinkBytes, start: Int, end: Int, what: String) throws(Malformed) -> UInt32 {
        guard end - start == 4 else { throw Malformed(offset: start, reason: "\(what) is not 4 bytes") }
        return bytes.u32(start)
    }
}

/// A datagram's bytes with host-order integer reads. Callers check bounds first; the reads
/// trap on a bug rather than read outside the array.
struct NetlinkBytes {
    private let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }

    subscript(offset: Int) -> UInt8 { bytes[offset] }

    func slice(_ start: Int, _ end: Int) -> ArraySlice<UInt8> { bytes[start..<end] }

    func u16(_ offset: Int) -> UInt16 { load(offset, as: UInt16.self) }

    func u32(_ offset: Int) -> UInt32 { load(offset, as: UInt32.self) }

    func i32(_ offset: Int) -> Int32 { load(offset, as: Int32.self) }

    private func load<T: FixedWidthInteger>(_ offset: Int, as type: T.Type) -> T {
        precondition(offset >= 0 && offset + MemoryLayout<T>.size <= bytes.count, "netlink read out of bounds")
        return bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }
}
