/// The first read of a ``TokenRefresher``'s store, shared by every caller that arrives while it
/// runs: a pure state machine the actor drives, so each interleaving is tested without timing.
///
/// Every load has an id. A result counts only for the load the state is still waiting for, so:
/// - a caller whose load failed fails, and resets the state only if no newer load started
///   meanwhile (it never throws away another caller's load in flight);
/// - a caller never goes on without a credential while a load is pending or after its own load
///   failed: it either gets the loaded state or its load's error;
/// - a load that finishes after ``markLoaded()`` (a reset or sign-out settled the credential)
///   is ignored: a late load never overwrites a newer credential.
///
/// `Handle` is what callers share to await a load (the actor uses a `Task`).
struct CredentialLoad<Handle> {
    enum State {
        case notLoaded
        case loading(id: UInt64, handle: Handle)
        case loaded
    }

    /// What a caller arriving now must do.
    enum Step {
        /// The credential is settled: go on.
        case proceed
        /// Await this load, then report its result with ``finish(id:succeeded:)``.
        case join(id: UInt64, handle: Handle)
        /// Start a load with this id and hand its handle to ``started(id:handle:)``, then await it.
        case start(id: UInt64)
    }

    /// What a caller must do with the result of the load it awaited.
    enum Outcome: Equatable {
        /// Install the loaded value as the credential: this load settled the state.
        case install
        /// Go on with the credential as it is: someone else settled it first.
        case proceed
        /// Fail with this load's error.
        case fail
        /// Ask ``next()`` again. Only for a success reported after the state moved on without
        /// settling, which the actor's transitions never produce; safe all the same.
        case retry
    }

    private(set) var state = State.notLoaded

    /// Whether the credential is settled (loaded, or set by a reset or sign-out).
    var isLoaded: Bool {
        if case .loaded = state { true } else { false }
    }
    private var nextID: UInt64 = 0

    /// The next step for a caller that needs the credential.
    mutating func next() -> Step {
        switch state {
        case .loaded:
            return .proceed
        case .loading(let id, let handle):
            return .join(id: id, handle: handle)
        case .notLoaded:
            nextID &+= 1
            return .start(id: nextID)
        }
    }

    /// Records the handle of the load ``next()`` asked to start.
    mutating func started(id: UInt64, handle: Handle) {
        state = .loading(id: id, handle: handle)
    }

    /// Reports that load `id` finished. Every caller that awaited it reports, in any order.
    mutating func finish(id: UInt64, succeeded: Bool) -> Outcome {
        switch state {
        case .loading(let current, _) where current == id:
            state = succeeded ? .loaded : .notLoaded
            return succeeded ? .install : .fail
        case .loaded:
            // A reset, a sign-out or another caller of this load settled it: the credential in
            // memory is newer than (or the same as) this result.
            return .proceed
        case .loading, .notLoaded:
            // This load is no longer the one the state waits for. Only a failure gets here in
            // practice (a success moves the state to `.loaded`, which nothing leaves): its
            // callers fail with its error, and leave a newer load in flight alone.
            return succeeded ? .retry : .fail
        }
    }

    /// A reset or sign-out decided the credential: any load in flight is now stale.
    mutating func markLoaded() {
        state = .loaded
    }
}
