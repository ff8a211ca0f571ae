import Courier
/// The kernel's rtnetlink ABI, as ``NetlinkMessage`` reads and writes it: message and attribute
/// types, flags, families and header sizes (linux/netlink.h, linux/rtnetlink.h, linux/if_link.h,
/// linux/if_addr.h). Fixed by the kernel's compatibility promise, so spelled out here rather than
/// imported (the Swift Glibc module does not carry these headers).
extension NetlinkMessage {
    static let headerSize = 16
    static let attributeHeaderSize = 4

    // nlmsg_type
    static let typeError: UInt16 = 2
    static let typeDone: UInt16 = 3
    static let typeOverrun: UInt16 = 4
    static let typeNewLink: UInt16 = 16
    static let typeDeleteLink: UInt16 = 17
    static let typeGetLink: UInt16 = 18
    static let typeNewAddress: UInt16 = 20
    static let typeDeleteAddress: UInt16 = 21
    static let typeGetAddress: UInt16 = 22
    static let typeNewRoute: UInt16 = 24
    static let typeDeleteRoute: UInt16 = 25
    static let typeGetRoute: UInt16 = 26

    // nlmsg_flags
    static let flagRequest: UInt16 = 0x01
    static let flagMulti: UInt16 = 0x02
    static let flagDumpInterrupted: UInt16 = 0x10
    static let flagReplace: UInt16 = 0x100
    /// `NLM_F_ROOT | NLM_F_MATCH`.
    static let flagDump: UInt16 = 0x300

    // Address families.
    static let familyIPv4: UInt8 = 2
    static let familyIPv6: UInt8 = 10

    // Attribute types, and the bits of an attribute type that are not part of it.
    static let attributeTypeMask: UInt16 = 0x3FFF
    static let linkName: UInt16 = 3  // IFLA_IFNAME
    static let linkOperationalState: UInt16 = 16  // IFLA_OPERSTATE
    static let addressAddress: UInt16 = 1  // IFA_ADDRESS
    static let addressLocal: UInt16 = 2  // IFA_LOCAL
    static let addressFlags: UInt16 = 8  // IFA_FLAGS
    static let routeOutputInterface: UInt16 = 4  // RTA_OIF
    static let routeGateway: UInt16 = 5  // RTA_GATEWAY
    static let routePriority: UInt16 = 6  // RTA_PRIORITY
    static let routeMultipath: UInt16 = 9  // RTA_MULTIPATH
    static let routeTable: UInt16 = 15  // RTA_TABLE

    // Fixed-size payload headers.
    static let linkHeaderSize = 16  // struct ifinfomsg
    static let addressHeaderSize = 8  // struct ifaddrmsg
    static let routeHeaderSize = 12  // struct rtmsg
    static let nextHopHeaderSize = 8  // struct rtnexthop

    /// The 4-byte alignment of messages and attributes (`NLMSG_ALIGN`, `RTA_ALIGN`).
    static func aligned(_ length: Int) -> Int { (length + 3) & ~3 }

    /// The address size of `family`, or `nil` for a family the monitor does not read.
    static func addressSize(of family: UInt8) -> Int? {
        switch family {
        case familyIPv4: 4
        case familyIPv6: 16
        default: nil
        }
    }
}
