#if AsyncHTTPClientLinked && !canImport(Darwin)
    import Courier
    import Foundation
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import NIOSSL
    import NIOWebSocket

    /// An in-process WebSocket server (SwiftNIO's `NIOWebSocketServerUpgrader`) on `127.0.0.1`
    /// with an ephemeral port, one per test. What it does with each upgrade request is the test's
    /// `plan`: refuse it with a status, or accept it, send some frames as they are (hostile ones
    /// included), then echo (each message back in frames of at most 16 KiB), stay silent, or close.
    ///
    /// It runs on SwiftNIO's event loops, never on Swift's cooperative pool: FlyingFox's server
    /// parks one libdispatch worker per idle server in `epoll_wait`, and with several WebSocket
    /// tests at once on 2 cores every worker was parked and the servers stopped answering.
    final class WebSocketTestServer: Sendable {
        /// What the server does with one upgrade request.
        struct Plan: Sendable {
            /// Refuse the upgrade with this status, headers and body.
            var refusal: (status: HTTPResponseStatus, headers: HTTPHeaders, body: String)?
            /// Extra headers of the 101.
            var headers = HTTPHeaders()
            /// Frames sent right after the upgrade, as they are.
            var frames: [WebSocketFrame] = []
            /// Whether client messages are echoed.
            var echoes = true
            /// Whether pings are answered.
            var answersPings = true
            /// Whether the server stops reading after the upgrade, until ``releaseReads()``.
            var holdsReads = false
            /// Whether the server resets the connection (TCP RST) when the first frame arrives.
            var resets = false

            static let echo = Plan()

            static func refuse(_ status: HTTPResponseStatus, body: String = "", headers: HTTPHeaders = HTTPHeaders()) -> Plan {
                Plan(refusal: (status, headers, body))
            }
        }

        /// `http://127.0.0.1:<port>`.
        let baseURL: BaseURL
        /// The upgrade requests' heads, in order.
        let requests = LockedState<[HTTPRequestHead]>([])
        /// The frames clients sent, in order.
        let received = LockedState<[WebSocketFrame]>([])
        /// Each connection's end: the code of the client's close frame, or `nil` when the
        /// connection ended without one.
        let closes: AsyncStream<UInt16?>
        private let closed: AsyncStream<UInt16?>.Continuation
        private let channel: any Channel
        /// The connections whose reads a plan holds.
        private let held = LockedState<[any Channel]>([])

        private init(channel: any Channel, port: Int, secure: Bool) throws {
            self.channel = channel
            baseURL = try BaseURL(scheme: secure ? .https : .http, host: "127.0.0.1", port: port)
            (closes, closed) = AsyncStream.makeStream()
        }

        /// Starts a server answering with `plan` (over TLS with `tls`), runs `body`, and stops the server.
        static func run<R>(
            tls: NIOSSLContext? = nil, plan: @escaping @Sendable (HTTPRequestHead) -> Plan = { _ in .echo }, _ body: (WebSocketTestServer) async throws -> R
        ) async throws -> R {
            let box = LockedState<WebSocketTestServer?>(nil)
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                // Room for every connection of the 1,000-socket test at once: with SwiftNIO's
                // default of 256 and both cores busy, the accept queue overflowed, the kernel
                // dropped handshakes, and a client whose request came after its SYN-ACK retries
                // ran out (about 31 s) was reset (CI, busy suite).
                .serverChannelOption(.backlog, value: 1_024)
                .childChannelInitializer { channel in
                    let upgrader = NIOWebSocketServerUpgrader(
                        maxFrameSize: 1 << 24, automaticErrorHandling: false,
                        shouldUpgrade: { channel, head in
                            box.withLock { $0 }?.requests.withLock { $0.append(head) }
                            let plan = plan(head)
                            guard plan.refusal == nil else { return channel.eventLoop.makeSucceededFuture(nil) }
                            return channel.eventLoop.makeSucceededFuture(plan.headers)
                        },
                        upgradePipelineHandler: { channel, head in
                            channel.eventLoop.makeCompletedFuture {
                                let refusing = try channel.pipeline.syncOperations.handler(type: RefusingHandler.self)
                                channel.pipeline.syncOperations.removeHandler(refusing, promise: nil)
                                try channel.pipeline.syncOperations.addHandler(FrameHandler(plan: plan(head), server: box.withLock { $0 }))
                            }
                        })
                    return channel.eventLoop.makeCompletedFuture {
                        if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                            withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                        try channel.pipeline.syncOperations.addHandler(RefusingHandler(plan: plan))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            let server = try WebSocketTestServer(channel: channel, port: channel.localAddress?.port ?? 0, secure: tls != nil)
            box.withLock { $0 = server }
            do {
                let result = try await body(server)
                try? await channel.close()
                return result
            } catch {
                try? await channel.close()
                throw error
            }
        }

        /// Lets the connections whose reads a plan held read again.
        func releaseReads() async throws {
            for channel in held.withLock({ $0 }) {
                try await channel.setOption(.autoRead, value: true).get()
                channel.read()
            }
        }

        /// Answers a request the plan refuses (the upgrader passed it on).
        private final class RefusingHandler: ChannelInboundHandler, RemovableChannelHandler {
            typealias InboundIn = HTTPServerRequestPart
            typealias OutboundOut = HTTPServerResponsePart
            let plan: @Sendable (HTTPRequestHead) -> Plan
            private var head: HTTPRequestHead?

            init(plan: @escaping @Sendable (HTTPRequestHead) -> Plan) {
                self.plan = plan
            }

            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                switch Self.unwrapInboundIn(data) {
                case .head(let head): self.head = head
                case .body: break
                case .end:
                    guard let head else { return }
                    let refusal = plan(head).refusal ?? (.notFound, HTTPHeaders(), "")
                    var headers = refusal.headers
                    headers.add(name: "Content-Length", value: "\(refusal.body.utf8.count)")
                    if refusal.status != .switchingProtocols { headers.add(name: "Connection", value: "close") }
                    context.write(Self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: refusal.status, headers: headers))), promise: nil)
                    if !refusal.body.isEmpty {
                        context.write(Self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: refusal.body)))), promise: nil)
                    }
                    context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
                }
            }
        }

        /// The upgraded connection: the plan's frames, then echo, pongs and the close handshake.
        private final class FrameHandler: ChannelInboundHandler {
            typealias InboundIn = WebSocketFrame
            typealias OutboundOut = WebSocketFrame
            let plan: Plan
            let server: WebSocketTestServer?
            private var message = ByteBuffer()
            private var closeCode: UInt16?
            private var ended = false
            private var messageOpcode: WebSocketOpcode?

            init(plan: Plan, server: WebSocketTestServer?) {
                self.plan = plan
                self.server = server
            }

            func channelInactive(context: ChannelHandlerContext) {
                if !ended { server?.closed.yield(closeCode) }
                ended = true
                context.fireChannelInactive()
            }

            func handlerAdded(context: ChannelHandlerContext) {
                if plan.holdsReads {
                    context.channel.setOption(.autoRead, value: false).whenFailure { _ in }
                    server?.held.withLock { $0.append(context.channel) }
                }
                for frame in plan.frames { context.write(Self.wrapOutboundOut(frame), promise: nil) }
                context.flush()
            }

            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                let frame = Self.unwrapInboundIn(data)
                server?.received.withLock { $0.append(frame) }
                if plan.resets {
                    (context.channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenFailure { _ in }
                    context.close(promise: nil)
                    return
                }
                switch frame.opcode {
                case .ping:
                    if plan.answersPings {
                        context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
                    }
                case .connectionClose:
                    var data = frame.unmaskedData
                    closeCode = data.readInteger(as: UInt16.self) ?? 1005
                    let channel = context.channel
                    context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData))).whenComplete {
                        _ in
                        channel.close(promise: nil)
                    }
                case .text, .binary, .continuation:
                    if frame.opcode != .continuation { messageOpcode = frame.opcode }
                    var data = frame.unmaskedData
                    message.writeBuffer(&data)
                    guard frame.fin, plan.echoes, let opcode = messageOpcode else { return }
                    // Back in fragments of at most 16 KiB: the client reassembles them.
                    var first = true
                    repeat {
                        let slice = message.readSlice(length: min(16_384, message.readableBytes)) ?? ByteBuffer()
                        let last = message.readableBytes == 0
                        context.write(Self.wrapOutboundOut(WebSocketFrame(fin: last, opcode: first ? opcode : .continuation, data: slice)), promise: nil)
                        first = false
                    } while message.readableBytes > 0
                    context.flush()
                    message.clear()
                default:
                    break
                }
            }
        }
    }

    extension WebSocketFrame {
        /// A server frame: whole, unmasked.
        static func text(_ text: String) -> WebSocketFrame {
            WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))
        }

        /// A close frame with `code` and `reason`, as they are.
        static func close(_ code: UInt16, _ reason: String = "") -> WebSocketFrame {
            var buffer = ByteBuffer()
            buffer.writeInteger(code)
            buffer.writeString(reason)
            return WebSocketFrame(fin: true, opcode: .connectionClose, data: buffer)
        }
    }
#endif
