import Courier
import CourierTesting
import FlyingFox
import Foundation
import Testing

/// Status codes outside what an endpoint accepts end as `.response`, keeping the whole response.
@Suite("Unacceptable status codes", .loopback, .timeLimit(.minutes(1)))
struct StatusCodeIntegrationTests {
    struct Problem: Decodable, Equatable, Sendable {
        var error: String
        var detail: String
    }

    static func problemBody(for code: Int) -> Data {
        // Pretty-printed, with non-ASCII text and a trailing newline: any re-encoding would show.
        Data("{\n  \"error\" : \"status-\(code)\",\n  \"detail\" : \"Zoë’s request — rejected\"\n}\n".utf8)
    }

    @Test(arguments: TransportKind.allCases, [(404, "Not Found"), (500, "Internal Server Error")])
    func aNon2xxStatusEndsAsResponseErrorKeepingStatusHeadersAndBody(kind: TransportKind, status: (code: Int, phrase: String)) async throws {
        let (code, phrase) = status
        try await TestServer.run { server in
            let body = Self.problemBody(for: code)
            await server.route("GET /orders/17") { _ in
                FlyingFox.HTTPResponse(
                    statusCode: HTTPStatusCode(code, phrase: phrase),
                    headers: [.contentType: "application/problem+json", HTTPHeader("X-Request-Id"): "req-\(code)"],
                    body: body
                )
            }

            let result = try await server.client(transport: kind).enqueue(server.endpoint("/orders/17")).result(expecting: Problem.self)

            guard case .failure(.response(let response)) = result else {
                Issue.record("expected .response, got \(result)")
                return
            }
            #expect(response.statusCode == code)
            #expect(response.headerValue(for: "x-request-id") == "req-\(code)")
            #expect(response.mediaType == "application/problem+json")
            #expect(response.body == body)
            #expect(response.url.path == "/orders/17")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func anEndpointThatAccepts404ReturnsItsResponse(_ kind: TransportKind) async throws {
        try await TestServer.run { server in
            let body = Self.problemBody(for: 404)
            await server.route("GET /orders/17") { _ in
                FlyingFox.HTTPResponse(statusCode: .notFound, headers: [.contentType: "application/json"], body: body)
            }
            let endpoint = try server.endpoint("/orders/17").with { $0.acceptableStatusCodes = [200, 404] }
            let client = server.client(transport: kind)

            let response = try await client.enqueue(endpoint).resume()
            let problem = try await client.enqueue(endpoint).resume(expecting: Problem.self)

            #expect(response.statusCode == 404)
            #expect(response.body == body)
            #expect(problem == Problem(error: "status-404", detail: "Zoë’s request — rejected"))
        }
    }

    /// On Swift 6.3.1 Linux, URLSession raises an authentication challenge for a 401 carrying
    /// `WWW-Authenticate: Basic realm=…` and, if the session delegate answers with default
    /// handling and no credential, never ends the task (fixed upstream in 6.3.2); URLSession's own
    /// request timeout does not rescue it. Courier's session delegate declines such challenges and
    /// turns the resulting cancellation into the 401 it already received. The endpoint timeout
    /// (15 s, hundreds of times what a local 401 takes) turns a regression into
    /// `.transport(.timedOut)`, which fails the test; the time limit catches a hang that even
    /// Courier's deadline misses.
    @Test(
        .timeLimit(.minutes(1)),
        arguments: TransportKind.allCases,
        [
            #"Basic realm="x""#,
            #"Basic realm="api", charset="UTF-8""#,
            #"basic realm="x""#,
            "Basic",
            "Bearer",
            #"Bearer realm="api", error="invalid_token", error_description="The access token expired""#,
            #"Digest realm="x", qop="auth", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093""#,
            "Negotiate",
        ]
    )
    func a401WithAChallengeReturnsPromptlyAsResponseError(kind: TransportKind, challenge: String) async throws {
        try await Self.expectA401Response(carrying: challenge, within: .seconds(15), on: kind)
    }

    static func expectA401Response(carrying challenge: String, within timeout: Duration, on kind: TransportKind = .platformDefault) async throws {
        try await TestServer.run { server in
            let body = Data(#"{"error":"unauthorized"}"#.utf8)
            let hits = Recorder<String>()
            await server.route("GET /private") { request in
                await hits.record(request.headers[.authorization] ?? "<none>")
                return FlyingFox.HTTPResponse(
                    statusCode: .unauthorized,
                    headers: [HTTPHeader("WWW-Authenticate"): challenge, .contentType: "application/json"],
                    body: body
                )
            }
            let endpoint = try server.endpoint("/private").with { $0.timeout = timeout }

            let result = await server.client(transport: kind).enqueue(endpoint).result()

            guard case .failure(.response(let response)) = result else {
                Issue.record("expected .response(401), got \(result)")
                return
            }
            #expect(response.statusCode == 401)
            #expect(response.headerValue(for: "WWW-Authenticate") == challenge)
            #expect(response.body == body)
            // URLSession must not have answered the challenge with some credential and retried.
            #expect(await hits.values == ["<none>"])
        }
    }
}
