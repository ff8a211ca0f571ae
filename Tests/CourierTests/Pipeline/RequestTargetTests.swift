import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// A request's URL is derived from its head and parsed by Foundation only when asked for; copies
/// of the request, and the response it gets from Courier's transports, share the one parse.
@Suite("Request target: the URL parsed once, when asked for")
struct RequestTargetTests {
    static func request(path: String = "/items?page=2", authority: String = "api.example.com:8443") -> TransportRequest {
        TransportRequest(head: HTTPRequest(method: .get, scheme: "https", authority: authority, path: path), timeout: .seconds(1))
    }

    @Test("the string the transport sends is the head's scheme, authority and path, and Foundation reads the same URL in it")
    func theStringAndTheURLAgree() throws {
        let request = Self.request()
        #expect(request.absoluteString == "https://api.example.com:8443/items?page=2")
        #expect(request.url.absoluteString == "https://api.example.com:8443/items?page=2")
        #expect(request.resolvedURL == request.url)
    }

    @Test(
        "a head that fails the byte checks has no string and no URL",
        arguments: ["/a path", "no-slash", "/p#f", "/caf\u{E9}", "/bad%zz"])
    func aHeadWithoutURLHasNoString(path: String) {
        let request = Self.request(path: path)
        #expect(request.absoluteString == nil)
        #expect(request.resolvedURL == nil)
        #expect(request.url == URL(string: "about:blank"))
    }

    @Test("copies share the target until one changes where it goes; a header edit keeps it")
    func copiesShareTheTarget() {
        let request = Self.request()
        var edited = request
        edited.head.headerFields[.accept] = "application/json"
        #expect(edited.sharesTargetAndRedaction(with: request))
        edited.head.path = "/other"
        #expect(!edited.sharesTargetAndRedaction(with: request))
        #expect(edited.url.absoluteString == "https://api.example.com:8443/other")
        #expect(request.url.absoluteString == "https://api.example.com:8443/items?page=2")
    }

    @Test("a response made from the request's location reports the request's URL and equals one made with that URL")
    func aResponseFromTheLocationHasTheRequestsURL() throws {
        let request = Self.request()
        let fromTarget = Response(status: .ok, headers: [:], body: Data("x".utf8), location: request.location)
        let fromURL = Response(status: .ok, body: Data("x".utf8), url: try #require(URL(string: "https://api.example.com:8443/items?page=2")))
        #expect(fromTarget.url == request.url)
        #expect(fromTarget == fromURL)
        var moved = fromTarget
        moved.url = try #require(URL(string: "https://api.example.com/elsewhere"))
        #expect(moved != fromURL)
        #expect(moved.url.absoluteString == "https://api.example.com/elsewhere")
    }

    @Test("a BaseURL's authority is its host, and its port when one is given")
    func theAuthorityIsStored() throws {
        #expect(try BaseURL(host: "API.example.com").authority == "api.example.com")
        #expect(try BaseURL(scheme: .http, host: "127.0.0.1", port: 8080).authority == "127.0.0.1:8080")
        #expect(try BaseURL(string: "http://[::1]:9000").authority == "[::1]:9000")
    }
}
