@_spi(Benchmarks) import Courier
import Foundation

/// `--disk-cache N`: how long opening a disk HTTP cache of 10,000 entries takes (issue 26's
/// target: ≤ 50 ms), and what a lookup costs in caches of 10 and of 10,000 entries.
///
/// The folders are filled once, in a temporary folder removed at the end; then the 10,000-entry
/// cache is opened N times, one open after the other, each measured in wall and CPU time (every
/// thread of the process, `getrusage`) until it is open (closing it is not counted). A lookup
/// finds one stored entry by its URI, reading its file.
enum DiskCacheBench {
    static let entries = 10_000
    static let lookups = 2_000

    static func run(opens: Int) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-disk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let large = root.appendingPathComponent("large")
        let small = root.appendingPathComponent("small")
        DiskCacheBenchmarkProbe.fill(large.path, count: entries)
        DiskCacheBenchmarkProbe.fill(small.path, count: 10)
        let indexBytes = (try? FileManager.default.attributesOfItem(atPath: large.appendingPathComponent("index").path)[.size] as? Int) ?? 0
        say("disk cache: \(entries) entries, index \(indexBytes) bytes, \(opens) opens")

        var walls: [Double] = []
        var cpus: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<opens {
            let cpuBefore = processUsage().cpu
            let start = clock.now
            let (count, cache) = DiskCacheBenchmarkProbe.open(large.path)
            walls.append(start.duration(to: clock.now).seconds)
            cpus.append(processUsage().cpu - cpuBefore)
            withExtendedLifetime(cache) {}  // closed after the measurement
            guard count == entries else { throw BenchError("the cache opened with \(count) entries, not \(entries)") }
        }
        func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
        func µs(_ seconds: Double) -> String { String(format: "%.1f µs", seconds * 1e6) }
        say("open \(entries):     wall median \(ms(median(walls))), min \(ms(walls.min() ?? 0))")
        say("                  CPU  median \(ms(median(cpus))), min \(ms(cpus.min() ?? 0))")
        for (folder, count) in [(small, 10), (large, entries)] {
            let times = DiskCacheBenchmarkProbe.lookups(folder.path, count: count, lookups: lookups)
            say("lookup in \(count): median \(µs(median(times))), min \(µs(times.min() ?? 0)) (\(lookups) lookups)")
        }
    }

    static func say(_ line: String) { CourierBench.say(line) }

    private static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
