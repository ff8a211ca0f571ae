import CourierTesting
import Testing

@testable import Courier
@testable import CourierConnectivity

@Suite("Connectivity monitor: current path and path sequences")
struct ConnectivityMonitorTests {
    private static let wifi = ConnectivityPath(status: .satisfied, interfaceNames: ["wlan0"])
    private static let ethernet = ConnectivityPath(status: .satisfied, interfaceNames: ["eth0"])

    @Test("paths() gives the current path first, then each change in order, without repeating an unchanged path")
    func currentThenChanges() async {
        let network = TestConnectivityMonitor(Self.wifi)
        var iterator = network.monitor.paths().makeAsyncIterator()
        #expect(await iterator.next() == Self.wifi)

        network.update(Self.wifi)  // no change: not delivered
        network.update(.unsatisfied)
        #expect(await iterator.next() == .unsatisfied)
        network.update(Self.ethernet)
        #expect(await iterator.next() == Self.ethernet)
        #expect(network.monitor.currentPath == Self.ethernet)
    }

    @Test("a consumer that falls behind skips to the newest path")
    func slowConsumerSkipsToNewest() async {
        let network = TestConnectivityMonitor(.satisfied)
        var iterator = network.monitor.paths().makeAsyncIterator()
        network.update(.unsatisfied)
        network.update(Self.wifi)
        network.update(Self.ethernet)
        #expect(await iterator.next() == Self.ethernet)
    }

    @Test("1,000 listeners each get the current path and the change, exactly once")
    func manyListeners() async {
        let network = TestConnectivityMonitor(.unsatisfied)
        let monitor = network.monitor
        let seen = await withTaskGroup(of: [ConnectivityPath].self) { group in
            for _ in 0..<1000 {
                let paths = monitor.paths()
                group.addTask {
                    var seen: [ConnectivityPath] = []
                    for await path in paths { seen.append(path) }
                    return seen
                }
            }
            #expect(monitor.listenerCount == 1000)
            network.update(Self.wifi)
            monitor.stop()
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(seen.count == 1000)
        // Each ends with the change; a consumer that had not read the first path yet when the
        // change came sees only the change (the newest path wins).
        #expect(seen.allSatisfy { $0.last == Self.wifi && $0.count <= 2 && Set($0).isSubset(of: [.unsatisfied, Self.wifi]) })
    }

    @Test("stop() ends every sequence, keeps the last path, and a later sequence gives that path and ends")
    func stopEndsSequences() async {
        let network = TestConnectivityMonitor(Self.wifi)
        let monitor = network.monitor
        let listening = Task {
            var count = 0
            for await _ in monitor.paths() { count += 1 }
            return count
        }
        await monitor.waitForListeners(1)

        monitor.stop()

        #expect(await listening.value >= 1)
        #expect(monitor.isMonitoring == false)
        #expect(monitor.currentPath == Self.wifi)
        network.update(.unsatisfied)  // ignored once stopped
        #expect(monitor.currentPath == Self.wifi)
        var later: [ConnectivityPath] = []
        for await path in monitor.paths() { later.append(path) }
        #expect(later == [Self.wifi])
        #expect(monitor.listenerCount == 0)
        monitor.stop()  // twice: nothing happens
    }

    @Test("a consumer that is cancelled stops listening")
    func cancelledConsumerLeaves() async {
        let network = TestConnectivityMonitor(.unsatisfied)
        let monitor = network.monitor
        let listening = Task {
            for await _ in monitor.paths() {}
        }
        await monitor.waitForListeners(1)
        listening.cancel()
        await listening.value
        await monitor.waitForListeners(0)
    }

    @Test("a path prints its status and interfaces")
    func description() {
        #expect("\(ConnectivityPath(status: .satisfied, interfaceNames: ["eth0", "wlan0"]))" == "satisfied via eth0, wlan0")
        #expect("\(ConnectivityPath.unsatisfied)" == "unsatisfied")
        #expect("\(ConnectivityPath(status: .requiresConnection))" == "requiresConnection")
    }
}
