import Courier
import Foundation

/// The body every request fetches: one JSON object of about 212 bytes, the size the design
/// document's URLSession figures were measured with.
enum Payload {
    static let path = "/item.json"
    /// The same body with `ETag` and `Cache-Control: no-cache`; a request with that `ETag` in
    /// `If-None-Match` gets `304` without a body.
    static let revalidatedPath = "/item-304.json"
    /// The `ETag` FlyingFox gives it (nginx computes its own: ``BenchServer/revalidatedTag``).
    static let revalidatedTag = "\"item-v1\""

    static let json = #"""
        {"id":42,"name":"Courier benchmark item","email":"bench@example.com","active":true,\#
        "score":98.5,"tags":["swift","linux","http"],"createdAt":"2024-05-01T12:00:00Z",\#
        "owner":{"id":7,"login":"octo","verified":false}}
        """#

    /// `--payload-bytes`: the body's size in bytes, reached with a `padding` string the model
    /// ignores; 0 (or anything up to 225) keeps the 212-byte body. Set once, before any server or
    /// client starts.
    nonisolated(unsafe) static var size = 0

    static var data: Data {
        let base = Data(json.utf8)
        let overhead = #""padding":"","#.utf8.count
        guard size > base.count + overhead else { return base }
        var padded = Data("{".utf8)
        padded.append(Data(#""padding":""#.utf8))
        padded.append(Data(repeating: UInt8(ascii: "x"), count: size - base.count - overhead))
        padded.append(Data(#"","#.utf8))
        padded.append(base.dropFirst())
        return padded
    }
}

/// The model both clients decode the body into.
struct Item: Decodable, Sendable {
    struct Owner: Decodable, Sendable {
        let id: Int
        let login: String
        let verified: Bool
    }

    let id: Int
    let name: String
    let email: String
    let active: Bool
    let score: Double
    let tags: [String]
    let createdAt: String
    let owner: Owner

    /// Cheap check that a decode produced the expected value, so a broken server or client
    /// cannot pass as a fast one.
    var isExpected: Bool { id == 42 && owner.id == 7 && tags.count == 3 }
}

/// The endpoint Courier sends, written the way the documentation shows endpoints.
struct GetItem: Requestable {
    let base: BaseURL
    var requiresAuthorization = false
    /// The path: ``Payload/path``, or ``Payload/revalidatedPath`` for the cache's `304` client.
    var pathString = Payload.path

    func baseURL() throws(CourierError) -> BaseURL { base }
    func path() throws(CourierError) -> URLPath { try URLPath(pathString) }
}

/// ``GetItem`` as GettingStarted writes an endpoint: its base URL parsed from a string on every
/// call (`try BaseURL(string:)` in `baseURL()`), as most users' endpoints do.
struct ParsedGetItem: Requestable {
    /// `scheme://host:port`, parsed anew by each call.
    let base: String

    func baseURL() throws(CourierError) -> BaseURL { try BaseURL(string: base) }
    func path() throws(CourierError) -> URLPath { try URLPath(Payload.path) }
}
