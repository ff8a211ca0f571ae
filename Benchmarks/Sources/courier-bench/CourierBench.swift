import Courier
import Foundation

/// `courier-bench`: raw URLSession + JSONDecoder against Courier, interleaved, on loopback.
/// See Benchmarks/README.md.
@main
struct CourierBench {
    struct Options {
        var requests = 1000
        var rounds = 20
        var warmup = 300
        var concurrency = 16
        var server = ServerKind.auto
        var modes = Mode.allCases
        var clients = ["raw", "courier"]
        var baseline = "raw"
        var authBurst = 0
        var multipartGiB: Double?
        var multipartRounds = 3
        var sink = false
        var sinkFile: String?
        var transfersGiB: Double?
        var downloadsGiB: Double?
        var openapiUploadGiB: Double?
        var openapiUploadRounds = 7
        var transfersTransports = TransfersBench.transportNames
        var overhead = 0
        /// `--variants`: the overhead variants to run (all when empty; `direct` always runs).
        var variants: [String] = []
        var diskCache = 0
        var mallocs = false
        /// `--websocket-echo N`: round trips per client and round (0: not this mode).
        var websocketEcho = 0
        var websocketRounds = 5
        var websocketMemory = false
        var websocketClients = ["raw", "courier"]

        static let allClients = [
            "raw", "courier", "courier-stub", "courier-datafor", "courier-urlcache", "raw-delegate", "raw-nocache",
            "raw-delegate-nocache", "courier-bearer", "raw-ahc", "raw-ahc-headers", "ahc-transport", "courier-ahc",
            "courier-ahc-static", "courier-ahc-304", "raw-ahc-304", "courier-ahc-304-nocache", "urlsession-transport", "courier-bearer-hop",
            "courier-ahc-bearer", "courier-ahc-bearer-hop", "openapi", "openapi-ahc",
        ]

