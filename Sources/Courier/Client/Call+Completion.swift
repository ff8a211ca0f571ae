/// A call started with a completion handler, for code migrating from callback-based layers.
///
/// ```swift
/// let handle = client.enqueue(GetUser(id: 42)).resume(expecting: User.self) { result in
///     DispatchQueue.main.async { self.show(result) }
/// }
/// // later, if the screen goes away:
/// handle.cancel()   // the completion runs once, with .failure(.cancelled)
/// ```
public struct CallHandle: Sendable {
    private let task: Task<Void, Never>

    init(task: Task<Void, Never>) {
        self.task = task
    }

    /// Cancels the request; the completion handler then runs with ``CourierError/cancelled``
    /// (unless the call had already finished). Cancelling twice does nothing more.
    public func cancel() {
        task.cancel()
    }

    /// Whether ``cancel()`` was called.
    package var isCancelled: Bool {
        task.isCancelled
    }
}

extension Call {
    /// Sends the request and decodes the body as `type`, like ``resume(expecting:)``, calling
    /// `completion` exactly once with the outcome.
    ///
    /// `completion` runs on no particular thread: hop to the main queue or an actor yourself.
    /// - Returns: a handle that cancels the call.
    @discardableResult
    public func resume<T: Decodable & Sendable>(
        expecting type: T.Type, completion: @escaping @Sendable (Result<T, CourierError>) -> Void
    ) -> CallHandle {
        CallHandle(
            task: Task {
                do throws(CourierError) {
                    completion(.success(try await resume(expecting: type)))
                } catch {
                    completion(.failure(error))
                }
            })
    }

    /// Sends the request and validates the response, like ``resume()``, calling `completion`
    /// exactly once with the outcome.
    /// - Returns: a handle that cancels the call.
    @discardableResult
    public func resume(completion: @escaping @Sendable (Result<Response, CourierError>) -> Void) -> CallHandle {
        CallHandle(
            task: Task {
                do throws(CourierError) {
                    completion(.success(try await resume()))
                } catch {
                    completion(.failure(error))
                }
            })
    }
}
