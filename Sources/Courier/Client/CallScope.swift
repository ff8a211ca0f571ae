/// Which clients the current task is inside of: a call in flight, or an exclusive action.
///
/// A task-local value, so it follows the task through middleware, constraints and the tasks
/// they start with `Task { }`. ``Client`` reads it to refuse what would wait for itself forever
/// (``InvalidRequest/wouldDeadlock(_:)``) instead of hanging.
struct CallScope: Sendable {
    /// The scope of the running task; empty outside any call.
    @TaskLocal static var current = CallScope()

    /// Clients with a call in flight in this task: the outermost, then the others (innermost
    /// last). Rarely more than one, so the first costs no array.
    private var outermostCall: ObjectIdentifier?
    private var innerCalls: [ObjectIdentifier] = []
    /// Clients running an exclusive action in this task.
    private var exclusives: [ObjectIdentifier] = []

    func isInCall(on client: Client) -> Bool {
        let id = ObjectIdentifier(client)
        return outermostCall == id || innerCalls.contains(id)
    }

    func isExclusive(on client: Client) -> Bool {
        exclusives.contains(ObjectIdentifier(client))
    }

    func entering(callOn client: Client) -> CallScope {
        var scope = self
        if scope.outermostCall == nil {
            scope.outermostCall = ObjectIdentifier(client)
        } else {
            scope.innerCalls.append(ObjectIdentifier(client))
        }
        return scope
    }

    func entering(exclusiveOn client: Client) -> CallScope {
        var scope = self
        scope.exclusives.append(ObjectIdentifier(client))
        return scope
    }
}
