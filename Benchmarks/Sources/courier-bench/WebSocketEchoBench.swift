import Courier
import CourierWebSockets
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--websocket-echo N`: sequential WebSocket echo round trips (a 32-byte binary message out, its
/// echo back, N times) through a raw SwiftNIO client and through Courier's ``WebSocket``, **each
/// client in a process of its own** (this binary relaunched with `--websocket-echo-child`), against
/// an echo server in a process of its own (`--websocket-echo-server`), so that neither the server's
/// CPU nor the other client's heap counts.
///
/// - The server: SwiftNIO's `NIOWebSocketServerUpgrader` on 127.0.0.1, one event loop thread; it
///   writes every text, binary or continuation frame back unchanged (unmasked), answers pings and
///   the closing handshake. It offers no extension, so Courier's permessage-deflate offer is
///   declined and both clients send plain frames.
/// - **raw**: `ClientBootstrap` + `NIOTypedWebSocketClientUpgrader` through the typed HTTP client
///   upgrade pipeline, the upgraded channel wrapped in an `NIOAsyncChannel<WebSocketFrame,
///   WebSocketFrame>` (SwiftNIO's own WebSocket client example): `outbound.write` of a masked
///   binary frame (a fresh random key each, RFC 6455 §5.3), then `inbound`'s iterator `next()`.
/// - **raw-promise** (comparison only, `--websocket-clients`): the same upgrade, then one
///   `EventLoopPromise` per round trip: `channel.writeAndFlush` of the frame and its promise to a
///   handler that completes the promise with the echo, awaited with `futureResult.get()`.
/// - **courier**: `Client(configuration: Configuration())` (async-http-client on Linux),
///   `client.enqueue(endpoint).webSocket()` with default options, `send(.data(payload))`, then the
///   `messages` iterator's `next()`.
/// - Each child connects, runs ``warmUp`` round trips, then times N round trips (wall clock) and
///   takes `getrusage(RUSAGE_SELF)` CPU (user + system, every thread) across them; it reads its
///   resident set (`/proc/self/statm`) after 10 % and after 100 % of the N, and `ru_maxrss` at the
///   end. Every echo is compared with what was sent.
/// - Rounds alternate the order (raw, courier | courier, raw | …); the verdict compares medians.
///   `--websocket-memory` then runs each client once more with 1,000,000 round trips.
enum WebSocketEchoBench {
    static let serverFlag = "--websocket-echo-server"
    static let childFlag = "--websocket-echo-child"
    static let clientNames = ["raw", "courier", "raw-promise"]
    static let payloadSize = 32
    static let warmUp = 2_000
    static let memoryMessages = 1_000_000
    /// Targets: courier's throughput at least this share of raw's …
    static let throughputTarget = 0.9
    /// … at no more than this multiple of raw's CPU per message.
    static let cpuTarget = 1.15

    /// The 32 bytes every client sends.
    static let payload: [UInt8] = (0..<payloadSize).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

    // MARK: - The parent

