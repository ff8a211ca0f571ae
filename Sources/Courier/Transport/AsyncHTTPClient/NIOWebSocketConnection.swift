// Not on Apple platforms, where URLSessionTransport opens WebSockets: there this file is left out
// of the AsyncHTTPClientOnApple build (an AsyncHTTPClientTransport refuses WebSockets with
// InvalidRequest.webSocketUnavailable), because CI's Apple check, which compiles against
// interfaces synthesized from SwiftNIO, cannot compile it (see .ci/apple/README.md).
#if AsyncHTTPClientLinked && !canImport(Darwin)
    import Foundation
    import HTTPTypes
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import NIOSSL
    import NIOTLS
    import NIOWebSocket

    @available(watchOS, unavailable)
    extension AsyncHTTPClientTransport: WebSocketTransport {
        /// Opens the socket on its own connection (async-http-client cannot upgrade one), with the
        /// transport's TLS settings and pins, over HTTP/1.1.
        package func openWebSocket(_ request: TransportRequest, upgrade: WebSocketUpgrade) async throws(CourierError) -> StreamedResponse {
            let url = request.url
            let secure = request.head.scheme == "https"
            let host = url.host ?? ""
            let (tls, pinCheck) = try webSocketSettings(for: host, secure: secure)
            return try await NIOWebSocketConnection.open(request, upgrade: upgrade, tls: tls, pinCheck: pinCheck, group: client.eventLoopGroup)
        }
    }

    /// A WebSocket over a SwiftNIO channel: the frames run through ``WebSocketFrameHandler`` on
    /// the channel's event loop (pings answered there, at once), whole messages wait in a
    /// ``WebSocketInbox`` for the reader.
    final class NIOWebSocketConnection: WebSocketConnection {
        let channel: any Channel
        let inbox: WebSocketInbox
        private let handler: NIOLoopBound<WebSocketFrameHandler>
        private let url: URL
        private let queue = LockedState(SendQueue())

        private init(channel: any Channel, inbox: WebSocketInbox, handler: WebSocketFrameHandler, url: URL) {
            self.channel = channel
            self.inbox = inbox
            self.handler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
            self.url = url
        }

        // MARK: The upgrade

        /// What the upgrade handler ends with.
        private enum Outcome: Sendable {
            case upgraded(NIOWebSocketConnection, HTTPResponseHead)
            case refused(EventLoopFuture<(HTTPResponseHead, ByteBuffer)>)
        }

        /// Connects (TLS and pins first, when `tls` is set), sends the upgrade request and returns
        /// the response; a 101 delivers the connection to `upgrade`.
        static func open(
            _ request: TransportRequest, upgrade: WebSocketUpgrade, tls: TLSConfiguration?,
            pinCheck: (@Sendable (any Channel) -> EventLoopFuture<Void>)?, group: any EventLoopGroup
        ) async throws(CourierError) -> StreamedResponse {
            let url = request.url
            guard let host = url.host, !host.isEmpty else { throw .invalidRequest(.invalidURL(url.absoluteString)) }
            let port = url.port ?? (tls == nil ? 80 : 443)
            let deadline = NIODeadline.now() + .nanoseconds(request.timeout.boundedNanoseconds)
            let opened = LockedState<(any Channel)?>(nil)
            let work: @Sendable () async throws -> StreamedResponse = {
                let channel = try await connect(host: host, port: port, tls: tls, deadline: deadline, group: group).get()
                opened.withLock { $0 = channel }
                if let pinCheck { try await pinCheck(channel).get() }
                let outcome = try await channel.eventLoop.flatSubmit {
                    configure(channel, request: request, upgrade: upgrade, url: url)
                }.get()
                switch outcome {
                case .upgraded(let connection, let head):
                    upgrade.deliver(connection)
                    return StreamedResponse(head: try Self.responseHead(head, url: url), body: ResponseBody())
                case .refused(let refusal):
                    let (head, body) = try await refusal.get()
                    channel.close(promise: nil)
                    return StreamedResponse(head: try Self.responseHead(head, url: url), body: ResponseBody(Data(body.readableBytesView)))
                }
            }
            do {
                return try await withTaskCancellationHandler {
                    try await withDeadline(deadline, on: group.next(), closing: opened, work)
                } onCancel: {
                    opened.withLock { $0 }?.close(promise: nil)
                }
            } catch {
                opened.withLock { $0 }?.close(promise: nil)
                if Task.isCancelled { throw .cancelled }
                throw Self.failure(error, url: url, limit: request.maximumResponseSize)
            }
        }

        /// Runs `work`, closing the channel it opened when `deadline` passes first (the work then
        /// fails with a timeout).
        private static func withDeadline<Value: Sendable>(
            _ deadline: NIODeadline, on loop: any EventLoop, closing opened: LockedState<(any Channel)?>,
            _ work: @escaping @Sendable () async throws -> Value
        ) async throws -> Value {
            let expired = LockedState(false)
            let timer = loop.scheduleTask(deadline: deadline) {
                expired.withLock { $0 = true }
                opened.withLock { $0 }?.close(promise: nil)
            }
            defer { timer.cancel() }
            do {
                return try await work()
            } catch {
                if expired.withLock({ $0 }) { throw ChannelError.connectTimeout(.zero) }
                throw error
            }
        }

        private static func connect(
            host: String, port: Int, tls: TLSConfiguration?, deadline: NIODeadline, group: any EventLoopGroup
        ) -> EventLoopFuture<any Channel> {
            // ClientBootstrap turns TCP_NODELAY on itself.
            let remaining: TimeAmount = deadline - NIODeadline.now()
            var bootstrap = ClientBootstrap(group: group).connectTimeout(remaining > .milliseconds(1) ? remaining : .milliseconds(1))
            if let tls {
                let initializer: @Sendable (any Channel) -> EventLoopFuture<Void> = { channel in
                    channel.eventLoop.makeCompletedFuture(Result { try addTLS(tls, host: host, to: channel) })
                }
                bootstrap = bootstrap.channelInitializer(initializer)
            }
            let connected: EventLoopFuture<any Channel> = bootstrap.connect(host: host, port: port)
            guard tls != nil else { return connected }
            // Nothing is written before the handshake (and the pin check after it) passed.
            return connected.flatMap { channel in
                channel.pipeline.handler(type: TLSHandshakeWaiter.self).flatMap { $0.promise.futureResult }.map { channel }
            }
        }

        /// Adds TLS (ALPN `http/1.1`, SNI unless `host` is an address) and the handshake waiter.
        private static func addTLS(_ tls: TLSConfiguration, host: String, to channel: any Channel) throws {
            var configuration = tls
            configuration.applicationProtocols = ["http/1.1"]
            let context = try NIOSSLContext(configuration: configuration)
            let name: String? = host.isIPAddress ? nil : host
            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: name))
            try channel.pipeline.syncOperations.addHandler(TLSHandshakeWaiter(promise: channel.eventLoop.makePromise()))
        }

        /// Adds HTTP/1.1 and the upgrade handler, which writes the request at once.
        private static func configure(
            _ channel: any Channel, request: TransportRequest, upgrade: WebSocketUpgrade, url: URL
        ) -> EventLoopFuture<Outcome> {
            channel.eventLoop.makeCompletedFuture {
                let options = upgrade.options
                var headers = HTTPHeaders()
                headers.add(name: "Host", value: request.head.authority ?? "")
                for field in request.head.headerFields where field.name != .secWebSocketExtensions {
                    headers.add(name: field.name.rawName, value: field.value)
                }
                headers.add(name: "Sec-WebSocket-Extensions", value: PerMessageDeflate.offer)
                let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: request.head.path ?? "/", headers: headers)
                let limit = request.maximumResponseSize ?? Configuration.defaultMaximumResponseSize
                let upgrader = NIOTypedWebSocketClientUpgrader<Outcome>(
                    maxFrameSize: Int(clamping: min(Int64(max(options.maximumMessageSize, 125)), Int64(UInt32.max))),
                    enableAutomaticErrorHandling: false
                ) { channel, response in
                    channel.eventLoop.makeCompletedFuture {
                        let deflate = try Self.checkHandshake(response, offered: options.subprotocols)
                        let inflater = try deflate.map { try BodyInflater(raw: true, resetsAfterMessage: $0.serverNoContextTakeover) }
                        let inbox = WebSocketInbox(capacity: options.bufferedMessages) { [weak channel] in
                            guard let channel else { return }
                            channel.eventLoop.execute { channel.read() }
                        }
                        let handler = WebSocketFrameHandler(inbox: inbox, options: options, inflater: inflater, url: url)
                        try channel.pipeline.syncOperations.addHandler(handler)
                        return .upgraded(NIOWebSocketConnection(channel: channel, inbox: inbox, handler: handler, url: url), response)
                    }
                }
                let configuration = NIOTypedHTTPClientUpgradeConfiguration<Outcome>(
                    upgradeRequestHead: head, upgraders: [upgrader]
                ) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let refusal = channel.eventLoop.makePromise(of: (HTTPResponseHead, ByteBuffer).self)
                        try channel.pipeline.syncOperations.addHandler(RefusalCollector(promise: refusal, limit: limit))
                        return .refused(refusal.futureResult)
                    }
                }
                // Frames the server sent right behind its 101 (often in the same read) go on to the
                // frame decoder; SwiftNIO's default drops them.
                var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                pipeline.leftOverBytesStrategy = .forwardBytes
                return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
            }.flatMap { $0 }
        }

        /// Refuses a 101 that chose a subprotocol not offered or an extension other than
        /// permessage-deflate as offered.
        /// - Returns: the permessage-deflate agreement, if the server accepted it.
        static func checkHandshake(_ response: HTTPResponseHead, offered: [String]) throws -> PerMessageDeflate.Agreement? {
            let chosen = response.headers["Sec-WebSocket-Protocol"]
            if chosen.count > 1 || chosen.first.map({ !offered.contains($0) }) == true {
                throw HandshakeFailure(reason: "the server chose the subprotocol \(chosen.joined(separator: ", ").debugDescription), which was not offered")
            }
            do {
                return try PerMessageDeflate.agreement(response.headers["Sec-WebSocket-Extensions"])
            } catch {
                throw HandshakeFailure(reason: error.reason)
            }
        }

        struct HandshakeFailure: Error {
            let reason: String
        }

        private static func responseHead(_ head: HTTPResponseHead, url: URL) throws(CourierError) -> ResponseHead {
            var fields = HTTPFields()
            for (name, value) in head.headers {
                guard let name = HTTPField.Name(name) else { continue }
                fields.append(HTTPField(name: name, value: value))
            }
            return ResponseHead(status: HTTPResponse.Status(code: Int(head.status.code)), headers: fields, url: url)
        }

        /// What an error of the upgrade means for Courier.
        static func failure(_ error: any Error, url: URL, limit: Int?) -> CourierError {
            switch error {
            case let error as HandshakeFailure:
                .transport(TransportFailure(synthesizing: .badResponse, url: url, message: "the WebSocket handshake failed: \(error.reason)"))
            case let error as NIOHTTPClientUpgradeError where error == .upgraderDeniedUpgrade:
                .transport(
                    TransportFailure(
                        synthesizing: .badResponse, url: url,
                        message: "the WebSocket handshake failed: the server's Sec-WebSocket-Accept, Upgrade or Connection header is wrong"))
            case let error as NIOHTTPClientUpgradeError:
                .transport(TransportFailure(synthesizing: .badResponse, url: url, message: "the WebSocket handshake failed: \(error)"))
            case ChannelError.connectTimeout:
                .transport(TransportFailure(synthesizing: .timedOut, url: url, message: "the WebSocket upgrade did not finish in time"))
            default:
                AsyncHTTPClientExchange.failure(error, url: url, limit: limit)
            }
        }

        // MARK: The open socket

        func send(_ message: WebSocketMessage) async throws(CourierError) {
            if let end = inbox.ended { throw CourierError.sendFailure(after: end) }
            let frame: WebSocketFrame
            switch message {
            case .text(let text): frame = Self.frame(.text, channel.allocator.buffer(string: text))
            case .data(let data): frame = Self.frame(.binary, channel.allocator.buffer(bytes: data))
            }
            // Queued and on at once while less than `sendWindow` waits to be written: awaiting
            // each write cost ~1.5 context switches per message (the echo benchmark's CPU). Past
            // it, the send waits for its own write, so a peer that does not read holds the sender
            // (memory stays bounded). A write that fails closes the channel, which ends the socket.
            let size = frame.data.readableBytes
            let written = channel.eventLoop.makePromise(of: Void.self)
            let waits = queue.withLock { queue in
                queue.bytes += size
                queue.waiting += queue.bytes > Self.sendWindow ? 1 : 0
                return queue.bytes > Self.sendWindow
            }
            let queue = queue
            written.futureResult.whenComplete { _ in queue.withLock { $0.bytes -= size } }
            channel.writeAndFlush(frame, promise: written)
            guard waits else { return }
            let result: Result<Void, any Error> = await withTaskCancellationHandler {
                do {
                    return .success(try await written.futureResult.get())
                } catch {
                    return .failure(error)
                }
            } onCancel: {
                abandon(code: 1001)
            }
            queue.withLock { $0.waiting -= 1 }
            if Task.isCancelled {
                abandon(code: 1001)
                throw .cancelled
            }
            if case .failure(let error) = result {
                throw CourierError.sendFailure(
                    after: inbox.ended ?? .failure(.transport(TransportFailure(synthesizing: .connectionLost, url: url, message: "\(error)"))))
            }
        }

        /// How many bytes of frames may wait to be written before ``send(_:)`` waits (twice
        /// SwiftNIO's default high-water mark).
        static let sendWindow = 128 << 10

        /// The frames handed to the channel and not yet written to the socket, and the sends
        /// waiting for theirs.
        struct SendQueue {
            var bytes = 0
            var waiting = 0
        }

        var sendQueue: SendQueue { queue.withLock { $0 } }

        func receive() async throws(CourierError) -> WebSocketMessage? {
            try await inbox.next()
        }

        func ping() async throws(CourierError) {
            let handler = handler
            let pong = channel.eventLoop.flatSubmit { handler.value.ping() }
            do {
                try await pong.get()
            } catch {
                throw CourierError.sendFailure(
                    after: inbox.ended ?? .failure(.transport(TransportFailure(synthesizing: .connectionLost, url: url, message: "\(error)"))))
            }
        }

        func close(code: UInt16, reason: String) async {
            let handler = handler
            let closed = channel.eventLoop.submit { handler.value.close(WebSocketClose(code: code, reason: reason)) }
            _ = try? await closed.get()
            _ = try? await channel.closeFuture.get()
        }

        func abandon(code: UInt16) {
            inbox.finish(.success(()))
            let handler = handler
            channel.eventLoop.execute { handler.value.close(WebSocketClose(code: code), waiting: false) }
        }

        /// A client frame: whole, masked with a fresh key (RFC 6455 §5.3).
        static func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer) -> WebSocketFrame {
            WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: data)
        }
    }

    /// Fails the connection's promise until the TLS handshake completed.
    private final class TLSHandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny
        let promise: EventLoopPromise<Void>

        init(promise: EventLoopPromise<Void>) {
            self.promise = promise
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case TLSUserEvent.handshakeCompleted = event {
                promise.succeed()
                context.pipeline.syncOperations.removeHandler(self, promise: nil)
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.fail(error)
            context.fireErrorCaught(error)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(ChannelError.eof)
            context.fireChannelInactive()
        }
    }

    /// Reads a refused upgrade's response whole (at most `limit` body bytes).
    private final class RefusalCollector: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        let promise: EventLoopPromise<(HTTPResponseHead, ByteBuffer)>
        let limit: Int
        private var head: HTTPResponseHead?
        private var body = ByteBuffer()

        init(promise: EventLoopPromise<(HTTPResponseHead, ByteBuffer)>, limit: Int) {
            self.promise = promise
            self.limit = limit
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch Self.unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
            case .body(var part):
                guard body.readableBytes + part.readableBytes <= limit else {
                    promise.fail(TransportFailure.responseTooLarge(limit: limit, url: nil))
                    context.close(promise: nil)
                    return
                }
                body.writeBuffer(&part)
            case .end:
                if let head { promise.succeed((head, body)) }
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.fail(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(ChannelError.eof)
        }
    }

    /// The socket on its event loop: frames in through a ``WebSocketAssembler``, pings answered,
    /// pongs matched, the closing handshake, the idle ping, and reads held while the inbox is full.
    final class WebSocketFrameHandler: ChannelDuplexHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        private let inbox: WebSocketInbox
        private let options: WebSocketSettings
        private let url: URL
        private var assembler: WebSocketAssembler
        private var context: ChannelHandlerContext?
        private var pings: [EventLoopPromise<Void>] = []
        private var closeSent = false
        private var heardSinceTick = false
        private var idlePingSent = false
        private var timer: RepeatedTask?
        private var closeTimer: Scheduled<Void>?
        /// Whether ``read(context:)`` held a read back (the inbox is full).
        private var readsHeld = false

        init(inbox: WebSocketInbox, options: WebSocketSettings, inflater: BodyInflater?, url: URL) {
            self.inbox = inbox
            self.options = options
            self.url = url
            self.assembler = WebSocketAssembler(maximumMessageSize: options.maximumMessageSize, inflater: inflater)
        }

        func handlerAdded(context: ChannelHandlerContext) {
            self.context = context
            if let interval = options.pingInterval, interval > .zero {
                let every = TimeAmount.nanoseconds(interval.boundedNanoseconds)
                let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
                timer = context.eventLoop.scheduleRepeatedTask(initialDelay: every, delay: every) { _ in bound.value.tick() }
            }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            self.context = nil
            timer?.cancel()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = Self.unwrapInboundIn(data)
            heardSinceTick = true
            let action = assembler.receive(
                fin: frame.fin, opcode: UInt8(webSocketOpcode: frame.opcode), compressed: frame.rsv1, reserved: frame.rsv2 || frame.rsv3,
                masked: frame.maskKey != nil, payload: Data(frame.data.readableBytesView))
            switch action {
            case .none:
                break
            case .deliver(let message):
                inbox.push(message)
            case .pong(let payload):
                // A peer that pings and does not read gets no pile of pongs: answering only while
                // the socket can be written is enough (RFC 6455 §5.5.3 asks only for the latest).
                if context.channel.isWritable { write(.pong, payload) }
            case .ponged:
                idlePingSent = false
                let answered = pings
                pings.removeAll()
                for ping in answered { ping.succeed() }
            case .closed(let close):
                if !closeSent { write(.connectionClose, WebSocketAssembler.closePayload(close)) }
                closeSent = true
                inbox.finish(CourierError.ended(by: close).map { .failure($0) } ?? .success(()))
                context.close(promise: nil)
            case .fail(let code, let failure):
                end(with: failure, code: code)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            inbox.finish(
                .failure(.transport(TransportFailure(synthesizing: .connectionLost, url: url, message: "the WebSocket connection ended without a close"))))
            let waiting = pings
            pings.removeAll()
            for ping in waiting { ping.fail(ChannelError.eof) }
            timer?.cancel()
            closeTimer?.cancel()
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            switch error {
            case NIOWebSocketError.invalidFrameLength:
                let failure = TransportFailure(
                    synthesizing: .responseTooLarge, url: url,
                    message: "a WebSocket message exceeded the limit of \(options.maximumMessageSize) bytes")
                end(with: .transport(failure), code: 1009)
            case is NIOWebSocketError:
                end(
                    with: .transport(TransportFailure(synthesizing: .badResponse, url: url, message: "the WebSocket peer broke the protocol: \(error)")),
                    code: 1002)
            default:
                end(with: NIOWebSocketConnection.failure(error, url: url, limit: nil), code: nil)
            }
        }

        /// Holds the read while the inbox is full: the peer then waits (TCP backpressure).
        /// A waiting ping lets four times as many messages in, so its pong can be read.
        func read(context: ChannelHandlerContext) {
            guard assembler.isEnded || !inbox.isFull(pingWaiting: !pings.isEmpty) else {
                readsHeld = true
                return
            }
            readsHeld = false
            context.read()
        }

        /// Sends a ping; the future succeeds with the next pong.
        func ping() -> EventLoopFuture<Void> {
            guard let context, !closeSent else { return eventLoopFailure() }
            let promise = context.eventLoop.makePromise(of: Void.self)
            pings.append(promise)
            write(.ping, Data())
            if readsHeld { self.read(context: context) }
            return promise.futureResult
        }

        /// Starts the closing handshake; the channel closes when the peer answers, or after the
        /// grace period (`waiting`) or at once.
        func close(_ close: WebSocketClose, waiting: Bool = true) {
            guard let context else { return }
            if !closeSent {
                closeSent = true
                write(.connectionClose, WebSocketAssembler.closePayload(close))
            }
            inbox.finish(.success(()))
            guard waiting else {
                context.close(promise: nil)
                return
            }
            closeAfterGrace(context)
        }

        /// Closes the channel in 5 seconds unless the peer closed it first.
        private func closeAfterGrace(_ context: ChannelHandlerContext) {
            if closeTimer == nil {
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                closeTimer = context.eventLoop.scheduleTask(in: .seconds(5)) { bound.value.close(promise: nil) }
            }
        }

        private func tick() {
            guard context != nil else { return }
            // Held reads are the reader's doing, not the peer's silence.
            if heardSinceTick || readsHeld || inbox.isFull() {
                heardSinceTick = false
                idlePingSent = false
                return
            }
            guard !idlePingSent else {
                let failure = TransportFailure(synthesizing: .timedOut, url: url, message: "the WebSocket peer did not answer a ping in time")
                end(with: .transport(failure), code: nil)
                return
            }
            idlePingSent = true
            write(.ping, Data())
        }

        private func end(with failure: CourierError, code: UInt16?) {
            guard let context else { return }
            inbox.finish(.failure(failure))
            guard let code, !closeSent else {
                context.close(promise: nil)
                return
            }
            // The close goes out and the connection stays open a moment for the peer to answer:
            // closed at once with unread input, the kernel would reset it and drop the close.
            closeSent = true
            write(.connectionClose, WebSocketAssembler.closePayload(WebSocketClose(code: code)))
            closeAfterGrace(context)
            context.read()
        }

        private func write(_ opcode: WebSocketOpcode, _ payload: Data) {
            guard let context else { return }
            let frame = NIOWebSocketConnection.frame(opcode, context.channel.allocator.buffer(bytes: payload))
            context.writeAndFlush(Self.wrapOutboundOut(frame), promise: nil)
        }

        private func eventLoopFailure() -> EventLoopFuture<Void> {
            guard let context else { return MultiThreadedEventLoopGroup.singleton.next().makeFailedFuture(ChannelError.ioOnClosedChannel) }
            return context.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
    }

    extension String {
        /// Whether the host is an IPv4 or IPv6 literal (no SNI then).
        fileprivate var isIPAddress: Bool {
            (try? SocketAddress(ipAddress: self, port: 0)) != nil
        }
    }
#endif
