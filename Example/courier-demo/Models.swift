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
