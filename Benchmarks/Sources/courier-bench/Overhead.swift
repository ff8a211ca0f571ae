import Courier
import CourierEndpoints
import CourierOpenAPI
import Foundation
import HTTPTypes
import InMemoryTracing
import MetricsTestKit
import OpenAPIRuntime

#if canImport(MallocInterposerSwift)
    import MallocInterposerSwift
#endif

/// `--overhead N`: what Courier's own code costs per call, with no network at all.
///
/// Every variant sends the same GET to `StubTransport` (which answers at once with the 212-byte
/// JSON body nginx serves) and decodes it into `Item`:
/// - **direct**: the transport called by hand, then `JSONDecoder`: the floor, no Courier;
/// - **courier**: `client.enqueue(endpoint).resume(expecting:)`;
/// - **courier-parsed**: `courier` with ``ParsedGetItem``, whose `baseURL()` parses
///   `"http://127.0.0.1:8080"` on every call, as GettingStarted's endpoints do;
/// - **courier-bearer**: the same, signed with a valid bearer token from a `TokenRefresher`;
/// - **courier-bearer-hop**: the same token from the same kind of refresher, signed by a
///   ``HopBearerSigner`` middleware (no `authentication`): a turn on the refresher actor per call,
///   from a middleware (the stage does the same since 2026-11-28);
/// - **courier-bearer-hop-host**: `courier-bearer-hop` whose middleware first checks the URL's
///   host, a stand-in for the authorized-host check `courier-bearer`'s stage makes;
/// - **courier-3mw**: `courier` with three pass-through middleware;
/// - **declared**: `courier` with a declarative endpoint, `API.get(_:)` stored with
///   `.returning(Item.self)`, sent with `client.enqueue(endpoint).model()`;
/// - **declared-built**: the same, with the endpoint's modifier chain built anew for each call;
/// - **openapi**: `courier`'s request as a generated client's operation: an `HTTPRequest` sent
///   with `CourierClientTransport(plain).send(…)`, its `HTTPBody` collected and decoded as the
///   generated code does (`Data(collecting:upTo:)`, `JSONDecoder`), without the runtime's
///   converter;
/// - **courier-observed**: `courier` reporting to in-memory tracing and metrics backends
///   (swift-distributed-tracing's `InMemoryTracer`, swift-metrics' `TestMetrics`), given through
///   the configuration: a span per call and per request, trace context written, the counter, the
///   timer and the gauge. The tracer's spans are dropped after every measurement.
///
/// - **cache-hit-10** / **cache-hit-10k**: `courier` with a memory ``HTTPCache`` holding 10 or
///   10,000 fresh responses (`max-age`), the call's among them: a fresh hit, nothing sent;
/// - **cache-304**: `courier` with a cache whose stored response is `no-cache`: every call sends
///   a conditional request, which the transport answers with `304` (no body).
///
/// No variant but `courier-observed` has a backend: nothing is bootstrapped, so `courier` is what
/// tracing and metrics cost without one (compare it with a build before they existed).
///
/// Calls run one after another on one task, `rounds` times, interleaved. Per call it prints the
/// wall and CPU time, the context switches (a stand-in for actor hops and thread handoffs: a
/// call that never suspends has none) and, when the malloc interposer is loaded (the benchmark
/// re-executes itself with `LD_PRELOAD` for that), the allocations. The overhead is each
/// variant minus `direct`.
///
/// With `--cold-mib M` every call one at a time follows a write of M MiB, as a call over a network
/// follows the event loop's, the kernel's and the server's work: it starts with cold caches, and
/// pays for every cache line its code and data touch. Only the calls are timed.
enum Overhead {
    /// `--cold-mib`: the bytes written before each call one at a time (0: none, calls back to back).
    nonisolated(unsafe) static var coldBytes = 0

    struct Variant: Sendable {
        let label: String
        let call: @Sendable () async throws -> Item
        /// Run after each measurement, outside it (empties in-memory backends).
        var reset: @Sendable () -> Void = {}
    }

    struct Figures {
        var wall = 0.0, cpu = 0.0, switches = 0.0, mallocs = 0.0, calls = 0

        mutating func add(_ other: Figures) {
            wall += other.wall
            cpu += other.cpu
            switches += other.switches
            mallocs += other.mallocs
            calls += other.calls
        }
    }

