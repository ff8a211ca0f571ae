import Courier
#if os(Linux)
    import Foundation
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// The Linux monitor's I/O: a thread of its own that owns an rtnetlink socket, sends what the
    /// ``NetlinkSession`` asks for, feeds it what the kernel sends, and publishes its paths.
    ///
    /// - **One owner per descriptor.** The thread creates the netlink socket, uses it and closes
    ///   it; no other thread touches it. ``stop()`` only writes a byte to a wake pipe that the
    ///   thread polls next to the socket, and it writes under the lock that the thread takes to
    ///   close the pipe, so it never writes to a descriptor that was closed (and perhaps reused
    ///   by another part of the process) in between.
    /// - **No sleeping, no timer.** `poll(2)` waits for the socket or the wake pipe.
    /// - **Only the kernel is heard.** Datagrams from any other sender are dropped unread.
    /// - **Namespaces.** Given a path under `/run/netns`, the thread enters that network
    ///   namespace (`setns`) before it creates the socket, so the socket watches that namespace
    ///   for its whole life. The thread is never used for anything else and ends with the reader.
    final class NetlinkReader: Sendable {
        private struct Control {
            /// The wake pipe's write end, until the thread closes it.
            var wake: Int32?
            var stopRequested = false
            var hasEnded = false
            var endWaiters: [CheckedContinuation<Void, Never>] = []
            /// The socket's netlink port, once the first path is in.
            var portID: UInt32?
        }

        private let control: LockedState<Control>

        /// How long ``start(networkNamespace:publishingTo:)`` waits for the first three dumps.
        static let readyTimeout: Duration = .seconds(10)

        private init(wake: Int32) {
            control = LockedState(Control(wake: wake))
        }

        /// Starts the thread and returns once the first path is published to `broadcaster`.
        ///
        /// - Throws: `CourierError.transport(_:)` (kind `.other`) when the socket cannot be made
        ///   (no netlink in a sandbox, no permission to enter the namespace…), the kernel refuses a
        ///   dump, or the first dumps do not complete within ``readyTimeout``.
        static func start(networkNamespace: String?, publishingTo broadcaster: PathBroadcaster) throws(CourierError) -> NetlinkReader {
            let pipe: (read: Int32, write: Int32)
            do {
                pipe = try LoopbackSocket.makePipe()
            } catch {
                throw monitorFailure("cannot make a wake pipe: \(error)")
            }
            let reader = NetlinkReader(wake: pipe.write)
            let ready = DispatchSemaphore(value: 0)
            let outcome = LockedState<Result<UInt32, CourierError>?>(nil)
            let loop = NetlinkLoop(wake: pipe.read, networkNamespace: networkNamespace, broadcaster: broadcaster)
            Thread.detachNewThread {
                loop.run { result in
                    outcome.withLock { $0 = result }
                    ready.signal()
                }
                reader.threadEnded()
            }
            let waited = ready.wait(timeout: .now() + .seconds(Int(readyTimeout.components.seconds)))
            if waited == .timedOut {
                reader.stop()
                throw monitorFailure("the kernel did not answer the first dumps within \(readyTimeout)")
            }
            switch outcome.withLock({ $0 }) {
            case .success(let portID)?: reader.control.withLock { $0.portID = portID }
            case .failure(let error)?: throw error
            case nil: break
            }
            return reader
        }

        /// The socket's netlink port (for tests that check what it accepts).
        var portID: UInt32? { control.withLock { $0.portID } }

        /// Asks the thread to stop. Returns at once; the thread closes its descriptors and ends.
        func stop() {
            control.withLock { control in
                guard !control.stopRequested, !control.hasEnded, let wake = control.wake else { return }
                control.stopRequested = true
                LoopbackSocket.wake(wake)
            }
        }

        /// Returns once the thread has ended (for tests and orderly shutdown).
        func waitUntilEnded() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ended = control.withLock { control -> Bool in
                    if control.hasEnded { return true }
                    control.endWaiters.append(continuation)
                    return false
                }
                if ended { continuation.resume() }
            }
        }

        /// On the thread, after the loop closed the socket and the pipe's read end: closes the
        /// write end under the lock, so that ``stop()`` cannot write to it afterwards.
        private func threadEnded() {
            let waiters = control.withLock { control -> [CheckedContinuation<Void, Never>] in
                if let wake = control.wake { LoopbackSocket.closeDescriptor(wake) }
                control.wake = nil
                control.hasEnded = true
                defer { control.endWaiters = [] }
                return control.endWaiters
            }
            for waiter in waiters { waiter.resume() }
        }

        static func monitorFailure(_ message: String) -> CourierError {
            .transport(TransportFailure(kind: .other, message: "connectivity monitor: \(message)"))
        }
    }

    /// The reader thread's body: everything it owns lives here and is closed before ``run(ready:)``
    /// returns.
    private struct NetlinkLoop: Sendable {
        var wake: Int32
        var networkNamespace: String?
        var broadcaster: PathBroadcaster

        /// Runs until stopped or failed. Calls `ready` exactly once: with the socket's port after
        /// the first path is published, or with the failure that ended the loop before that.
        func run(ready: (Result<UInt32, CourierError>) -> Void) {
            var isReady = false
            var reportedFailure: String?
            defer {
                LoopbackSocket.closeDescriptor(wake)
                broadcaster.finish()
                if !isReady { ready(.failure(NetlinkReader.monitorFailure(reportedFailure ?? "stopped before the first path"))) }
            }
            let socket: Int32
            do {
                if let networkNamespace { try NetlinkSocket.enterNetworkNamespace(networkNamespace) }
                socket = try NetlinkSocket.open()
            } catch {
                reportedFailure = "\(error)"
                return
            }
            defer { LoopbackSocket.closeDescriptor(socket) }

            var session = NetlinkSession()
            var buffer = [UInt8](repeating: 0, count: NetlinkMessage.Limits.maximumDatagramSize)
            var actions: [NetlinkSession.Action]
            let portID: UInt32
            do {
                portID = try NetlinkSocket.portID(of: socket)
                actions = session.start(portID: portID)
            } catch {
                reportedFailure = "\(error)"
                return
            }
            while true {
                for action in actions {
                    switch action {
                    case .send(let request):
                        do {
                            try NetlinkSocket.send(request, on: socket)
                        } catch {
                            reportedFailure = "\(error)"
                            return
                        }
                    case .ready(let path):
                        broadcaster.publish(path)
                        isReady = true
                        ready(.success(portID))
                    case .publish(let path):
                        broadcaster.publish(path)
                    case .fail(let reason):
                        reportedFailure = reason
                        return
                    }
                }
                actions = []
                var entries = [
                    pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                ]
                do {
                    _ = try LoopbackSocket.wait(&entries, timeoutMilliseconds: -1)
                } catch {
                    reportedFailure = "\(error)"
                    return
                }
                if entries[0].revents != 0 { return }  // stop() was called
                guard entries[1].revents != 0 else { continue }
                switch NetlinkSocket.receive(on: socket, into: &buffer) {
                case .datagram(let count):
                    do throws(NetlinkMessage.Malformed) {
                        actions = session.receive(try NetlinkMessage.parse(Array(buffer[..<count])))
                    } catch {
                        actions = session.malformed(error)
                    }
                case .lost:
                    actions = session.lostMessages()
                case .nothing:
                    break
                case .failed(let failure):
                    reportedFailure = "\(failure)"
                    return
                }
            }
        }
    }

    /// The system calls of the netlink socket, each checked.
    enum NetlinkSocket {
        /// `NETLINK_ROUTE`.
        private static let routeProtocol: Int32 = 0
        /// `RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE`.
        static let groups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400
        /// `SOCK_RAW | SOCK_CLOEXEC` (an enum in Glibc's module, plain integers in Musl's).
        #if canImport(Glibc)
            private static let rawCloseOnExec = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            private static let rawCloseOnExec = SOCK_RAW | SOCK_CLOEXEC
        #endif
        /// `CLONE_NEWNET`.
        private static let newNetworkNamespace: Int32 = 0x4000_0000
        /// Asked for, not required: the kernel caps it at `net.core.rmem_max`. A larger buffer
        /// makes an overflow (and the full re-read that follows) rarer during bursts of changes.
        private static let receiveBufferSize: Int32 = 1 << 20

        /// What one receive gave.
        enum Received {
            /// A datagram from the kernel of `count` bytes, at the start of the buffer.
            case datagram(Int)
            /// Messages were lost: the socket's buffer overflowed, or a datagram was larger than
            /// the buffer.
            case lost
            /// Nothing usable: interrupted, nothing pending, or a datagram not from the kernel.
            case nothing
            /// The socket failed.
            case failed(LoopbackSocket.Failure)
        }

        /// A netlink route socket, close-on-exec, bound to `groups` (by default the ones the
        /// monitor listens to).
        static func open(groups: UInt32 = groups) throws(LoopbackSocket.Failure) -> Int32 {
            let descriptor = socket(AF_NETLINK, rawCloseOnExec, routeProtocol)
            guard descriptor >= 0 else { throw LoopbackSocket.Failure("socket(AF_NETLINK)") }
            var size = receiveBufferSize
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            var address = netlinkAddress(portID: 0, groups: groups)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, netlinkAddressLength) }
            }
            guard result == 0 else {
                let failure = LoopbackSocket.Failure("bind(AF_NETLINK)")
                LoopbackSocket.closeDescriptor(descriptor)
                throw failure
            }
            return descriptor
        }

        /// The port the kernel gave the socket: its dump answers are addressed to it.
        static func portID(of descriptor: Int32) throws(LoopbackSocket.Failure) -> UInt32 {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let result = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard result == 0 else { throw LoopbackSocket.Failure("getsockname(AF_NETLINK)") }
            return withUnsafeBytes(of: &address) { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) }
        }

        /// Sends one datagram to the kernel (port 0), or to another socket's port.
        static func send(_ request: [UInt8], on descriptor: Int32, to portID: UInt32 = 0) throws(LoopbackSocket.Failure) {
            var address = netlinkAddress(portID: portID, groups: 0)
            while true {
                let sent = request.withUnsafeBytes { bytes in
                    withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, netlinkAddressLength)
                        }
                    }
                }
                if sent == request.count { return }
                if sent < 0, errno == EINTR { continue }
                throw LoopbackSocket.Failure("sendto(AF_NETLINK)", code: sent < 0 ? errno : EMSGSIZE)
            }
        }

        /// Receives one datagram without waiting, and checks it came from the kernel (port 0)
        /// whole.
        static func receive(on descriptor: Int32, into buffer: inout [UInt8]) -> Received {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            // MSG_TRUNC: the result is the datagram's real size, even when it did not fit.
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_TRUNC), $0, &length)
                    }
                }
            }
            if count < 0 {
                switch errno {
                case EINTR, EAGAIN, EWOULDBLOCK: return .nothing
                case ENOBUFS: return .lost
                default: return .failed(LoopbackSocket.Failure("recvfrom(AF_NETLINK)"))
                }
            }
            let sender = withUnsafeBytes(of: &address) { $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) }
            guard sender == 0 else { return .nothing }
            guard count <= buffer.count else { return .lost }
            return .datagram(count)
        }

        /// Moves the calling thread into the network namespace at `path` (`/run/netns/NAME`).
        static func enterNetworkNamespace(_ path: String) throws(LoopbackSocket.Failure) {
            // setns(2) is not in the Swift Glibc module (it needs _GNU_SOURCE): look it up in libc.
            typealias SetNamespace = @convention(c) (Int32, Int32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else {
                throw LoopbackSocket.Failure("dlsym(setns)", code: ENOSYS)
            }
            let setNamespace = unsafeBitCast(symbol, to: SetNamespace.self)
            let descriptor = openForReading(path)
            guard descriptor >= 0 else { throw LoopbackSocket.Failure("open(\(path))") }
            defer { LoopbackSocket.closeDescriptor(descriptor) }
            guard setNamespace(descriptor, newNetworkNamespace) == 0 else { throw LoopbackSocket.Failure("setns(\(path))") }
        }

        /// `struct sockaddr_nl` (family, padding, port, groups), in a `sockaddr_storage` so that
        /// its layout and alignment are the C ones.
        private static func netlinkAddress(portID: UInt32, groups: UInt32) -> sockaddr_storage {
            var address = sockaddr_storage()
            withUnsafeMutableBytes(of: &address) { bytes in
                bytes.storeBytes(of: sa_family_t(AF_NETLINK), toByteOffset: 0, as: sa_family_t.self)
                bytes.storeBytes(of: portID, toByteOffset: 4, as: UInt32.self)
                bytes.storeBytes(of: groups, toByteOffset: 8, as: UInt32.self)
            }
            return address
        }

        /// `sizeof(struct sockaddr_nl)`.
        private static let netlinkAddressLength = socklen_t(12)
    }

    /// `open(2)` read-only and close-on-exec, out of reach of ``NetlinkSocket/open()``, which
    /// shadows it inside the type.
    private func openForReading(_ path: String) -> Int32 {
        open(path, O_RDONLY | O_CLOEXEC)
    }
#endif