        static let usage = """
            usage: courier-bench [--requests N] [--rounds N] [--server nginx|flyingfox|auto]
                                 [--warmup N] [--concurrency N] [--mode sequential|concurrent|both]
                                 [--clients LIST] [--baseline CLIENT] [--auth-burst N]
                                 [--multipart-gib N [--multipart-rounds N]]
                                 [--transfers-gib N [--transfers-transports LIST]] [--downloads-gib N]
                                 [--openapi-upload-gib N [--openapi-upload-rounds N] [--transfers-transports LIST]]
                                 [--websocket-echo N [--websocket-rounds N] [--websocket-memory]
                                  [--websocket-clients LIST]]

              --requests N     requests per client per round (default 1000)
              --rounds N       measured rounds per mode (default 20)
              --server KIND    nginx (a child process), flyingfox (in-process) or auto:
                               nginx when installed, else FlyingFox (default auto)
              --warmup N       unmeasured requests per client before each mode (default 300)
              --concurrency N  requests in flight in the concurrent mode (default 16)
              --mode M         which modes to run (default both)
              --clients LIST   comma-separated clients (default raw,courier); diagnostics:
                               courier-stub     Courier with a canned-response transport (no network)
                               courier-datafor  Courier over a URLSession.data(for:) transport
                               courier-urlcache  Courier over URLSessionTransport keeping urlCache
                               raw-delegate     URLSession through a session delegate, no Courier
                               raw-nocache      raw with urlCache = nil
                               raw-delegate-nocache  raw-delegate with urlCache = nil
                               urlsession-transport  URLSessionTransport.send called by hand,
                                                no Client (compare with raw-delegate, courier)
                               courier-bearer   Courier signing with a bearer token (compare with
                                                --baseline courier for the cost of authorization)
                               courier-bearer-hop  courier-bearer signing from a middleware that
                                                awaits refresher.validCredential() (an actor hop
                                                per call), as the stage does now
                               courier-ahc-bearer, courier-ahc-bearer-hop  the same two over
                                                AsyncHTTPClientTransport
                               raw-ahc          async-http-client's HTTPClient.execute, no Courier
                               courier-ahc      Courier over AsyncHTTPClientTransport (compare with
                                                --baseline raw-ahc)
                               A single client (e.g. --clients courier) suits a profiler.
              --baseline C     the client the others are compared with (default raw)
              --auth-burst N   instead of the modes: N concurrent calls with an expired token
                               (one refresh) against N unauthenticated calls, --rounds times
              --multipart-gib N  instead of the modes: upload an N GiB file as a multipart part and
                               as a plain file body to a sink in a child process; peak RSS and
                               throughput (see MultipartBench.swift)
              --multipart-rounds N  uploads of each body in that mode (default 3)
              --transfers-gib N  instead of the modes: an N GiB multipart upload and an N GiB
                               download through AsyncHTTPClientTransport (then URLSessionTransport
                               for comparison), to/from a server in a child process; time,
                               throughput and this process's peak RSS during each, against the
                               64 MiB target (see TransfersBench.swift). Exit status 3 when a
                               transfer over async-http-client misses the target
              --transfers-transports LIST  ahc, urlsession or ahc,urlsession (default)
              --openapi-upload-gib N  instead of the modes: an N GiB upload as a generated
                               operation through CourierClientTransport (HTTPBody .single of known
                               length) and as Courier's own RequestBody.stream, on each transport
                               of --transfers-transports, each upload in a process of its own, to a
                               server in a child process that checksums the body; peak RSS of each
                               (see OpenAPIUploadBench.swift). Exit status 3 when the openapi
                               upload's median peak exceeds 1.05× courier's
              --openapi-upload-rounds N  uploads of each kind per transport in that mode (default 7)
              --downloads-gib N  instead of the modes: an N GiB download to disk with
                               Call.download(to:) on each transport against curl -o from the same
                               server in a child process: time, peak RSS, ratios to curl (see
                               DownloadsBench.swift). Exit status 3 when async-http-client misses
                               a target (peak RSS < 64 MiB, ≥ 0.9× curl)
              --overhead N     instead of the modes: N sequential calls per variant and round to a
                               transport that answers at once: Courier's own µs, context switches
                               and allocations per call (see Overhead.swift)
              --variants A,B   with --overhead: only these variants (and direct, the floor)
              --cold-mib N     with --overhead: before each call one at a time, write N MiB so the
                               call starts with cold caches, as a call does between network events
                               (only the calls are timed; the 16-in-flight table is skipped)
              --payload-bytes N  the JSON body's size (padded with a field the model ignores;
                               default 212 bytes)
              --disk-cache N   instead of the modes: open a disk HTTP cache of 10,000 entries N times
                               (median and min wall and CPU ms per open), and look entries up in
                               caches of 10 and 10,000 entries (see DiskCacheBench.swift)
              --mallocs        also count allocations per request in the GET modes (every thread
                               of this process: the client's, async-http-client's, URLSession's)
              --websocket-echo N  instead of the modes: N sequential WebSocket echo round trips (32-byte
                               binary messages) per client and round, through a raw SwiftNIO client
                               (NIOAsyncChannel) and through Courier's WebSocket, each client in a
                               process of its own, against a SwiftNIO echo server in another: round
                               trips/s, CPU and RSS per client, ratios courier/raw (see
                               WebSocketEchoBench.swift). Exit status 3 when courier misses a
                               target (throughput ≥ 0.9× raw, CPU per message ≤ 1.15× raw)
              --websocket-rounds N  rounds of that mode, the order alternating (default 5)
              --websocket-memory  then each client once more with 1,000,000 round trips: RSS after
                               10 % and after 100 % of them
              --websocket-clients LIST  raw, courier, raw-promise (one EventLoopPromise per round
                               trip, comparison only); default raw,courier
            """

