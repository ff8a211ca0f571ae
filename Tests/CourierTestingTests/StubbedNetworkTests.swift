import Courier
import CourierTesting
import Foundation
import Testing

/// `withStubbedNetwork` and the `.stubbedNetwork` trait: the default transport answers from the
/// scope's stub. (That nothing reaches a real server is proved against one on 127.0.0.1 in
/// `StubbedNetworkIntegrationTests`.)
@Suite("A stubbed-network scope", .timeLimit(.minutes(1)))
struct StubbedNetworkTests {
    /// Created outside every scope, as an app's `static let shared = Client()` is.
    static let sharedClient = Client()

    @Test func aClientCreatedOutsideTheScopeIsAnsweredByTheScopesStub() async throws {
        let user = try await withStubbedNetwork { network in
            network.stub(.get, "/users/42", with: try .json(User(id: 42, name: "Ada")))
            let user = try await Self.sharedClient.enqueue(TestEndpoint(.get, "/users/42")).resume(expecting: User.self)
            #expect(network.requests.map(\.url.absoluteString) == ["https://api.example.com/users/42"])
            return user
        }
        #expect(user == User(id: 42, name: "Ada"))
    }

    @Test func aClientCreatedInsideTheScopeIsAnsweredByTheScopesStub() async throws {
        try await withStubbedNetwork { network in
            network.stub(.post, "/users", with: .status(201))
            let response = try await Client().enqueue(TestEndpoint(.post, "/users", body: .json(NewUser(name: "Ada", age: 36)))).resume()
            #expect(response.statusCode == 201)
            let request = try #require(network.requests.first)
            #expect(try request.decodeJSON(NewUser.self) == NewUser(name: "Ada", age: 36))
            #expect(request.headerValue(for: "content-type") == "application/json")
        }
    }

    @Test func aGivenStubIsTheOneThatAnswersAndTheOneTheBodyReceives() async throws {
        let network = NetworkStub()
        network.stub(.get, "/ping", with: .text("pong"))
        let body = try await withStubbedNetwork(network) { received in
            #expect(received === network)
            #expect(NetworkStub.current === network)
            return try await Client().enqueue(TestEndpoint(.get, "/ping")).resume().body
        }
        #expect(body == Data("pong".utf8))
        #expect(network.requests.count == 1)
    }

