import Courier
import Foundation
import HTTPTypes
import Testing

/// Records the order in which middleware ran, across tasks.
private actor Trace {
    private(set) var events: [String] = []
    func add(_ event: String) { events.append(event) }
}

/// Adds a header and records "name>" before and "<name" after `next`.
private struct Tagging: Middleware {
    let name: String
    let trace: Trace

    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        await trace.add("\(name)>")
        var request = request
        request.head.headerFields.append(HTTPField(name: HTTPField.Name("X-Trail")!, value: name))
        let response = try await next(request)
        await trace.add("<\(name)")
        return response
    }
}

/// Answers by itself, never calling `next`.
private struct ShortCircuit: Middleware {
    let outcome: Result<Int, CourierError>

    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        switch outcome {
        case .success(let status):
            return StreamedResponse(statusCode: status, headers: ["Content-Type": "application/json"], body: Data(#"{"cached":true}"#.utf8), url: request.url)
        case .failure(let error):
            throw error
        }
    }
}

/// Replaces the response's body.
private struct Rewriting: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        var response = try await next(request)
        response.body = ResponseBody(Data(#"{"rewritten":true}"#.utf8))
        return response
    }
}

/// Calls `next` again when the first answer is a 503.
private struct AgainOn503: Middleware {
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        let first = try await next(request)
        guard first.statusCode == 503 else { return first }
        return try await next(request)
    }
}

/// Records the Authorization header it sees.
private struct AuthorizationSpy: Middleware {
    let seen: Trace
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        await seen.add(request.head.headerFields[.authorization] ?? "none")
        return try await next(request)
    }
}

private struct MiddlewareEndpoint: Requestable {
    var middleware: [any Middleware] = []
    var requiresAuthorization: Bool { true }
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
}

@Suite("Middleware")
struct MiddlewareTests {
    @Test func clientMiddlewareRunsOutermostInArrayOrderThenTheEndpointsThenTheTransport() async throws {
        let trace = Trace()
        let transport = RecordingTransport()
        let client = makeClient(transport) {
            $0.middleware = [Tagging(name: "a", trace: trace), Tagging(name: "b", trace: trace)]
        }
        let endpoint = MiddlewareEndpoint(middleware: [Tagging(name: "e", trace: trace)])

        _ = try await client.enqueue(endpoint).resume()

        #expect(await trace.events == ["a>", "b>", "e>", "<e", "<b", "<a"])
        #expect(await transport.last?.head.headerFields[values: HTTPField.Name("X-Trail")!] == ["a", "b", "e"])
    }

    @Test func aMiddlewareCanAnswerWithoutTheNetwork() async throws {
        let transport = RecordingTransport()
        let client = makeClient(transport) { $0.middleware = [ShortCircuit(outcome: .success(200))] }

        let body = try await client.enqueue(TestEndpoint()).resume(expecting: [String: Bool].self)

        #expect(body == ["cached": true])
        #expect(await transport.count == 0)
    }

    @Test func aMiddlewareCanFailTheCallWithoutTheNetwork() async throws {
        let transport = RecordingTransport()
        let client = makeClient(transport) { $0.middleware = [ShortCircuit(outcome: .failure(.cancelled))] }

        let error = await #expect(throws: CourierError.self) {
            _ = try await client.enqueue(TestEndpoint()).resume()
        }

        guard case .cancelled? = error else {
            Issue.record("expected cancelled, got \(String(describing: error))")
            return
        }
        #expect(await transport.count == 0)
    }

    @Test func aSyntheticResponseIsStillValidatedAgainstTheEndpointsStatusCodes() async throws {
        let client = makeClient(RecordingTransport()) { $0.middleware = [ShortCircuit(outcome: .success(418))] }
        let error = await #expect(throws: CourierError.self) {
            _ = try await client.enqueue(TestEndpoint()).resume()
        }
        #expect(error?.response?.statusCode == 418)
    }

    @Test func aMiddlewareCanReplaceTheResponse() async throws {
        let transport = RecordingTransport(headers: HTTPFields(["Content-Type": "application/json"]), body: Data(#"{"rewritten":false}"#.utf8))
        let client = makeClient(transport) { $0.middleware = [Rewriting()] }

        let body = try await client.enqueue(TestEndpoint()).resume(expecting: [String: Bool].self)

        #expect(body == ["rewritten": true])
    }

    @Test func aMiddlewareCanCallNextAgain() async throws {
        let counter = Trace()
        let transport = RecordingTransport { request throws(CourierError) in
            Response(statusCode: 200, url: request.url)
        }
        let failingOnce = FirstCallFails(counter: counter)
        let client = makeClient(transport) { $0.middleware = [AgainOn503(), failingOnce] }

        let response = try await client.enqueue(TestEndpoint()).resume()

        #expect(response.statusCode == 200)
        #expect(await counter.events == ["503", "pass"])
        #expect(await transport.count == 1)
    }

    @Test func middlewareSeesTheRequestBeforeCredentialsAreAttached() async throws {
        let seen = Trace()
        let transport = RecordingTransport()
        let client = makeClient(transport) {
            $0.middleware = [AuthorizationSpy(seen: seen)]
            $0.authentication = .basic(BasicCredential(username: "ada", password: "s3cret"))
            $0.authorizedHosts = ["api.example.com"]
        }

        _ = try await client.enqueue(MiddlewareEndpoint()).resume()

        #expect(await seen.events == ["none"])
        #expect(await transport.last?.head.headerFields[.authorization]?.hasPrefix("Basic ") == true)
    }

    @Test func aHostThatMayNotReceiveCredentialsFailsBeforeAnyMiddlewareRuns() async throws {
        let trace = Trace()
        let client = makeClient(RecordingTransport()) {
            $0.middleware = [Tagging(name: "a", trace: trace)]
            $0.authentication = .basic(BasicCredential(username: "ada", password: "s3cret"))
        }

        await #expect(throws: CourierError.self) {
            _ = try await client.enqueue(MiddlewareEndpoint()).resume()
        }

        #expect(await trace.events.isEmpty)
    }
}

/// Answers 503 the first time (without the network) and passes through after that.
private struct FirstCallFails: Middleware {
    let counter: Trace
    func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
        if await counter.events.isEmpty {
            await counter.add("503")
            return StreamedResponse(statusCode: 503, url: request.url)
        }
        await counter.add("pass")
        return try await next(request)
    }
}
