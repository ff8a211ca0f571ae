import Courier
import CourierTesting
import CourierXML
import Foundation

/// An endpoint whose every member can be set, for the XML tests.
struct XMLEndpoint: Requestable {
    var pathString = "/xml"
    var method: HTTPMethod = .post
    var headerItems: [HeaderItem]?
    var body: RequestBody?
    var responseDecoder: (any ResponseBodyDecoder)?

    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath(pathString) }
    var requiresAuthorization: Bool { false }
}

/// A client whose transport is `network`, with `decoders` as its response decoders.
func makeClient(_ network: NetworkStub, decoders: [any ResponseBodyDecoder] = []) -> Client {
    Client(configuration: Configuration(transport: network.makeTransport(), responseDecoders: decoders))
}

/// A stub answering every request with `body` and `contentType`.
func stubNetwork(status: Int = 200, contentType: String? = "application/xml", body: String) -> NetworkStub {
    stubNetwork(status: status, contentType: contentType, data: Data(body.utf8))
}

/// A stub answering every request with `data` and `contentType`.
func stubNetwork(status: Int = 200, contentType: String? = "application/xml", data: Data) -> NetworkStub {
    let network = NetworkStub()
    let headers: HTTPFields = contentType.map { [.contentType: $0] } ?? [:]
    network.stub { _ in .data(data, status: status, headers: headers) }
    return network
}

/// A response built in memory, for decoder tests that need no client.
func makeResponse(_ body: String, contentType: String? = "application/xml", status: Int = 200) -> Response {
    makeResponse(data: Data(body.utf8), contentType: contentType, status: status)
}

/// A response built in memory from bytes.
func makeResponse(data: Data, contentType: String? = "application/xml", status: Int = 200) -> Response {
    Response(
        statusCode: status, headers: contentType.map { ["Content-Type": $0] } ?? [:], body: data,
        url: URL(string: "https://api.example.com/xml")!)
}

extension CourierError {
    /// The `DecodingError` of a `.decoding` failure, if it holds one.
    var decodingError: DecodingError? {
        if case .decoding(let failure) = self { return failure.decodingError }
        return nil
    }

    /// The ``XMLParsingError`` under a `.decoding` failure's `DecodingError.dataCorrupted`.
    var xmlParsingError: XMLParsingError? {
        guard case .dataCorrupted(let context)? = decodingError else { return nil }
        return context.underlyingError as? XMLParsingError
    }
}

extension DecodingError {
    /// The `DecodingError.Context`, whatever the case.
    var context: DecodingError.Context? {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            context
        @unknown default:
            nil
        }
    }
}

/// Runs `body` and returns the `CourierError` it throws, or `nil` if it does not throw (or throws
/// something else).
func courierError<T>(_ body: () async throws -> T) async -> CourierError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? CourierError
    }
}
