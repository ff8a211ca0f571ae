import Courier
import Foundation
import HTTPTypes

/// A transport that records what it is asked to send and answers with a canned response.
actor RecordingTransport: Transport {
    private(set) var requests: [TransportRequest] = []
    private let answer: @Sendable (TransportRequest) throws(CourierError) -> Response

    init(answer: @escaping @Sendable (TransportRequest) throws(CourierError) -> Response) {
        self.answer = answer
    }

    init(status: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
        self.init { request throws(CourierError) in
            Response(statusCode: status, headers: headers, body: body, url: request.url)
        }
    }

    func send(_ request: TransportRequest) async throws(CourierError) -> Response {
        requests.append(request)
        return try answer(request)
    }

    var count: Int { requests.count }
    var last: TransportRequest? { requests.last }
}

/// An endpoint whose every member can be set, for tests.
struct TestEndpoint: Requestable {
    var host = "api.example.com"
    var pathString = "/"
    var method: HTTPMethod = .get
    var headerItems: [HeaderItem]?
    var queryItems: [QueryItem]?
    var body: RequestBody?
    var timeout: Duration?
    var acceptableStatusCodes: Set<Int> = Response.successStatusCodes

    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: host) }
    func path() throws(CourierError) -> URLPath { try URLPath(pathString) }
}

func makeClient(_ transport: RecordingTransport, configure: (inout Configuration) -> Void = { _ in }) -> Client {
    var configuration = Configuration(transport: transport)
    configure(&configuration)
    return Client(configuration: configuration)
}

extension TransportRequest {
    var bodyData: Data? {
        if case .data(let data)? = body { return data }
        return nil
    }

    func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { head.headerFields[$0] }
    }
}

extension Call {
    /// The outcome of ``Call/resume()`` as a `Result`.
    func result() async -> Result<Response, CourierError> {
        do {
            return .success(try await resume())
        } catch {
            return .failure(error)
        }
    }
}
