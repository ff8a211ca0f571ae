// What the package's tests observe of a netlink session.

extension NetlinkSession {
    /// Which dump is in flight.
    var dumpInFlight: NetlinkMessage.DumpKind? { dump?.kind }

    /// The dumps waiting their turn.
    var pendingDumps: [NetlinkMessage.DumpKind] { pending }
}
