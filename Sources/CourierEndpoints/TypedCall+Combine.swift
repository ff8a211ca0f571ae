#if canImport(Combine)
    public import Courier

    // Apple platforms only: an adapter over Courier's `Call.publisher(expecting:)`.

    extension TypedCall {
        /// A publisher of the decoded model, as `Call.publisher(expecting:)` with `Model`.
        ///
        /// <!-- guide: if canImport(Combine) -->
        /// ```swift
        /// import Combine
        ///
        /// let subscription = client.enqueue(GitHub.user("octocat")).publisher()
        ///     .sink { completion in print(completion) } receiveValue: { user in print(user.name) }
        /// ```
        public func publisher() -> CallPublisher<Model> {
            call.publisher(expecting: Model.self)
        }
    }
#endif
