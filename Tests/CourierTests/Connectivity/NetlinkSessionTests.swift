import Testing

@testable import Courier
@testable import CourierConnectivity

@Suite("Netlink session: dumps, notifications and resynchronisation")
struct NetlinkSessionTests {
    typealias F = NetlinkFixtures

    private static let port: UInt32 = 4242

    private static func request(_ kind: NetlinkMessage.DumpKind, _ sequence: UInt32) -> NetlinkSession.Action {
        .send(NetlinkMessage.dumpRequest(kind, sequence: sequence))
    }

    /// The answer to dump `sequence`: `messages` addressed to our port, then DONE.
    private static func answer(_ sequence: UInt32, _ messages: [NetlinkMessage], interrupted: Bool = false) -> [NetlinkMessage] {
        let flags = NetlinkMessage.flagMulti | (interrupted ? NetlinkMessage.flagDumpInterrupted : 0)
        return messages.map { message in
            var message = message
            message.sequence = sequence
            message.portID = port
            message.flags |= flags
            return message
        } + [F.done(sequence: sequence, portID: port, messageFlags: flags)]
    }

    /// A session that has done its first three dumps of the typical host.
    private static func readySession() -> NetlinkSession {
        var session = NetlinkSession()
        _ = session.start(portID: port)
        let host = F.typicalHost()
        _ = session.receive(answer(1, Array(host[0...1])))
        _ = session.receive(answer(2, Array(host[2...3])))
        _ = session.receive(answer(3, [host[4]]))
        return session
    }

    @Test("the session dumps links, then addresses, then routes, one at a time, and is ready with the path after the third")
    func firstDumps() {
        var session = NetlinkSession()
        let host = F.typicalHost()

        #expect(session.start(portID: Self.port) == [Self.request(.links, 1)])
        #expect(session.receive(Self.answer(1, Array(host[0...1]))) == [Self.request(.addresses, 2)])
        #expect(session.receive(Self.answer(2, Array(host[2...3]))) == [Self.request(.routes, 3)])
        #expect(session.isReady == false)
        #expect(session.receive(Self.answer(3, [host[4]])) == [.ready(ConnectivityPath(status: .satisfied, interfaceNames: ["eth0"]))])
        #expect(session.isReady)
    }

    @Test("a dump's answer may come in several datagrams; only DONE ends it")
    func answerInPieces() {
        var session = NetlinkSession()
        _ = session.start(portID: Self.port)
        let answer = Self.answer(1, F.typicalHost()[0...1].map { $0 })
        #expect(session.receive([answer[0]]) == [])
        #expect(session.receive([answer[1]]) == [])
        #expect(session.dumpInFlight == .links)
        #expect(session.receive([answer[2]]) == [Self.request(.addresses, 2)])
    }

    @Test("a notification arriving during the first dumps counts, and is not undone when the dump ends")
    func notificationDuringDump() {
        var session = NetlinkSession()
        _ = session.start(portID: Self.port)
        _ = session.receive(Self.answer(1, [F.link(2, "eth0")]))
        // While addresses are dumped, eth0 loses its carrier: a notification (sequence 0).
        _ = session.receive([F.address(2, [192, 168, 1, 20], sequence: 2, portID: Self.port), F.link(2, "eth0", flags: F.upNoCarrier)])
        // The carrier loss asks for a route dump, and one is already waiting its turn: no second one.
        #expect(session.receive([F.done(sequence: 2, portID: Self.port)]) == [Self.request(.routes, 3)])
        #expect(session.receive(Self.answer(3, [F.route(via: [2])])) == [.ready(.unsatisfied)])
    }

    @Test("a notification deleting what the dump already sent is applied to the dump's fresh copy too")
    func deletionDuringDump() {
        var session = Self.readySession()
        _ = session.receive([F.link(3, "wlan0")])  // a new interface: a route dump (sequence 4)
        // The dump sends the route, then a notification deletes it, then DONE.
        let actions = session.receive(
            [F.route(via: [2], sequence: 4, portID: Self.port), F.route(via: [2], deleted: true), F.done(sequence: 4, portID: Self.port)])
        #expect(actions == [.publish(.unsatisfied)])
        #expect(session.state.defaultRoutes.isEmpty)
    }

    @Test("a dump the kernel marks interrupted is asked for again, and its answer is not used")
    func interruptedDump() {
        var session = NetlinkSession()
        _ = session.start(portID: Self.port)
        #expect(session.receive(Self.answer(1, [F.link(9, "stale")], interrupted: true)) == [Self.request(.links, 2)])
        #expect(session.receive(Self.answer(2, [F.link(2, "eth0")])) == [Self.request(.addresses, 3)])
        #expect(session.state.links.keys.sorted() == [2])
    }

    @Test("a dump the kernel refuses (DONE or ERROR with an errno) fails the session, which then ignores everything")
    func refusedDump() {
        var done = NetlinkSession()
        _ = done.start(portID: Self.port)
        #expect(done.receive([F.done(sequence: 1, portID: Self.port, code: -16)]) == [.fail("the kernel refused the links dump (errno 16)")])
        #expect(done.hasFailed)
        #expect(done.receive(F.typicalHost()) == [])
        #expect(done.lostMessages() == [])

        var error = NetlinkSession()
        _ = error.start(portID: Self.port)
        #expect(error.receive([F.error(sequence: 1, portID: Self.port, code: -1)]) == [.fail("the kernel refused the links dump (errno 1)")])
    }

