import Courier
import Foundation

/// The logic of `WebAuthenticationSessionPresenter` (Apple platforms only), kept here so that
/// it compiles and is tested on every platform; the presenter itself only calls
/// `ASWebAuthenticationSession`.
enum WebAuthenticationSessionSupport {
    /// The `callbackURLScheme` for a redirect URI: its scheme, lower-cased. A session can only
    /// be called back through a private-use scheme (`com.example.app:/callback`, RFC 8252 §7.1),
    /// so `http` and `https` redirect URIs are refused.
    /// - Throws: `AuthorizationFailure.unavailable(_:underlyingError:)` (inside `CourierError.authentication(_:)`)
    ///   for a redirect URI without a scheme or with `http`/`https`.
    static func callbackScheme(for redirectURI: URL) throws(CourierError) -> String {
        guard let scheme = redirectURI.scheme?.lowercased(), !scheme.isEmpty else {
            throw .authentication(.authorizationFailed(.unavailable("the redirect URI has no scheme")))
        }
        guard scheme != "http", scheme != "https" else {
            throw .authentication(
                .authorizationFailed(
                    .unavailable("a web authentication session needs a private-use redirect URI scheme (com.example.app:/callback), not \(scheme)")))
        }
        return scheme
    }

    /// What a session's completion handler got, as the flow's outcome: the callback URL, or
    /// `CourierError.cancelled` when the user closed the sheet (`canceledLogin`), or
    /// `AuthorizationFailure.unavailable(_:underlyingError:)` for any other failure (no presentation context…).
    static func outcome(callbackURL: URL?, error: (any Error)?, isCanceledLogin: Bool) -> Result<URL, CourierError> {
        if isCanceledLogin { return .failure(.cancelled) }
        if let error {
            return .failure(
                .authentication(
                    .authorizationFailed(.unavailable("the web authentication session failed: \(error.localizedDescription)", underlyingError: error))))
        }
        guard let callbackURL else {
            return .failure(.authentication(.authorizationFailed(.malformedResponse("the web authentication session returned no callback URL"))))
        }
        return .success(callbackURL)
    }
}

/// The outcome of one web authentication session, delivered once: by the session's completion
/// handler, by a failure to start, or by the caller's cancellation, whichever comes first. The
/// presenter's waiting therefore ends on cancellation whether or not the system ever calls the
/// session's completion handler after `cancel()` (Apple does not document that it does).
final class SessionOutcome<Value: Sendable>: Sendable {
    private enum State {
        /// Nobody waits yet and nothing was delivered.
        case pending
        /// The caller waits.
        case waiting(CheckedContinuation<Value, Never>)
        /// Delivered: to the waiting caller, or (`early`) before anyone waited.
        case delivered(early: Value?)
    }

    private let state = LockedState(State.pending)

    /// Waits for the outcome. `start` runs first, in the caller's isolation, with the function
    /// that delivers it, unless the outcome was delivered already (the caller was cancelled
    /// before it began to wait): then it returns that outcome without starting anything.
    func wait(
        isolation: isolated (any Actor)? = #isolation,
        _ start: (@escaping @Sendable (Value) -> Void) -> Void
    ) async -> Value {
        await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Value, Never>) in
            let early = state.withLock { state -> Value? in
                switch state {
                case .pending:
                    state = .waiting(continuation)
                    return nil
                case .delivered(let early):
                    state = .delivered(early: nil)
                    return early
                case .waiting:
                    return nil  // one wait per outcome; a second is a programming error that never resumes
                }
            }
            if let early {
                continuation.resume(returning: early)
                return
            }
            start { [self] value in deliver(value) }
        }
    }

    /// Delivers `value`, unless an outcome was delivered already.
    /// - Returns: whether this call delivered it.
    @discardableResult
    func deliver(_ value: Value) -> Bool {
        let (delivered, continuation) = state.withLock { state -> (Bool, CheckedContinuation<Value, Never>?) in
            switch state {
            case .pending:
                state = .delivered(early: value)
                return (true, nil)
            case .waiting(let continuation):
                state = .delivered(early: nil)
                return (true, continuation)
            case .delivered:
                return (false, nil)
            }
        }
        continuation?.resume(returning: value)
        return delivered
    }
}
