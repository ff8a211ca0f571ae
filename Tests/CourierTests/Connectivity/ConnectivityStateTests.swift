import Testing

@testable import Courier
@testable import CourierConnectivity

@Suite("Connectivity state: interfaces, addresses and routes to a usable path")
struct ConnectivityStateTests {
    typealias F = NetlinkFixtures

    private static let linkLocal: [UInt8] = [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [7]

    private func state(_ messages: [NetlinkMessage]) -> ConnectivityState {
        var state = ConnectivityState()
        for message in messages { state.apply(message) }
        return state
    }

    @Test("a default route through an up, running interface with an address is a usable path, named by its interface")
    func typicalHostIsSatisfied() {
        #expect(state(F.typicalHost()).path == ConnectivityPath(status: .satisfied, interfaceNames: ["eth0"]))
    }

    @Test("nothing known is no path")
    func emptyIsUnsatisfied() {
        #expect(ConnectivityState().path == .unsatisfied)
    }

    /// Each case changes one thing about the typical host; each makes the path unusable.
    @Test(
        "no usable path when one condition fails",
        arguments: [
            ("no default route", [F.link(2, "eth0"), F.address(2, [192, 168, 1, 20])]),
            ("only a subnet route", [F.link(2, "eth0"), F.address(2, [192, 168, 1, 20]), F.route(via: [2], destinationLength: 24)]),
            ("interface down", [F.link(2, "eth0", flags: F.down), F.address(2, [192, 168, 1, 20]), F.route(via: [2])]),
            ("up without carrier", [F.link(2, "eth0", flags: F.upNoCarrier), F.address(2, [192, 168, 1, 20]), F.route(via: [2])]),
            ("loopback", [F.link(1, "lo", flags: F.loopback), F.address(1, [127, 0, 0, 1]), F.route(via: [1])]),
            ("no address", [F.link(2, "eth0"), F.route(via: [2])]),
            ("only an IPv6 address for an IPv4 route", [F.link(2, "eth0"), F.address(2, linkLocal, prefix: 64), F.route(via: [2])]),
            ("a tentative IPv6 address", [F.link(2, "eth0"), F.address(2, linkLocal, prefix: 64, flags: 0x40), F.route(via: [2], family: F.ipv6)]),
            ("a failed-DAD IPv6 address", [F.link(2, "eth0"), F.address(2, linkLocal, prefix: 64, flags: 0x08), F.route(via: [2], family: F.ipv6)]),
            ("an unreachable default route", [F.link(2, "eth0"), F.address(2, [192, 168, 1, 20]), F.route(via: [2], type: 7)]),
            ("a blackhole default route", [F.link(2, "eth0"), F.address(2, [192, 168, 1, 20]), F.route(via: [], type: 6)]),
            ("a cloned (cache) route", [F.link(2, "eth0"), F.address(2, [192, 168, 1, 20]), F.route(via: [2], routeFlags: 0x200)]),
            ("a route through an unknown interface", [F.link(2, "eth0"), F.address(2, [192, 168, 1, 20]), F.route(via: [9])]),
            ("a route without an output interface (nhid)", [F.link(2, "eth0"), F.address(2, [192, 168, 1, 20]), F.route(via: [0])]),
        ])
    func unusable(_ label: String, messages: [NetlinkMessage]) {
        #expect(state(messages).path == .unsatisfied, "\(label)")
    }

    @Test("an IPv6 default route through a link-local address is usable; so is a route in another table")
    func ipv6AndOtherTables() {
        let ipv6 = state([F.link(3, "wlan0"), F.address(3, Self.linkLocal, prefix: 64), F.route(via: [3], family: F.ipv6)])
        #expect(ipv6.path == ConnectivityPath(status: .satisfied, interfaceNames: ["wlan0"]))
        let vpn = state([F.link(4, "wg0"), F.address(4, [10, 7, 0, 2], prefix: 32), F.route(via: [4], gateway: [], table: 51820)])
        #expect(vpn.path.status == .satisfied)
    }

    @Test("a multipath default route is usable through any of its usable next hops, and names each")
    func multipath() {
        let messages = [
            F.link(2, "eth0"), F.link(3, "eth1", flags: F.upNoCarrier), F.link(4, "eth2"),
            F.address(2, [10, 0, 0, 2]), F.address(3, [10, 0, 1, 2]), F.address(4, [10, 0, 2, 2]),
            F.route(via: [2, 3, 4]),
        ]
        #expect(state(messages).path == ConnectivityPath(status: .satisfied, interfaceNames: ["eth0", "eth2"]))
    }

    @Test("a tentative address becomes usable when the kernel reports it again without the flag")
    func tentativeThenUsable() {
        var state = state([F.link(2, "eth0"), F.address(2, Self.linkLocal, prefix: 64, flags: 0x40), F.route(via: [2], family: F.ipv6)])
        #expect(state.path == .unsatisfied)
        state.apply(F.address(2, Self.linkLocal, prefix: 64, flags: 0x80))
        #expect(state.path.status == .satisfied)
    }

    @Test("losing the carrier, the address, the route or the interface makes the path unusable")
    func losingEachCondition() {
        let host = state(F.typicalHost())
        let changes: [(String, NetlinkMessage)] = [
            ("carrier", F.link(2, "eth0", flags: F.upNoCarrier)),
            ("admin down", F.link(2, "eth0", flags: F.down)),
            ("address", F.address(2, [192, 168, 1, 20], deleted: true)),
            ("route", F.route(via: [2], deleted: true)),
            ("interface", F.link(2, "eth0", deleted: true)),
        ]
        for (label, change) in changes {
            var changed = host
            changed.apply(change)
            #expect(changed.path == .unsatisfied, "\(label)")
        }
    }

    @Test("deleting an interface forgets its addresses and routes, so an interface reusing its index starts clean")
    func deletedInterfaceForgotten() {
        var state = state(F.typicalHost())
        state.apply(F.link(2, "eth0", deleted: true))
        state.apply(F.link(2, "veth9"))
        #expect(state.addresses[2] == nil)
        #expect(state.defaultRoutes.isEmpty)
        #expect(state.path == .unsatisfied)
    }

    @Test("a link notification without a name keeps the name known")
    func nameKept() {
        var state = state(F.typicalHost())
        state.apply(NetlinkMessage(type: 16, flags: 0, sequence: 0, portID: 0, payload: .link(.init(index: 2, flags: F.up), deleted: false)))
        #expect(state.path.interfaceNames == ["eth0"])
    }

    @Test("a replaced route drops the next hops it replaced, without a deletion message")
    func replacedRoute() {
        var state = state(F.typicalHost() + [F.link(3, "wlan0"), F.address(3, [10, 1, 0, 2])])
        state.apply(F.route(via: [3], gateway: [10, 1, 0, 1], messageFlags: NetlinkMessage.flagReplace))
        #expect(state.path.interfaceNames == ["wlan0"])
        #expect(state.defaultRoutes.count == 1)
    }

    @Test(
        "routes may be stale after: a change of up/running, a new or deleted interface, a deleted address, a deletion that matched nothing",
        arguments: [
            ("carrier lost", F.link(2, "eth0", flags: F.upNoCarrier), true),
            ("admin down", F.link(2, "eth0", flags: F.down), true),
            ("new interface", F.link(5, "usb0"), true),
            ("deleted interface", F.link(2, "eth0", deleted: true), true),
            ("deleted address", F.address(2, [192, 168, 1, 20], deleted: true), true),
            ("deletion matching nothing", F.route(via: [2], gateway: [10, 9, 9, 9], deleted: true), true),
            ("same flags again", F.link(2, "eth0"), false),
            ("new address", F.address(2, [192, 168, 1, 21]), false),
            ("deletion of a known route", F.route(via: [2], deleted: true), false),
            ("new route", F.route(via: [2], priority: 600), false),
            ("deleted subnet route", F.route(via: [2], destinationLength: 24, deleted: true), false),
            ("deleted unreachable route", F.route(via: [1], type: 7, deleted: true), false),
            ("deleted interface never known", F.link(42, "ghost", deleted: true), false),
        ])
    func routesMayBeStale(_ label: String, message: NetlinkMessage, expected: Bool) {
        var state = state(F.typicalHost())
        #expect(state.apply(message).routesMayBeStale == expected, "\(label)")
    }
}