    @Test("an error code of Int32.min fails the session by its number instead of trapping (found by FuzzNetlink)", arguments: [true, false])
    func mostNegativeErrorCode(asDone: Bool) {
        var session = NetlinkSession()
        _ = session.start(portID: Self.port)
        let message =
            asDone ? F.done(sequence: 1, portID: Self.port, code: .min) : F.error(sequence: 1, portID: Self.port, code: .min)
        #expect(session.receive([message]) == [.fail("the kernel refused the links dump (errno 2147483648)")])
    }

    @Test("an acknowledgement (ERROR with code 0) for the dump changes nothing")
    func acknowledgement() {
        var session = NetlinkSession()
        _ = session.start(portID: Self.port)
        #expect(session.receive([F.error(sequence: 1, portID: Self.port, code: 0)]) == [])
        #expect(session.dumpInFlight == .links)
    }

    @Test("DONE for another sequence or another port does not end the dump")
    func foreignDone() {
        var session = NetlinkSession()
        _ = session.start(portID: Self.port)
        #expect(session.receive([F.done(sequence: 2, portID: Self.port), F.done(sequence: 1, portID: 7)]) == [])
        #expect(session.dumpInFlight == .links)
    }

    @Test("a change is published once; a notification that changes nothing publishes nothing")
    func publishesChangesOnly() {
        var session = Self.readySession()
        #expect(session.receive([F.address(2, [192, 168, 1, 21])]) == [])
        #expect(session.receive([F.link(3, "wlan0")]) == [Self.request(.routes, 4)])
        #expect(session.receive(Self.answer(4, [F.route(via: [2])])) == [])
        #expect(session.receive([F.route(via: [2], deleted: true)]) == [.publish(.unsatisfied)])
        #expect(session.receive([F.route(via: [2])]) == [.publish(ConnectivityPath(status: .satisfied, interfaceNames: ["eth0"]))])
    }

    /// The kernel removes IPv4 routes silently when an interface goes down: taking a link's
    /// word that it is back up, with the route remembered from before, would report a path the
    /// kernel no longer has. The session re-reads the routes first.
    @Test("after admin down and up, the path is published only from the routes re-read, not the ones remembered")
    func silentRouteRemoval() {
        var session = Self.readySession()
        // Down: unusable, and the routes are re-read (the kernel has flushed the default route).
        #expect(session.receive([F.link(2, "eth0", flags: F.down)]) == [Self.request(.routes, 4)])
        #expect(session.receive(Self.answer(4, [])) == [.publish(.unsatisfied)])
        // Up: the link is fine, but the re-read routes have no default route: still unsatisfied.
        #expect(session.receive([F.link(2, "eth0")]) == [Self.request(.routes, 5)])
        #expect(session.receive(Self.answer(5, [])) == [])
        // A DHCP client adds the default route again.
        #expect(session.receive([F.route(via: [2])]) == [.publish(ConnectivityPath(status: .satisfied, interfaceNames: ["eth0"]))])
    }

    @Test("while a route dump runs, the path is not published; when it ends, the settled path is")
    func noPublishingWhileDumping() {
        var session = Self.readySession()
        #expect(session.receive([F.link(2, "eth0", flags: F.upNoCarrier)]) == [Self.request(.routes, 4)])
        // Before the dump's answer, the carrier comes back: nothing is published yet.
        #expect(session.receive([F.link(2, "eth0")]) == [])
        #expect(session.pendingDumps == [.routes])
        // The first dump ends, the second starts; the path is unchanged in the end.
        #expect(session.receive(Self.answer(4, [F.route(via: [2])])) == [Self.request(.routes, 5)])
        #expect(session.receive(Self.answer(5, [F.route(via: [2])])) == [])
    }

    @Test("lost messages (ENOBUFS, a cut datagram, NLMSG_OVERRUN) dump every table again, in order")
    func lostMessages() {
        var session = Self.readySession()
        #expect(session.lostMessages() == [Self.request(.links, 4)])
        #expect(session.pendingDumps == [.addresses, .routes])

        var overrun = Self.readySession()
        let actions = overrun.receive([NetlinkMessage(type: NetlinkMessage.typeOverrun, flags: 0, sequence: 0, portID: 0, payload: .overrun)])
        #expect(actions == [Self.request(.links, 4)])
    }

    @Test("after a full re-read, what disappeared while messages were lost is gone")
    func resyncForgets() {
        var session = Self.readySession()
        _ = session.lostMessages()
        let host = F.typicalHost()
        _ = session.receive(Self.answer(4, [host[0]]))  // eth0 vanished
        _ = session.receive(Self.answer(5, [host[2]]))
        #expect(session.receive(Self.answer(6, [])) == [.publish(.unsatisfied)])
        #expect(session.state.links.keys.sorted() == [1])
    }

    @Test("a malformed datagram outside a dump re-reads every table; during a dump it fails the session")
    func malformed() {
        let problem = NetlinkMessage.Malformed(offset: 0, reason: "test")
        var idle = Self.readySession()
        #expect(idle.malformed(problem) == [Self.request(.links, 4)])

        var dumping = NetlinkSession()
        _ = dumping.start(portID: Self.port)
        #expect(dumping.malformed(problem) == [.fail("malformed netlink datagram at byte 0: test during a dump")])
    }

    @Test("sequence numbers wrap past UInt32.max to 1, never 0 (the sequence of notifications)")
    func sequenceWraps() {
        var session = NetlinkSession(firstSequence: .max)
        #expect(session.start(portID: Self.port) == [Self.request(.links, .max)])
        #expect(session.receive(Self.answer(.max, [])) == [Self.request(.addresses, 1)])
    }
}
