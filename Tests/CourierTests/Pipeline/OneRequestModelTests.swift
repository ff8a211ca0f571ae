import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// `TransportRequest.head` is the one source of truth: the URL a transport sends to is derived
/// from it, so a stage that edits the head changes the wire, and the credential check sees it.
@Suite("One request model: the URL is the head's")
struct OneRequestModelTests {
    /// Edits the head only, never `url`.
    private struct EditHead: Middleware {
        let edit: @Sendable (inout HTTPRequest) -> Void
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            var request = request
            edit(&request.head)
            return try await next(request)
        }
    }

    @Test("a middleware that edits head.path changes the URL the transport sends to")
    func editingThePathChangesTheWire() async throws {
        let transport = RecordingTransport()
        let client = makeClient(transport) {
            $0.middleware = [EditHead { $0.path = "/v2" + ($0.path ?? "/") }]
        }
        _ = try await client.enqueue(TestEndpoint(pathString: "/users", queryItems: [QueryItem(name: "page", value: "2")])).resume()
        #expect(await transport.last?.url.absoluteString == "https://api.example.com/v2/users?page=2")
    }

    @Test("a middleware that edits head.authority to an unlisted origin gets no credential sent, and nothing is sent")
    func editingTheAuthorityIsChecked() async {
        let transport = RecordingTransport()
        let client = makeClient(transport) {
            $0.authentication = .basic(BasicCredential(username: "alice", password: "secret"))
            $0.authorizedHosts = ["api.example.com"]
            $0.middleware = [EditHead { $0.authority = "collector.example.net" }]
        }
        let result = await client.enqueue(TestEndpoint()).result()
        guard case .failure(.authentication(.hostNotAuthorized(let host))) = result else {
            Issue.record("expected hostNotAuthorized, got \(result)")
            return
        }
        #expect(host == "collector.example.net")
        #expect(await transport.count == 0)
    }

    @Test("the URL follows every edit of the head, and setting the URL sets the head")
    func urlAndHeadAgree() throws {
        var request = TransportRequest(
            head: HTTPRequest(method: .get, scheme: "https", authority: "a.example", path: "/p?q=1"), timeout: .seconds(1))
        #expect(request.url.absoluteString == "https://a.example/p?q=1")
        request.head.headerFields[.accept] = "text/plain"  // a header edit keeps the URL
        #expect(request.url.absoluteString == "https://a.example/p?q=1")
        request.head.authority = "b.example:8443"
        #expect(request.url.absoluteString == "https://b.example:8443/p?q=1")
        request.url = try #require(URL(string: "http://[::1]:8080/x/y?z=%20#frag"))
        #expect(request.head.scheme == "http")
        #expect(request.head.authority == "[::1]:8080")
        #expect(request.head.path == "/x/y?z=%20")
        request.url = try #require(URL(string: "https://c.example"))
        #expect(request.head.path == "/")
        #expect(request.url.absoluteString == "https://c.example/")
    }

    @Test("an init with both a head and a URL takes the URL's scheme, authority and path")
    func theURLWinsInTheInitializer() throws {
        let request = TransportRequest(
            head: HTTPRequest(method: .get, scheme: "https", authority: "a.example", path: "/old"),
            timeout: .seconds(1), url: URL(string: "https://b.example/new"))
        #expect(request.head.authority == "b.example")
        #expect(request.head.path == "/new")
    }

    @Test(
        "a head whose parts make no URL fails the call with invalidURL before the transport",
        arguments: [
            "/a path with spaces", "no-leading-slash", "/p#fragment", "/caf\u{E9}", "/bad%zzescape",
        ])
    func anUnusableHeadIsRefused(path: String) async {
        let transport = RecordingTransport()
        let client = makeClient(transport) { $0.middleware = [EditHead { $0.path = path }] }
        let result = await client.enqueue(TestEndpoint()).result()
        guard case .failure(.invalidRequest(.invalidURL)) = result else {
            Issue.record("expected invalidURL, got \(result)")
            return
        }
        #expect(await transport.count == 0)
    }

    @Test(
        "a head authority that is no host[:port] fails the call with invalidURL, never another host",
        arguments: [
            "api.example.com/evil", "a b.example", "", "api.example.com#x",
        ])
    func anUnusableAuthorityIsRefused(authority: String) async {
        let transport = RecordingTransport()
        let client = makeClient(transport) { $0.middleware = [EditHead { $0.authority = authority }] }
        let result = await client.enqueue(TestEndpoint()).result()
        guard case .failure(.invalidRequest(.invalidURL)) = result else {
            Issue.record("expected invalidURL, got \(result)")
            return
        }
        #expect(await transport.count == 0)
    }

    @Test("user-info set through the URL lands in the head's authority, and the call is refused")
    func userInfoThroughTheURLIsRefused() async throws {
        struct SetURL: Middleware {
            func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
                var request = request
                request.url = URL(string: "https://mallory:pw@api.example.com/")!
                return try await next(request)
            }
        }
        let transport = RecordingTransport()
        let result = await makeClient(transport) { $0.middleware = [SetURL()] }.enqueue(TestEndpoint()).result()
        guard case .failure(.invalidRequest(.invalidBaseURL(let shown, _))) = result else {
            Issue.record("expected invalidBaseURL, got \(result)")
            return
        }
        #expect(!shown.contains("pw"))
        #expect(await transport.count == 0)
    }
}
