#if canImport(Combine)
    public import Combine

    // Apple platforms only. The lifecycle (start on the first demand, at most once; cancel; one
    // delivery) is `CallSubscription`, which Linux compiles and tests; this file only adapts it.

    extension Call {
        /// A publisher that sends the request when a subscriber first asks for a value, then
        /// publishes the body decoded as `type` (as ``resume(expecting:)``) and finishes, or fails
        /// with the ``CourierError``. Cancelling the subscription cancels the request.
        ///
        /// <!-- guide: if canImport(Combine) -->
        /// ```swift
        /// client.enqueue(GetUser(id: 42)).publisher(expecting: User.self)
        ///     .receive(on: DispatchQueue.main)
        ///     .sink { completion in print(completion) } receiveValue: { user in print(user.name) }
        ///     .store(in: &cancellables)
        /// ```
        ///
        /// Each subscription sends the request anew. Values arrive on no particular thread.
        public func publisher<T: Decodable & Sendable>(expecting type: T.Type) -> CallPublisher<T> {
            CallPublisher { () async throws(CourierError) in try await resume(expecting: type) }
        }

        /// A publisher that sends the request when a subscriber first asks for a value, then
        /// publishes the validated ``Response`` (as ``resume()``) and finishes, or fails with the
        /// ``CourierError``. Cancelling the subscription cancels the request.
        public func publisher() -> CallPublisher<Response> {
            CallPublisher { () async throws(CourierError) in try await resume() }
        }
    }

    /// A Combine publisher of one call's outcome: one value then `.finished`, or a
    /// ``CourierError``. Made by ``Call/publisher(expecting:)`` and ``Call/publisher()`` (and
    /// CourierEndpoints' `TypedCall.publisher()`).
    public struct CallPublisher<Output: Sendable>: Publisher, Sendable {
        /// Calls fail with a ``CourierError``.
        public typealias Failure = CourierError

        private let operation: @Sendable () async throws(CourierError) -> Output

        init(operation: @escaping @Sendable () async throws(CourierError) -> Output) {
            self.operation = operation
        }

        /// Gives `subscriber` a subscription; the request is sent on its first demand.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == CourierError {
            let subscription = CallSubscription(operation: operation) { result in
                switch result {
                case .success(let value):
                    _ = subscriber.receive(value)
                    subscriber.receive(completion: .finished)
                case .failure(let error):
                    subscriber.receive(completion: .failure(error))
                }
            }
            subscriber.receive(subscription: subscription)
        }
    }

    extension CallSubscription: Subscription {
        /// Starts the call on the first demand above zero (one value is all there is to send).
        func request(_ demand: Subscribers.Demand) {
            if demand > .none { request() }
        }
    }
#endif
