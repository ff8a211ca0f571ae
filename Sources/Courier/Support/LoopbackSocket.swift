#if canImport(Glibc)
    package import Glibc
#elseif canImport(Musl)
    package import Musl
#elseif canImport(Darwin)
    package import Darwin
#endif

/// The thin POSIX layer under CourierOAuth's loopback redirect receiver and CourierConnectivity's
/// rtnetlink reader: loopback-only listening sockets, non-blocking accepts and reads, `poll(2)`,
/// and a self-pipe to wake a waiter. Every descriptor is close-on-exec and every socket
/// non-blocking.
///
/// Writes never raise `SIGPIPE` (which would end the process when the browser closes first):
/// `MSG_NOSIGNAL` on Linux, `SO_NOSIGPIPE` on Apple platforms.
package enum LoopbackSocket {
    /// A failed system call: its name and `errno`.
    package struct Failure: Error, CustomStringConvertible {
        package var operation: String
        package var code: Int32

        package init(_ operation: String, code: Int32 = errno) {
            self.operation = operation
            self.code = code
        }

        package var description: String {
            "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }

    /// What a non-blocking read gave.
    package enum Received: Equatable {
        /// `count` bytes were appended.
        case data(Int)
        /// Nothing to read now.
        case wouldBlock
        /// The peer closed the connection, or it failed.
        case closed
    }

    #if canImport(Glibc)
        private static let streamType = Int32(SOCK_STREAM.rawValue)
        private static let sendFlags = Int32(MSG_NOSIGNAL)
    #elseif canImport(Musl)
        private static let streamType = SOCK_STREAM
        private static let sendFlags = MSG_NOSIGNAL
    #else
        private static let streamType = SOCK_STREAM
        private static let sendFlags: Int32 = 0
    #endif

    /// A listening socket on `127.0.0.1` (or `::1` when `ipv6`), at `port` (0: the kernel picks
    /// an ephemeral one). Never any other address.
    /// - Returns: the descriptor and the port it listens on.
    package static func listenOnLoopback(ipv6: Bool, port: UInt16, backlog: Int32) throws(Failure) -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(ipv6 ? AF_INET6 : AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw Failure("socket") }
        do throws(Failure) {
            try configure(descriptor)
            if ipv6 {
                var on: Int32 = 1
                guard setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                    throw Failure("setsockopt(IPV6_V6ONLY)")
                }
                var address = sockaddr_in6()
                #if canImport(Darwin)
                    address.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
                #endif
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = port.bigEndian
                withUnsafeMutableBytes(of: &address.sin6_addr) { bytes in
                    for index in bytes.indices { bytes[index] = 0 }
                    bytes[bytes.count - 1] = 1  // ::1
                }
                try bind(descriptor, &address)
            } else {
                var address = sockaddr_in()
                #if canImport(Darwin)
                    address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
                #endif
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = port.bigEndian
                address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1
                try bind(descriptor, &address)
            }
            guard listen(descriptor, backlog) == 0 else { throw Failure("listen") }
            return (descriptor, try boundPort(descriptor))
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
    }

    private static func bind<Address>(_ descriptor: Int32, _ address: inout Address) throws(Failure) {
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                systemBind(descriptor, generic, socklen_t(MemoryLayout<Address>.size))
            }
        }
        guard result == 0 else { throw Failure("bind") }
    }

    /// The port a bound socket listens on (the same field in `sockaddr_in` and `sockaddr_in6`).
    private static func boundPort(_ descriptor: Int32) throws(Failure) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { throw Failure("getsockname") }
        return withUnsafeBytes(of: &storage) { bytes in
            // sin_port and sin6_port both follow a 2-byte family (or length and family) field.
            UInt16(bigEndian: bytes.load(fromByteOffset: 2, as: UInt16.self))
        }
    }

    /// Close-on-exec, non-blocking, and (Apple) no `SIGPIPE`.
    private static func configure(_ descriptor: Int32) throws(Failure) {
        guard fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0 else { throw Failure("fcntl(F_SETFD)") }
        let flags = fcntl(descriptor, F_GETFL, 0)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { throw Failure("fcntl(F_SETFL)") }
        #if canImport(Darwin)
            var on: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Accepts one pending connection, configured like the listener.
    /// - Returns: the connection, or `nil` when none is pending (or it vanished before it was
    ///   accepted).
    /// - Throws: for failures that would repeat at once (`EMFILE`…), so the caller cannot spin.
    package static func acceptConnection(_ listener: Int32) throws(Failure) -> Int32? {
        while true {
            let descriptor = accept(listener, nil, nil)
            if descriptor >= 0 {
                do {
                    try configure(descriptor)
                } catch {
                    closeDescriptor(descriptor)
                    return nil
                }
                return descriptor
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO: return nil
            default: throw Failure("accept")
            }
        }
    }

    /// Reads what is available, at most `limit` bytes, appending them to `buffer`.
    package static func receive(_ descriptor: Int32, into buffer: inout [UInt8], limit: Int) -> Received {
        guard limit > 0 else { return .closed }
        var chunk = [UInt8](repeating: 0, count: limit)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, limit, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return .data(count)
            }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .closed
            }
        }
    }

    /// Writes as much of `bytes` as the socket takes without waiting (a 404 is a few hundred
    /// bytes, which an empty send buffer always takes).
    package static func sendWithoutWaiting(_ descriptor: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, sendFlags) }
    }

    /// Writes all of `bytes`, waiting for the socket to take them for at most `timeoutMilliseconds`
    /// in all (checked per wait). Gives up silently: the page is a courtesy to the browser.
    package static func sendAll(_ descriptor: Int32, _ bytes: [UInt8], timeoutMilliseconds: Int32) {
        var offset = 0
        var waits = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, sendFlags)
            }
            if count > 0 {
                offset += count
                continue
            }
            guard count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR, waits < 20 else { return }
            waits += 1
            var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            guard poll(&entry, 1, timeoutMilliseconds / 20 + 1) > 0 else { return }
        }
    }

    /// Ends the connection after a response: no more writes (a FIN, so the browser sees the
    /// whole page), then close.
    package static func finish(_ descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_WR))
        closeDescriptor(descriptor)
    }

    /// A pipe whose read end a `poll` watches and whose write end wakes it; both ends
    /// non-blocking and close-on-exec.
    package static func makePipe() throws(Failure) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw Failure("pipe") }
        for end in ends {
            let flags = fcntl(end, F_GETFL, 0)
            guard fcntl(end, F_SETFD, FD_CLOEXEC) == 0, flags >= 0, fcntl(end, F_SETFL, flags | O_NONBLOCK) == 0 else {
                let failure = Failure("fcntl")
                ends.forEach(closeDescriptor)
                throw failure
            }
        }
        return (ends[0], ends[1])
    }

    /// Writes one byte to a wake pipe's write end. A full pipe is already awake.
    package static func wake(_ writeEnd: Int32) {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Waits for `entries` (`poll(2)`), at most `timeoutMilliseconds`, retrying after a signal.
    /// - Returns: the number of ready entries (0 on timeout).
    package static func wait(_ entries: inout [pollfd], timeoutMilliseconds: Int32) throws(Failure) -> Int {
        while true {
            let result = poll(&entries, nfds_t(entries.count), timeoutMilliseconds)
            if result >= 0 { return Int(result) }
            if errno != EINTR { throw Failure("poll") }
        }
    }

    /// Closes `descriptor`, ignoring errors (after `close` the descriptor is gone whatever it
    /// returns, and it must not be closed twice).
    package static func closeDescriptor(_ descriptor: Int32) {
        _ = systemClose(descriptor)
    }
}

/// `bind(2)` and `close(2)` under names of their own, out of reach of the Swift methods that
/// shadow them inside types.
private func systemBind(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    bind(descriptor, address, length)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
