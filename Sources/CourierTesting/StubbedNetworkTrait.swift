#if canImport(Testing)
    public import Testing

    /// A Swift Testing trait that runs each test in a scope of its own NetworkStub
    /// (``withStubbedNetwork(_:isolation:_:)``): every Courier request that uses the default
    /// transport is answered by that stub, never sent to the network. On a suite, each test (and
    /// each case of a parameterized test) gets a new, empty stub; reach it with ``NetworkStub/current``.
    ///
    /// ```swift
    /// @Suite(.stubbedNetwork) struct ProfileTests {
    ///     @Test func fetchesTheUser() async throws {
    ///         let network = try #require(NetworkStub.current)
    ///         network.stub(.get, "/users/42", with: try .json(User(id: 42, name: "Ada")))
    ///         let user = try await Client().enqueue(GetUser(id: 42)).resume(expecting: User.self)
    ///         #expect(user.name == "Ada")
    ///     }
    /// }
    /// ```
    public struct StubbedNetworkTrait: TestTrait, SuiteTrait, TestScoping {
        /// `true`: on a suite, the trait applies to each of its tests, each with its own stub.
        public var isRecursive: Bool { true }

        /// Runs `function` inside a scope with a new ``NetworkStub``.
        /// - Throws: what `function` throws.
        public func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            try await withStubbedNetwork { _ in try await function() }
        }
    }

    extension Trait where Self == StubbedNetworkTrait {
        /// Runs each test in a scope of a new ``NetworkStub``: every Courier request that uses
        /// the default transport is answered by it (see ``StubbedNetworkTrait``).
        ///
        /// ```swift
        /// @Test(.stubbedNetwork) func signsIn() async throws {
        ///     let network = try #require(NetworkStub.current)
        ///     network.stub(.post, "/token", with: .json(#"{"access_token":"a","token_type":"Bearer"}"#))
        /// }
        /// ```
        public static var stubbedNetwork: Self { Self() }
    }
#endif
