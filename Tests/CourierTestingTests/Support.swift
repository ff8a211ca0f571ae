import Courier
import CourierTesting
import Foundation

/// A user, as the stubbed API returns it.
struct User: Codable, Sendable, Equatable {
    var id: Int
    var name: String
}

/// A user, as the client sends it.
struct NewUser: Codable, Sendable, Equatable {
    var name: String
    var age: Int
}

/// An endpoint of the (never contacted) API at api.example.com, configurable per test.
struct TestEndpoint: Requestable {
    var method: HTTPMethod = .get
    var pathString = "/"
    var queryItems: [QueryItem]?
    var headerItems: [HeaderItem]?
    var body: RequestBody?
    var timeout: Duration?

    init(
        _ method: HTTPMethod = .get,
        _ path: String = "/",
        query: [QueryItem]? = nil,
        headers: [HeaderItem]? = nil,
        body: RequestBody? = nil,
        timeout: Duration? = nil
    ) {
        self.method = method
        self.pathString = path
        self.queryItems = query
        self.headerItems = headers
        self.body = body
        self.timeout = timeout
    }

    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath(pathString) }
}

/// A client whose transport is `network`.
func makeClient(_ network: NetworkStub, encoder: JSONEncoder = JSONEncoder()) -> Client {
    Client(configuration: Configuration(transport: network.makeTransport(), encoder: encoder))
}

/// The response of `call`, or the error it threw.
func outcome(of call: Call) async -> Result<Response, CourierError> {
    do throws(CourierError) {
        return .success(try await call.resume())
    } catch {
        return .failure(error)
    }
}

extension Result where Failure == CourierError {
    /// The error, if this is a failure.
    var courierError: CourierError? {
        if case .failure(let error) = self { return error }
        return nil
    }

    /// The response carried by `.response(_:)`, if the call failed with one.
    var rejectedResponse: Response? {
        if case .failure(.response(let response)) = self { return response }
        return nil
    }

    var isCancelled: Bool {
        if case .failure(.cancelled) = self { return true }
        return false
    }
}
