import Courier
import CourierTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc

    /// A connection the server resets after the request arrived is a lost connection on both
    /// transports: the request may have been processed, so it must not be reported as
    /// `cannotConnect`, which says nothing was sent.
    @Suite("Connection reset by the server", .loopback, .timeLimit(.minutes(1)))
    struct ConnectionResetIntegrationTests {
        @Test(arguments: TransportKind.allCases)
        func aResetAfterTheRequestArrivedIsConnectionLost(_ kind: TransportKind) async throws {
            let server = try ResettingServer()
            defer { server.stop() }
            let endpoint = TestEndpoint(baseURL: try BaseURL(scheme: .http, host: "127.0.0.1", port: server.port), path: try URLPath("/orders"))
                .with {
                    $0.method = .post
                    $0.body = .data(Data(#"{"item":1}"#.utf8), contentType: "application/json")
                }

            let result = await Client(configuration: Configuration(transport: kind.make(), timeout: generousTimeout)).enqueue(endpoint).result()

            guard case .failure(.transport(let failure)) = result else {
                Issue.record("expected a transport failure, got \(result)")
                return
            }
            #expect(failure.kind == .connectionLost, "\(failure)")
            #expect(server.requestsReset.withLock { $0 } >= 1)
        }
    }

    /// A TCP server on `127.0.0.1` that reads each request's head and then resets the connection
    /// (`SO_LINGER` with a zero timeout makes `close` send RST), on a thread of its own.
    final class ResettingServer: Sendable {
        let port: Int
        let requestsReset = LockedState(0)
        private let listener: Int32

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw POSIXError(.EMFILE) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
                }
            }
            guard bound else {
                close(fd)
                throw POSIXError(.EADDRNOTAVAIL)
            }
            listener = fd
            port = Int(UInt16(bigEndian: address.sin_port))
            let requestsReset = requestsReset
            Thread.detachNewThread {
                while true {
                    let connection = accept(fd, nil, nil)
                    guard connection >= 0 else {
                        // The listener was shut down: only this thread closes it, so no other
                        // socket can reuse its number while `accept` may still be called on it.
                        close(fd)
                        return
                    }
                    Self.readHead(connection)
                    // Counted before the reset: the client may see the reset, and the test read
                    // the count, before this thread runs again.
                    requestsReset.withLock { $0 += 1 }
                    var option = linger(l_onoff: 1, l_linger: 0)
                    setsockopt(connection, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
                    close(connection)
                }
            }
        }

        /// Reads until the blank line that ends a request head has arrived (a body may follow it
        /// in the same read), or the peer stops sending.
        private static func readHead(_ connection: Int32) {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while received.firstRange(of: [13, 10, 13, 10]) == nil {
                let count = read(connection, &buffer, buffer.count)
                guard count > 0 else { return }
                received += buffer[..<count]
            }
        }

        /// Stops accepting: the accepting thread wakes up, closes the listener and ends.
        func stop() {
            shutdown(listener, Int32(SHUT_RDWR))
        }
    }
#endif
