import Foundation

/// A value behind a lock, for state that many tasks touch briefly and that must not cost an
/// actor hop (the call gate, call metrics, the refresher's fast-path snapshot).
///
/// `@unchecked Sendable`: `value` is only read and written inside `withLock`, under `lock`. Keep
/// the closures short and never `await` in them (they cannot: they are synchronous).
final class LockedState<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, under the lock.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
