import Courier
/// What the kernel has told the Linux monitor about interfaces, addresses and default routes, and
/// whether that makes a usable path: a pure value, fed ``NetlinkMessage``s in the order they
/// arrived.
///
/// **A usable path** is a default route (IPv4 `0.0.0.0/0` or IPv6 `::/0`, type unicast, in any
/// routing table) with at least one next hop whose output interface
/// - is not the loopback interface,
/// - is up and running (`IFF_UP` and `IFF_RUNNING`: the kernel sets `IFF_RUNNING` when the
///   operational state is up, so a cable pulled or a Wi-Fi association lost clears it), and
/// - has an address of the route's family that is not tentative or failed duplicate address
///   detection (an IPv6 link-local address counts: IPv6 default routes go through one).
///
/// A route to a subnet, or a default route through an interface that is down, is not a path to
/// the internet; a host with no default route can still reach its own subnet, which this
/// monitor does not count.
struct ConnectivityState: Equatable, Sendable {
    /// An interface the kernel reported.
    struct Link: Equatable, Sendable {
        var name: String
        var flags: UInt32
    }

    /// An address, identified as the kernel does: family, prefix length, bytes.
    struct AddressKey: Hashable, Sendable {
        var family: UInt8
        var prefixLength: UInt8
        var address: [UInt8]
    }

    /// One next hop of a default route, identified as the kernel identifies routes (family,
    /// table, metric, TOS) plus the next hop itself.
    struct DefaultRoute: Hashable, Sendable {
        var family: UInt8
        var table: UInt32
        var priority: UInt32
        var tos: UInt8
        var nextHop: NetlinkMessage.NextHop
    }

    /// Interfaces by index.
    private(set) var links: [Int32: Link] = [:]
    /// Each interface's addresses, with whether each is usable (not tentative, not failed DAD).
    private(set) var addresses: [Int32: [AddressKey: Bool]] = [:]
    /// Every next hop of every unicast default route.
    private(set) var defaultRoutes: Set<DefaultRoute> = []

    // ifi_flags and ifa_flags bits.
    static let interfaceUp: UInt32 = 0x1  // IFF_UP
    static let interfaceLoopback: UInt32 = 0x8  // IFF_LOOPBACK
    static let interfaceRunning: UInt32 = 0x40  // IFF_RUNNING
    static let addressTentative: UInt32 = 0x40  // IFA_F_TENTATIVE
    static let addressDuplicate: UInt32 = 0x08  // IFA_F_DADFAILED
    static let routeTypeUnicast: UInt8 = 1  // RTN_UNICAST
    static let routeCloned: UInt32 = 0x200  // RTM_F_CLONED

    /// What applying a message implies beyond the state itself.
    struct Effect: Equatable, Sendable {
        /// The routes may have changed without a message saying so: the kernel removes IPv4
        /// routes silently when their interface goes down or loses the address they use, and a
        /// deletion that matched no route we know means our view drifted. Dump the routes again.
        var routesMayBeStale = false
    }

    /// Applies one link, address or route message; other messages change nothing.
    @discardableResult
    mutating func apply(_ message: NetlinkMessage) -> Effect {
        var effect = Effect()
        switch message.payload {
        case .link(let link, let deleted):
            let old = links[link.index]
            if deleted {
                links[link.index] = nil
                addresses[link.index] = nil
                defaultRoutes = defaultRoutes.filter { $0.nextHop.interfaceIndex != link.index }
                effect.routesMayBeStale = old != nil
            } else {
                links[link.index] = Link(name: link.name ?? old?.name ?? "#\(link.index)", flags: link.flags)
                let mask = Self.interfaceUp | Self.interfaceRunning
                effect.routesMayBeStale = old.map { $0.flags & mask != link.flags & mask } ?? true
            }
        case .address(let address, let deleted):
            guard NetlinkMessage.addressSize(of: address.family) != nil, !address.address.isEmpty else { break }
            let key = AddressKey(family: address.family, prefixLength: address.prefixLength, address: address.address)
            if deleted {
                addresses[address.interfaceIndex]?[key] = nil
                if addresses[address.interfaceIndex]?.isEmpty == true { addresses[address.interfaceIndex] = nil }
                effect.routesMayBeStale = true
            } else {
                let usable = address.flags & (Self.addressTentative | Self.addressDuplicate) == 0
                addresses[address.interfaceIndex, default: [:]][key] = usable
            }
        case .route(let route, let deleted):
            guard route.destinationLength == 0, route.flags & Self.routeCloned == 0,
                NetlinkMessage.addressSize(of: route.family) != nil
            else { break }
            let entries = route.nextHops.map {
                DefaultRoute(family: route.family, table: route.table, priority: route.priority, tos: route.tos, nextHop: $0)
            }
            if deleted {
                let before = defaultRoutes.count
                defaultRoutes.subtract(entries)
                effect.routesMayBeStale = route.type == Self.routeTypeUnicast && defaultRoutes.count == before
            } else {
                if message.flags & NetlinkMessage.flagReplace != 0 {
                    // A replaced route: the old next hops go without a deletion message.
                    defaultRoutes = defaultRoutes.filter {
                        !($0.family == route.family && $0.table == route.table && $0.priority == route.priority && $0.tos == route.tos)
                    }
                }
                if route.type == Self.routeTypeUnicast { defaultRoutes.formUnion(entries) }
            }
        case .done, .error, .overrun, .ignored:
            break
        }
        return effect
    }

    /// Forgets everything of one kind, before a dump of that kind refills it.
    mutating func clear(_ kind: NetlinkMessage.DumpKind) {
        switch kind {
        case .links: links = [:]
        case .addresses: addresses = [:]
        case .routes: defaultRoutes = []
        }
    }

    /// Replaces everything of one kind with what `other` holds.
    mutating func take(_ kind: NetlinkMessage.DumpKind, from other: ConnectivityState) {
        switch kind {
        case .links: links = other.links
        case .addresses: addresses = other.addresses
        case .routes: defaultRoutes = other.defaultRoutes
        }
    }

    /// Satisfied when some default route leads through a usable interface (see the type's
    /// documentation); the names of those interfaces, sorted.
    var path: ConnectivityPath {
        var names: Set<String> = []
        for route in defaultRoutes {
            let index = route.nextHop.interfaceIndex
            guard let link = links[index], isUsable(link), hasUsableAddress(index, family: route.family) else { continue }
            names.insert(link.name)
        }
        return ConnectivityPath(status: names.isEmpty ? .unsatisfied : .satisfied, interfaceNames: names.sorted())
    }

    private func isUsable(_ link: Link) -> Bool {
        link.flags & Self.interfaceLoopback == 0 && link.flags & (Self.interfaceUp | Self.interfaceRunning) == Self.interfaceUp | Self.interfaceRunning
    }

    private func hasUsableAddress(_ index: Int32, family: UInt8) -> Bool {
        addresses[index]?.contains { $0.key.family == family && $0.value } ?? false
    }
}
