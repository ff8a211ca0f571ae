import Testing

@testable import Courier

/// The first-load state machine, interleaving by interleaving (issue 9, defect 2: a caller
/// holding an old failure reset the state while another caller's load was in flight, and a
/// caller went on with no credential).
@Suite("CredentialLoad: one shared first load, generation-checked")
struct CredentialLoadTests {
    typealias Load = CredentialLoad<String>

    /// Starts a load for a caller, returning its id.
    func start(_ load: inout Load, handle: String) -> UInt64 {
        guard case .start(let id) = load.next() else {
            Issue.record("expected to start a load, state \(load.state)")
            return 0
        }
        load.started(id: id, handle: handle)
        return id
    }

    @Test("callers arriving during a load join it; its success settles the state for all")
    func joinAndSucceed() {
        var load = Load()
        let id = start(&load, handle: "T1")
        guard case .join(let joined, let handle) = load.next() else { Issue.record("expected join"); return }
        #expect(joined == id && handle == "T1")
        #expect(load.finish(id: id, succeeded: true) == .install)  // the first to resume installs
        #expect(load.finish(id: id, succeeded: true) == .proceed)  // the others go on with it
        guard case .proceed = load.next() else { Issue.record("expected proceed"); return }
    }

    @Test("the reported race: A and B share a failing load; A resumes first, C starts a new load, then B resumes")
    func staleFailureNeverResetsANewerLoad() {
        var load = Load()
        let first = start(&load, handle: "T1")  // A starts T1
        guard case .join = load.next() else { Issue.record("B must join T1"); return }
        #expect(load.finish(id: first, succeeded: false) == .fail)  // A: fails, state back to notLoaded
        let second = start(&load, handle: "T2")  // C starts T2
        #expect(second != first)
        #expect(load.finish(id: first, succeeded: false) == .fail)  // B: fails with T1's error...
        guard case .loading(let current, let handle) = load.state else { Issue.record("T2 was thrown away"); return }
        #expect(current == second && handle == "T2")  // ...and leaves T2 alone
        guard case .join(let joined, _) = load.next() else { Issue.record("D must join T2"); return }
        #expect(joined == second)
        #expect(load.finish(id: second, succeeded: true) == .install)
    }

    @Test("the same race where B resumes before C arrives: B fails, it does not go on without a credential")
    func staleFailureAfterReset() {
        var load = Load()
        let first = start(&load, handle: "T1")
        #expect(load.finish(id: first, succeeded: false) == .fail)  // A
        #expect(load.finish(id: first, succeeded: false) == .fail)  // B: notLoaded, still a failure (was: go on with nil)
        guard case .start = load.next() else { Issue.record("the next caller must try the store again"); return }
    }

    @Test("a load that finishes after a reset or sign-out is ignored, success or failure", arguments: [true, false])
    func lateLoadIsIgnored(succeeded: Bool) {
        var load = Load()
        let id = start(&load, handle: "T1")
        load.markLoaded()  // reset(to:) or signOut()
        #expect(load.finish(id: id, succeeded: succeeded) == .proceed)  // never installs the stale value
        guard case .loaded = load.state else { Issue.record("state must stay loaded"); return }
    }

    @Test("a success reported for a load the state no longer waits for asks again instead of installing")
    func staleSuccessRetries() {
        var load = Load()
        let first = start(&load, handle: "T1")
        #expect(load.finish(id: first, succeeded: false) == .fail)
        let second = start(&load, handle: "T2")
        #expect(load.finish(id: first, succeeded: true) == .retry)
        #expect(load.finish(id: second, succeeded: true) == .install)
    }

    @Test("ids never repeat across 10,000 failed loads")
    func idsAreFresh() {
        var load = Load()
        var seen = Set<UInt64>()
        for _ in 0..<10_000 {
            let id = start(&load, handle: "T")
            #expect(seen.insert(id).inserted)
            _ = load.finish(id: id, succeeded: false)
        }
    }
}