    static func run(calls: Int, rounds: Int, concurrency: Int, only: [String] = []) async throws {
        let transport = StubTransport()
        let base = try BaseURL(scheme: .http, host: "127.0.0.1", port: 8080)
        let endpoint = GetItem(base: base)
        let parsedEndpoint = ParsedGetItem(base: "http://127.0.0.1:8080")
        let request = TransportRequest(
            head: HTTPRequest(
                method: .get, scheme: "http", authority: "127.0.0.1:8080", path: Payload.path,
                headerFields: [.accept: "application/json"]),
            timeout: .seconds(30))
        let decoder = JSONDecoder()
        let plain = Client(configuration: Configuration(transport: transport))
        let credential = TokenCredential(accessToken: "bench-token", expiresAt: Date().addingTimeInterval(86_400))
        let refresher = TokenRefresher(store: InMemoryTokenStore(credential)) { _ in credential }
        let bearer = Client(
            configuration: Configuration(
                transport: transport, authentication: .bearer(refresher),
                authorizedHosts: ["127.0.0.1"]))
        let signedEndpoint = GetItem(base: base, requiresAuthorization: true)
        let hopRefresher = TokenRefresher(store: InMemoryTokenStore(credential)) { _ in credential }
        var hopping = Configuration(transport: transport)
        hopping.middleware = [HopBearerSigner(refresher: hopRefresher)]
        let bearerHop = Client(configuration: hopping)
        hopping.middleware = [HopBearerSigner(refresher: hopRefresher, authorizedHost: "127.0.0.1")]
        let bearerHopHost = Client(configuration: hopping)
        var layered = Configuration(transport: transport)
        layered.middleware = [PassThrough(), PassThrough(), PassThrough()]
        let withMiddleware = Client(configuration: layered)
        let api = API(base: base)
        let declared = api.get(String(Payload.path.dropFirst())).authorized(false).returning(Item.self)
        let operations = CourierClientTransport(plain)
        let serverURL = URL(string: "http://127.0.0.1:8080")!
        let operation = HTTPRequest(method: .get, scheme: nil, authority: nil, path: Payload.path, headerFields: [.accept: "application/json"])
        let tracer = InMemoryTracer(recordInjections: false, recordExtractions: false)
        let metrics = TestMetrics()
        let observed = Client(configuration: Configuration(transport: transport, tracer: tracer, metricsFactory: metrics))
        let fresh = CachingStubTransport(cacheControl: "max-age=31536000")
        let hits10 = try await filledCache(entries: 10, transport: fresh, base: base, endpoint: endpoint)
        let hits10k = try await filledCache(entries: 10_000, transport: fresh, base: base, endpoint: endpoint)
        let revalidated = try await filledCache(
            entries: 1, transport: CachingStubTransport(cacheControl: "no-cache"), base: base, endpoint: endpoint)

        let all = [
            Variant(label: "direct") { try decoder.decode(Item.self, from: try await transport.send(request).body.collect(upTo: nil)) },
            Variant(label: "courier") { try await plain.enqueue(endpoint).resume(expecting: Item.self) },
            Variant(label: "courier-parsed") { try await plain.enqueue(parsedEndpoint).resume(expecting: Item.self) },
            Variant(label: "courier-bearer") { try await bearer.enqueue(signedEndpoint).resume(expecting: Item.self) },
            Variant(label: "courier-bearer-hop") { try await bearerHop.enqueue(endpoint).resume(expecting: Item.self) },
            Variant(label: "courier-bearer-hop-host") { try await bearerHopHost.enqueue(endpoint).resume(expecting: Item.self) },
            Variant(label: "courier-3mw") { try await withMiddleware.enqueue(endpoint).resume(expecting: Item.self) },
            Variant(label: "declared") { try await plain.enqueue(declared).model() },
            Variant(label: "declared-built") {
                try await plain.enqueue(api.get(String(Payload.path.dropFirst())).authorized(false).returning(Item.self)).model()
            },
            Variant(label: "openapi") {
                let (_, body) = try await operations.send(operation, body: nil, baseURL: serverURL, operationID: "getItem")
                return try decoder.decode(Item.self, from: try await Data(collecting: body ?? HTTPBody(), upTo: .max))
            },
            Variant(
                label: "courier-observed", call: { try await observed.enqueue(endpoint).resume(expecting: Item.self) },
                reset: { tracer.clearAll() }),
            Variant(label: "cache-hit-10") { try await hits10.enqueue(endpoint).resume(expecting: Item.self) },
            Variant(label: "cache-hit-10k") { try await hits10k.enqueue(endpoint).resume(expecting: Item.self) },
            Variant(label: "cache-304") { try await revalidated.enqueue(endpoint).resume(expecting: Item.self) },
        ]
        let variants = only.isEmpty ? all : all.filter { $0.label == "direct" || only.contains($0.label) }
        let counting = allocationCounting
        CourierBench.say(
            """
            courier-bench --overhead: \(rounds) rounds × \(calls) calls per variant, one at a time and \(concurrency) in flight, to a transport that \
            answers at once; allocations \(counting ? "counted (malloc interposer)" : "not counted (interposer not loaded)")
            """)
        for variant in variants { _ = try await measure(variant, calls: min(calls, 1000), inFlight: 1) }  // warm-up
        // One task after another, then 16 tasks at once on the same client: contention is where
        // an actor hop per call (the gate, metrics, the refresher) would show.
        for inFlight in coldBytes > 0 ? [1] : [1, concurrency] {
            var totals: [String: Figures] = [:]
            for round in 0..<rounds {
                let order = round.isMultiple(of: 2) ? variants : variants.reversed()
                for variant in order {
                    totals[variant.label, default: Figures()].add(try await measure(variant, calls: calls, inFlight: inFlight))
                }
            }
            CourierBench.say("")
            let cold = coldBytes > 0 ? ", each after \(coldBytes >> 20) MiB written (cold caches; CPU is the calls' wall time)" : ""
            CourierBench.say(
                inFlight == 1
                    ? "one call at a time\(cold):"
                    : "\(inFlight) calls in flight (CPU and context switches are per call, over all threads):")
            CourierBench.say(row("variant", "µs/call", "CPU µs/call", "ctx sw/call", "mallocs/call", "overhead µs", "overhead mallocs"))
            let floor = totals["direct"] ?? Figures()
            for variant in variants {
                guard let t = totals[variant.label] else { continue }
                let n = Double(t.calls)
                let base = Double(floor.calls)
                CourierBench.say(
                    row(
                        variant.label, CourierBench.format(t.wall / n * 1e6, 2), CourierBench.format(t.cpu / n * 1e6, 2),
                        CourierBench.format(t.switches / n, 3), counting ? CourierBench.format(t.mallocs / n, 1) : "–",
                        CourierBench.format((t.wall / n - floor.wall / base) * 1e6, 2),
                        counting ? CourierBench.format(t.mallocs / n - floor.mallocs / base, 1) : "–"))
            }
        }
    }

