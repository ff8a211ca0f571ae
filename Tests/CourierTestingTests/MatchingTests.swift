import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Matching requests to stubs")
struct MatchingTests {
    @Test func aStubForMethodAndPathAnswersThatRequest() async throws {
        let network = NetworkStub()
        network.stub(.get, "/users/42", with: try .json(User(id: 42, name: "Ada")))
        let client = makeClient(network)

        let user = try await client.enqueue(TestEndpoint(.get, "/users/42")).resume(expecting: User.self)

        #expect(user == User(id: 42, name: "Ada"))
        #expect(network.requests.count == 1)
        #expect(network.unmatchedRequests.isEmpty)
    }

    @Test func aStubAnswersOnlyItsOwnMethod() async throws {
        let network = NetworkStub()
        network.stub(.get, "/users/42", with: .status(200))
        let client = makeClient(network)

        let result = await outcome(of: client.enqueue(TestEndpoint(.delete, "/users/42")))

        #expect(result.rejectedResponse?.statusCode == 501)
        #expect(network.unmatchedRequests.map(\.method) == ["DELETE"])
    }

    @Test(
        arguments: [
            // (registered path, ignoringQuery, requested query, matches)
            ("/search", false, nil, true),
            ("/search", false, [QueryItem(name: "q", value: "swift")], false),
            ("/search?q=swift", false, [QueryItem(name: "q", value: "swift")], true),
            ("/search?q=swift", false, [QueryItem(name: "q", value: "linux")], false),
            ("/search?q=swift%20%26%20linux", false, [QueryItem(name: "q", value: "swift & linux")], true),
            ("/search", true, [QueryItem(name: "q", value: "swift")], true),
            ("/search", true, nil, true),
            ("/search", true, [QueryItem(name: "page", value: "2"), QueryItem(name: "flag")], true),
            ("/search/", true, [QueryItem(name: "q", value: "swift")], false),
        ] as [(String, Bool, [QueryItem]?, Bool)])
    func theQueryIsComparedExactlyUnlessIgnored(path: String, ignoringQuery: Bool, query: [QueryItem]?, matches: Bool) async {
        let network = NetworkStub()
        network.stub(.get, path, ignoringQuery: ignoringQuery, with: .status(204))
        let client = makeClient(network)

        let result = await outcome(of: client.enqueue(TestEndpoint(.get, "/search", query: query)))

        let status = (try? result.get().statusCode) ?? result.rejectedResponse?.statusCode
        #expect(status == (matches ? 204 : 501))
    }

    @Test func theFirstRegisteredMatchingStubWins() async throws {
        let network = NetworkStub()
        network.stub(.get, "/users/1", with: .text("first"))
        network.stub(.get, "/users/1", with: .text("second"))
        let client = makeClient(network)

        let text = try await client.enqueue(TestEndpoint(.get, "/users/1")).resume(expecting: String.self)

        #expect(text == "first")
    }

    @Test func aStubLimitedByTimesIsUsedUpThenLaterStubsAnswer() async throws {
        let network = NetworkStub()
        network.stub(.get, "/me", with: .status(401), times: 2)
        network.stub(.get, "/me", with: try .json(User(id: 7, name: "Grace")))
        let client = makeClient(network)
        let call = client.enqueue(TestEndpoint(.get, "/me"))

        let first = await outcome(of: call)
        let second = await outcome(of: call)
        let third = try await call.resume(expecting: User.self)
        let fourth = try await call.resume(expecting: User.self)

        #expect(first.rejectedResponse?.statusCode == 401)
        #expect(second.rejectedResponse?.statusCode == 401)
        #expect(third == User(id: 7, name: "Grace"))
        #expect(fourth == third)
        #expect(network.requests.count == 4)
    }

    @Test func aStubWithTimesZeroRegistersNothing() async {
        let network = NetworkStub()
        network.stub(.get, "/", with: .status(200), times: 0)
        let client = makeClient(network)

        let result = await outcome(of: client.enqueue(TestEndpoint()))

        #expect(result.rejectedResponse?.statusCode == 501)
    }