    @Test func aRequestNoRouteAnswersFailsAtOnceWithAnErrorNamingItsMethodAndURL() async throws {
        await withStubbedNetwork { network in
            network.stub(.get, "/users/1", with: .status(200))
            let result = await outcome(of: Client().enqueue(TestEndpoint(.delete, "/users/9", query: [QueryItem(name: "page", value: "2")])))

            guard case .failure(.transport(let failure)) = result else {
                Issue.record("expected a transport failure, got \(result)")
                return
            }
            #expect(failure.kind == .other)
            #expect(failure.url?.absoluteString == "https://api.example.com/users/9?page=2")
            #expect(
                "\(CourierError.transport(failure))"
                    == "Transport failure: other, for https://api.example.com/users/9?page=2, CourierTesting: no stub matches DELETE /users/9?page=2; the request was not sent to the network"
            )
            #expect(network.unmatchedRequests.map(\.method) == ["DELETE"])
            #expect(network.requests.count == 1)
        }
    }

    @Test func anUnmatchedRequestsMessageShowsItsQueryAsSentWithSecretsRedacted() async throws {
        await withStubbedNetwork { network in
            network.stub(.get, "/search?q=a%2Fb", with: .status(200))
            let query = [QueryItem(name: "q", value: "a/b"), QueryItem(name: "access_token", value: "s3cr3t")]
            let result = await outcome(of: Client().enqueue(TestEndpoint(.get, "/search", query: query)))

            guard case .failure(let error) = result else {
                Issue.record("expected a failure, got \(result)")
                return
            }
            // `/` is one of the reserved characters a query value keeps by default: the stub's
            // `a%2Fb` is not what was sent, and the message says what was.
            #expect("\(error)".contains("no stub matches GET /search?q=a/b&access_token=<redacted>;"))
            #expect(!"\(error)".contains("s3cr3t"))
        }
    }

    @Test func anUnmatchedRequestsMessageRedactsTheQueryItemsTheClientsRedactionNames() async throws {
        try await withStubbedNetwork { network in
            var configuration = Configuration()
            configuration.redaction = Redaction(queryItems: Redaction.defaultParameterNames.union(["tenant"]))
            let query = [QueryItem(name: "tenant", value: "acme-internal"), QueryItem(name: "page", value: "2")]
            let result = await outcome(of: Client(configuration: configuration).enqueue(TestEndpoint(.get, "/search", query: query)))

            guard case .failure(.transport(let failure)) = result else {
                Issue.record("expected a transport failure, got \(result)")
                return
            }
            // The stub's own message follows the call's redaction. (The failure's `url`, printed
            // before it, is redacted with `Redaction.default` by `TransportFailure.description`,
            // which knows no configuration.)
            let message = try #require(failure.message)
            #expect(message.contains("no stub matches GET /search?tenant=<redacted>&page=2;"))
            #expect(!message.contains("acme-internal"))
        }
    }

    @Test func anUnmatchedRequestIsNotRetried() async throws {
        await withStubbedNetwork { network in
            var configuration = Configuration()
            configuration.retryPolicy = .default
            let result = await outcome(of: Client(configuration: configuration).enqueue(TestEndpoint(.get, "/missing")))
            #expect(result.courierError?.urlError == nil)
            #expect(network.requests.count == 1)
        }
    }

    @Test func outsideAnyScopeThereIsNoCurrentStub() async {
        #expect(NetworkStub.current == nil)
        await withStubbedNetwork { network in
            #expect(NetworkStub.current === network)
        }
        #expect(NetworkStub.current == nil)
    }

    @Test func theInnermostScopeWins() async throws {
        try await withStubbedNetwork { outer in
            outer.stub(.get, "/who", with: .text("outer"))
            try await withStubbedNetwork { inner in
                inner.stub(.get, "/who", with: .text("inner"))
                let body = try await Client().enqueue(TestEndpoint(.get, "/who")).resume().body
                #expect(body == Data("inner".utf8))
            }
            let body = try await Client().enqueue(TestEndpoint(.get, "/who")).resume().body
            #expect(body == Data("outer".utf8))
            #expect(outer.requests.count == 1)
        }
    }

    @Test func aTaskStartedInsideTheScopeIsInIt() async throws {
        try await withStubbedNetwork { network in
            network.stub(.get, "/users/1", with: .status(204))
            let status = try await Task { try await Client().enqueue(TestEndpoint(.get, "/users/1")).resume().statusCode }.value
            #expect(status == 204)
            #expect(network.requests.count == 1)
        }
    }

    @Test func aClientWithATransportOfItsOwnIsNotAffected() async throws {
        let own = RecordingTransport(status: 202)
        try await withStubbedNetwork { network in
            let response = try await Client(configuration: Configuration(transport: own)).enqueue(TestEndpoint(.get, "/x")).resume()
            #expect(response.statusCode == 202)
            #expect(network.requests.isEmpty)
        }
        #expect(await own.count == 1)
    }

    /// 1,000 scopes at once, each with its own stub answering the same path with its own
    /// value, all through one client: every call gets its own scope's answer, and every stub
    /// records exactly its own requests.
    @Test func aThousandConcurrentScopesEachSeeOnlyTheirOwnStub() async throws {
        let client = Client()
        let scopes = 1000
        let callsPerScope = 3
        let counts = try await withThrowingTaskGroup(of: (index: Int, answers: [Int], recorded: Int).self) { group in
            for index in 0..<scopes {
                group.addTask {
                    try await withStubbedNetwork { network in
                        network.stub(.get, "/users/1", with: try .json(User(id: index, name: "user \(index)")))
                        var answers: [Int] = []
                        for _ in 0..<callsPerScope {
                            answers.append(try await client.enqueue(TestEndpoint(.get, "/users/1")).resume(expecting: User.self).id)
                        }
                        return (index, answers, network.requests.count)
                    }
                }
            }
            var all: [(index: Int, answers: [Int], recorded: Int)] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(counts.count == scopes)
        for count in counts {
            #expect(count.answers == Array(repeating: count.index, count: callsPerScope))
            #expect(count.recorded == callsPerScope)
        }
    }

    @Test func aStreamedRequestBodyIsRecordedWhole() async throws {
        try await withStubbedNetwork { network in
            network.stub(.put, "/upload", with: .status(204))
            let chunks = AsyncStream<Data> { continuation in
                continuation.yield(Data("hello, ".utf8))
                continuation.yield(Data("world".utf8))
                continuation.finish()
            }
            _ = try await Client().enqueue(TestEndpoint(.put, "/upload", body: .stream(chunks, length: 12))).resume()
            #expect(network.requests.first?.body == Data("hello, world".utf8))
        }
    }

    @Test func aStubbedURLErrorFailsTheCallKeepingItsCode() async throws {
        await withStubbedNetwork { network in
            network.stub(.get, "/feed", with: .failure(URLError(.notConnectedToInternet)))
            let result = await outcome(of: Client().enqueue(TestEndpoint(.get, "/feed")))
            #expect(result.courierError?.urlError?.code == .notConnectedToInternet)
            guard case .failure(.transport(let failure)) = result else {
                Issue.record("expected a transport failure, got \(result)")
                return
            }
            #expect(failure.kind == .cannotConnect)
        }
    }

    @Test func aStatusOutsideTheEndpointsCodesIsAnUnacceptableResponse() async throws {
        await withStubbedNetwork { network in
            network.stub(.get, "/users/9", with: .text("no such user", status: 404))
            let result = await outcome(of: Client().enqueue(TestEndpoint(.get, "/users/9")))
            #expect(result.rejectedResponse?.statusCode == 404)
            #expect(result.rejectedResponse?.body == Data("no such user".utf8))
        }
    }

    @Test func aDelayLongerThanTheTimeoutEndsAsTimedOut() async throws {
        await withStubbedNetwork { network in
            network.stub(.get, "/slow", with: StubResponse.status(200).delayed(by: .seconds(60)))
            let result = await outcome(of: Client().enqueue(TestEndpoint(.get, "/slow", timeout: .milliseconds(50))))
            #expect(result.courierError?.urlError?.code == .timedOut)
        }
    }

    @Test func cancellingACallThatWaitsOutADelayEndsItAtOnce() async throws {
        await withStubbedNetwork { network in
            let (arrivals, arrival) = AsyncStream<Void>.makeStream()
            network.stub { _ in
                arrival.yield()
                return StubResponse.status(200).delayed(by: .seconds(30))
            }
            let call = Task { await outcome(of: Client().enqueue(TestEndpoint(.get, "/report"))) }
            for await _ in arrivals { break }
            call.cancel()
            #expect(await call.value.isCancelled)
        }
    }

    @Test func aStatusCodeOutsideTheHTTPRangeFailsAsABadResponse() async throws {
        await withStubbedNetwork { network in
            network.stub(.get, "/odd", with: StubResponse(statusCode: 42))
            let result = await outcome(of: Client().enqueue(TestEndpoint(.get, "/odd")))
            #expect(result.courierError?.urlError?.code == .badServerResponse)
        }
    }

    @Test(.stubbedNetwork) func theTraitGivesTheTestAStubThatAnswersTheDefaultTransport() async throws {
        let network = try #require(NetworkStub.current)
        network.stub(.get, "/users/7", with: try .json(User(id: 7, name: "Grace")))
        let user = try await Self.sharedClient.enqueue(TestEndpoint(.get, "/users/7")).resume(expecting: User.self)
        #expect(user.name == "Grace")
        #expect(network.requests.count == 1)
    }
}

/// The trait on a suite: every test, and every case of a parameterized test, gets a new, empty
/// stub, so the cases below (which run in parallel) each see only their own request.
@Suite(.stubbedNetwork, .timeLimit(.minutes(1)))
struct StubbedNetworkTraitSuiteTests {
    @Test(arguments: 0..<20)
    func eachCaseHasAStubOfItsOwn(index: Int) async throws {
        let network = try #require(NetworkStub.current)
        #expect(network.requests.isEmpty)
        network.stub(.get, "/n", with: .text("\(index)"))
        let body = try await Client().enqueue(TestEndpoint(.get, "/n")).resume().body
        #expect(body == Data("\(index)".utf8))
        #expect(network.requests.count == 1)
    }

    @Test func aTestOfTheSuiteIsInAScope() {
        #expect(NetworkStub.current != nil)
    }
}
