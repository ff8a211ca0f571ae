import Courier
import CourierTesting
import Foundation
import Testing

/// Every stub answers only its own sessions, however many stubs and calls run at once.
@Suite("Isolation between stubs")
struct IsolationTests {
    static let callsPerStub = 40

    /// Swift Testing runs these 20 cases in parallel: each stubs the same method and path with its
    /// own answer and must never see another case's answer or requests.
    @Test(arguments: 0..<20)
    func parallelTestsEachSeeOnlyTheirOwnStub(index: Int) async throws {
        let network = NetworkStub()
        network.stub(.get, "/users/1", with: try .json(User(id: index, name: "stub \(index)")))
        let client = makeClient(network)
        let endpoint = TestEndpoint(.get, "/users/1", headers: [HeaderItem(name: "X-Caller", value: String(index))])

        let ids = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<Self.callsPerStub {
                group.addTask { try await client.enqueue(endpoint).resume(expecting: User.self).id }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }

        #expect(ids == Array(repeating: index, count: Self.callsPerStub))
        let requests = network.requests
        #expect(requests.count == Self.callsPerStub)
        #expect(requests.allSatisfy { $0.headerValue(for: "X-Caller") == String(index) })
        #expect(network.unmatchedRequests.isEmpty)
    }

    /// 20 stubs, 1,000 calls interleaved in one task group: exact answers, exact counts.
    @Test func twentyStubsUnderOneThousandInterleavedCallsNeverCrossTalk() async throws {
        let stubCount = 20
        let callsPerStub = 50
        let networks = (0..<stubCount).map { _ in NetworkStub() }
        for (index, network) in networks.enumerated() {
            network.stub(.post, "/echo", with: .text("stub \(index)"))
        }
        let clients = networks.map { makeClient($0) }

        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for call in 0..<(stubCount * callsPerStub) {
                let index = call % stubCount
                let endpoint = TestEndpoint(.post, "/echo", body: .data(Data("from \(index)".utf8), contentType: "text/plain"))
                group.addTask { (index, try await clients[index].enqueue(endpoint).resume(expecting: String.self)) }
            }
            return try await group.reduce(into: [(Int, String)]()) { $0.append($1) }
        }

        #expect(answers.count == stubCount * callsPerStub)
        #expect(answers.allSatisfy { index, text in text == "stub \(index)" })
        for (index, network) in networks.enumerated() {
            let requests = network.requests
            #expect(requests.count == callsPerStub, "stub \(index)")
            #expect(requests.allSatisfy { $0.body == Data("from \(index)".utf8) }, "stub \(index)")
        }
    }

    @Test func everyTransportOfOneStubAnswersFromThatStub() async throws {
        let network = NetworkStub()
        network.stub(.get, "/", with: .status(204))
        let first = makeClient(network)
        let second = makeClient(network)

        _ = try await first.enqueue(TestEndpoint()).resume()
        _ = try await second.enqueue(TestEndpoint()).resume()

        #expect(network.requests.count == 2)
    }

    @Test func aNewStubStartsEmptyWhileAnotherHasTraffic() async throws {
        let busy = NetworkStub()
        busy.stub(.get, "/", with: .status(200))
        _ = try await makeClient(busy).enqueue(TestEndpoint()).resume()

        let fresh = NetworkStub()
        let result = await outcome(of: makeClient(fresh).enqueue(TestEndpoint()))

        #expect(result.rejectedResponse?.statusCode == 501)
        #expect(busy.requests.count == 1)
        #expect(fresh.requests.count == 1)
    }
}
