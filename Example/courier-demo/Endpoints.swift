import Courier

/// An endpoint of the demo API. The base URL is chosen at run time (the embedded server's
/// ephemeral port, or `--base-url`), so every endpoint carries it.
protocol DemoEndpoint: Requestable {
    var api: BaseURL { get }
}

extension DemoEndpoint {
    func baseURL() -> BaseURL { api }
}

/// `GET /v1/users`: every user.
struct ListUsers: DemoEndpoint {
    let api: BaseURL
    func path() throws(CourierError) -> URLPath { try URLPath("/v1/users") }
}

/// `GET /v1/users/{id}`: one user, or 404 with an ``APIErrorBody``.
struct GetUser: DemoEndpoint {
    let api: BaseURL
    let id: Int
    func path() throws(CourierError) -> URLPath { try URLPath(segments: ["v1", "users", String(id)]) }
}

/// `POST /v1/users`: creates a user from a JSON body; the API answers 201 with the stored user.
struct CreateUser: DemoEndpoint {
    let api: BaseURL
    let user: NewUser
    var method: HTTPMethod { .post }
    var body: RequestBody? { .json(user) }
    func path() throws(CourierError) -> URLPath { try URLPath("/v1/users") }
}

/// `GET /v1/slow?ticket=…`: answers only after a long time. The ticket lets
/// ``SlowArrival`` learn when the server has received this very request.
struct SlowCall: DemoEndpoint {
    let api: BaseURL
    var ticket: String?
    var timeout: Duration?
    var queryItems: [QueryItem]? { ticket.map { [QueryItem(name: "ticket", value: $0)] } }
    func path() throws(CourierError) -> URLPath { try URLPath("/v1/slow") }
}

/// `GET /v1/slow/arrivals/{ticket}`: a long poll that answers as soon as the server has
/// received the slow request with `ticket` (404 if it does not arrive within a few seconds).
struct SlowArrival: DemoEndpoint {
    let api: BaseURL
    let ticket: String
    func path() throws(CourierError) -> URLPath { try URLPath(segments: ["v1", "slow", "arrivals", ticket]) }
}

/// `GET /v1/me`: the signed-in user. Requires authorization: the client attaches the bearer token.
struct GetMe: DemoEndpoint {
    let api: BaseURL
    func path() throws(CourierError) -> URLPath { try URLPath("/v1/me") }
}

/// `GET /v1/admin/stats`: how many token requests the API has served (``AuthStats``).
struct GetAuthStats: DemoEndpoint {
    let api: BaseURL
    var requiresAuthorization: Bool { false }
    func path() throws(CourierError) -> URLPath { try URLPath("/v1/admin/stats") }
}

/// `POST /v1/uploads`: a multipart form; the API answers with an ``UploadReceipt``.
struct Upload: DemoEndpoint {
    let api: BaseURL
    let form: MultipartForm
    var method: HTTPMethod { .post }
    var body: RequestBody? { .multipart(form) }
    func path() throws(CourierError) -> URLPath { try URLPath("/v1/uploads") }
}

/// `POST /oauth/device`: the user, on a second screen, approves (or denies) the device that
/// shows `userCode` (RFC 8628 §3.3). The demo plays that user.
struct DecideDevice: DemoEndpoint {
    let api: BaseURL
    let userCode: String
    var approve = true
    var method: HTTPMethod { .post }
    var requiresAuthorization: Bool { false }
    var body: RequestBody? {
        .form([QueryItem(name: "user_code", value: userCode), QueryItem(name: "action", value: approve ? "approve" : "deny")])
    }
    func path() throws(CourierError) -> URLPath { try URLPath("/oauth/device") }
}

/// `GET /v1/events`: a Server-Sent Events stream (the server ends the first one after event 3).
struct StreamEvents: DemoEndpoint {
    let api: BaseURL
    func path() throws(CourierError) -> URLPath { try URLPath("/v1/events") }
}

/// `GET /v1/files/report.bin`: a 64 MiB file with an `ETag`; with `dropOnce`, the server drops
/// the first download of the process halfway.
struct DownloadReport: DemoEndpoint {
    let api: BaseURL
    var dropOnce = false
    var queryItems: [QueryItem]? { dropOnce ? [QueryItem(name: "drop", value: "1")] : nil }
    var timeout: Duration? { .seconds(120) }
    func path() throws(CourierError) -> URLPath { try URLPath("/v1/files/report.bin") }
}

/// The WebSocket echo.
struct LiveEcho: DemoEndpoint {
    let api: BaseURL
    func path() throws(CourierError) -> URLPath { try URLPath("/v1/live") }
}
