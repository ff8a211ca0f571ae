import FuzzSupport

// rtnetlink datagrams (`NetlinkMessage.parse`, what the Linux connectivity monitor reads from the
// kernel), fed on into `ConnectivityState` and a ready `NetlinkSession`.
//
// The input is one datagram, in the host's byte order (the seeds are little-endian, for x86_64).
// Invariants: never traps; a refusal names a fixed reason at an offset inside the datagram;
// every parsed link name fits `IFNAMSIZ`, every address and gateway is 4 bytes (IPv4), 16 (IPv6)
// or absent, a route has at most 256 next hops; every message written back reads as itself, and
// all of them together as the same list; the state's path is satisfied exactly when it names
// interfaces, sorted, unique and known; the session only asks for dumps, publishes or fails.
@testable import Courier
@testable import CourierConnectivity

/// The process's entry point: SwiftPM names it `FuzzNetlink_main` (see `runLibFuzzer`).
@_cdecl("FuzzNetlink_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { data, size in fuzz(UnsafeRawPointer(data ?? fuzzEmptyInput), size) }
}

/// The reasons `parse` may give (its fixed phrases; the number ones carry the limits).
private let reasons: Set<String> = [
    "datagram larger than \(NetlinkMessage.Limits.maximumDatagramSize) bytes",
    "trailing bytes shorter than a message header", "message length shorter than its header",
    "message length past the datagram's end", "link message shorter than ifinfomsg",
    "address message shorter than ifaddrmsg", "route message shorter than rtmsg", "error message without its code",
    "trailing bytes shorter than an attribute header", "attribute length shorter than its header",
    "attribute length past its message's end", "interface name longer than \(NetlinkMessage.Limits.maximumInterfaceNameLength) bytes",
    "empty operational state", "address of the wrong size for its family", "address flags is not 4 bytes",
    "output interface is not 4 bytes", "route priority is not 4 bytes", "route table is not 4 bytes",
    "next hop shorter than rtnexthop", "next hop length outside its route",
    "more than \(NetlinkMessage.Limits.maximumNextHops) next hops",
]

/// libFuzzer runs this once per input: the bytes at `start`, `count` of them. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let datagram = fuzzBytes(start, count)
    let messages: [NetlinkMessage]
    do {
        messages = try NetlinkMessage.parse(datagram)
    } catch {
        check(reasons.contains(error.reason), "unexpected reason: \(error.reason)")
        check(error.offset >= 0 && error.offset <= max(datagram.count, NetlinkMessage.Limits.maximumDatagramSize), "offset \(error.offset)")
        return 0
    }

    var roundTrips = true
    for message in messages {
        switch message.payload {
        case .link(let link, _):
            if let name = link.name {
                let clean = !name.unicodeScalars.contains { $0 == "\u{FFFD}" || $0 == "\0" }
                if clean { check(name.utf8.count <= NetlinkMessage.Limits.maximumInterfaceNameLength, "name \(name.utf8.count) bytes") }
                roundTrips = roundTrips && clean
            }
        case .address(let address, _):
            check([0, 4, 16].contains(address.address.count), "address of \(address.address.count) bytes")
            if address.address.count == 4 { check(address.family == 2, "4 bytes outside IPv4") }
            if address.address.count == 16 { check(address.family == 10, "16 bytes outside IPv6") }
        case .route(let route, _):
            check(route.nextHops.count <= NetlinkMessage.Limits.maximumNextHops, "\(route.nextHops.count) next hops")
            for hop in route.nextHops {
                check([0, NetlinkMessage.addressSize(of: route.family) ?? 0].contains(hop.gateway.count), "gateway of \(hop.gateway.count) bytes")
            }
        case .done, .error, .overrun, .ignored:
            break
        }
        if roundTrips {
            let again = try? NetlinkMessage.parse(message.encoded())
            check(again == [message], "a message does not read back as itself")
        }
    }
    if roundTrips {
        check((try? NetlinkMessage.parse(messages.flatMap { $0.encoded() })) == messages, "the messages do not read back together")
    }

    var state = ConnectivityState()
    for message in messages { state.apply(message) }
    let path = state.path
    check((path.status == .satisfied) == !path.interfaceNames.isEmpty, "status \(path.status) with \(path.interfaceNames.count) names")
    check(path.interfaceNames == Array(Set(path.interfaceNames)).sorted(), "names not sorted and unique")
    let known = Set(state.links.values.map(\.name))
    check(path.interfaceNames.allSatisfy(known.contains), "a name no link has")

    // A ready session, as after its first dumps, fed the datagram as notifications and as a dump answer.
    var session = NetlinkSession()
    _ = session.start(portID: 77)
    for sequence: UInt32 in 1...3 {
        _ = session.receive([NetlinkMessage(type: 3, flags: 2, sequence: sequence, portID: 77, payload: .done(code: 0))])
    }
    check(session.isReady, "the session is not ready after its three dumps")
    for action in session.receive(messages) + session.receive(messages) + session.lostMessages() {
        switch action {
        case .send, .publish, .fail: break
        case .ready: check(false, "ready twice")
        }
    }
    return 0
}
