public import Courier
public import Foundation

/// What a ``NetworkStub`` answers to a request: an HTTP response (status, headers, body) or a
/// `URLError`, optionally after a delay.
///
/// Build one with a static factory and, if needed, add a delay:
///
/// ```swift
/// network.stub(.get, "/users/42", with: try .json(User(id: 42, name: "Ada")))
/// network.stub(.delete, "/users/42", with: .status(204))
/// network.stub(.get, "/avatar", with: .data(png, headers: [.contentType: "image/png"]))
/// network.stub(.get, "/feed", with: .failure(URLError(.notConnectedToInternet)))
/// network.stub(.get, "/slow", with: .status(200).delayed(by: .seconds(2)))
/// ```
///
/// Redirects are not followed: a stubbed 3xx response reaches the caller as it is.
public struct StubResponse: Sendable, Equatable {
    /// The HTTP status code, 100–599. Ignored when ``error`` is set. Any other code makes the
    /// request fail with `URLError(.badServerResponse)`.
    public var statusCode: Int
    /// The response's header fields. Ignored when ``error`` is set.
    public var headers: HTTPFields
    /// The response body. Ignored when ``error`` is set.
    public var body: Data
    /// When set, the request fails with this error instead of producing a response; Courier
    /// reports it as `CourierError/transport(_:)` keeping the error's code.
    public var error: URLError?
    /// How long to wait before answering; `nil` or zero answers at once. The wait blocks no
    /// thread, and cancelling the request ends it at once.
    public var delay: Duration?
    /// The scripted server of a WebSocket stub (``webSocket(subprotocol:_:)``).
    var peerScript: WebSocketPeer.Script?

    /// Creates a response from its parts. The static factories are usually shorter.
    public init(
        statusCode: Int = 200,
        headers: HTTPFields = [:],
        body: Data = Data(),
        error: URLError? = nil,
        delay: Duration? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.error = error
        self.delay = delay
    }

    /// A response with a status code and no body.
    ///
    /// ```swift
    /// network.stub(.delete, "/users/42", with: .status(204))
    /// ```
    public static func status(_ statusCode: Int, headers: HTTPFields = [:]) -> StubResponse {
        StubResponse(statusCode: statusCode, headers: headers)
    }

    /// A response carrying `data` as its body, sent as it is.
    ///
    /// ```swift
    /// network.stub(.get, "/avatar", with: .data(png, headers: [.contentType: "image/png"]))
    /// ```
    public static func data(_ data: Data, status: Int = 200, headers: HTTPFields = [:]) -> StubResponse {
        StubResponse(statusCode: status, headers: headers, body: data)
    }

    /// A response whose body is `text` in UTF-8, with `status` (200 unless given), sent as
    /// `text/plain; charset=utf-8` unless `headers` names a `Content-Type`.
    ///
    /// ```swift
    /// network.stub(.get, "/motd", with: .text("Hello"))
    /// network.stub(.get, "/motd", with: .text("Down for maintenance", status: 503))
    /// ```
    public static func text(_ text: String, status: Int = 200, headers: HTTPFields = [:]) -> StubResponse {
        StubResponse(
            statusCode: status, headers: headers.addingIfAbsent(.contentType, "text/plain; charset=utf-8"),
            body: Data(text.utf8))
    }

    /// A response whose body is `value` encoded as JSON with `encoder`, sent as
    /// `application/json` unless `headers` names a `Content-Type`.
    ///
    /// ```swift
    /// network.stub(.get, "/users/42", with: try .json(User(id: 42, name: "Ada")))
    /// ```
    /// - Throws: the `EncodingError` of `encoder` when `value` cannot be encoded.
    public static func json(
        _ value: some Encodable,
        status: Int = 200,
        headers: HTTPFields = [:],
        encoder: JSONEncoder = JSONEncoder()
    ) throws(EncodingError) -> StubResponse {
        let body: Data
        do {
            body = try encoder.encode(value)
        } catch let error as EncodingError {
            throw error
        } catch {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [], debugDescription: "The encoder failed: \(error)", underlyingError: error))
        }
        return StubResponse(
            statusCode: status, headers: headers.addingIfAbsent(.contentType, "application/json"),
            body: body)
    }

    /// A response whose body is the JSON document `json`, given as text and sent as it is (not
    /// encoded again), as `application/json` unless `headers` names a `Content-Type`.
    ///
    /// ```swift
    /// network.stub(.get, "/users/42", with: .json(#"{"id": 42, "name": "Ada"}"#))
    /// ```
    public static func json(_ json: String, status: Int = 200, headers: HTTPFields = [:]) -> StubResponse {
        StubResponse(
            statusCode: status, headers: headers.addingIfAbsent(.contentType, "application/json"),
            body: Data(json.utf8))
    }

    /// A request that fails with `error` and produces no response, as when the network is
    /// down or the server cannot be reached.
    ///
    /// ```swift
    /// network.stub(.get, "/feed", with: .failure(URLError(.timedOut)))
    /// // the call throws CourierError.transport with urlError?.code == .timedOut
    /// ```
    public static func failure(_ error: URLError) -> StubResponse {
        StubResponse(error: error)
    }

    /// This response, answered after `delay`. Cancelling the request while it waits ends it at
    /// once with a cancellation error (`CourierError/cancelled` through Courier).
    ///
    /// ```swift
    /// network.stub(.get, "/slow", with: .status(200).delayed(by: .milliseconds(300)))
    /// ```
    public func delayed(by delay: Duration) -> StubResponse {
        var copy = self
        copy.delay = delay
        return copy
    }
}

extension HTTPFields {
    /// These fields with `name: value` added, unless a field `name` exists.
    func addingIfAbsent(_ name: HTTPField.Name, _ value: String) -> HTTPFields {
        if self[name] != nil { return self }
        var copy = self
        copy[name] = value
        return copy
    }

    /// The fields as Foundation's `HTTPURLResponse` takes them: repeated fields joined by `", "`,
    /// also when their names differ in case (`Set-Cookie` and `set-cookie` are one field name,
    /// and two keys for it would leave `HTTPURLResponse` keeping either), under the first spelling.
    var foundationHeaders: [String: String] {
        var headers: [String: String] = [:]
        var spelling: [String: String] = [:]
        for field in self {
            let name = spelling[field.name.canonicalName] ?? field.name.rawName
            spelling[field.name.canonicalName] = name
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        return headers
    }
}

extension HTTPField.Name {
    /// `X-Courier-Stub`: why CourierTesting answered a request itself (`unmatched`, `released`,
    /// `invalid-fixture`, `no-fixture`).
    static let courierStub = HTTPField.Name("X-Courier-Stub")!
}
