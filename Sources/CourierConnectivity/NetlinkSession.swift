import Courier

/// The Linux monitor's conversation with the kernel, as a pure state machine: which dumps to ask
/// for, what the answers and notifications do to the ``ConnectivityState``, and when the path
/// is ready or has changed.
struct NetlinkSession: Sendable {
    // The thread that owns the socket sends what it says and feeds it what arrives; it is tested
    // without a socket, message by message.
    //
    // The rules:
    // - Start with dumps. Links, then addresses, then routes, one dump at a time (the kernel runs
    //   one dump per socket). The path is .ready(_:) once all three are in.
    // - Notifications in between count. A change announced while a dump is running is applied to
    //   the state and to the dump's fresh copy, so neither misses it; when the dump ends its fresh
    //   copy replaces that part of the state. A dump the kernel marks interrupted
    //   (`NLM_F_DUMP_INTR`: the table changed under it) is asked for again.
    // - Re-read routes when the kernel may have changed them silently. It removes IPv4 routes
    //   without a message when their interface goes down or loses an address; so a link that goes
    //   up or down, an address that goes away, or a route deletion that matches nothing known makes
    //   the monitor dump the routes again.
    // - Lost messages mean starting over. When the socket's buffer overflowed (`ENOBUFS`), a
    //   datagram was cut short, or the kernel says `NLMSG_OVERRUN`, every table is dumped again.
    // - Publish settled views only. A path is published after a batch of messages when no dump is
    //   pending, and only when it differs from the last one published; so a link that comes back
    //   up is not reported usable on the strength of a route the kernel removed while it was down.
    // - Fail rather than loop. A dump the kernel refuses, or a malformed datagram while a dump runs,
    //   ends the session (.fail(_:)).

    /// What the owner must do, in order.
    enum Action: Equatable, Sendable {
        /// Send this dump request to the kernel.
        case send([UInt8])
        /// The first complete view: the monitor can answer from now on.
        case ready(ConnectivityPath)
        /// The path changed.
        case publish(ConnectivityPath)
        /// The session cannot go on: stop, for this reason.
        case fail(String)
    }

    struct Dump {
        var kind: NetlinkMessage.DumpKind
        var sequence: UInt32
        /// The state with this dump's part rebuilt from the dump's answer.
        var fresh: ConnectivityState
        var interrupted = false
    }

    /// What the kernel has said so far.
    private(set) var state = ConnectivityState()
    /// Whether the first three dumps are complete.
    private(set) var isReady = false
    /// Whether ``Action/fail(_:)`` was returned; the session then ignores everything.
    private(set) var hasFailed = false
    private(set) var dump: Dump?
    private(set) var pending: [NetlinkMessage.DumpKind] = []
    private var nextSequence: UInt32
    private var portID: UInt32 = 0
    private var published: ConnectivityPath?

    /// A session whose first dump has sequence number `firstSequence`.
    init(firstSequence: UInt32 = 1) {
        nextSequence = firstSequence
    }

    /// Starts the first dumps. `portID` is the socket's netlink port: the kernel addresses a
    /// dump's answer to it.
    mutating func start(portID: UInt32) -> [Action] {
        self.portID = portID
        pending = NetlinkMessage.DumpKind.allCases
        return advance()
    }

    /// Feeds one datagram's messages, in order.
    mutating func receive(_ messages: [NetlinkMessage]) -> [Action] {
        guard !hasFailed else { return [] }
        for message in messages {
            if var current = dump, message.sequence == current.sequence, message.portID == portID {
                if message.flags & NetlinkMessage.flagDumpInterrupted != 0 { current.interrupted = true }
                switch message.payload {
                case .done(let code) where code < 0, .error(let code) where code < 0:
                    // Widened before negating: `-Int32.min` overflows, and the bytes are the peer's.
                    return fail("the kernel refused the \(current.kind) dump (errno \(-Int64(code)))")
                case .done:
                    if current.interrupted {
                        pending.insert(current.kind, at: 0)
                    } else {
                        state.take(current.kind, from: current.fresh)
                    }
                    dump = nil
                    continue
                case .error:
                    dump = current  // an acknowledgement
                    continue
                default:
                    current.fresh.apply(message)
                    dump = current
                }
                // A dump's own answer: it is applied to the fresh copy above, and to the state so
                // that what it adds counts at once; its effects are the dump's business.
                state.apply(message)
                continue
            }
            if case .overrun = message.payload {
                enqueueAll()
                continue
            }
            dump?.fresh.apply(message)
            if state.apply(message).routesMayBeStale { enqueue(.routes) }
        }
        return advance()
    }

    /// Messages were lost (the socket's buffer overflowed, or a datagram was cut short): dumps
    /// every table again.
    mutating func lostMessages() -> [Action] {
        guard !hasFailed else { return [] }
        enqueueAll()
        return advance()
    }

    /// A datagram could not be parsed. While a dump runs its answer may be in it, so the
    /// session fails; otherwise it is treated as lost messages.
    mutating func malformed(_ problem: NetlinkMessage.Malformed) -> [Action] {
        guard !hasFailed else { return [] }
        if dump != nil { return fail("\(problem) during a dump") }
        return lostMessages()
    }

    private mutating func enqueueAll() {
        for kind in NetlinkMessage.DumpKind.allCases { enqueue(kind) }
    }

    private mutating func enqueue(_ kind: NetlinkMessage.DumpKind) {
        if !pending.contains(kind) { pending.append(kind) }
    }

    private mutating func fail(_ reason: String) -> [Action] {
        hasFailed = true
        dump = nil
        pending = []
        return [.fail(reason)]
    }

    /// Starts the next dump if none runs, else publishes if everything asked for is in.
    private mutating func advance() -> [Action] {
        if dump == nil, !pending.isEmpty {
            let kind = pending.removeFirst()
            let sequence = nextSequence
            nextSequence = nextSequence == .max ? 1 : nextSequence + 1
            var fresh = state
            fresh.clear(kind)
            dump = Dump(kind: kind, sequence: sequence, fresh: fresh)
            return [.send(NetlinkMessage.dumpRequest(kind, sequence: sequence))]
        }
        guard dump == nil else { return [] }
        let path = state.path
        if !isReady {
            isReady = true
            published = path
            return [.ready(path)]
        }
        guard path != published else { return [] }
        published = path
        return [.publish(path)]
    }
}
