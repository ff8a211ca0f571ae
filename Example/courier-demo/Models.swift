/// The JSON shapes of the demo API, shared by the embedded server and the client side.

/// A user, as the API returns it.
struct User: Codable, Sendable, Equatable {
    var id: Int
    var name: String
    var email: String
}

/// The body of `POST /v1/users`.
struct NewUser: Codable, Sendable, Equatable {
    var name: String
    var email: String
}

/// The body of every error response: a machine-readable code and a sentence for people.
struct APIErrorBody: Codable, Sendable, Equatable {
    var error: String
    var message: String
}

/// The answer of `GET /v1/slow/arrivals/{ticket}`: the server has received the slow request
/// carrying `ticket`.
struct Arrival: Codable, Sendable, Equatable {
    var ticket: String
    var arrived: Bool
}

/// The answer of `GET /v1/admin/stats`: what the token endpoint has served since the API started.
struct AuthStats: Codable, Sendable, Equatable {
    /// Every `POST /oauth/token`, whatever the grant and the outcome.
    var tokenRequests: Int
    /// Token requests with `grant_type=refresh_token`.
    var refreshGrants: Int
    /// Token requests answered `invalid_grant`.
    var invalidGrants: Int
    /// Revocation requests (RFC 7009) received.
    var revocations: Int
}

/// The OAuth2 client the demo authenticates as (HTTP Basic at the token endpoint).
enum DemoClient {
    static let id = "courier-demo"
    static let secret = "not so secret: it ships in the demo"
}

/// The account the demo signs in with (the `password` grant); it is user #1.
enum DemoAccount {
    static let username = "ada@example.com"
    static let password = "analytical engine"
    static let userID = 1
}

/// What `POST /v1/uploads` received: the byte count and the framing headers it came with.
struct UploadReceipt: Codable, Sendable {
    var bytes: Int
    var contentLength: Int?
    var chunked: Bool
    var contentType: String
}
