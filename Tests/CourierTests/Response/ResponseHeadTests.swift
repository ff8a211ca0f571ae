import Courier
import Foundation
import HTTPTypes
import Testing

@Suite("One head for Response and StreamedResponse")
struct ResponseHeadTests {
    private let url = URL(string: "https://api.example.com/items?page=2")!

    @Test("a streamed response and the response collected from it have the same head")
    func collectedResponseKeepsTheHead() async throws {
        var streamed = StreamedResponse(
            status: .created, headers: [.contentType: "Application/JSON; charset=\"UTF-8\"", .eTag: "\"v1\""],
            body: ResponseBody(Data("{}".utf8)), url: url)
        streamed.source = .revalidated
        let collected = try await streamed.collect(upTo: nil)
        #expect(collected.head == streamed.head)
        #expect(collected.head.source == .revalidated)
        #expect(StreamedResponse(collected).head == collected.head)
    }

    @Test("a call's streamed and collected responses carry the head the transport returned")
    func callHeads() async throws {
        let transport = RecordingTransport(status: 201, headers: HTTPFields(["Content-Type": "text/plain", "X-Trace": "t1"]), body: Data("hi".utf8))
        let client = makeClient(transport)
        let streamed = try await client.enqueue(TestEndpoint(pathString: "/a")).stream()
        let collected = try await client.enqueue(TestEndpoint(pathString: "/a")).resume()
        #expect(streamed.head == collected.head)
        #expect(collected.head.statusCode == 201)
        #expect(collected.head.headers[.init("X-Trace")!] == "t1")
    }

    @Test("the head's members read and write as the response's own")
    func dynamicMembers() {
        var response = Response(status: .ok, headers: [.contentType: "Text/HTML; charset=ISO-8859-1"], body: Data("x".utf8), url: url)
        #expect(response.statusCode == 200)
        #expect(response.mediaType == "text/html")
        #expect(response.charset == "iso-8859-1")
        #expect(response.url == url)

        response.status = .notFound
        response.headers[.eTag] = "\"v2\""
        response.source = .cache
        #expect(response.head.status == .notFound)
        #expect(response.head.headers[.eTag] == "\"v2\"")
        #expect(response.head.source == .cache)

        var streamed = StreamedResponse(response)
        streamed.headers.append(HTTPField(name: .cacheControl, value: "no-store"))
        #expect(streamed.head.headers[.cacheControl] == "no-store")
        #expect(streamed.mediaType == "text/html")
        #expect(streamed.head != response.head)
    }

    @Test("a head built by its public initializer equals the one a response builds")
    func publicInitializer() {
        let head = ResponseHead(status: .accepted, headers: [.contentType: "application/json"], url: url)
        let response = Response(status: .accepted, headers: [.contentType: "application/json"], url: url)
        #expect(response.head == head)
        #expect(head.source == .network)
        #expect(ResponseHead(status: .ok, url: url, source: .cache) != ResponseHead(status: .ok, url: url))
    }
}
