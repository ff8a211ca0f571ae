#if AsyncHTTPClientLinked
    import Foundation
    import Courier
    import NIOCore
    import NIOPosix

    /// An HTTP `CONNECT` proxy on `127.0.0.1` (SwiftNIO) that really tunnels: it answers
    /// `CONNECT host:port` with `200`, connects to the target and copies bytes both ways. The TLS
    /// handshake then runs end to end through it, as through a corporate proxy. It records the
    /// targets it was asked for.
    final class TunnelProxy: Sendable {
        let port: Int
        /// The `host:port` of every `CONNECT`, in arrival order.
        var targets: [String] { recorded.withLock { $0 } }
        private let recorded: LockedState<[String]>
        private let channel: any Channel

        /// Starts a proxy, runs `body` with it, and stops it whatever happens in `body`.
        static func run<R>(_ body: (TunnelProxy) async throws -> R) async throws -> R {
            let targets = LockedState<[String]>([])
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ConnectHandler(targets: targets))
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
            guard let port = channel.localAddress?.port else {
                try? await channel.close()
                throw TunnelProxyError("no local port")
            }
            let proxy = TunnelProxy(channel: channel, port: port, targets: targets)
            do {
                let result = try await body(proxy)
                try? await channel.close()
                return result
            } catch {
                try? await channel.close()
                throw error
            }
        }

        private init(channel: any Channel, port: Int, targets: LockedState<[String]>) {
            self.channel = channel
            self.port = port
            self.recorded = targets
        }
    }

    struct TunnelProxyError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Reads the `CONNECT` head, connects to its target, answers `200`, then joins the two
    /// channels. Anything but a `CONNECT` is answered `405` and closed.
    private final class ConnectHandler: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let targets: LockedState<[String]>
        private var head = ByteBuffer()
        private var connecting = false

        init(targets: LockedState<[String]>) {
            self.targets = targets
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !connecting else { return }
            var bytes = unwrapInboundIn(data)
            head.writeBuffer(&bytes)
            let text = String(buffer: head)
            guard text.contains("\r\n\r\n") else { return }
            connecting = true
            // Split on the string "\r\n": as a Character it is one grapheme, never "\r".
            let requestLine = (text.components(separatedBy: "\r\n").first ?? "").split(separator: " ")
            let client = context.channel
            guard requestLine.count == 3, requestLine[0] == "CONNECT",
                let colon = requestLine[1].lastIndex(of: ":"), let port = Int(requestLine[1][requestLine[1].index(after: colon)...])
            else {
                client.writeAndFlush(ByteBuffer(string: "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")).whenComplete { _ in
                    client.close(promise: nil)
                }
                return
            }
            let host = String(requestLine[1][..<colon])
            targets.withLock { $0.append("\(host):\(port)") }
            ClientBootstrap(group: client.eventLoop).connect(host: host, port: port).whenComplete { result in
                switch result {
                case .success(let server):
                    let joined = client.pipeline.addHandler(Relay(partner: server)).flatMap {
                        server.pipeline.addHandler(Relay(partner: client))
                    }
                    joined.whenComplete { _ in
                        client.writeAndFlush(ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n\r\n"), promise: nil)
                        client.pipeline.removeHandler(self, promise: nil)
                    }
                case .failure:
                    client.writeAndFlush(ByteBuffer(string: "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")).whenComplete { _ in
                        client.close(promise: nil)
                    }
                }
            }
        }
    }

    /// Writes what one side reads to the other; closes the other when this side closes.
    private final class Relay: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let partner: any Channel

        init(partner: any Channel) {
            self.partner = partner
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            partner.close(promise: nil)
            context.fireChannelInactive()
        }
    }
#endif
