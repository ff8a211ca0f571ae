import CourierTesting
import Foundation
import Testing

@testable import Courier
@testable import CourierConnectivity

/// The watchOS monitor (TN3135: a normal watch app's `NWPathMonitor` reports no usable path while
/// URLSession works) is a monitor that watches nothing: its path is `.requiresConnection` until it
/// stops, so the connectivity constraint holds no call. `ConnectivityMonitor()` makes exactly this
/// one on watchOS (`init(unobservablePath:)`); the watchOS branch is that one line.
@Suite("Apple platforms: on watchOS the connectivity constraint holds no call", .timeLimit(.minutes(1)))
struct WatchConnectivityTests {
    @Test func thePathIsRequiresConnectionForAsLongAsTheMonitorRuns() async {
        let monitor = ConnectivityMonitor(unobservablePath: ())
        #expect(monitor.currentPath == ConnectivityPath(status: .requiresConnection))
        #expect(monitor.isMonitoring)
        #expect(monitor.allowsCalls)
        var paths = monitor.paths().makeAsyncIterator()
        #expect(await paths.next() == ConnectivityPath(status: .requiresConnection))
        monitor.stop()
        #expect(await paths.next() == nil)
        #expect(!monitor.isMonitoring)
        #expect(monitor.allowsCalls)
    }

    /// Calls pass at once, with no timer, even with no timeout: on a watch they are never held
    /// for the timeout (or for ever), whatever `NWPathMonitor` would have said.
    @Test(arguments: [Duration?.some(.seconds(30)), nil])
    func everyCallPassesAtOnceWithoutATimer(timeout: Duration?) async {
        let monitor = ConnectivityMonitor(unobservablePath: ())
        defer { monitor.stop() }
        let clock = TestClock()
        let constraint = Constraint.connectivity(monitor, timeout: timeout, clock: clock)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    do throws(CourierError) {
                        try await constraint.waitUntilSatisfied()
                        return true
                    } catch {
                        return false
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 200)
        #expect(results.allSatisfy { $0 })
        #expect(clock.sleeps.isEmpty)
        #expect(constraint.isRunning == false)
        #expect(monitor.listenerCount == 0)
    }
}
