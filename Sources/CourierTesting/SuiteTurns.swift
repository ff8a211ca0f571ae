#if canImport(Testing)
    import Courier
    package import Testing

    /// Courier's own suites that would starve each other if they ran at once take turns: a suite
    /// with this trait waits until its gate lets it in, runs all of its tests (in parallel among
    /// themselves, as usual), then lets the next suite in.
    ///
    /// Package access: for this repository's test targets, not part of CourierTesting's API.
    ///
    /// <!-- guide: skip: declares suites of this repository's own test targets; here they would join the guide tests -->
    /// ```swift
    /// @Suite("10,000 concurrent callers", .heavy, .timeLimit(.minutes(2)))
    /// struct ManyCallersTests { … }
    ///
    /// @Suite("Redirects against a real server", .loopback, .timeLimit(.minutes(1)))
    /// struct RedirectTests { … }
    /// ```
    // Why a suite trait and not a lock inside the tests: Swift Testing starts every test of the
    // process at once, and a test's time limit runs from its own start. A test that waited for a
    // lock (or for one of `TestServer`'s slots) inside its body spent its time limit waiting for
    // other tests: on a 2-core machine with both cores busy, 200 one-request tests queued behind
    // the suites of thousands of calls and ran out of their minute. A suite trait's scope is the
    // whole suite, outside its tests' time limits, so a suite waits for its turn first.
    package struct SuiteTurnsTrait: SuiteTrait, TestScoping {
        package let gate: SuiteGate
        /// How many of the gate's places the suite takes.
        package let weight: Int

        /// `false`: the suite takes one turn for all of its tests and nested suites.
        package var isRecursive: Bool { false }

        /// The suite itself, once, and never a test or test case inside it.
        package func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
            test.isSuite && testCase == nil ? self : nil
        }

        /// Runs the suite in its gate's turn.
        package func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            try await gate.withTurn(weight: weight, function)
        }
    }

    extension Trait where Self == SuiteTurnsTrait {
        /// A CPU-heavy suite, alone: thousands of concurrent calls, callers, files or trials, key
        /// derivations, large bodies. It waits until no other heavy or loopback suite runs, and
        /// none starts until it ends. Each keeps its time limit on 2 busy cores alone; beside
        /// another, or beside real-server tests that wait on real time (a 5 s idle timeout, a
        /// server pacing its body), it starved them: its thousands of tasks fill the two threads
        /// of the cooperative pool, and a timer's continuation waits behind all of them.
        package static var heavy: Self { Self(gate: .shared, weight: SuiteGate.width) }

        /// A real-server (loopback) suite: at most four at a time, never beside a heavy one. Each
        /// of their tests starts a FlyingFox server and real connections; all of them at once
        /// queued for `TestServer`'s slots inside their time limits.
        package static var loopback: Self { Self(gate: .shared, weight: 1) }
    }

    /// A counting gate for `SuiteTurnsTrait`: suites take `weight` of its `width` places, and
    /// wait in arrival order (a heavy suite at the head is not overtaken by loopback suites that
    /// came after it). A suite nested in one that holds the gate goes in without waiting: it
    /// would otherwise wait for its own parent.
    package final class SuiteGate: Sendable {
        /// The gate of `.heavy` and `.loopback`.
        package static let shared = SuiteGate()
        /// Its places: four loopback suites, or one heavy suite.
        package static let width = 4

        private struct Waiter {
            let weight: Int
            let continuation: CheckedContinuation<Void, Never>
        }

        private struct State {
            var taken = 0
            var waiters: [Waiter] = []

            /// Takes places for the waiters at the head that fit, in order, and returns them.
            mutating func admit() -> [CheckedContinuation<Void, Never>] {
                var admitted: [CheckedContinuation<Void, Never>] = []
                while let first = waiters.first, taken + first.weight <= SuiteGate.width {
                    taken += first.weight
                    admitted.append(waiters.removeFirst().continuation)
                }
                return admitted
            }
        }

        private let state = LockedState(State())

        /// The gates the current task's suite already holds.
        @TaskLocal private static var held: Set<ObjectIdentifier> = []

        /// Runs `body` once `weight` places are free for it, and frees them after it.
        package func withTurn(weight: Int, _ body: @Sendable () async throws -> Void) async throws {
            let id = ObjectIdentifier(self)
            if Self.held.contains(id) { return try await body() }
            let weight = min(max(weight, 1), Self.width)
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let admitted = state.withLock { state in
                    state.waiters.append(Waiter(weight: weight, continuation: continuation))
                    return state.admit()
                }
                for waiter in admitted { waiter.resume() }
            }
            defer {
                let admitted = state.withLock { state in
                    state.taken -= weight
                    return state.admit()
                }
                for waiter in admitted { waiter.resume() }
            }
            try await Self.$held.withValue(Self.held.union([id])) { try await body() }
        }
    }
#endif