    /// A client with a memory cache holding `entries` responses from `transport`, the one for
    /// `endpoint` among them (stored last).
    static func filledCache(entries: Int, transport: CachingStubTransport, base: BaseURL, endpoint: GetItem) async throws -> Client {
        let client = Client(configuration: Configuration(transport: transport, cache: HTTPCache(capacity: 256 << 20)))
        let api = API(base: base)
        for index in 1..<entries {
            _ = try await client.enqueue(api.get("other", String(index)).authorized(false)).resume()
        }
        _ = try await client.enqueue(endpoint).resume(expecting: Item.self)
        return client
    }

    /// One variant, `calls` times, `inFlight` at a time (each of `inFlight` tasks makes its share
    /// one after another).
    static func measure(_ variant: Variant, calls: Int, inFlight: Int) async throws -> Figures {
        let before = processUsage()
        startCounting()
        let start = ContinuousClock.now
        // With cold caches only the calls are timed, not the sweeps between them.
        var coldCalls: Duration?
        if inFlight == 1, coldBytes > 0 {
            var timed = Duration.zero
            let clock = ContinuousClock()
            for _ in 0..<calls {
                sweep()
                let callStart = clock.now
                _ = try await variant.call()
                timed += callStart.duration(to: clock.now)
            }
            coldCalls = timed
        } else if inFlight == 1 {
            for _ in 0..<calls {
                _ = try await variant.call()
            }
        } else {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<inFlight {
                    let share = calls / inFlight + (worker < calls % inFlight ? 1 : 0)
                    group.addTask {
                        for _ in 0..<share { _ = try await variant.call() }
                    }
                }
                try await group.waitForAll()
            }
        }
        let elapsed = ContinuousClock.now - start
        let mallocs = stopCounting()
        let after = processUsage()
        variant.reset()
        return Figures(
            wall: (coldCalls ?? elapsed).seconds, cpu: coldCalls?.seconds ?? after.cpu - before.cpu,
            switches: Double(after.contextSwitches - before.contextSwitches), mallocs: Double(mallocs), calls: calls)
    }

    /// The buffer ``sweep()`` writes: ``coldBytes`` long.
    nonisolated(unsafe) static var sweepBuffer: UnsafeMutableRawBufferPointer?

    /// Writes one byte per cache line of a ``coldBytes`` buffer, evicting what the last call left
    /// in the caches.
    static func sweep() {
        let buffer = sweepBuffer ?? UnsafeMutableRawBufferPointer.allocate(byteCount: coldBytes, alignment: 64)
        sweepBuffer = buffer
        var offset = 0
        while offset < buffer.count {
            buffer[offset] &+= 1
            offset += 64
        }
    }

    static func row(_ columns: String...) -> String {
        let widths = [16, 10, 12, 12, 13, 12, 17]
        return zip(columns, widths).enumerated().map { index, pair in
            let (text, width) = pair
            let padding = String(repeating: " ", count: max(0, width - text.count))
            return index == 0 ? text + padding : padding + text
        }.joined(separator: " ")
    }

    // MARK: - Allocation counting

    /// Whether the malloc interposer is loaded (it counts only when preloaded).
    static var allocationCounting: Bool {
        ProcessInfo.processInfo.environment["LD_PRELOAD"]?.contains("MallocInterposer") == true
    }

    static func startCounting() {
        #if canImport(MallocInterposerSwift)
            guard allocationCounting else { return }
            MallocInterposerSwift.reset()
            MallocInterposerSwift.hook()
        #endif
    }

    static func stopCounting() -> Int {
        #if canImport(MallocInterposerSwift)
            guard allocationCounting else { return 0 }
            MallocInterposerSwift.unhook()
            return MallocInterposerSwift.getStatistics().mallocCount
        #else
            return 0
        #endif
    }

    /// Runs this program again with the interposer preloaded, when it sits next to the executable
    /// (SwiftPM builds `libMallocInterposerSwift.so` into the same folder). Returns if it cannot.
    static func reexecWithInterposer() {
        #if os(Linux)
            guard !allocationCounting else { return }
            let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            let library = executable.deletingLastPathComponent().appendingPathComponent("libMallocInterposerSwift.so").path
            guard FileManager.default.fileExists(atPath: library) else { return }
            setenv("LD_PRELOAD", library, 1)
            let arguments = CommandLine.arguments.map { strdup($0) } + [nil]
            execv(executable.path, arguments)
        #endif
    }
}

/// A middleware that only calls `next`.
struct PassThrough: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        try await next(request)
    }
}

/// `StubTransport`'s response with a `Cache-Control` and no `Date` (so its age is what the cache
/// measures); a conditional request with its `ETag` gets `304 Not Modified` without a body.
struct CachingStubTransport: Transport {
    let headers: HTTPFields
    let notModified: HTTPFields
    let body = Payload.data

    init(cacheControl: String) {
        headers = [
            .server: "nginx/1.22.1", .contentType: "application/json", .contentLength: String(Payload.data.count),
            .lastModified: "Mon, 01 Jan 2024 00:00:00 GMT", .eTag: "\"65920080-d4\"", .cacheControl: cacheControl,
        ]
        notModified = [.server: "nginx/1.22.1", .eTag: "\"65920080-d4\"", .cacheControl: cacheControl]
    }

    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        if request.head.headerFields[.ifNoneMatch] == "\"65920080-d4\"" {
            return StreamedResponse(status: .notModified, headers: notModified, url: request.url)
        }
        return StreamedResponse(status: .ok, headers: headers, body: ResponseBody(body), url: request.url)
    }
}