        static func parse(_ arguments: [String]) throws -> Options {
            var options = Options()
            var iterator = arguments.makeIterator()
            func value(for flag: String) throws -> String {
                guard let value = iterator.next() else { throw BenchError("\(flag) needs a value\n\(usage)") }
                return value
            }
            func positive(for flag: String) throws -> Int {
                let text = try value(for: flag)
                guard let number = Int(text), number > 0 else { throw BenchError("\(flag): expected a positive integer, got \(text)") }
                return number
            }
            while let argument = iterator.next() {
                switch argument {
                case "--requests": options.requests = try positive(for: argument)
                case "--rounds": options.rounds = try positive(for: argument)
                case "--concurrency": options.concurrency = try positive(for: argument)
                case "--warmup":
                    let text = try value(for: argument)
                    guard let number = Int(text), number >= 0 else { throw BenchError("--warmup: expected an integer ≥ 0, got \(text)") }
                    options.warmup = number
                case "--server":
                    let text = try value(for: argument)
                    guard let kind = ServerKind(rawValue: text) else { throw BenchError("--server: expected nginx, flyingfox or auto, got \(text)") }
                    options.server = kind
                case "--mode":
                    let text = try value(for: argument)
                    if text == "both" {
                        options.modes = Mode.allCases
                    } else if let mode = Mode(rawValue: text) {
                        options.modes = [mode]
                    } else {
                        throw BenchError("--mode: expected sequential, concurrent or both, got \(text)")
                    }
                case "--clients":
                    let names = try value(for: argument).split(separator: ",").map(String.init)
                    if names.isEmpty || names.contains(where: { !allClients.contains($0) }) {
                        throw BenchError("--clients: expected some of \(allClients.joined(separator: ","))")
                    }
                    options.clients = names
                case "--baseline":
                    options.baseline = try value(for: argument)
                case "--auth-burst":
                    options.authBurst = try positive(for: argument)
                case "--multipart-gib":
                    let text = try value(for: argument)
                    guard let number = Double(text), number > 0 else { throw BenchError("--multipart-gib: expected a positive number, got \(text)") }
                    options.multipartGiB = number
                case "--transfers-gib":
                    let text = try value(for: argument)
                    guard let number = Double(text), number > 0 else { throw BenchError("--transfers-gib: expected a positive number, got \(text)") }
                    options.transfersGiB = number
                case "--downloads-gib":
                    let text = try value(for: argument)
                    guard let number = Double(text), number > 0 else { throw BenchError("--downloads-gib: expected a positive number, got \(text)") }
                    options.downloadsGiB = number
                case "--openapi-upload-gib":
                    let text = try value(for: argument)
                    guard let number = Double(text), number > 0 else { throw BenchError("--openapi-upload-gib: expected a positive number, got \(text)") }
                    options.openapiUploadGiB = number
                case "--openapi-upload-rounds":
                    options.openapiUploadRounds = try positive(for: argument)
                case "--transfers-transports":
                    let names = try value(for: argument).split(separator: ",").map(String.init)
                    if names.isEmpty || names.contains(where: { !TransfersBench.transportNames.contains($0) }) {
                        throw BenchError("--transfers-transports: expected some of \(TransfersBench.transportNames.joined(separator: ","))")
                    }
                    // Always in the documented order: async-http-client first.
                    options.transfersTransports = TransfersBench.transportNames.filter(names.contains)
                case "--multipart-rounds":
                    options.multipartRounds = try positive(for: argument)
                case "--payload-bytes":
                    Payload.size = try positive(for: argument)
                case "--variants":
                    options.variants = try value(for: argument).split(separator: ",").map(String.init)
                case "--overhead":
                    options.overhead = try positive(for: argument)
                case "--cold-mib":
                    Overhead.coldBytes = try positive(for: argument) << 20
                case "--disk-cache":
                    options.diskCache = try positive(for: argument)
                case "--mallocs":
                    options.mallocs = true
                case "--websocket-echo":
                    options.websocketEcho = try positive(for: argument)
                case "--websocket-rounds":
                    options.websocketRounds = try positive(for: argument)
                case "--websocket-memory":
                    options.websocketMemory = true
                case "--websocket-clients":
                    let names = try value(for: argument).split(separator: ",").map(String.init)
                    if names.isEmpty || names.contains(where: { !WebSocketEchoBench.clientNames.contains($0) }) {
                        throw BenchError("--websocket-clients: expected some of \(WebSocketEchoBench.clientNames.joined(separator: ","))")
                    }
                    options.websocketClients = names
                case "--sink":  // internal: the child process of --multipart-gib and --transfers-gib
                    options.sink = true
                case "--sink-file":  // internal: what that child serves to GET /download
                    options.sinkFile = try value(for: argument)
                case "-h", "--help":
                    say(usage)
                    exit(0)
                default:
                    throw BenchError("unknown argument \(argument)\n\(usage)")
                }
            }
            guard options.clients.contains(options.baseline) || options.clients.count == 1 else {
                throw BenchError("--baseline \(options.baseline) is not among --clients \(options.clients.joined(separator: ","))")
            }
            return options
        }
    }

