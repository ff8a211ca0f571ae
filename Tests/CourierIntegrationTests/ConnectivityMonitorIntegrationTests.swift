#if os(Linux)
    import CourierTesting
    import Foundation
    import Testing

    @testable import Courier
    @testable import CourierConnectivity

    /// The Linux connectivity monitor against a real kernel: a network namespace each test makes
    /// (`ip netns add courier-test-<random>`), with veth pairs, addresses and default routes inside
    /// it, changed with `ip` while a monitor whose socket lives in that namespace watches. The
    /// machine's own network is never touched: both ends of every veth pair stay in the
    /// namespace, and deleting the namespace (always, also when a test fails) removes them.
    ///
    /// Needs root (`CAP_SYS_ADMIN` and `CAP_NET_ADMIN`) and iproute2's `ip`; without either, each
    /// test is cancelled with the reason (shown as skipped), not passed.
    @Suite("Connectivity monitor against the kernel, in a network namespace", .loopback, .timeLimit(.minutes(1)))
    struct ConnectivityMonitorIntegrationTests {
        /// The subnets the tests use inside their namespace (the machine's own routes never see them).
        private static let first = (local: "10.231.0.2/24", gateway: "10.231.0.1")
        private static let second = (local: "10.232.0.2/24", gateway: "10.232.0.1")

        @Test("the system monitor reads this machine's tables, reports a path, and stops: its thread closes the socket and ends")
        func systemMonitorStartsAndStops() async throws {
            let monitor = try ConnectivityMonitor()
            #expect(monitor.isMonitoring)
            var paths = monitor.paths().makeAsyncIterator()
            #expect(await paths.next() == monitor.currentPath)

            monitor.stop()

            await monitor.waitUntilSourceEnded()
            #expect(await paths.next() == nil)
            #expect(monitor.isMonitoring == false)
        }

        @Test("a default route through a veth with an address is satisfied; losing the carrier makes it unsatisfied, and back")
        func carrierLossAndReturn() async throws {
            try await NetworkNamespace.with { namespace in
                try await namespace.addVethPair(inner: "cb0", peer: "ca0", address: Self.first.local)
                try await namespace.ip("route", "add", "default", "via", Self.first.gateway, "dev", "cb0")
                let monitor = try ConnectivityMonitor(networkNamespacePath: namespace.path)
                defer { monitor.stop() }
                #expect(monitor.currentPath == ConnectivityPath(status: .satisfied, interfaceNames: ["cb0"]))
                var paths = monitor.paths().makeAsyncIterator()
                #expect(await paths.next() == monitor.currentPath)

                // The peer goes down: cb0 stays up but loses its carrier (IFF_RUNNING), like a cable pulled.
                try await namespace.ip("link", "set", "ca0", "down")
                #expect(await paths.next() == .unsatisfied)
                // The kernel keeps the route through a link without carrier: the carrier's return is enough.
                try await namespace.ip("link", "set", "ca0", "up")
                #expect(await paths.next() == ConnectivityPath(status: .satisfied, interfaceNames: ["cb0"]))
            }
        }

        /// The kernel removes the IPv4 default route without a message when its interface is set
        /// down, and does not bring it back when the interface comes up. A monitor that trusted its
        /// memory would report cb0 usable again after `up`; this one re-reads the routes.
        @Test("admin down flushes the default route silently; after up the path is unsatisfied until a route is added again")
        func adminDownAndUp() async throws {
            try await NetworkNamespace.with { namespace in
                try await namespace.addVethPair(inner: "cb0", peer: "ca0", address: Self.first.local)
                try await namespace.ip("route", "add", "default", "via", Self.first.gateway, "dev", "cb0")
                let monitor = try ConnectivityMonitor(networkNamespacePath: namespace.path)
                defer { monitor.stop() }
                var paths = monitor.paths().makeAsyncIterator()
                #expect(await paths.next() == ConnectivityPath(status: .satisfied, interfaceNames: ["cb0"]))

                try await namespace.ip("link", "set", "cb0", "down")
                #expect(await paths.next() == .unsatisfied)
                try await namespace.ip("link", "set", "cb0", "up")

                // A second interface with its own default route: the next path names it alone,
                // which shows that cb0's flushed route is not counted (were it, cb0 would be named).
                try await namespace.addVethPair(inner: "cd0", peer: "cc0", address: Self.second.local)
                try await namespace.ip("route", "add", "default", "via", Self.second.gateway, "dev", "cd0", "metric", "100")
                #expect(await paths.next() == ConnectivityPath(status: .satisfied, interfaceNames: ["cd0"]))

                // A DHCP client would add cb0's route again.
                try await namespace.ip("route", "add", "default", "via", Self.first.gateway, "dev", "cb0", "metric", "50")
                #expect(await paths.next() == ConnectivityPath(status: .satisfied, interfaceNames: ["cb0", "cd0"]))
                try await namespace.ip("route", "del", "default", "via", Self.second.gateway, "dev", "cd0", "metric", "100")
                #expect(await paths.next() == ConnectivityPath(status: .satisfied, interfaceNames: ["cb0"]))
            }
        }

        @Test("an IPv6 default route alone is a path; deleting it, or the interface, is not")
        func ipv6OnlyAndDeletedInterface() async throws {
            try await NetworkNamespace.with { namespace in
                try await namespace.addVethPair(inner: "cb0", peer: "ca0", address: nil)
                try await namespace.ip("-6", "address", "add", "fd00:c0:1::2/64", "dev", "cb0", "nodad")
                let monitor = try ConnectivityMonitor(networkNamespacePath: namespace.path)
                defer { monitor.stop() }
                var paths = monitor.paths().makeAsyncIterator()
                #expect(await paths.next() == .unsatisfied)

                try await namespace.ip("-6", "route", "add", "default", "via", "fd00:c0:1::1", "dev", "cb0")
                #expect(await paths.next() == ConnectivityPath(status: .satisfied, interfaceNames: ["cb0"]))
                try await namespace.ip("-6", "route", "del", "default", "via", "fd00:c0:1::1", "dev", "cb0")
                #expect(await paths.next() == .unsatisfied)
                try await namespace.ip("-6", "route", "add", "default", "via", "fd00:c0:1::1", "dev", "cb0")
                #expect(await paths.next() == ConnectivityPath(status: .satisfied, interfaceNames: ["cb0"]))
                try await namespace.ip("link", "del", "cb0")
                #expect(await paths.next() == .unsatisfied)
            }
        }

        /// Another process's netlink socket can send the monitor's socket a datagram; one that
        /// says every interface went down must change nothing.
        @Test("a forged datagram from another socket, not the kernel, is ignored")
        func forgedDatagramIgnored() async throws {
            try await NetworkNamespace.with { namespace in
                try await namespace.addVethPair(inner: "cb0", peer: "ca0", address: Self.first.local)
                try await namespace.ip("route", "add", "default", "via", Self.first.gateway, "dev", "cb0")
                let monitor = try ConnectivityMonitor(networkNamespacePath: namespace.path)
                defer { monitor.stop() }
                var paths = monitor.paths().makeAsyncIterator()
                #expect(await paths.next() == ConnectivityPath(status: .satisfied, interfaceNames: ["cb0"]))
                let port = try #require(monitor.netlinkPortID)

                // "Interfaces 1 to 64 are down", from a socket of ours rather than the kernel.
                let forged = (1...64).flatMap { index in
                    NetlinkMessage(
                        type: NetlinkMessage.typeNewLink, flags: 0, sequence: 0, portID: port,
                        payload: .link(.init(index: Int32(index), flags: 0, name: "forged\(index)"), deleted: false)
                    ).encoded()
                }
                try await Self.send(forged, toPort: port, inNamespace: namespace.path)

                // A real change after it: the path names cb0 too, so the forgery did not count.
                try await namespace.addVethPair(inner: "cd0", peer: "cc0", address: Self.second.local)
                try await namespace.ip("route", "add", "default", "via", Self.second.gateway, "dev", "cd0", "metric", "100")
                #expect(await paths.next() == ConnectivityPath(status: .satisfied, interfaceNames: ["cb0", "cd0"]))
            }
        }

        /// Sends `datagram` to netlink port `port` from a socket made inside the namespace, on a
        /// thread of its own (entering a namespace changes the thread).
        private static func send(_ datagram: [UInt8], toPort port: UInt32, inNamespace path: String) async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                Thread.detachNewThread {
                    do {
                        try NetlinkSocket.enterNetworkNamespace(path)
                        let socket = try NetlinkSocket.open(groups: 0)
                        defer { close(socket) }
                        try NetlinkSocket.send(datagram, on: socket, to: port)
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        }

        @Test("a connectivity constraint on a namespace's monitor holds 1,000 calls while the carrier is gone and releases them when it returns")
        func constraintOnARealMonitor() async throws {
            try await NetworkNamespace.with { namespace in
                try await namespace.addVethPair(inner: "cb0", peer: "ca0", address: Self.first.local)
                try await namespace.ip("route", "add", "default", "via", Self.first.gateway, "dev", "cb0")
                try await namespace.ip("link", "set", "ca0", "down")
                let monitor = try ConnectivityMonitor(networkNamespacePath: namespace.path)
                defer { monitor.stop() }
                #expect(monitor.currentPath == .unsatisfied)
                let constraint = Constraint.connectivity(monitor, timeout: nil)

                let released = try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<1000 {
                        group.addTask { try await constraint.waitUntilSatisfied() }
                    }
                    await constraint.waitForWaiters(1000)  // all 1,000 held
                    try await namespace.ip("link", "set", "ca0", "up")
                    var released = 0
                    for try await _ in group { released += 1 }
                    return released
                }
                #expect(released == 1000)
            }
        }
    }

    /// A network namespace made for one test, deleted after it, with `ip` run inside it.
    struct NetworkNamespace {
        let name: String

        /// Where `ip netns add` binds the namespace: what the monitor enters.
        var path: String { "/run/netns/\(name)" }

        /// iproute2's `ip`, where distributions put it.
        static let ipTool = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }

        /// Makes a namespace (loopback up), runs `body` with it, and deletes it, whether `body`
        /// returns or throws. Cancels the test, with the reason, when namespaces cannot be made here.
        static func with(_ body: (NetworkNamespace) async throws -> Void) async throws {
            guard geteuid() == 0 else { try skip("network namespaces need root; running as uid \(geteuid())") }
            guard let ipTool else { try skip("iproute2's ip is not installed (apt-get install iproute2)") }
            let name = "courier-test-\(String(UInt32.random(in: .min ... .max), radix: 16))"
            let created = try await run(ipTool, ["netns", "add", name])
            guard created.status == 0 else {
                try skip("`ip netns add` failed (no CAP_SYS_ADMIN in this container?): \(created.errorOutput)")
            }
            let namespace = NetworkNamespace(name: name)
            do {
                try await namespace.ip("link", "set", "lo", "up")
                try await body(namespace)
            } catch {
                _ = try? await run(ipTool, ["netns", "del", name])
                throw error
            }
            let deleted = try await run(ipTool, ["netns", "del", name])
            #expect(deleted.status == 0, "ip netns del \(name): \(deleted.errorOutput)")
        }

        /// Ends the test as cancelled (reported as skipped) with `reason`.
        private static func skip(_ reason: String) throws -> Never {
            #if compiler(>=6.3)
                try Test.cancel("skipped: \(reason)")
            #else
                withKnownIssue("skipped: \(reason)") { throw CancellationError() }
                throw CancellationError()
            #endif
        }

        /// `ip -n <name> <arguments>`; throws with `ip`'s message when it fails.
        func ip(_ arguments: String...) async throws {
            let result = try await Self.run(Self.ipTool!, ["-n", name] + arguments)
            guard result.status == 0 else {
                throw IPCommandFailed(command: "ip -n \(name) \(arguments.joined(separator: " "))", message: result.errorOutput)
            }
        }

        /// A veth pair made inside the namespace, both ends up, `inner` with `address` if given.
        func addVethPair(inner: String, peer: String, address: String?) async throws {
            try await ip("link", "add", inner, "type", "veth", "peer", "name", peer)
            if let address { try await ip("address", "add", address, "dev", inner) }
            try await ip("link", "set", peer, "up")
            try await ip("link", "set", inner, "up")
        }

        /// Runs `executable` and returns its exit status and standard error, without blocking a
        /// thread of the cooperative pool while it runs.
        private static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, errorOutput: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            let status = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
                process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            let output = errors.fileHandleForReading.readDataToEndOfFile()
            return (status, String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    struct IPCommandFailed: Error, CustomStringConvertible {
        var command: String
        var message: String
        var description: String { "\(command) failed: \(message)" }
    }
#endif
