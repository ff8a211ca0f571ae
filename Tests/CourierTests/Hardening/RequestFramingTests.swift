import Foundation
import HTTPTypes
import Testing

@testable import Courier

/// Framing headers are Courier's to compute: set by hand they could disagree with the bytes sent
/// (a `Content-Length: 3` on a 10-byte body leaves 7 bytes to start the next request on a kept-alive
/// connection). They are refused wherever they come from, and nothing is sent.
@Suite("Request framing: headers that frame the message are refused")
struct RequestFramingTests {
    static let reserved = [
        "Content-Length", "content-length", "Transfer-Encoding", "Host", "Connection",
        "Keep-Alive", "Proxy-Connection", "TE", "Trailer", "Upgrade",
    ]

    private static func isReserved(_ error: any Error, _ name: String) -> Bool {
        guard case .invalidRequest(.reservedHeader(let refused))? = error as? CourierError else { return false }
        return refused.lowercased() == name.lowercased()
    }

    @Test("the unhashed reserved-name check agrees with the reserved set")
    func theFastCheckAgreesWithTheSet() throws {
        for name in RequestBuilder.reservedHeaders {
            #expect(RequestBuilder.isReserved(name), "\(name)")
        }
        for raw in Self.reserved {
            #expect(RequestBuilder.isReserved(try #require(HTTPField.Name(raw))), "\(raw)")
        }
        for raw in ["Accept", "Content-Type", "Authorization", "User-Agent", "Accept-Encoding", "Content-Lengths", "Hosts", "T"] {
            let name = try #require(HTTPField.Name(raw))
            #expect(RequestBuilder.isReserved(name) == RequestBuilder.reservedHeaders.contains(name), "\(raw)")
        }
    }

    @Test("an endpoint header that frames the message is refused and nothing is sent", arguments: reserved)
    func fromTheEndpoint(name: String) async {
        let transport = RecordingTransport()
        let endpoint = TestEndpoint(
            method: .post, headerItems: [HeaderItem(name: name, value: "3")],
            body: .data(Data("0123456789".utf8)))
        await #expect { _ = try await makeClient(transport).enqueue(endpoint).resume() } throws: { Self.isReserved($0, name) }
        #expect(await transport.count == 0)
    }

    @Test("a configuration header that frames the message is refused", arguments: ["Content-Length", "Host"])
    func fromTheConfiguration(name: String) async {
        let transport = RecordingTransport()
        let client = makeClient(transport) { $0.headers = [HeaderItem(name: name, value: "x")] }
        await #expect { _ = try await client.enqueue(TestEndpoint()).resume() } throws: { Self.isReserved($0, name) }
        #expect(await transport.count == 0)
    }

    private struct AddingHeader: Middleware {
        let name: String
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            var request = request
            request.head.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: "3"))
            return try await next(request)
        }
    }

    @Test("a middleware that adds a framing header fails the call before the transport", arguments: ["Content-Length", "Transfer-Encoding", "Host"])
    func fromAMiddleware(name: String) async {
        let transport = RecordingTransport()
        let client = makeClient(transport) { $0.middleware = [AddingHeader(name: name)] }
        let endpoint = TestEndpoint(method: .post, body: .data(Data("0123456789".utf8)))
        await #expect { _ = try await client.enqueue(endpoint).resume() } throws: { Self.isReserved($0, name) }
        #expect(await transport.count == 0)
    }

    @Test("the refusal names the header and explains why")
    func description() {
        let text = CourierError.invalidRequest(.reservedHeader("Content-Length")).description
        #expect(text.contains("Content-Length") && text.contains("computed by Courier"))
    }

    @Test("ordinary headers, Expect included, are still sent")
    func ordinaryHeadersPass() async throws {
        let transport = RecordingTransport()
        let endpoint = TestEndpoint(
            method: .post,
            headerItems: [
                HeaderItem(name: "Expect", value: "100-continue"),
                HeaderItem(name: "Content-Language", value: "en"),
            ],
            body: .data(Data("0123456789".utf8)))
        _ = try await makeClient(transport).enqueue(endpoint).resume()
        #expect(await transport.last?.header("Expect") == "100-continue")
    }
}

/// What a middleware makes of the URL is checked before the transport sees it.
@Suite("A middleware cannot send to a URL the transport must not use")
struct SendableURLTests {
    private struct PointingAt: Middleware {
        let url: String
        func intercept(_ request: TransportRequest, context: MiddlewareContext, next: Next) async throws(CourierError) -> StreamedResponse {
            var request = request
            request.url = URL(string: url)!
            return try await next(request)
        }
    }

    @Test(
        "file, ftp, hostless and user-info URLs are refused and nothing is sent",
        arguments: [
            "file:///etc/passwd", "ftp://files.example.com/x", "https://ghp_SECRET:x@api.example.com/", "https://ghp_SECRET@api.example.com/",
            "http:/no-host",
        ])
    func refused(url: String) async {
        let transport = RecordingTransport()
        let client = makeClient(transport) { $0.middleware = [PointingAt(url: url)] }
        await #expect {
            _ = try await client.enqueue(TestEndpoint()).resume()
        } throws: { error in
            // A URL with no authority makes no request target at all (invalidURL); the others make
            // one that must not be sent (invalidBaseURL).
            switch error as? CourierError {
            case .invalidRequest(.invalidBaseURL)?, .invalidRequest(.invalidURL)?:
                return !String(describing: error).contains("SECRET")
            default:
                return false
            }
        }
        #expect(await transport.count == 0)
    }
}
