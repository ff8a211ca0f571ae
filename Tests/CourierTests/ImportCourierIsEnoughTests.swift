import Courier
import Testing

// This file imports Courier and Testing only, on purpose: it is the middleware and the request
// signer of the guides (Documentation/Middleware.md, Documentation/Authentication.md) written as
// a user writes them. `HTTPField`, `HTTPFields` and `HTTPRequest` come from swift-http-types,
// which Courier re-exports (Sources/Courier/Exports.swift). Do not add an import here.

@Suite("import Courier is enough for the guides' middleware and signers")
struct ImportCourierIsEnoughTests {
    struct RequestID: Middleware {
        let id: String

        func intercept(
            _ request: TransportRequest, context: MiddlewareContext, next: Next
        ) async throws(CourierError) -> StreamedResponse {
            var request = request
            request.head.headerFields[HTTPField.Name("X-Request-ID")!] = id
            request.head.headerFields.append(HTTPField(name: HTTPField.Name("X-Client")!, value: "guide"))
            return try await next(request)
        }
    }

    struct DateSigner: RequestSigner {
        static let date: HTTPField.Name = HTTPField.Name("X-Date")!

        func sign(_ request: inout TransportRequest, context: SigningContext) async throws(CourierError) {
            request.head.headerFields[Self.date] = "2026-11-26T17:00:00Z"
            request.head.headerFields[.authorization] = "HMAC attempt-\(context.attempt)"
        }
    }

    struct Items: Requestable {
        func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    }

    actor HeadRecorder: Transport {
        private(set) var heads: [HTTPRequest] = []

        func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
            heads.append(request.head)
            return StreamedResponse(status: .ok, url: request.url)
        }
    }

    @Test("a middleware sets HTTPField headers and a signer signs with an HTTPField.Name")
    func middlewareAndSignerWithCourierAlone() async throws {
        let transport = HeadRecorder()
        var configuration = Configuration(transport: transport)
        configuration.middleware = [RequestID(id: "42")]
        configuration.authentication = .signed(DateSigner())
        configuration.authorizedHosts = ["api.example.com"]

        let response = try await Client(configuration: configuration).enqueue(Items()).resume()

        #expect(response.status == .ok)
        let heads = await transport.heads
        #expect(heads.count == 1)
        let fields: HTTPFields = try #require(heads.first).headerFields
        #expect(fields[HTTPField.Name("X-Request-ID")!] == "42")
        #expect(fields[HTTPField.Name("X-Client")!] == "guide")
        #expect(fields[DateSigner.date] == "2026-11-26T17:00:00Z")
        #expect(fields[.authorization] == "HMAC attempt-1")
    }
}

@Suite("Values a user's tests build with import Courier alone")
struct PublicInitializerTests {
    @Test("ProblemDetails has a public initializer, so code that handles one can be tested")
    func problemDetailsCanBeBuilt() {
        let problem = ProblemDetails(title: "Out of credit", status: 403, detail: "Your balance is 30.")
        #expect(problem.type == "about:blank")
        #expect(problem.status == 403)
    }
}
