import Courier
import CourierOpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// `courier`'s GET sent as a generated client's operation: an `HTTPRequest` through
/// ``CourierClientTransport`` over the same kind of `Client`, its `HTTPBody` collected and
/// decoded as generated code does (`Data(collecting:upTo:)`, `JSONDecoder`), without the
/// runtime's converter. `openapi` runs over `URLSessionTransport.shared` (compare with
/// `courier`), `openapi-ahc` over `AsyncHTTPClientTransport` (compare with `courier-ahc`).
struct OpenAPIBenchClient: BenchClient {
    let label: String
    let transport: CourierClientTransport
    let serverURL: URL
    let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: Payload.path, headerFields: [.accept: "application/json"])
    let decoder = JSONDecoder()

    init(port: Int, overAsyncHTTPClient: Bool) {
        label = overAsyncHTTPClient ? "openapi-ahc" : "openapi"
        let client = Client(
            configuration: Configuration(transport: overAsyncHTTPClient ? AsyncHTTPClientTransport() : URLSessionTransport.shared))
        transport = CourierClientTransport(client, unauthenticatedOperations: ["getItem"])
        serverURL = URL(string: "http://127.0.0.1:\(port)")!
    }

    func fetch() async throws -> Item {
        let (response, body) = try await transport.send(request, body: nil, baseURL: serverURL, operationID: "getItem")
        guard response.status == .ok else { throw BenchError("\(label): status \(response.status)") }
        return try decoder.decode(Item.self, from: try await Data(collecting: body ?? HTTPBody(), upTo: 32 << 20))
    }
}
