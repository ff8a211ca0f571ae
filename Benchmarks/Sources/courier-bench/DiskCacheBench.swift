import Courier
import Foundation

/// `--disk-cache N`: how long opening a disk HTTP cache of 10,000 entries takes (issue 26's
/// target: ≤ 50 ms), and what a fresh hit read from disk costs in caches of 10 and of 10,000
/// entries. Everything goes through the public API: `HTTPCache(directory:)` and a `Client`.
///
/// The folders are filled once, in a temporary folder removed at the end, by calls through a
/// client whose transport answers at once (a 1 KiB body, four header fields, every other response
/// with a `Vary` value). Then the 10,000-entry cache is opened N times, one open after the other,
/// each measured in wall and CPU time (every thread of the process, `getrusage`) until it is open
/// (closing it is not counted). Then every stored entry is asked for once with
/// `CachePolicy.onlyCached`, so an entry the open lost fails the run; and random entries are asked
/// for, each call timed: a whole `resume()` answered from the entry's file.
enum DiskCacheBench {
    static let entries = 10_000
    static let lookups = 2_000

    static func run(opens: Int) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-disk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let large = root.appendingPathComponent("large")
        let small = root.appendingPathComponent("small")
        try await fill(large, count: entries)
        try await fill(small, count: 10)
        let indexBytes = (try? FileManager.default.attributesOfItem(atPath: large.appendingPathComponent("index").path)[.size] as? Int) ?? 0
        say("disk cache: \(entries) entries, index \(indexBytes) bytes, \(opens) opens")

        var walls: [Double] = []
        var cpus: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<opens {
            let cpuBefore = processUsage().cpu
            let start = clock.now
            let cache = try open(large)
            walls.append(start.duration(to: clock.now).seconds)
            cpus.append(processUsage().cpu - cpuBefore)
            withExtendedLifetime(cache) {}  // closed after the measurement
        }
        func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
        func µs(_ seconds: Double) -> String { String(format: "%.1f µs", seconds * 1e6) }
        say("open \(entries):     wall median \(ms(median(walls))), min \(ms(walls.min() ?? 0))")
        say("                  CPU  median \(ms(median(cpus))), min \(ms(cpus.min() ?? 0))")
        for (folder, count) in [(small, 10), (large, entries)] {
            let client = Client(configuration: Configuration(transport: RefusingTransport(), cache: try open(folder)))
            for index in 0..<count { try await hit(client, index) }
            var times: [Double] = []
            for _ in 0..<lookups {
                let index = Int.random(in: 0..<count)
                let start = clock.now
                try await hit(client, index)
                times.append(start.duration(to: clock.now).seconds)
            }
            say("fresh hit from disk, \(count) entries: median \(µs(median(times))), min \(µs(times.min() ?? 0)) (\(lookups) calls)")
        }
    }

    /// Stores `count` responses in a disk cache in `folder`, then closes it.
    private static func fill(_ folder: URL, count: Int) async throws {
        let client = Client(configuration: Configuration(transport: CacheableTransport(), cache: try open(folder)))
        for index in 0..<count {
            let response = try await client.enqueue(StoredItem(index: index, policy: .reload)).resume()
            guard response.source == .network else { throw BenchError("filling the cache: item \(index) came from \(response.source)") }
        }
    }

    private static func open(_ folder: URL) throws -> HTTPCache {
        try HTTPCache(directory: folder, capacity: Int.max / 4)
    }

    /// A call for item `index` that only the cache may answer.
    private static func hit(_ client: Client, _ index: Int) async throws {
        let response = try await client.enqueue(StoredItem(index: index, policy: .onlyCached)).resume()
        guard response.source == .cache, response.body.count == 1024 else {
            throw BenchError("item \(index) was not found in the cache (\(response.source), \(response.body.count) bytes)")
        }
    }

    static func say(_ line: String) { CourierBench.say(line) }

    private static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}

/// `GET /v2/items/{index}?fields=summary`, requested as the cache `policy` says.
private struct StoredItem: Requestable {
    let index: Int
    let policy: CachePolicy

    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath(segments: ["v2", "items", String(index)]) }
    var queryItems: [QueryItem]? { [QueryItem(name: "fields", value: "summary")] }
    var requiresAuthorization: Bool { false }
    var cachePolicy: CachePolicy { policy }
}

/// Answers at once with a cacheable `200`: a 1 KiB body and four header fields, every other
/// response with `Vary: Accept-Encoding`.
private struct CacheableTransport: Transport {
    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let index = Int(request.url.lastPathComponent) ?? 0
        var headers: HTTPFields = [
            .contentType: "application/json; charset=utf-8", .cacheControl: "max-age=3600",
            .eTag: "\"\(String(index, radix: 16))-5f1c\"", .lastModified: "Tue, 24 Nov 2026 10:00:00 GMT",
        ]
        if index.isMultiple(of: 2) { headers[.vary] = "Accept-Encoding" }
        let body = Data(repeating: UInt8(truncatingIfNeeded: index), count: 1024)
        return StreamedResponse(status: .ok, headers: headers, body: ResponseBody(body), url: request.url)
    }
}

/// Fails every request: a call that reaches it was not answered by the cache.
private struct RefusingTransport: Transport {
    func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        throw .cancelled
    }
}
