import Courier
import CourierEndpoints
import CourierTesting
import Foundation
import HTTPTypes

/// What the declarative endpoint tests decode.
struct DeclaredUser: Codable, Sendable, Equatable {
    var login: String
    var id: Int
}

/// A body the tests encode.
struct DeclaredGist: Codable, Sendable, Equatable {
    var description: String
    var isPublic: Bool
}

/// The API every declarative test talks to (through a ``RecordingTransport``: nothing leaves).
let declaredAPI = API(string: "https://api.example.com/v3", headers: [.accept("application/vnd.example+json")])

/// Sends `endpoint` through a recording transport answering `status` with `body`, and returns
/// what reached the transport along with the outcome.
func sendDeclared(
    _ endpoint: some Requestable, status: Int = 200, body: Data = Data(),
    configure: (inout Configuration) -> Void = { _ in }
) async -> (request: TransportRequest?, result: Result<Response, CourierError>, count: Int) {
    let transport = RecordingTransport(status: status, headers: HTTPFields(["Content-Type": "application/json"]), body: body)
    let call: Call = makeClient(transport, configure: configure).enqueue(endpoint)
    let result = await call.result()
    return (await transport.last, result, await transport.count)
}

extension TransportRequest {
    /// Every header named `name`, in order.
    func headers(_ name: String) -> [String] {
        guard let fieldName = HTTPField.Name(name) else { return [] }
        return head.headerFields[values: fieldName]
    }

    /// The first header named `name`.
    func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { head.headerFields[$0] }
    }

    /// The body, when it is bytes in memory.
    var bodyData: Data? {
        if case .data(let data)? = body { return data }
        return nil
    }
}

/// A client that sends through `transport`, with `configure`'s changes.
func makeClient(_ transport: RecordingTransport, configure: (inout Configuration) -> Void = { _ in }) -> Client {
    var configuration = Configuration(transport: transport)
    configure(&configuration)
    return Client(configuration: configuration)
}

/// A `Requestable` of the plain kind, declaring no response type.
struct TestEndpoint: Requestable {
    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
}

extension Call {
    /// The outcome of `resume()` as a `Result`.
    func result() async -> Result<Response, CourierError> {
        do {
            return .success(try await resume())
        } catch {
            return .failure(error)
        }
    }
}