    @Test func aClosureStubReceivesTheRecordedRequestAndAnswersIt() async throws {
        let network = NetworkStub()
        network.stub { request in
            guard request.method == "POST", request.path == "/users" else { return nil }
            let authorized = request.headerValue(for: "authorization") == "Bearer abc"
            return authorized ? .status(201) : .status(401)
        }
        let client = makeClient(network)
        let body = RequestBody.json(NewUser(name: "Ada", age: 36))

        let signed = await outcome(
            of: client.enqueue(TestEndpoint(.post, "/users", headers: [HeaderItem(name: "Authorization", value: "Bearer abc")], body: body)))
        let unsigned = await outcome(of: client.enqueue(TestEndpoint(.post, "/users", body: body)))
        let elsewhere = await outcome(of: client.enqueue(TestEndpoint(.get, "/users")))

        #expect((try? signed.get().statusCode) == 201)
        #expect(unsigned.rejectedResponse?.statusCode == 401)
        #expect(elsewhere.rejectedResponse?.statusCode == 501)
    }

    @Test func aClosureReturningNilLetsLaterStubsAnswer() async throws {
        let network = NetworkStub()
        network.stub { _ in nil }
        network.stub(.get, "/ping", with: .text("pong"))
        let client = makeClient(network)

        let text = try await client.enqueue(TestEndpoint(.get, "/ping")).resume(expecting: String.self)

        #expect(text == "pong")
    }

    @Test func aClosureMayCallBackIntoItsStub() async throws {
        let network = NetworkStub()
        network.stub { [weak network] _ in
            .text("seen \(network?.requests.count ?? -1)")
        }
        let client = makeClient(network)
        let call = client.enqueue(TestEndpoint(.get, "/count"))

        let first = try await call.resume(expecting: String.self)
        let second = try await call.resume(expecting: String.self)

        #expect([first, second] == ["seen 1", "seen 2"])
    }

    @Test func anUnmatchedRequestGets501NamingItsMethodAndURL() async throws {
        let network = NetworkStub()
        network.stub(.get, "/users", with: .status(200))
        let client = makeClient(network)

        let result = await outcome(of: client.enqueue(TestEndpoint(.get, "/users/9", query: [QueryItem(name: "expand", value: "all")])))

        let response = try #require(result.rejectedResponse)
        #expect(response.statusCode == 501)
        #expect(response.headerValue(for: "X-Courier-Stub") == "unmatched")
        #expect(try response.text() == "CourierTesting: no stub matches GET https://api.example.com/users/9?expand=all")
        #expect(network.requests.count == 1)
        #expect(network.unmatchedRequests == network.requests)
    }

    @Test func anUnmatchedRequests501NeverShowsASecretQueryValue() async throws {
        let network = NetworkStub()
        let client = makeClient(network)

        let query = [QueryItem(name: "q", value: "a/b"), QueryItem(name: "api_key", value: "s3cr3t")]
        let result = await outcome(of: client.enqueue(TestEndpoint(.get, "/search", query: query)))

        let response = try #require(result.rejectedResponse)
        #expect(response.statusCode == 501)
        #expect(try response.text() == "CourierTesting: no stub matches GET https://api.example.com/search?q=a/b&api_key=<redacted>")
    }

    @Test func resetForgetsStubsAndRecordedRequests() async throws {
        let network = NetworkStub()
        network.stub(.get, "/", with: .status(200))
        let client = makeClient(network)
        _ = try await client.enqueue(TestEndpoint()).resume()

        network.reset()
        let afterReset = await outcome(of: client.enqueue(TestEndpoint()))

        #expect(afterReset.rejectedResponse?.statusCode == 501)
        #expect(network.requests.count == 1)
        #expect(network.unmatchedRequests.count == 1)
    }

    @Test func aSessionWhoseStubWasReleasedAnswers501Released() async throws {
        var network: NetworkStub? = NetworkStub()
        network?.stub(.get, "/", with: .status(200))
        let transport = try #require(network?.makeTransport())
        let client = Client(configuration: Configuration(transport: transport))
        network = nil

        let result = await outcome(of: client.enqueue(TestEndpoint()))

        let response = try #require(result.rejectedResponse)
        #expect(response.statusCode == 501)
        #expect(response.headerValue(for: "X-Courier-Stub") == "released")
    }
}