    /// - Returns: whether courier met both targets (medians).
    static func run(messages: Int, rounds: Int, clients: [String], memory: Bool) async throws -> Bool {
        #if canImport(Glibc)
            say(
                "courier-bench: WebSocket echo, \(payloadSize)-byte binary messages, \(messages) sequential round trips per client "
                    + "and round after \(warmUp) unmeasured, \(rounds) rounds, each client in a process of its own "
                    + "(\(clients.joined(separator: ", "))), the server in another; "
                    + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
            #if DEBUG
                say("warning: a debug build; run with -c release for meaningful figures")
            #endif
            let server = try SinkProcess.start(arguments: [serverFlag])
            defer { server.stop() }
            say("server: SwiftNIO WebSocket echo, child process \(server.pid) on 127.0.0.1:\(server.port)")

            func roundTrips(_ client: String, _ count: Int, round: Int?) throws -> Result {
                let fields = try OpenAPIUploadBench.Child.run([client, String(server.port), String(count)], flag: childFlag)
                let result = Result(client: client, round: round, fields: fields)
                say("  \(result)")
                return result
            }
            var results: [Result] = []
            for round in 0..<rounds {
                for client in round.isMultiple(of: 2) ? clients : clients.reversed() {
                    results.append(try roundTrips(client, messages, round: round + 1))
                }
            }
            var memoryRuns: [Result] = []
            if memory {
                say("memory: \(memoryMessages) round trips per client, once each")
                for client in clients {
                    memoryRuns.append(try roundTrips(client, memoryMessages, round: nil))
                }
            }

            say("")
            say("medians over \(rounds) round\(rounds == 1 ? "" : "s") of \(messages) round trips:")
            say(row("client", "round trips/s", "CPU µs/msg", "ctx sw/msg", "peak RSS", "RSS 10%", "RSS 100%", "growth"))
            func medianOf(_ runs: [Result], _ value: (Result) -> Double) -> Double { median(runs.map(value)) }
            let byClient = Dictionary(grouping: results, by: \.client)
            for client in clients {
                guard let runs = byClient[client] else { continue }
                say(
                    row(
                        client, format(medianOf(runs, \.throughput), 0), format(medianOf(runs, \.cpuPerMessage) * 1e6, 2),
                        format(medianOf(runs, \.contextSwitchesPerMessage), 2), mib(Int(medianOf(runs) { Double($0.peak) })),
                        mib(Int(medianOf(runs) { Double($0.rssAtTenth) })), mib(Int(medianOf(runs) { Double($0.rssAtEnd) })),
                        signedKiB(Int(medianOf(runs) { Double($0.growth) }))))
            }
            var met = true
            if let raw = byClient["raw"] {
                for client in clients where client != "raw" {
                    guard let runs = byClient[client], runs.count == raw.count else { continue }
                    let throughput = medianOf(runs, \.throughput) / medianOf(raw, \.throughput)
                    let cpu = medianOf(runs, \.cpuPerMessage) / medianOf(raw, \.cpuPerMessage)
                    // Each round's pair ran back to back; their ratios shrug off a round that a burst of load hit.
                    let pairs = zip(runs, raw)  // in round order
                    let throughputs = pairs.map { $0.throughput / $1.throughput }
                    let cpus = pairs.map { $0.cpuPerMessage / $1.cpuPerMessage }
                    let passes = throughput >= throughputTarget && cpu <= cpuTarget
                    if client == "courier" { met = passes }
                    say(
                        "\(client == "courier" ? (passes ? "PASS" : "FAIL") : "    ")  \(client)/raw: throughput \(format(throughput, 3))× "
                            + "(target ≥ \(format(throughputTarget, 2))), CPU per message \(format(cpu, 3))× (target ≤ \(format(cpuTarget, 2))); "
                            + "median of per-round ratios: throughput \(format(median(throughputs), 3)) "
                            + "(\(format(throughputs.min() ?? .nan, 2))–\(format(throughputs.max() ?? .nan, 2))), "
                            + "CPU \(format(median(cpus), 3)) (\(format(cpus.min() ?? .nan, 2))–\(format(cpus.max() ?? .nan, 2)))"
                            + (client == "courier" ? "" : " [comparison only]"))
                }
            }
            if !memoryRuns.isEmpty {
                say("")
                say("memory over \(memoryMessages) round trips (one process per client):")
                say(row("client", "round trips/s", "CPU µs/msg", "ctx sw/msg", "peak RSS", "RSS 10%", "RSS 100%", "growth"))
                for run in memoryRuns {
                    say(
                        row(
                            run.client, format(run.throughput, 0), format(run.cpuPerMessage * 1e6, 2), format(run.contextSwitchesPerMessage, 2),
                            mib(run.peak), mib(run.rssAtTenth), mib(run.rssAtEnd), signedKiB(run.growth)))
                }
            }
            say("")
            say(
                "CPU = getrusage(RUSAGE_SELF) user + system of the client's process (every thread) across the measured round trips; "
                    + "RSS 10% / 100% = resident set (/proc/self/statm) after 10 % and after all of them; growth = the difference; "
                    + "peak RSS = ru_maxrss of the client's process. The server's CPU is in neither.")
            return met
        #else
            throw BenchError("--websocket-echo runs on Linux only (the processes are spawned with posix_spawn and /proc is read)")
        #endif
    }

    #if canImport(Glibc)
        /// What one child reported.
        struct Result: CustomStringConvertible {
            var client: String
            /// `nil` for a memory run.
            var round: Int?
            var fields: OpenAPIUploadBench.Child.Fields

            var messages: Int { fields.int("messages") }
            var seconds: Double { fields.double("seconds") }
            var cpu: Double { fields.double("cpu") }
            var throughput: Double { Double(messages) / seconds }
            var cpuPerMessage: Double { cpu / Double(messages) }
            var contextSwitchesPerMessage: Double { Double(fields.int("switches")) / Double(messages) }
            var peak: Int { fields.int("peak") }
            var rssAtTenth: Int { fields.int("rss10") }
            var rssAtEnd: Int { fields.int("rss100") }
            var growth: Int { rssAtEnd - rssAtTenth }

            var description: String {
                "\(client)\(round.map { ", round \($0)" } ?? ""): \(messages) round trips in \(format(seconds, 3)) s = "
                    + "\(format(throughput, 0))/s, \(format(cpuPerMessage * 1e6, 2)) µs CPU/msg, "
                    + "\(format(contextSwitchesPerMessage, 2)) ctx sw/msg; RSS \(mib(rssAtTenth)) at 10 %, \(mib(rssAtEnd)) at 100 % "
                    + "(\(signedKiB(growth))), peak \(mib(peak)); pid \(fields.int("pid"))"
            }
        }
    #endif

    // MARK: - A client child

    /// `courier-bench --websocket-echo-child CLIENT PORT N`: one client's round trips; writes one
    /// `RESULT key=value …` line to stdout and exits 0, or 1 on any error.
    static func runChild(_ arguments: [String]) async -> Never {
        do {
            guard arguments.count == 3, clientNames.contains(arguments[0]), let port = Int(arguments[1]), let count = Int(arguments[2]), count > 0
            else { throw BenchError("\(childFlag): expected CLIENT PORT N, got \(arguments)") }
            let client: any EchoClient
            switch arguments[0] {
            case "raw": client = try await RawEchoClient.connect(port: port)
            case "raw-promise": client = try await PromiseEchoClient.connect(port: port)
            default: client = try await CourierEchoClient.connect(port: port)
            }
            var seconds = 0.0
            var usage = processUsage()
            var end = usage
            var rssAtTenth = 0
            var rssAtEnd = 0
            try await client.run { roundTrips in
                try await roundTrips(warmUp) { _ in }
                let clock = ContinuousClock()
                let tenth = max(1, count / 10)
                usage = processUsage()
                let start = clock.now
                try await roundTrips(count) { done in
                    if done == tenth { rssAtTenth = residentBytes() }
                }
                seconds = (clock.now - start).seconds
                end = processUsage()
                rssAtEnd = residentBytes()
            }
            say(
                "RESULT messages=\(count) seconds=\(seconds) cpu=\(end.cpu - usage.cpu) switches=\(end.contextSwitches - usage.contextSwitches) "
                    + "rss10=\(rssAtTenth) rss100=\(rssAtEnd) peak=\(MemoryUsage.now().maxRSS)")
            exit(0)
        } catch {
            say("error: \(error)")
            exit(1)
        }
    }

    /// The resident set of this process in bytes, from `/proc/self/statm` (its second field, in pages).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    // MARK: - The clients

    /// Makes `count` sequential round trips; `sample` is called after each with how many are done.
    typealias RoundTrips = (_ count: Int, _ sample: (Int) -> Void) async throws -> Void

    protocol EchoClient: Sendable {
        /// Runs `body` with the socket's ``RoundTrips``, then closes the socket.
        func run(_ body: (_ roundTrips: RoundTrips) async throws -> Void) async throws
    }

    /// The upgrade request's path.
    static let path = "/echo"

    /// Connects and upgrades through the typed HTTP client upgrade pipeline; `upgraded` sets up
    /// the WebSocket pipeline (the frame encoder and decoder are in place).
    static func upgrade<Upgraded: Sendable>(
        port: Int, _ upgraded: @escaping @Sendable (any Channel) throws -> Upgraded
    ) async throws -> Upgraded {
        let result: EventLoopFuture<Upgraded?> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgraded?> { channel, _ in
                        channel.eventLoop.makeCompletedFuture { () -> Upgraded? in try upgraded(channel) }
                    }
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "127.0.0.1:\(port)")
                    headers.add(name: "Content-Length", value: "0")
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Upgraded?>(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(nil) })
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: .init(upgradeConfiguration: configuration))
                }
            }
        guard let upgraded = try await result.get() else { throw BenchError("the server refused the WebSocket upgrade") }
        return upgraded
    }

    /// SwiftNIO's async bridge: an `NIOAsyncChannel` of frames, used inside `executeThenClose`.
    struct RawEchoClient: EchoClient {
        let channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>
        let payload = ByteBuffer(bytes: WebSocketEchoBench.payload)

        static func connect(port: Int) async throws -> RawEchoClient {
            let channel = try await upgrade(port: port) { channel in
                try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel)
            }
            return RawEchoClient(channel: channel)
        }

        func run(_ body: (_ roundTrips: RoundTrips) async throws -> Void) async throws {
            let payload = payload
            try await channel.executeThenClose { inbound, outbound in
                var iterator = inbound.makeAsyncIterator()
                try await body { count, sample in
                    for done in 1...count {
                        try await outbound.write(WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: payload))
                        while true {
                            guard let frame = try await iterator.next() else { throw BenchError("raw: the connection ended") }
                            guard frame.opcode == .binary else { continue }
                            guard frame.fin, frame.unmaskedData == payload else { throw BenchError("raw: a wrong echo") }
                            break
                        }
                        sample(done)
                    }
                }
                var data = ByteBuffer()
                data.write(webSocketErrorCode: .normalClosure)
                try await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data))
            }
        }
    }

    /// One `EventLoopPromise` per round trip, completed by a handler on the event loop.
    struct PromiseEchoClient: EchoClient {
        let channel: any Channel
        let payload: ByteBuffer

        /// A frame to write and the promise its echo completes.
        struct Exchange: Sendable {
            var frame: WebSocketFrame
            var echo: EventLoopPromise<WebSocketFrame>
        }

        final class Handler: ChannelDuplexHandler {
            typealias InboundIn = WebSocketFrame
            typealias OutboundIn = Exchange
            typealias OutboundOut = WebSocketFrame
            private var waiting: EventLoopPromise<WebSocketFrame>?

            func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
                let exchange = Self.unwrapOutboundIn(data)
                waiting = exchange.echo
                context.write(Self.wrapOutboundOut(exchange.frame), promise: promise)
            }

            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                let frame = Self.unwrapInboundIn(data)
                guard frame.opcode == .binary, let waiting else { return }
                self.waiting = nil
                waiting.succeed(frame)
            }

            func channelInactive(context: ChannelHandlerContext) {
                waiting?.fail(ChannelError.eof)
                waiting = nil
                context.fireChannelInactive()
            }
        }

        static func connect(port: Int) async throws -> PromiseEchoClient {
            let channel = try await upgrade(port: port) { channel -> any Channel in
                try channel.pipeline.syncOperations.addHandler(Handler())
                return channel
            }
            return PromiseEchoClient(channel: channel, payload: ByteBuffer(bytes: WebSocketEchoBench.payload))
        }

        func roundTrips(_ count: Int, sample: (Int) -> Void) async throws {
            for done in 1...count {
                let echo = channel.eventLoop.makePromise(of: WebSocketFrame.self)
                channel.writeAndFlush(Exchange(frame: WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: payload), echo: echo), promise: nil)
                let frame = try await echo.futureResult.get()
                guard frame.fin, frame.unmaskedData == payload else { throw BenchError("raw-promise: a wrong echo") }
                sample(done)
            }
        }

        func run(_ body: (_ roundTrips: RoundTrips) async throws -> Void) async throws {
            try await body { try await roundTrips($0, sample: $1) }
            try? await channel.close()
        }
    }

    /// Courier's ``WebSocket`` over `Configuration()`'s transport (async-http-client on Linux).
    final class CourierEchoClient: EchoClient, @unchecked Sendable {
        // @unchecked: `iterator` is used by one task of the child process, one call at a time.
        let client: Client
        let socket: WebSocket
        var iterator: WebSocket.Messages.Iterator
        let payload = Data(WebSocketEchoBench.payload)

        init(client: Client, socket: WebSocket) {
            self.client = client
            self.socket = socket
            iterator = socket.messages.makeAsyncIterator()
        }

        static func connect(port: Int) async throws -> CourierEchoClient {
            let client = Client(configuration: Courier.Configuration())
            let socket = try await client.enqueue(EchoEndpoint(base: try BaseURL(scheme: .http, host: "127.0.0.1", port: port))).webSocket()
            return CourierEchoClient(client: client, socket: socket)
        }

        func roundTrips(_ count: Int, sample: (Int) -> Void) async throws {
            for done in 1...count {
                try await socket.send(.data(payload))
                guard case .data(let echo)? = try await iterator.next() else { throw BenchError("courier: the socket ended or sent text") }
                guard echo == payload else { throw BenchError("courier: a wrong echo") }
                sample(done)
            }
        }

        func run(_ body: (_ roundTrips: RoundTrips) async throws -> Void) async throws {
            try await body { try await roundTrips($0, sample: $1) }
            await socket.close()
        }
    }

    /// `GET /echo`, no credential.
    struct EchoEndpoint: Requestable {
        let base: BaseURL
        var requiresAuthorization: Bool { false }
        func baseURL() throws(CourierError) -> BaseURL { base }
        func path() throws(CourierError) -> URLPath { try URLPath(WebSocketEchoBench.path) }
    }

    // MARK: - The server child

    /// `courier-bench --websocket-echo-server`: the echo server on 127.0.0.1 (one event loop
    /// thread); prints `PORT <n>` and exits when its stdin closes (see ``SinkProcess``).
    static func runServer() async -> Never {
        do {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    let upgrader = NIOWebSocketServerUpgrader(
                        shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(EchoHandler()) }
                        })
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                            withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            say("PORT \(channel.localAddress?.port ?? 0)")
            // Until the parent closes the pipe (or dies).
            var byte: UInt8 = 0
            while true {
                let got = read(0, &byte, 1)
                if got > 0 || (got < 0 && errno == EINTR) { continue }
                break
            }
            exit(0)
        } catch {
            say("error: \(error)")
            exit(1)
        }
    }

    /// Writes each data frame back unchanged, answers pings and the closing handshake.
    final class EchoHandler: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = Self.unwrapInboundIn(data)
            switch frame.opcode {
            case .text, .binary, .continuation:
                context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: frame.fin, opcode: frame.opcode, data: frame.unmaskedData)), promise: nil)
            case .ping:
                context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
            case .connectionClose:
                let channel = context.channel
                context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData)))
                    .whenComplete { _ in channel.close(promise: nil) }
            default:
                break
            }
        }
    }

    static func say(_ line: String) { CourierBench.say(line) }
    static func format(_ value: Double, _ digits: Int) -> String { CourierBench.format(value, digits) }
    static func mib(_ bytes: Int) -> String { TransfersBench.mib(bytes) }
    static func signedKiB(_ bytes: Int) -> String { (bytes < 0 ? "−" : "+") + "\(abs(bytes) / 1024) KiB" }

    static func row(_ columns: String...) -> String {
        tableRow(columns, widths: [12, 14, 11, 11, 10, 10, 10, 12])
    }
}
