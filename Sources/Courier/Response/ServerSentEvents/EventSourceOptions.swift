extension EventSource {
    /// How an ``EventSource`` reconnects, and the limits of what it reads.
    ///
    /// ```swift
    /// var options = EventSource.Options()
    /// options.lastEventID = savedID                 // resume where the last run stopped
    /// options.maximumReconnectAttempts = 10         // give up after 10 reconnections in a row with no event
    /// for try await event in client.enqueue(Notifications()).events(options) { print(event.data) }
    /// ```
    public struct Options: Sendable {
        /// The last event ID to send as `Last-Event-ID` on the first connection: one saved from an
        /// earlier run, to resume after it. `nil` (the default) starts from what the server sends
        /// a new subscriber.
        public var lastEventID: String?
        /// How long to wait before reconnecting while the server has not set a reconnection time
        /// with a `retry` field. Default: 3 seconds (what browsers use).
        public var defaultReconnectionDelay: Duration
        /// The longest wait before a reconnection, before jitter: it caps the backoff and a
        /// server's `retry`. Default: 5 minutes.
        public var maximumReconnectionDelay: Duration
        /// The shortest wait before reconnecting after a connection that delivered no event (it
        /// failed, or the server closed it without one), whatever the server's `retry` says; the
        /// backoff doubles from there.
        /// Default: 1 second.
        ///
        /// Without it, a server that sends `retry: 0` and closes would be reconnected to in a
        /// loop as fast as connections open (zero doubled is zero). A reconnection after a
        /// connection that delivered an event waits exactly the server's `retry`, unless the
        /// connection before it also ended sooner than this after opening: a server that sends
        /// one event per connection and closes is reconnected to at most once per this delay.
        public var minimumReconnectionDelay: Duration
        /// How much random time to add to each wait, as a fraction of it (0 to 1), so that many
        /// clients dropped at once do not all come back at the same moment. Default: 0.25.
        public var jitter: Double
        /// How many reconnections in a row may deliver no event before the source gives up (with
        /// the last error, or by ending when the server closed the stream cleanly). `nil` (the
        /// default) never gives up, like a browser's `EventSource`; `0` never reconnects.
        public var maximumReconnectAttempts: Int?
        /// How long one connection may stay open, head and body together. It replaces the
        /// endpoint's ``Requestable/timeout`` and ``Configuration/timeout``, which would cut an
        /// endless stream: when it passes, the connection is closed and the source reconnects,
        /// sending `Last-Event-ID`, like after any drop. Default: 1 hour. A connection whose
        /// server never answers is also given up after this long.
        public var connectionTimeout: Duration
        /// How long an open stream may go without a single byte before the connection is taken
        /// for dead, closed, and reconnected (sending `Last-Event-ID`), like after any drop.
        /// `nil` (the default) waits for as long as ``connectionTimeout``, as browsers do.
        ///
        /// A connection can die without a word: a proxy or NAT that forgets idle connections, a
        /// server that vanished. Servers that expect this send a comment line (`: ping`) every
        /// so often; any byte counts, so set this to two or three of their intervals. Measured
        /// on ``clock``.
        public var idleTimeout: Duration?
        /// The most bytes one line of the stream may have, without its line break (1 MiB by
        /// default). A longer line ends the sequence with a ``TransportFailure/Kind/responseTooLarge``
        /// failure, without reconnecting.
        public var maximumLineLength: Int
        /// The most bytes of data one event may have: its `data` values and the line feeds after
        /// each (8 MiB by default). A larger event ends the sequence like a line past
        /// ``maximumLineLength``.
        public var maximumEventSize: Int
        /// The clock the waits before reconnecting are measured on; `nil` (the default) uses
        /// ``Configuration/clock``. Tests inject a manual clock and never sleep.
        public var clock: (any Clock<Duration>)?

        /// Options with the defaults above; each can be given here or changed later.
        public init(
            lastEventID: String? = nil,
            defaultReconnectionDelay: Duration = .seconds(3),
            maximumReconnectionDelay: Duration = .seconds(300),
            minimumReconnectionDelay: Duration = .seconds(1),
            jitter: Double = 0.25,
            maximumReconnectAttempts: Int? = nil,
            connectionTimeout: Duration = .seconds(3600),
            idleTimeout: Duration? = nil,
            maximumLineLength: Int = 1 << 20,
            maximumEventSize: Int = 8 << 20,
            clock: (any Clock<Duration>)? = nil
        ) {
            self.lastEventID = lastEventID
            self.defaultReconnectionDelay = defaultReconnectionDelay
            self.maximumReconnectionDelay = maximumReconnectionDelay
            self.minimumReconnectionDelay = minimumReconnectionDelay
            self.jitter = jitter
            self.maximumReconnectAttempts = maximumReconnectAttempts
            self.connectionTimeout = connectionTimeout
            self.idleTimeout = idleTimeout
            self.maximumLineLength = maximumLineLength
            self.maximumEventSize = maximumEventSize
            self.clock = clock
        }

        /// The wait before a reconnection.
        ///
        /// The base is the server's reconnection time (`retry`) or ``defaultReconnectionDelay``.
        /// The standard lets a client wait longer after failures, so the base doubles for each
        /// earlier reconnection in a row that delivered no event (`failures`): a server that
        /// accepts and drops at once, or cannot be reached, is asked less and less often. Unless
        /// the connection that ended delivered an event (`afterEvents`), the base is at least
        /// ``minimumReconnectionDelay`` (a `retry: 0` would otherwise double to zero forever). The
        /// product is capped at ``maximumReconnectionDelay``:
        ///
        ///     base    = afterEvents ? base : max(base, minimumReconnectionDelay)
        ///     nominal = min(base × 2^failures, maximumReconnectionDelay)
        ///     wait    = nominal × (1 + jitter × u),   u uniform in [0, 1)
        ///
        /// Jitter is added after the cap, so clients at the cap spread out too; the wait is never
        /// shorter than the nominal one (never sooner than the server asked, below the cap) and at
        /// most `maximumReconnectionDelay × (1 + jitter)`. Doubling stops at the cap, so no
        /// number of failures overflows.
        func reconnectionDelay(
            serverRetry: Duration?, failures: Int, afterEvents: Bool = false, random: inout some RandomNumberGenerator
        ) -> Duration {
            // Bounded: a wait of `Int64.max` seconds traps in the clock, and jitter on it overflows.
            let cap = Swift.min(Swift.max(maximumReconnectionDelay, .zero), Duration.longestWait)
            var base = Swift.max(serverRetry ?? defaultReconnectionDelay, .zero)
            if !afterEvents { base = Swift.max(base, minimumReconnectionDelay) }
            var nominal = Swift.min(base, cap)
            var doublings = Swift.max(failures, 0)
            while doublings > 0, nominal > .zero, nominal < cap {
                nominal = nominal > cap / 2 ? cap : nominal * 2
                doublings -= 1
            }
            let fraction = Swift.min(Swift.max(jitter.isNaN ? 0 : jitter, 0), 1)
            guard fraction > 0, nominal > .zero else { return nominal }
            return nominal + nominal * (fraction * Double.random(in: 0..<1, using: &random))
        }
    }
}
