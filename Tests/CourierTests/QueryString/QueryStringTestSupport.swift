import Foundation

@testable import Courier

/// The query the engine writes for `parameters` (after `items`), without `?`.
func formatted(
    _ parameters: QueryParameters?, items: [QueryItem] = [],
    _ options: QueryStringFormattingOptions = QueryStringFormattingOptions()
) throws(CourierError) -> String {
    try QueryStringEncoder(options: options).encode(items: items, parameters: parameters)
}

/// The reason of the `encodingFailed` error `body` throws; `nil` when it succeeds or fails otherwise.
func encodingFailure(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch {
        guard case .invalidRequest(.encodingFailed(let reason, _)) = error as? CourierError else { return nil }
        return reason
    }
}

/// An endpoint with nested query parameters and its own formatting options, for tests.
struct QueryEndpoint: Requestable {
    var pathString = "/search"
    var method: HTTPMethod = .get
    var headerItems: [HeaderItem]?
    var queryItems: [QueryItem]?
    var queryParameters: QueryParameters?
    var queryStringOptions: QueryStringFormattingOptions?
    var body: RequestBody?

    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(host: "api.example.com") }
    func path() throws(CourierError) -> URLPath { try URLPath(pathString) }
}
