import Courier
import Foundation
import Testing

@Suite("Errors keep their evidence and print no secrets")
struct ErrorTests {
    @Test("a transport failure passes through with its URLError code and failing URL")
    func transportFailurePassesThrough() async throws {
        let url = try #require(URL(string: "https://api.example.com/"))
        let transport = RecordingTransport { _ throws(CourierError) -> Response in
            throw .transport(TransportFailure(URLError(.cannotFindHost, userInfo: [NSURLErrorFailingURLErrorKey: url])))
        }
        await #expect {
            _ = try await makeClient(transport).enqueue(TestEndpoint()).resume()
        } throws: { error in
            guard let error = error as? CourierError, case .transport(let failure) = error else { return false }
            return failure.kind == .dnsFailure && error.urlError?.code == .cannotFindHost
                && failure.urlError?.failingURL == url && failure.url == url
        }
    }

    @Test(
        "URL error codes map onto failure kinds",
        arguments: [
            (URLError.Code.timedOut, TransportFailure.Kind.timedOut),
            (.cannotFindHost, .dnsFailure), (.dnsLookupFailed, .dnsFailure),
            (.cannotConnectToHost, .cannotConnect), (.notConnectedToInternet, .cannotConnect),
            (.networkConnectionLost, .connectionLost),
            (.secureConnectionFailed, .secureConnectionFailed), (.serverCertificateUntrusted, .secureConnectionFailed),
            (.badServerResponse, .badResponse), (.unknown, .other),
        ])
    func kinds(code: URLError.Code, kind: TransportFailure.Kind) {
        #expect(TransportFailure(URLError(code)).kind == kind)
    }

    @Test("a transport failure's description names the URL error code and redacts the URL")
    func transportDescription() throws {
        let url = try #require(URL(string: "http://ada:pw@127.0.0.1:1/v1/users?key=SECRET&page=2"))
        let text = TransportFailure(URLError(.cannotConnectToHost), url: url).description
        #expect(text == "cannotConnect, URLError -1004 (cannotConnectToHost), for http://<redacted>@127.0.0.1:1/v1/users?key=<redacted>&page=2")
    }

    @Test("a call whose task is already cancelled ends as cancelled and sends nothing")
    func cancelledBeforeSending() async {
        let transport = RecordingTransport()
        let client = makeClient(transport)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.enqueue(TestEndpoint()).resume()
        }
        await #expect {
            _ = try await task.value
        } throws: { error in
            if case .cancelled = error as? CourierError { return true }
            return false
        }
        #expect(await transport.count == 0)
    }

    @Test("descriptions name the problem but never print header values, the query or the whole body")
    func descriptionsHideSecrets() throws {
        let url = try #require(URL(string: "https://api.example.com/v1/me?access_token=SECRET-QUERY"))
        let response = Response(
            statusCode: 401, headers: ["Set-Cookie": "session=SECRET-COOKIE"],
            body: Data(#"{"token":"SECRET-BODY"}"#.utf8), url: url)
        let errors: [CourierError] = [
            .response(response),
            .decoding(DecodingFailure(reason: .invalidText(charset: "utf-8"), response: response, expectedType: "User")),
            .transport(TransportFailure(URLError(.timedOut), url: url)),
            .invalidRequest(.invalidHeaderValue(name: "Authorization")),
            .authentication(.missingCredential),
            .authentication(
                .refreshFailed(RefreshFailure(reason: .rejected, oauth2Error: OAuth2Error(code: "invalid_grant"), statusCode: 400, isPermanent: true))),
            .cancelled,
        ]
        for error in errors {
            let text = String(describing: error) + error.localizedDescription
            #expect(!text.contains("SECRET"), "\(text)")
            #expect(!text.isEmpty)
        }
        #expect(String(describing: CourierError.response(response)).contains("401"))
        #expect(String(describing: CourierError.response(response)).contains("https://api.example.com/v1/me"))
        #expect(HeaderItem(name: "Authorization", value: "Bearer SECRET").description == "Authorization: Bearer <redacted>")
    }

    @Test("the response accessor finds the response in response and decoding errors")
    func responseAccessor() throws {
        let url = try #require(URL(string: "https://api.example.com/"))
        let response = Response(statusCode: 500, url: url)
        #expect(CourierError.response(response).response == response)
        #expect(CourierError.decoding(DecodingFailure(reason: .other("x"), response: response, expectedType: "T")).response == response)
        #expect(CourierError.cancelled.response == nil)
        #expect(CourierError.cancelled.urlError == nil)
    }

    @Test(
        "invalid-request descriptions name the offending input",
        arguments: [
            (InvalidRequest.invalidHost("bad host", reason: "contains white space"), "bad host"),
            (.invalidPort(70000), "70000"),
            (.invalidPath("/a//b", reason: "has an empty segment"), "/a//b"),
            (.invalidBaseURL("ftp://x", reason: "the scheme must be http or https"), "ftp://x"),
            (.invalidMethod("G ET"), "G ET"),
            (.invalidHeaderName("X Y"), "X…"),
            (.invalidHeaderName("X:Y"), "U+3A"),
            (.invalidHeaderValue(name: "X-Token"), "X-Token"),
            (.bodyNotAllowed(method: "GET"), "GET"),
            (.encodingFailed("invalid value at value"), "invalid value"),
            (.invalidURL("https://x.invalid"), "https://x.invalid"),
            (.invalidTimeout(.zero), "timeout"),
        ])
    func invalidRequestDescriptions(problem: InvalidRequest, mention: String) {
        #expect(CourierError.invalidRequest(problem).description.contains(mention))
    }
}
