import Foundation

@testable import Courier

/// A token store whose operations the test can hold at their start and release one by one, and
/// which records the order in which they took effect: a "slow" store without any real sleep.
actor HoldingStore: TokenStore {
    enum Kind: Sendable { case load, save, remove }

    /// An operation as it took effect, with the access token saved.
    enum Effect: Equatable, Sendable {
        case load(String?)
        case save(String)
        case remove
    }

    /// One held operation: `entered` opens when it starts waiting, `release()` lets it go on.
    struct Hold: Sendable {
        let entered = Gate()
        let proceed = Gate()

        func release() async { await proceed.open() }
    }

    private(set) var stored: TokenCredential?
    private(set) var effects: [Effect] = []
    private var holds: [Kind: [Hold]] = [:]
    /// Loads with these ordinal numbers (1-based) throw.
    private var failingLoads: Set<Int> = []
    private var loads = 0

    init(_ credential: TokenCredential? = nil) {
        stored = credential
    }

    /// Holds the next operation of `kind` until the returned hold is released.
    func holdNext(_ kind: Kind) -> Hold {
        let hold = Hold()
        holds[kind, default: []].append(hold)
        return hold
    }

    func failLoads(_ ordinals: Set<Int>) {
        failingLoads = ordinals
    }

    private func waitIfHeld(_ kind: Kind) async {
        guard var pending = holds[kind], !pending.isEmpty else { return }
        let hold = pending.removeFirst()
        holds[kind] = pending
        await hold.entered.open()
        await hold.proceed.wait()
    }

    func load() async throws -> TokenCredential? {
        loads += 1
        let ordinal = loads
        await waitIfHeld(.load)
        if failingLoads.contains(ordinal) { throw CountingStore.Failure() }
        effects.append(.load(stored?.accessToken))
        return stored
    }

    func save(_ credential: TokenCredential) async throws {
        await waitIfHeld(.save)
        stored = credential
        effects.append(.save(credential.accessToken))
    }

    func remove() async throws {
        await waitIfHeld(.remove)
        stored = nil
        effects.append(.remove)
    }
}

/// Waits until `stream` delivers `count` events equal to `event`.
func awaitEvent(_ event: AuthEvent, count: Int = 1, in iterator: inout AsyncStream<AuthEvent>.AsyncIterator) async {
    var seen = 0
    while seen < count, let next = await iterator.next() {
        if next == event { seen += 1 }
    }
}
