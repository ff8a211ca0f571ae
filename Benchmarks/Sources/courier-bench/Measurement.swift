import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum Mode: String, CaseIterable {
    case sequential
    case concurrent

    func title(concurrency: Int) -> String {
        switch self {
        case .sequential: "sequential"
        case .concurrent: "\(concurrency) in flight"
        }
    }
}

/// One batch of requests by one client in one mode.
struct Sample {
    /// Seconds per request, in completion order.
    var latencies: [Double]
    /// Wall-clock seconds for the whole batch.
    var wall: Double
    /// User + system CPU seconds of this process during the batch.
    var cpu: Double
    /// Context switches (voluntary + involuntary) of this process during the batch.
    var contextSwitches: Int
    /// Allocations (every thread) during the batch, when the malloc interposer counts them.
    var mallocs = 0

    var requests: Int { latencies.count }
    var throughput: Double { Double(requests) / wall }
}

/// User + system CPU time of the whole process (every thread), in seconds, and its context
/// switches (voluntary + involuntary), from `getrusage(RUSAGE_SELF)`.
func processUsage() -> (cpu: Double, contextSwitches: Int) {
    var usage = rusage()
    #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return (seconds(usage.ru_utime) + seconds(usage.ru_stime), usage.ru_nvcsw + usage.ru_nivcsw)
}

extension Duration {
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}

/// Sends `count` requests through `client`, one at a time or with `concurrency` in flight
/// (a sliding window: a new request starts as soon as one finishes).
func measure<C: BenchClient>(_ client: C, mode: Mode, count: Int, concurrency: Int) async throws -> Sample {
    let clock = ContinuousClock()
    var latencies: [Double] = []
    latencies.reserveCapacity(count)
    let usageStart = processUsage()
    Overhead.startCounting()
    let start = clock.now
    switch mode {
    case .sequential:
        for _ in 0..<count {
            let sent = clock.now
            let item = try await client.fetch()
            latencies.append((clock.now - sent).seconds)
            guard item.isExpected else { throw BenchError("\(client.label): wrong body") }
        }
    case .concurrent:
        try await withThrowingTaskGroup(of: Double.self) { group in
            func send() {
                group.addTask {
                    let sent = clock.now
                    let item = try await client.fetch()
                    guard item.isExpected else { throw BenchError("\(client.label): wrong body") }
                    return (clock.now - sent).seconds
                }
            }
            var started = 0
            while started < min(concurrency, count) {
                send()
                started += 1
            }
            while let latency = try await group.next() {
                latencies.append(latency)
                if started < count {
                    send()
                    started += 1
                }
            }
        }
    }
    let wall = (clock.now - start).seconds
    let mallocs = Overhead.stopCounting()
    let usage = processUsage()
    return Sample(
        latencies: latencies, wall: wall, cpu: usage.cpu - usageStart.cpu,
        contextSwitches: usage.contextSwitches - usageStart.contextSwitches, mallocs: mallocs)
}

/// Every round of one client in one mode, added up.
struct Totals {
    var samples: [Sample] = []

    var requests: Int { samples.reduce(0) { $0 + $1.requests } }
    var wall: Double { samples.reduce(0) { $0 + $1.wall } }
    var cpu: Double { samples.reduce(0) { $0 + $1.cpu } }
    var throughput: Double { Double(requests) / wall }
    var cpuPerRequest: Double { cpu / Double(requests) }
    var mallocsPerRequest: Double { Double(samples.reduce(0) { $0 + $1.mallocs }) / Double(requests) }
    var contextSwitchesPerRequest: Double {
        Double(samples.reduce(0) { $0 + $1.contextSwitches }) / Double(requests)
    }

    /// Nearest-rank percentile of every latency of every round, in seconds.
    func percentile(_ p: Double) -> Double {
        let sorted = samples.flatMap(\.latencies).sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}
