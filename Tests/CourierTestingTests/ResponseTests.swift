import Courier
import CourierTesting
import Foundation
import Testing

@Suite("Stubbed responses through a Courier client")
struct ResponseTests {
    @Test func statusHeadersAndBodyReachTheCaller() async throws {
        let network = NetworkStub()
        let body = Data("<svg/>".utf8)
        network.stub(.get, "/logo", with: .data(body, status: 203, headers: HTTPFields(["Content-Type": "image/svg+xml", "ETag": "\"v1\""])))
        let client = makeClient(network)

        let response = try await client.enqueue(TestEndpoint(.get, "/logo")).resume()

        #expect(response.statusCode == 203)
        #expect(response.headerValue(for: "etag") == "\"v1\"")
        #expect(response.mediaType == "image/svg+xml")
        #expect(response.body == body)
        #expect(response.url.absoluteString == "https://api.example.com/logo")
    }

    @Test func aJSONStubDecodesThroughResumeExpecting() async throws {
        let network = NetworkStub()
        let users = [User(id: 1, name: "Ada"), User(id: 2, name: "Grace")]
        network.stub(.get, "/users", with: try .json(users))
        let client = makeClient(network)

        let decoded = try await client.enqueue(TestEndpoint(.get, "/users")).resume(expecting: [User].self)

        #expect(decoded == users)
    }

    @Test func jsonTextIsSentAsItIs() async throws {
        let network = NetworkStub()
        network.stub(.get, "/users/3", with: .json(#"{"id": 3, "name": "Katherine"}"#))
        let client = makeClient(network)

        let response = try await client.enqueue(TestEndpoint(.get, "/users/3")).resume()

        #expect(response.mediaType == "application/json")
        #expect(try response.decode(User.self, using: JSONBodyDecoder()) == User(id: 3, name: "Katherine"))
    }

    @Test func aTextStubDecodesAsString() async throws {
        let network = NetworkStub()
        network.stub(.get, "/motd", with: .text("Grüße"))
        let client = makeClient(network)

        let text = try await client.enqueue(TestEndpoint(.get, "/motd")).resume(expecting: String.self)

        #expect(text == "Grüße")
    }

    @Test(arguments: [400, 404, 409, 500, 503])
    func aStubbedErrorStatusFailsTheCallWithTheWholeResponse(status: Int) async throws {
        let network = NetworkStub()
        network.stub(.get, "/users/1", with: .json(#"{"error": "nope"}"#, status: status, headers: HTTPFields(["Retry-After": "5"])))
        let client = makeClient(network)

        let result = await outcome(of: client.enqueue(TestEndpoint(.get, "/users/1")))

        let response = try #require(result.rejectedResponse)
        #expect(response.statusCode == status)
        #expect(response.headerValue(for: "Retry-After") == "5")
        #expect(response.body == Data(#"{"error": "nope"}"#.utf8))
    }

    @Test(arguments: [
        URLError.Code.notConnectedToInternet, .timedOut, .cannotFindHost, .cannotConnectToHost,
        .networkConnectionLost, .secureConnectionFailed, .badServerResponse,
    ])
    func aStubbedURLErrorSurfacesAsTransportFailureKeepingItsCode(code: URLError.Code) async throws {
        let network = NetworkStub()
        network.stub(.get, "/feed", with: .failure(URLError(code)))
        let client = makeClient(network)

        let result = await outcome(of: client.enqueue(TestEndpoint(.get, "/feed")))

        guard case .failure(.transport(let failure)) = result else {
            Issue.record("expected a transport failure, got \(result)")
            return
        }
        #expect(failure.urlError?.code == code)
        #expect(failure.url?.absoluteString == "https://api.example.com/feed")
    }

    @Test(arguments: [0, 99, 600, 1000])
    func aStatusOutsideHTTPsRangeFailsAsBadServerResponse(status: Int) async {
        let network = NetworkStub()
        network.stub(.get, "/", with: .status(status))
        let client = makeClient(network)

        let result = await outcome(of: client.enqueue(TestEndpoint()))

        #expect(result.courierError?.urlError?.code == .badServerResponse)
    }

    /// On Linux (Swift 6.3.1) URLSession turns a 401 carrying a Basic challenge into an
    /// authentication challenge that never completes unless it is declined; through a stub, as
    /// over the network, URLSessionTransport must still deliver the 401 with its body.
    @Test(.timeLimit(.minutes(1)), arguments: [#"Basic realm="api""#, #"Digest realm="api", nonce="abc""#, "Bearer"])
    func aStubbed401WithAChallengeIsDeliveredAsAResponse(challenge: String) async throws {
        let network = NetworkStub()
        network.stub(.get, "/me", with: .data(Data("denied".utf8), status: 401, headers: HTTPFields(["WWW-Authenticate": challenge])))
        let client = makeClient(network)

        let result = await outcome(of: client.enqueue(TestEndpoint(.get, "/me", timeout: .seconds(30))))

        let response = try #require(result.rejectedResponse)
        #expect(response.statusCode == 401)
        #expect(response.headerValue(for: "WWW-Authenticate") == challenge)
        #expect(response.url.absoluteString == "https://api.example.com/me")
        #expect(response.body == Data("denied".utf8))
    }

    @Test func aRedirectIsDeliveredAsItIsAndNotFollowed() async throws {
        let network = NetworkStub()
        network.stub(.get, "/old", with: .status(301, headers: HTTPFields(["Location": "https://api.example.com/new"])))
        network.stub(.get, "/new", with: .status(200))
        let client = makeClient(network)

        let result = await outcome(of: client.enqueue(TestEndpoint(.get, "/old")))

        #expect(result.rejectedResponse?.statusCode == 301)
        #expect(network.requests.map(\.path) == ["/old"])
    }
}
