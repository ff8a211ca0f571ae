public import Courier
public import Foundation

/// A `Transport` for tests: it records every request it is asked to send and answers from a
/// closure or a script, with no network at all.
///
/// ```swift
/// let transport = RecordingTransport(script: [.status(503), .status(503), .status(200, body: Data(#"{"id":1,"name":"Ada"}"#.utf8))])
/// var configuration = Configuration(transport: transport)
/// configuration.retryPolicy = .default   // no retries without one
/// configuration.clock = TestClock(sleepsReturnImmediately: true)
/// let user = try await Client(configuration: configuration).enqueue(GetUser(id: 1)).resume(expecting: User.self)
/// #expect(await transport.count == 3)
/// #expect(await transport.last?.head.headerFields[.authorization] == nil)
/// ```
///
/// It sees requests exactly as the client hands them to a transport: after every middleware,
/// retry and signing. Use `URLProtocol` stubs (``NetworkStub``) instead to test code that goes
/// through `URLSession`.
public actor RecordingTransport: Transport {
    /// One answer of a script.
    public enum Answer: Sendable {
        /// A response with this status, headers and body.
        case status(Int, headers: HTTPFields = [:], body: Data = Data())
        /// A failure, as a transport reports one (`.transport(…)`, `.cancelled`).
        case failure(CourierError)
    }

    /// Every request sent so far, in order.
    public private(set) var requests: [TransportRequest] = []
    private let answer: @Sendable (TransportRequest, Int) throws(CourierError) -> Response

    /// A transport that answers each request with `answer(request)`.
    public init(answer: @escaping @Sendable (TransportRequest) throws(CourierError) -> Response) {
        self.answer = { request, _ throws(CourierError) in try answer(request) }
    }

    /// A transport that answers every request with the same status, headers and body.
    public init(status: Int = 200, headers: HTTPFields = [:], body: Data = Data()) {
        self.init { request throws(CourierError) in
            Response(status: HTTPResponse.Status(code: status), headers: headers, body: body, url: request.url)
        }
    }

    /// A transport that answers the first request with `script[0]`, the second with `script[1]`,
    /// and so on; once the script runs out, every further request gets its last answer (a `200`
    /// with no body for an empty script).
    public init(script: [Answer]) {
        answer = { request, index throws(CourierError) in
            guard !script.isEmpty else { return Response(status: .ok, url: request.url) }
            switch script[min(index, script.count - 1)] {
            case .status(let status, let headers, let body):
                return Response(status: HTTPResponse.Status(code: status), headers: headers, body: body, url: request.url)
            case .failure(let error):
                throw error
            }
        }
    }

    /// Records `request` and answers it.
    public func send(_ request: TransportRequest) async throws(CourierError) -> StreamedResponse {
        let index = requests.count
        requests.append(request)
        return StreamedResponse(try answer(request, index))
    }

    /// How many requests were sent.
    public var count: Int { requests.count }
    /// The last request sent, if any.
    public var last: TransportRequest? { requests.last }
}

extension RecordingTransport: StoredCookieSource {
    /// None: a recording transport adds nothing to what it is asked to send.
    nonisolated package func storedCookieHeader(for url: URL) -> String? { nil }
}