    static func main() async {
        // Internal: one upload of --openapi-upload-gib, in a process of its own.
        if CommandLine.arguments.dropFirst().first == OpenAPIUploadBench.childFlag {
            await OpenAPIUploadBench.runChild(Array(CommandLine.arguments.dropFirst(2)))
        }
        // Internal: --websocket-echo's server and its clients, each in a process of its own.
        if CommandLine.arguments.dropFirst().first == WebSocketEchoBench.serverFlag {
            await WebSocketEchoBench.runServer()
        }
        if CommandLine.arguments.dropFirst().first == WebSocketEchoBench.childFlag {
            await WebSocketEchoBench.runChild(Array(CommandLine.arguments.dropFirst(2)))
        }
        let options: Options
        do {
            options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("courier-bench: \(error)\n".utf8))
            exit(2)
        }
        if options.sink || options.multipartGiB != nil {
            await runMultipart(options)
        }
        if let gibibytes = options.transfersGiB {
            await runTransfers(gibibytes: gibibytes, transports: options.transfersTransports)
        }
        if let gibibytes = options.downloadsGiB {
            await runDownloads(gibibytes: gibibytes)
        }
        if let gibibytes = options.openapiUploadGiB {
            do {
                let met = try await OpenAPIUploadBench.run(
                    gibibytes: gibibytes, rounds: options.openapiUploadRounds, transports: options.transfersTransports)
                exit(met ? 0 : 3)
            } catch {
                FileHandle.standardError.write(Data("courier-bench: \(error)\n".utf8))
                exit(1)
            }
        }
        if options.websocketEcho > 0 {
            do {
                let met = try await WebSocketEchoBench.run(
                    messages: options.websocketEcho, rounds: options.websocketRounds, clients: options.websocketClients,
                    memory: options.websocketMemory)
                exit(met ? 0 : 3)
            } catch {
                FileHandle.standardError.write(Data("courier-bench: \(error)\n".utf8))
                exit(1)
            }
        }
        if options.diskCache > 0 {
            do {
                try await DiskCacheBench.run(opens: options.diskCache)
                exit(0)
            } catch {
                FileHandle.standardError.write(Data("courier-bench: \(error)\n".utf8))
                exit(1)
            }
        }
        if options.overhead > 0 {
            Overhead.reexecWithInterposer()
            do {
                try await Overhead.run(
                    calls: options.overhead, rounds: options.rounds, concurrency: options.concurrency, only: options.variants)
                exit(0)
            } catch {
                FileHandle.standardError.write(Data("courier-bench: \(error)\n".utf8))
                exit(1)
            }
        }
        if options.mallocs { Overhead.reexecWithInterposer() }
        let server: any BenchServer
        do {
            server = try await Servers.start(options.server)
        } catch {
            FileHandle.standardError.write(Data("courier-bench: cannot start the server: \(error)\n".utf8))
            exit(1)
        }
        do {
            try await run(options, server: server)
            await server.stop()
        } catch {
            await server.stop()
            FileHandle.standardError.write(Data("courier-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(_ options: Options, server: any BenchServer) async throws {
        if options.authBurst > 0 {
            say("courier-bench: auth burst against \(server.name) on 127.0.0.1:\(server.port)")
            try await AuthBurst.run(calls: options.authBurst, rounds: options.rounds, port: server.port)
            return
        }
        var clients: [any BenchClient] = []
        for name in options.clients {
            switch name {
            case "raw": clients.append(RawClient(port: server.port))
            case "courier": clients.append(try CourierClient(port: server.port))
            case "courier-stub": clients.append(try CourierStubClient(port: server.port))
            case "courier-datafor": clients.append(try CourierDataForClient(port: server.port))
            case "courier-urlcache": clients.append(try CourierURLCacheClient(port: server.port))
            case "raw-delegate": clients.append(RawDelegateClient(port: server.port))
            case "raw-nocache": clients.append(RawClient(port: server.port, cache: false))
            case "raw-delegate-nocache": clients.append(RawDelegateClient(port: server.port, cache: false))
            case "urlsession-transport": clients.append(TransportClient(name, URLSessionTransport(), port: server.port))
            case "courier-bearer":
                clients.append(try CourierBearerClient(name, transport: URLSessionTransport(), signing: .lock, port: server.port))
            case "courier-bearer-hop":
                clients.append(try CourierBearerClient(name, transport: URLSessionTransport(), signing: .hop, port: server.port))
            case "courier-ahc-bearer":
                clients.append(try CourierBearerClient(name, transport: AsyncHTTPClientTransport(), signing: .lock, port: server.port))
            case "courier-ahc-bearer-hop":
                clients.append(try CourierBearerClient(name, transport: AsyncHTTPClientTransport(), signing: .hop, port: server.port))
            case "raw-ahc": clients.append(RawAsyncHTTPClient(port: server.port))
            case "raw-ahc-headers": clients.append(RawAsyncHTTPClient(port: server.port, sendsCourierHeaders: true))
            case "courier-ahc": clients.append(CourierAsyncHTTPClient(port: server.port))
            case "courier-ahc-static": clients.append(try CourierAsyncHTTPClient(staticPort: server.port))
            case "openapi": clients.append(OpenAPIBenchClient(port: server.port, overAsyncHTTPClient: false))
            case "openapi-ahc": clients.append(OpenAPIBenchClient(port: server.port, overAsyncHTTPClient: true))
            case "ahc-transport": clients.append(TransportClient(name, AsyncHTTPClientTransport(), port: server.port))
            case "courier-ahc-304": clients.append(try CourierRevalidatingClient(port: server.port))
            case "raw-ahc-304": clients.append(try RawAsyncHTTPClient304(port: server.port, tag: server.revalidatedTag))
            case "courier-ahc-304-nocache":
                clients.append(try CourierConditionalClient(port: server.port, tag: server.revalidatedTag))
            default: throw BenchError("unknown client \(name)")
            }
        }

        let labels = clients.map(\.label)
        let orders =
            clients.count > 1
            ? "\(labels.joined(separator: ", ")) | \(labels.reversed().joined(separator: ", ")) | …"
            : labels.joined()

        #if DEBUG
            say("warning: a debug build; run with -c release for meaningful figures\n")
        #endif
        say(
            """
            courier-bench: GET http://127.0.0.1:\(server.port)\(Payload.path) (\(Payload.data.count)-byte JSON, decoded) \
            from \(server.name)
            \(options.rounds) rounds × \(options.requests) requests per client and mode, after \(options.warmup) warm-up \
            requests; the order alternates round by round (\(orders)); \
            \(ProcessInfo.processInfo.activeProcessorCount) cores
            """)

        var report: [(mode: Mode, totals: [String: Totals])] = []
        for mode in options.modes {
            for client in clients where options.warmup > 0 {
                _ = try await measure(client, mode: mode, count: options.warmup, concurrency: options.concurrency)
            }
            var totals: [String: Totals] = [:]
            for round in 0..<options.rounds {
                // ABBA order: which client goes first alternates, so a drift in machine load
                // during the run weighs on every client alike.
                let order = round.isMultiple(of: 2) ? clients : clients.reversed()
                var line: [String] = []
                for client in order {
                    let sample = try await measure(client, mode: mode, count: options.requests, concurrency: options.concurrency)
                    totals[client.label, default: Totals()].samples.append(sample)
                    let mallocs = Overhead.allocationCounting ? ", \(format(Double(sample.mallocs) / Double(sample.requests), 1)) mallocs" : ""
                    line.append("\(client.label) \(Int(sample.throughput)) req/s \(format(sample.cpu / Double(sample.requests) * 1e6, 0)) µs CPU\(mallocs)")
                }
                say(
                    "  \(mode.title(concurrency: options.concurrency)) round \(round + 1)/\(options.rounds): "
                        + line.joined(separator: ", "))
            }
            report.append((mode, totals))
        }

        say("")
        let counting = Overhead.allocationCounting
        say(row("mode", "client", "req/s", "p50 µs", "p99 µs", "CPU µs/req", "ctx sw/req") + (counting ? "  mallocs/req" : ""))
        for (mode, totals) in report {
            let title = mode.title(concurrency: options.concurrency)
            for client in clients {
                guard let t = totals[client.label] else { continue }
                say(
                    row(
                        title, client.label, format(t.throughput, 0), format(t.percentile(50) * 1e6, 0),
                        format(t.percentile(99) * 1e6, 0), format(t.cpuPerRequest * 1e6, 1),
                        format(t.contextSwitchesPerRequest, 1)) + (counting ? "  " + format(t.mallocsPerRequest, 1) : ""))
            }
            guard let raw = totals[options.baseline] else { continue }
            for client in clients where client.label != options.baseline {
                guard let t = totals[client.label] else { continue }
                let name = "\(client.label)/\(options.baseline)"
                let throughput = t.throughput / raw.throughput
                let cpu = t.cpuPerRequest / raw.cpuPerRequest
                say(
                    row(
                        title, name, format(throughput, 3), format(t.percentile(50) / raw.percentile(50), 3),
                        format(t.percentile(99) / raw.percentile(99), 3), format(cpu, 3),
                        format(t.contextSwitchesPerRequest / raw.contextSwitchesPerRequest, 3)))
                // The same ratios round by round (each round's pair ran back to back), whose
                // median shrugs off a round that a burst of machine load hit.
                let rounds = zip(t.samples, raw.samples)
                let throughputs = rounds.map { $0.throughput / $1.throughput }
                let cpus = rounds.map { ($0.cpu / Double($0.requests)) / ($1.cpu / Double($1.requests)) }
                say(
                    "    \(name): throughput \(percent(throughput)), CPU per request \(percent(cpu)); "
                        + "median of per-round ratios: throughput \(format(median(throughputs), 3)) "
                        + "(\(format(throughputs.min() ?? .nan, 2))–\(format(throughputs.max() ?? .nan, 2))), "
                        + "CPU \(format(median(cpus), 3)) (\(format(cpus.min() ?? .nan, 2))–\(format(cpus.max() ?? .nan, 2)))")
            }
        }
        say(
            """

            X/\(options.baseline) ratios: throughput < 1, and latency, CPU or context switches per request > 1, \
            mean X costs more than \(options.baseline). Courier's target against raw URLSession: throughput ≥ 0.95 \
            and CPU per request ≤ 1.05.
            """)
    }

    /// `--multipart-gib` (no shared server) and its `--sink` child; exits.
    static func runMultipart(_ options: Options) async -> Never {
        #if canImport(Glibc)
            if options.sink { Sink.run(serving: options.sinkFile) }
        #endif
        do {
            try await MultipartBench.run(gibibytes: options.multipartGiB ?? 1, rounds: options.multipartRounds)
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("courier-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    /// `--transfers-gib`; exits: 0 when both transfers over async-http-client stayed under the
    /// peak RSS target, 3 when one did not, 1 on an error (a count or checksum mismatch included).
    static func runTransfers(gibibytes: Double, transports: [String]) async -> Never {
        do {
            let met = try await TransfersBench.run(gibibytes: gibibytes, transports: transports)
            exit(met ? 0 : 3)
        } catch {
            FileHandle.standardError.write(Data("courier-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    /// `--downloads-gib`; exits: 0 when the download over async-http-client met both targets
    /// (peak RSS, ≥ 0.9× curl), 3 when it did not, 1 on an error (a mismatched file included).
    static func runDownloads(gibibytes: Double) async -> Never {
        do {
            let met = try await DownloadsBench.run(gibibytes: gibibytes)
            exit(met ? 0 : 3)
        } catch {
            FileHandle.standardError.write(Data("courier-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Writes a line to stdout unbuffered, so progress shows at once also through a pipe.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func row(_ columns: String...) -> String {
        let widths = [14, 19, 9, 9, 9, 11, 11]
        return zip(columns, widths).enumerated().map { index, pair in
            let (text, width) = pair
            let padding = String(repeating: " ", count: max(0, width - text.count))
            return index < 2 ? text + padding : padding + text
        }.joined(separator: " ")
    }

    static func format(_ value: Double, _ digits: Int) -> String {
        value.isFinite ? String(format: "%.\(digits)f", value) : "–"
    }

    static func percent(_ ratio: Double) -> String {
        String(format: "%+.1f%%", (ratio - 1) * 100)
    }
}
