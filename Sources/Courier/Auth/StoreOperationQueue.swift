/// Runs a ``TokenRefresher``'s store operations one at a time, in the order the refresher
/// submitted them.
///
/// The refresher decides on its actor (a refresh's save, a reset's save, a sign-out's remove)
/// and submits synchronously, so the order on disk is the order of the decisions: a sign-out
/// decided after a refresh's save is removed *after* that save, whichever store call would
/// have been quicker. Without it, two calls on an actor store (or two files written by two
/// threads) land in whatever order the runtime picks.
///
/// Each operation runs in its own unstructured task, so a caller that stops waiting (its task
/// cancelled) does not stop the write the refresher already decided.
struct StoreOperationQueue {
    /// Waits for the last submitted operation to finish; `nil` when none was submitted.
    private var tail: (@Sendable () async -> Void)?

    /// Submits `operation` to run after every operation submitted before it.
    /// - Returns: a task whose value is the operation's result; awaiting it is optional.
    @discardableResult
    mutating func submit<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> Task<T, Never> {
        let previous = tail
        let task = Task {
            await previous?()
            return await operation()
        }
        tail = { _ = await task.value }
        return task
    }
}
